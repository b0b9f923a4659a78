"""``POST /players`` (register), ``POST /players/login``, ``POST /players/password`` and ``GET /me``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import Field

from tablegames.server.contract.base import Closed
from tablegames.server.routes.deps import COMMON_ERRORS, Auth, Out, ServerDep, errors, off_loop
from tablegames.server.routes.protection import LimitsBody

router = APIRouter(tags=["players"], responses=COMMON_ERRORS)


class RegisterBody(Closed):
    name: str = Field(min_length=1, max_length=40)
    password: str | None = Field(default=None, max_length=200)  # to sign in again later (issue 25)
    limits: LimitsBody | None = None  # deposit, loss, session limits and the reality check (issue 26)


class LoginBody(Closed):
    name: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=200)


class PasswordBody(Closed):
    old: str | None = Field(default=None, max_length=200)
    new: str = Field(min_length=1, max_length=200)


class SignedIn(Out):
    player_id: int
    name: str
    token: str
    previous_login_at: float | None  # the start of your session before this one (issue 26; None: the first)


class Done(Out):
    ok: bool


class Registered(Out):
    player_id: int
    name: str
    token: str
    balance: int


class SeatOut(Out):
    table_id: int
    seat: int


class MeOut(Out):
    player_id: int
    name: str
    balance: int
    seats: list[SeatOut]


@router.post("/players", status_code=201, response_model=Registered, responses=errors(409))
async def register(request: Request, server: ServerDep, body: RegisterBody) -> Registered:
    info, token = await off_loop(request, server.players.register, body.name, body.password)
    if body.limits is not None:  # set at once (there is nothing to cool off from)
        await off_loop(
            request, server.protection.set_limits, info, body.limits.model_dump(exclude_unset=True), True
        )
    return Registered(player_id=info.player_id, name=info.name, token=token, balance=0)


@router.get("/me", response_model=MeOut, responses=errors(401))
async def me(request: Request, server: ServerDep, p: Auth) -> MeOut:
    return MeOut.model_validate(await off_loop(request, server.players.me, p))


@router.post("/players/login", response_model=SignedIn, responses=errors(401))
async def login(request: Request, server: ServerDep, body: LoginBody) -> SignedIn:
    """Sign in with the name and password given at registration: a new token (the old one stops working)."""
    info, token, previous = await off_loop(request, server.players.login, body.name, body.password)
    return SignedIn(player_id=info.player_id, name=info.name, token=token, previous_login_at=previous)


@router.post("/players/password", response_model=Done, responses=errors(401))
async def password(request: Request, server: ServerDep, p: Auth, body: PasswordBody) -> Done:
    """Set (or change, with the current one) your password."""
    await off_loop(request, server.players.set_password, p, body.old, body.new)
    return Done(ok=True)

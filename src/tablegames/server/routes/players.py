"""``POST /players`` (register) and ``GET /me``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import Field

from tablegames.server.contract.base import Closed
from tablegames.server.routes.deps import COMMON_ERRORS, Auth, Out, ServerDep, errors, off_loop

router = APIRouter(tags=["players"], responses=COMMON_ERRORS)


class RegisterBody(Closed):
    name: str = Field(min_length=1, max_length=40)


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
    info, token = await off_loop(request, server.players.register, body.name)
    return Registered(player_id=info.player_id, name=info.name, token=token, balance=0)


@router.get("/me", response_model=MeOut, responses=errors(401))
async def me(request: Request, server: ServerDep, p: Auth) -> MeOut:
    return MeOut.model_validate(await off_loop(request, server.players.me, p))

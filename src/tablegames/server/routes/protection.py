"""Player protection (issue 26; docs/protection.md): a player's ``GET /protection``, ``PUT /protection/limits``,
``POST /protection/break``, ``POST /protection/self-exclusion`` and ``POST /protection/stop`` (end the session);
the staff's register ``GET /staff/exclusions`` and ``POST /staff/exclusions/{name}/lift`` (always refused while
one is in force: nobody ends a break or self-exclusion early)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Request
from pydantic import Field, StrictInt

from tablegames.server import permissions
from tablegames.server.contract.base import Closed
from tablegames.server.core import PlayerInfo
from tablegames.server.protection import BREAK, SELF_EXCLUSION, ProtectionService
from tablegames.server.routes.deps import COMMON_ERRORS, Auth, Out, ServerDep, errors, off_loop, staff_may
from tablegames.server.sessions import Sessions

router = APIRouter(tags=["protection"], responses=COMMON_ERRORS)

Limit = Annotated[StrictInt, Field(ge=1)] | None


class LimitsBody(Closed):
    """Limits to set (cents; minutes for the session and the reality check); null removes one. Limits left out
    are unchanged."""

    deposit_day: Limit = None
    deposit_week: Limit = None
    deposit_month: Limit = None
    loss_day: Limit = None
    loss_week: Limit = None
    loss_month: Limit = None
    session_minutes: Limit = None
    reality_minutes: Limit = None


class LimitOut(Out):
    amount: int | None  # in force (None: no limit)
    pending: bool  # an increase or removal waits for its cooling-off
    pending_amount: int | None
    effective_at: float | None  # when it takes effect (the server's clock, epoch seconds)


class ExclusionOut(Out):
    kind: Literal["break", "self_exclusion"]
    period: str
    started_at: float
    ends_at: float
    active: bool


class SessionOut(Out):
    started_at: float
    played_seconds: int
    wagered: int
    won: int
    net: int
    games: int


class ProtectionOut(Out):
    limits: dict[str, LimitOut]
    used: dict[str, int]  # deposits and net losses of each rolling window so far (cents)
    exclusion: ExclusionOut | None
    session: SessionOut | None
    previous_login_at: float | None  # the start of the session before this one


class PeriodBody(Closed):
    period: str = Field(
        min_length=1, max_length=4, description="breaks: 1d 1w 1m 6w; self-exclusion: 6m 1y 5y"
    )


class Stopped(Out):
    ok: bool


class RegisterRow(Out):
    player: str
    player_id: int
    kind: Literal["break", "self_exclusion"]
    period: str
    started_at: float
    ends_at: float
    active: bool


class ReasonBody(Closed):
    reason: str = Field(default="", max_length=500)


def status(protection: ProtectionService, sessions: Sessions, p: PlayerInfo) -> dict[str, object]:
    return {
        **protection.status(p),
        "session": sessions.summary(p.player_id),
        "previous_login_at": sessions.previous_login(p.player_id),
    }


@router.get("/protection", response_model=ProtectionOut, responses=errors(401))
async def get_protection(request: Request, server: ServerDep, p: Auth) -> ProtectionOut:
    """Your limits (in force and pending), what each window has used, your break or exclusion, your session."""
    return ProtectionOut.model_validate(
        await off_loop(request, status, server.protection, server.player_sessions, p)
    )


@router.put("/protection/limits", response_model=ProtectionOut, responses=errors(401))
async def set_limits(request: Request, server: ServerDep, p: Auth, body: LimitsBody) -> ProtectionOut:
    """Set limits: a decrease takes effect at once, an increase or a removal 24 hours later."""
    changes = body.model_dump(exclude_unset=True)
    await off_loop(request, server.protection.set_limits, p, changes)
    return ProtectionOut.model_validate(
        await off_loop(request, status, server.protection, server.player_sessions, p)
    )


@router.post("/protection/break", response_model=ExclusionOut, responses=errors(401, 409))
async def take_break(request: Request, server: ServerDep, p: Auth, body: PeriodBody) -> ExclusionOut:
    """A time-out (1d, 1w, 1m, 6w): your sockets close at once; no wagers, buy-ins or seats until it ends."""
    return ExclusionOut.model_validate(
        await off_loop(request, server.protection.exclude, p, BREAK, body.period)
    )


@router.post("/protection/self-exclusion", response_model=ExclusionOut, responses=errors(401, 409))
async def self_exclude(request: Request, server: ServerDep, p: Auth, body: PeriodBody) -> ExclusionOut:
    """Self-exclusion (6m, 1y, 5y): as a break, and nobody can end it early."""
    return ExclusionOut.model_validate(
        await off_loop(request, server.protection.exclude, p, SELF_EXCLUSION, body.period)
    )


@router.post("/protection/stop", response_model=Stopped, responses=errors(401))
async def stop(request: Request, server: ServerDep, p: Auth) -> Stopped:
    """End your session now (a reality check's "stop playing"): your table sockets close."""
    return Stopped(ok=await off_loop(request, server.player_sessions.end, p.player_id, "logout"))


@router.get("/staff/exclusions", response_model=list[RegisterRow], responses=errors(401, 403))
async def exclusions(
    request: Request,
    server: ServerDep,
    who: Annotated[permissions.Actor, staff_may(permissions.EXCLUSIONS_VIEW)],
    all: bool = False,
) -> list[RegisterRow]:
    """The register of breaks and self-exclusions in force (``all``: every one ever), newest first."""
    return [
        RegisterRow.model_validate(r) for r in await off_loop(request, server.protection.register, not all)
    ]


Lifter = Annotated[permissions.Actor, staff_may(permissions.EXCLUSION_LIFT)]


@router.post("/staff/exclusions/{name}/lift", response_model=Stopped, responses=errors(401, 403, 404, 409))
async def lift(
    request: Request,
    server: ServerDep,
    who: Lifter,
    name: Annotated[str, Field(min_length=1, max_length=40)],
    body: ReasonBody,
) -> Stopped:
    """Refused while a break or self-exclusion is in force (``exclusion_locked``, 403): nobody ends one early.
    The attempt is in the audit trail."""
    await off_loop(request, server.protection.lift, who.name, name, body.reason)
    return Stopped(ok=True)  # (never reached: lift always refuses)

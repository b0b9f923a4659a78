"""Adjustments of players' balances with dual control (issue 25; server/adjustments.py): an operator's ``POST
/players/{name}/adjustments``, the list ``GET /adjustments`` and a second staff member's ``POST
/adjustments/{id}/approve|reject``; and an operator's ``PUT /players/{name}/suspension`` (server/accounts.py).
Each checks its action's roles (server/permissions.py) before the body is
read; every change is in the audit trail in its own transaction."""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import Field, StrictInt

from tablegames.server.adjustments import MAX_ADJUSTMENT, REASON_MAX
from tablegames.server.contract.base import Closed
from tablegames.server.permissions import ADJUST_DECIDE, ADJUST_VIEW, PLAYER_ADJUST, PLAYER_SUSPEND, Actor
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    Out,
    RowId,
    ServerDep,
    errors,
    off_loop,
    staff_may,
)

router = APIRouter(tags=["adjustments"], responses=COMMON_ERRORS)


class AdjustmentBody(Closed):
    amount: StrictInt = Field(
        ge=-MAX_ADJUSTMENT, le=MAX_ADJUSTMENT, description="cents: + credit, - debit; not 0"
    )
    reason: str = Field(min_length=1, max_length=REASON_MAX)
    request_id: str = Field(min_length=1, max_length=64, description="a repeat is answered as the first")


class DecisionBody(Closed):
    reason: str = Field(default="", max_length=REASON_MAX, description="required to reject")


class AdjustmentOut(Out):
    id: int
    player: str
    amount: int
    reason: str
    status: Literal["pending", "applied", "rejected"]
    requested_by: str
    requested_at: float
    decided_by: str | None
    decided_at: float | None
    decision_reason: str
    transaction_id: int | None
    duplicate: bool = False


@router.post(
    "/players/{name}/adjustments",
    status_code=201,
    response_model=AdjustmentOut,
    responses=errors(401, 403, 404, 409),
)
async def adjust(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(PLAYER_ADJUST)],
    name: str,
    body: AdjustmentBody,
) -> AdjustmentOut:
    """Adjust a player's balance: applied at once up to the dual-control threshold (``status: applied``),
    above it ``pending`` until another staff member approves it."""
    got = await off_loop(
        request,
        functools.partial(server.adjustments.request, actor, name, body.amount, body.reason, body.request_id),
    )
    return AdjustmentOut.model_validate(got)


class SuspensionBody(Closed):
    suspended: bool
    reason: str = Field(min_length=1, max_length=REASON_MAX)


class SuspensionOut(Out):
    name: str
    suspended: bool


@router.put("/players/{name}/suspension", response_model=SuspensionOut, responses=errors(401, 403, 404, 409))
async def suspension(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(PLAYER_SUSPEND)],
    name: str,
    body: SuspensionBody,
) -> SuspensionOut:
    """Suspend a player's account (every request of theirs refused, their table sockets closed) or reinstate
    it, with a reason (server/accounts.py; audited)."""
    got = await off_loop(
        request,
        functools.partial(server.accounts.set_suspended, actor.name, name, body.suspended, body.reason),
    )
    return SuspensionOut.model_validate(got)


@router.get("/adjustments", response_model=list[AdjustmentOut], responses=errors(401, 403))
async def adjustments(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(ADJUST_VIEW)],
    status: Annotated[Literal["pending", "applied", "rejected"] | None, Query()] = None,
    last: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[AdjustmentOut]:
    """The newest adjustments first (``status=pending``: those waiting for a second staff member)."""
    rows = await off_loop(request, server.adjustments.list, status, last)
    return [AdjustmentOut.model_validate(r) for r in rows]


@router.post(
    "/adjustments/{adjustment_id}/{decision}",
    response_model=AdjustmentOut,
    responses=errors(401, 403, 404, 409),
)
async def decide(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(ADJUST_DECIDE)],
    adjustment_id: RowId,
    decision: Literal["approve", "reject"],
    body: DecisionBody,
) -> AdjustmentOut:
    """Approve (apply) or reject another staff member's pending adjustment."""
    got = await off_loop(
        request,
        functools.partial(
            server.adjustments.decide, actor, adjustment_id, decision == "approve", body.reason
        ),
    )
    return AdjustmentOut.model_validate(got)

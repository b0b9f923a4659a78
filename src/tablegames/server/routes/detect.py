"""The live detector's flagged players (issue 27; server/detection.py, server/alerts.py): ``GET /detect/alerts``
(``detect.read``), ``POST /detect/alerts/{id}/ack`` (``detect.ack``, audited) and the staff socket ``/ws/staff``
that pushes each new alert to the back office: its first message is ``{"type": "auth", "token": ...}`` (a staff
session's token, never in the URL); a role without ``detect.read`` is closed with 4403."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, WebSocket, WebSocketDisconnect
from pydantic import Field

from tablegames.server.alerts import AlertHub, acknowledge, list_alerts
from tablegames.server.contract.base import Closed
from tablegames.server.errors import ApiError
from tablegames.server.permissions import DETECT_ACK, DETECT_READ, Actor, may
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    ServerDep,
    errors,
    off_loop,
    staff_may,
)

router = APIRouter(tags=["detect"], responses=COMMON_ERRORS)
AUTH_SECONDS = 10.0  # the staff socket's first message must arrive within this
NOTE_MAX = 500


class AlertOut(Out):
    id: int
    player: str
    partner: (
        str | None
    )  # a collusion alert (scenario share=K): the player whose cards the decisions agree with
    game: str
    scenario: str
    round_id: int  # the round at which the test crossed its threshold
    hand: int  # the player's hands in the test then
    log10_evidence: float  # log10 M when flagged
    threshold: float  # M >= threshold flags (scenarios / alpha)
    created_at: float
    acknowledged_by: str | None
    acknowledged_at: float | None
    hands: int  # the test now: hands, mistakes, mistakes the hidden cards supported
    mistakes: int
    supported: int
    evidence_rounds: list[int]  # the first rounds of supported mistakes (GET /rounds/{id})


class AckBody(Closed):
    note: str = Field(default="", max_length=NOTE_MAX)


def hub_of(app: Any) -> AlertHub:
    hub: AlertHub = app.state.alerts
    return hub


@router.get("/detect/alerts", response_model=list[AlertOut], responses=errors(401, 403))
async def alerts(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(DETECT_READ)],
    pending: bool = False,
    last: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[AlertOut]:
    """The flagged players, newest alert first (``pending``: not acknowledged yet), with the scenario, the
    test's hands, mistakes and supported mistakes, log10 M and the evidence rounds."""
    rows = await off_loop(request, list_alerts, server.db, last, pending)
    return [AlertOut.model_validate(r) for r in rows]


@router.post("/detect/alerts/{alert_id}/ack", response_model=AlertOut, responses=errors(401, 403, 404, 409))
async def ack(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(DETECT_ACK)],
    alert_id: Annotated[int, Path(ge=1, le=MAX_ROW_ID)],
    body: AckBody,
) -> AlertOut:
    """Acknowledge an alert (once; recorded in the audit trail in the same transaction)."""
    got = await off_loop(
        request,
        functools.partial(acknowledge, server.db, server.config.clock, actor.name, alert_id, body.note),
    )
    return AlertOut.model_validate(got)


@router.websocket("/ws/staff")
async def staff_socket(websocket: WebSocket, server: ServerDep) -> None:
    """Pushes ``{"type": "alert", "alert": {...}}`` for every new alert to a staff member allowed
    ``detect.read`` (after ``{"type": "ready"}``)."""
    await websocket.accept()
    try:
        first = json.loads(await asyncio.wait_for(websocket.receive_text(), AUTH_SECONDS))
        token = first.get("token") if isinstance(first, dict) and first.get("type") == "auth" else None
        who = await off_loop(websocket, server.staff.authenticate, token if isinstance(token, str) else None)
        if not may(who.role, DETECT_READ):
            raise ApiError("forbidden", f"a {who.role} may not do {DETECT_READ}", 403)
    except ApiError as exc:
        await websocket.send_text(json.dumps({"type": "error", **exc.to_dict()}))
        await websocket.close(code=4403 if exc.status == 403 else 4401)
        return
    except (TimeoutError, ValueError, WebSocketDisconnect, RuntimeError):
        with contextlib.suppress(Exception):
            await websocket.close(code=4401)
        return
    hub = hub_of(websocket.app)
    queue = hub.join()
    if queue is None:
        await websocket.send_text(
            json.dumps({"type": "error", "code": "busy", "message": "too many staff sockets"})
        )
        await websocket.close(code=1013)
        return

    async def reader() -> None:  # the client says nothing more; its close ends the socket
        with contextlib.suppress(Exception):
            while (await websocket.receive())["type"] != "websocket.disconnect":
                pass

    closed = asyncio.create_task(reader())
    try:
        await websocket.send_text(json.dumps({"type": "ready"}))
        while True:
            got = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({got, closed}, return_when=asyncio.FIRST_COMPLETED)
            if got not in done:
                got.cancel()
                return
            alert = got.result()
            if alert is None:  # could not keep up: the page reconnects and re-reads the list
                await websocket.close(code=1013)
                return
            await websocket.send_text(json.dumps({"type": "alert", "alert": alert}))
    except Exception:
        return
    finally:
        hub.leave(queue)
        closed.cancel()

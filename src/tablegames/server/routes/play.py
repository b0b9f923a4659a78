"""The WebSocket of a table: ``/ws/tables/{table_id}?token=...`` (or ``?watch=1``: a spectator) (docs/protocol.md). Each message is handled
on the table's thread, one step at a time; the socket's sender drains its outgoing queue."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from tablegames.server.client import CLOSE_REDIRECT, Connection
from tablegames.server.cluster import NotOwner
from tablegames.server.core import SPECTATOR
from tablegames.server.errors import ApiError
from tablegames.server.limits import SEND_TEXT
from tablegames.server.protection import CLOSE_EXCLUDED
from tablegames.server.routes.deps import RowId, ServerDep, off_loop

router = APIRouter()

STALE_POLL_SECONDS = 0.25
STALE_WAITS = 16  # up to 4 s: more than a stale lease has left


@router.websocket("/ws/tables/{table_id}")
async def play(
    websocket: WebSocket, server: ServerDep, table_id: RowId, token: str | None = None, watch: bool = False
) -> None:
    """A player's socket (``token``), or a spectator's (``watch=1`` and no token, issue 24): public cards only,
    every state-changing message refused with ``spectator``."""
    await websocket.accept()
    try:
        if watch and not token:
            who = SPECTATOR
        else:
            who = await off_loop(websocket, server.players.authenticate, token)
            await off_loop(websocket, server.protection.check_play, who)  # breaks, exclusions (issue 26)
        for waited in itertools.count():
            try:
                runner = await off_loop(websocket, server.tables.runner, table_id)
                break
            except (
                NotOwner
            ) as moved:  # another process serves the table: the client is sent there (cluster.py)
                if (
                    moved.stale and waited < STALE_WAITS
                ):  # its owner may be dead: a renewal or a takeover first
                    await asyncio.sleep(STALE_POLL_SECONDS)
                    continue
                redirect = {"type": "redirect", "url": moved.owner["url"], "table_id": table_id}
                await websocket.send_text(json.dumps(redirect))
                await websocket.close(code=CLOSE_REDIRECT)
                return
    except ApiError as exc:
        await websocket.send_text(json.dumps({"type": "error", **exc.to_dict(), "request_id": None}))
        codes = {"unauthorized": 4401, "excluded": CLOSE_EXCLUDED, "on_break": CLOSE_EXCLUDED}
        await websocket.close(code=codes.get(exc.code, 4404))
        return
    conn = Connection(who, asyncio.get_running_loop())
    # the texts go straight to the socket's bounded send (limits.py), not through a task and the ASGI chain
    conn.sink = websocket.scope.get(SEND_TEXT)

    async def sender() -> None:
        while True:
            msg = await conn.queue.get()
            if msg is None:
                with contextlib.suppress(Exception):
                    await websocket.close(code=conn.close_code if conn.closed else 1000)
                return
            await websocket.send_text(msg)  # encoded on the table's thread (server/wire.py)

    task = asyncio.create_task(sender())
    await runner.call(runner.attach, conn)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            await runner.call(runner.handle, conn, data)  # on the table's thread, one step at a time
            if task.done():
                break
    except WebSocketDisconnect:
        pass
    finally:
        runner.detach(conn)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

"""The FastAPI app: REST endpoints, the WebSocket per table, and the web page (docs/protocol.md).

``create_app(database_url, ...)`` builds a self-contained app (used by ``tablegames serve`` and by tests
in-process with ``TestClient``); the database schema, meters and demo tables are set up, and unfinished rounds
recovered, when the app starts (its lifespan).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, StrictInt
from sqlalchemy.exc import SQLAlchemyError

from tablegames.randomness import RandomSource
from tablegames.server.errors import ApiError
from tablegames.server.limits import HardeningMiddleware
from tablegames.server.runner import Connection
from tablegames.server.service import (
    MAX_TABLE_THREADS,
    Config,
    PlayerInfo,
    Server,
    history,
    jackpot_history,
    jackpots,
    round_recall,
)

log = logging.getLogger("tablegames.server")

STATIC_DIR = Path(__file__).parent / "static"


def run(app: Any, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn the way production does (``tablegames serve``, the load test's server).

    - WebSocket frames of at most 64 KiB at the protocol level (the app checks 16 KiB messages itself);
    - no permessage-deflate: the messages are small JSON, and compressing each one costs more CPU than the
      loopback or LAN bytes it saves (issue 7's load figures);
    - the objects alive at start (modules, rule tables, the app) are moved out of the garbage collector's reach
      (``gc.freeze``), so a full collection during play scans only what play created, and collections run
      less often: fewer long pauses;
    - a 1 ms GIL switch interval: each table's steps run on its own thread, and the event loop, which sends
      every message, should not wait 5 ms for the interpreter each time one of them is busy.
    """
    import gc
    import sys

    import uvicorn

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 100)  # young collections less often; full ones (long pauses) rarely
    sys.setswitchinterval(0.001)  # the event loop gets the GIL back from a busy table thread within 1 ms
    uvicorn.run(
        app, host=host, port=port, log_level="warning", ws_max_size=1 << 16, ws_per_message_deflate=False
    )


class RegisterBody(BaseModel):
    name: str = Field(min_length=1, max_length=40)


class MoneyBody(BaseModel):
    amount: StrictInt = Field(description="integer cents, > 0")
    request_id: str = Field(min_length=1, max_length=64)


class TableBody(BaseModel):
    game: str
    name: str = Field(min_length=1, max_length=80)
    seats: StrictInt = 5
    min_bet: StrictInt = 100
    max_bet: StrictInt = 10_000
    rules: dict[str, str] = Field(default_factory=dict)
    paytable: str | None = None


class LimitsBody(BaseModel):
    min_bet: StrictInt | None = None
    max_bet: StrictInt | None = None


def current_player(request: Request, authorization: Annotated[str | None, Header()] = None) -> PlayerInfo:
    """The player of the ``Authorization: Bearer <token>`` header (checked on every request)."""
    token = None
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    server: Server = request.app.state.server
    return server.authenticate(token)


Auth = Annotated[PlayerInfo, Depends(current_player)]


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse({"error": exc.to_dict()}, status_code=exc.status)


def create_app(
    database_url: str,
    *,
    betting_seconds: float = 15.0,
    turn_seconds: float = 30.0,
    admin_token: str | None = None,
    demo_tables: bool = False,
    source_factory: Callable[[], RandomSource] | None = None,
    deck_factory: Callable[[int], Sequence[int]] | None = None,
    static_dir: Path | None = None,
    table_threads: int = 2,
) -> FastAPI:
    """The table server app.

    Live rounds deal from a provably fair source with a secret server seed (``require_live``). For tests only,
    ``source_factory`` deals seeded decks and ``deck_factory(table_id)`` gives each next round's deck.
    ``table_threads``: worker threads for the tables' steps (1 to ``MAX_TABLE_THREADS``).
    """
    if (
        isinstance(table_threads, bool)
        or not isinstance(table_threads, int)
        or not 1 <= table_threads <= MAX_TABLE_THREADS
    ):
        raise ValueError(f"table_threads must be 1-{MAX_TABLE_THREADS}, got {table_threads!r}")
    config = Config(
        betting_seconds=betting_seconds,
        turn_seconds=turn_seconds,
        source_factory=source_factory,
        deck_factory=deck_factory,
        table_threads=table_threads,
    )
    server = Server(database_url, config, admin_token)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        server.start(demo_tables=demo_tables)
        try:
            yield
        finally:
            server.stop()

    app = FastAPI(
        title="tablegames table server",
        version="1",
        description="Let It Ride, One Eyed Flush and Final Count at multi-seat tables. Play over the WebSocket "
        "`/ws/tables/{table_id}?token=...` (see docs/protocol.md); REST for players, wallets, tables and history.",
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(HardeningMiddleware)  # body/message sizes, rate limits, slow clients (limits.py)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        log.exception("database error on %s %s", request.method, request.url.path)
        return _error(ApiError("server_error", "the database refused the request; nothing was changed", 503))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        where = [".".join(str(p) for p in e.get("loc", ()) if p != "body") for e in errors]
        code = "bad_amount" if any(w.endswith("amount") for w in where) else "bad_message"
        message = "; ".join(
            f"{w or 'body'}: {e.get('msg', 'invalid')}" for w, e in zip(where, errors, strict=True)
        )
        return _error(ApiError(code, message or "invalid request", 422))

    @app.post("/players", status_code=201)
    async def register(body: RegisterBody) -> dict[str, Any]:
        info, token = server.register(body.name)
        return {"player_id": info.player_id, "name": info.name, "token": token, "balance": 0}

    @app.get("/me")
    async def me(p: Auth) -> dict[str, Any]:
        return server.me(p)

    @app.post("/wallet/buy-in")
    async def buy_in(body: MoneyBody, p: Auth) -> dict[str, Any]:
        return server.cashier(p, "buy-in", body.amount, body.request_id)

    @app.post("/wallet/cash-out")
    async def cash_out(body: MoneyBody, p: Auth) -> dict[str, Any]:
        return server.cashier(p, "cash-out", body.amount, body.request_id)

    @app.get("/wallet")
    async def wallet(p: Auth, last: Annotated[int, Query(ge=1, le=500)] = 20) -> dict[str, Any]:
        return server.wallet(p, last)

    @app.get("/tables")
    async def tables() -> list[dict[str, Any]]:
        return server.list_tables()

    @app.post("/tables", status_code=201)
    async def create_table(
        body: TableBody, x_admin_token: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        server.check_admin(x_admin_token)
        return server.create_table(
            body.game, body.name, body.seats, body.min_bet, body.max_bet, body.rules, body.paytable
        )

    @app.patch("/tables/{table_id}")
    async def set_limits(
        table_id: int, body: LimitsBody, x_admin_token: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        server.check_admin(x_admin_token)
        return server.set_limits(table_id, body.min_bet, body.max_bet)

    @app.get("/tables/{table_id}")
    async def table(table_id: int) -> dict[str, Any]:
        runner = server.runner(table_id)
        return await runner.call(runner.public_view)  # type: ignore[no-any-return]

    @app.get("/jackpots")
    async def get_jackpots() -> list[dict[str, Any]]:
        with server.sessions() as s:
            return jackpots(s)

    @app.get("/jackpots/history")
    async def get_jackpot_history(
        game: str | None = None, meter: str | None = None, last: Annotated[int, Query(ge=1, le=1000)] = 50
    ) -> list[dict[str, Any]]:
        with server.sessions() as s:
            return jackpot_history(s, game, meter, last)

    @app.get("/rounds/{round_id}")
    async def get_round(round_id: int) -> dict[str, Any]:
        with server.sessions() as s:
            return round_recall(s, round_id)

    @app.get("/history")
    async def get_history(
        player: str | None = None, last: Annotated[int, Query(ge=1, le=1000)] = 20
    ) -> list[dict[str, Any]]:
        with server.sessions() as s:
            return history(s, player, last)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: int, token: str | None = None) -> None:
        await websocket.accept()
        try:
            who = server.authenticate(token)
            runner = server.runner(table_id)
        except ApiError as exc:
            await websocket.send_text(json.dumps({"type": "error", **exc.to_dict(), "request_id": None}))
            await websocket.close(code=4401 if exc.code == "unauthorized" else 4404)
            return
        conn = Connection(who, asyncio.get_running_loop())

        async def sender() -> None:
            while True:
                msg = await conn.queue.get()
                if msg is None:
                    with contextlib.suppress(Exception):
                        await websocket.close(code=conn.close_code if conn.closed else 1000)
                    return
                await websocket.send_text(json.dumps(msg))

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

    static = static_dir if static_dir is not None else STATIC_DIR
    if static.is_dir():
        app.mount("/static", StaticFiles(directory=static), name="static")
        index = static / "index.html"

        @app.get("/", include_in_schema=False)
        async def page() -> Any:
            if index.is_file():
                return FileResponse(index)
            return JSONResponse({"error": {"code": "not_found", "message": "no web page installed"}}, 404)

    return app

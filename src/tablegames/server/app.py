"""The FastAPI app: REST endpoints, the WebSocket per table, and the web page (docs/protocol.md).

``create_app(database_url, ...)`` builds a self-contained app (used by ``tablegames serve`` and by tests
in-process with ``TestClient``); the database schema, meters and demo tables are set up, and unfinished rounds
recovered, when the app starts (its lifespan).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, StrictInt
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from tablegames.randomness import RandomSource
from tablegames.server.connections import ConnectionLimits, bounded_http_protocol
from tablegames.server.errors import ApiError
from tablegames.server.limits import HardeningMiddleware, Limits
from tablegames.server.routes.games import router as games_router
from tablegames.server.runner import Connection
from tablegames.server.service import (
    ALL_BALANCES,
    HISTORY_PAGE_MAX,
    JACKPOT_PAGE_MAX,
    MAX_TABLE_THREADS,
    Config,
    PlayerInfo,
    Server,
    history,
    jackpot_history,
    jackpots,
    player_id_of,
    round_recall,
)

T = TypeVar("T")
REST_THREADS = 4  # threads for the REST handlers' database work (few: they share the interpreter lock)

log = logging.getLogger("tablegames.server")

STATIC_DIR = Path(__file__).parent / "static"


def run(app: Any, host: str, port: int, connections: ConnectionLimits | None = None) -> None:
    """Serve ``app`` with uvicorn the way production does (``tablegames serve``, the load test's server).

    - the connection bounds of ``connections`` (``server/connections.py``): a request must arrive whole within
      ``request_timeout``, idle keep-alive connections close after ``keep_alive_timeout``, at most
      ``max_connections_per_address`` connections per client address and ``max_connections`` in all;
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

    bounds = (connections or ConnectionLimits()).resolved()
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 100)  # young collections less often; full ones (long pauses) rarely
    sys.setswitchinterval(0.001)  # the event loop gets the GIL back from a busy table thread within 1 ms
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=1 << 16,
        ws_per_message_deflate=False,
        http=bounded_http_protocol(bounds),
        timeout_keep_alive=bounds.keep_alive_timeout,  # type: ignore[arg-type]
        limit_concurrency=bounds.max_connections,
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


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


async def off_loop(request: Request | WebSocket, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the app's REST threads: database work never runs on the event loop (issue 11)."""
    pool: ThreadPoolExecutor | None = getattr(request.app.state, "rest_threads", None)  # (None: not started)
    return await asyncio.get_running_loop().run_in_executor(pool, functools.partial(fn, *args))


async def json_off_loop(request: Request, fn: Callable[..., Any], *args: Any) -> Response:
    """``fn(*args)`` on the REST threads, rendered to JSON there too (a page of history is not encoded on the
    event loop either); the route declares the answer's shape with ``response_model``."""

    def render() -> bytes:
        return json.dumps(fn(*args), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()

    return Response(await off_loop(request, render), media_type="application/json")


async def current_player(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> PlayerInfo:
    """The player of the ``Authorization: Bearer <token>`` header (checked on every request)."""
    server: Server = request.app.state.server
    return await off_loop(request, server.authenticate, bearer(authorization))


Auth = Annotated[PlayerInfo, Depends(current_player)]


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse({"error": exc.to_dict()}, status_code=exc.status)


HTTP_CODES = {
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
}


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
    limits: Limits | None = None,
) -> FastAPI:
    """The table server app.

    Live rounds deal from a provably fair source with a secret server seed (``require_live``). For tests only,
    ``source_factory`` deals seeded decks and ``deck_factory(table_id)`` gives each next round's deck.
    ``table_threads``: worker threads for the tables' steps (1 to ``MAX_TABLE_THREADS``). ``limits``: the
    hardening middleware's bounds (``server/limits.py``; default ``Limits()``).
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
        app.state.rest_threads = ThreadPoolExecutor(max_workers=REST_THREADS, thread_name_prefix="rest")
        server.start(demo_tables=demo_tables)
        try:
            yield
        finally:
            server.stop()
            app.state.rest_threads.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="tablegames table server",
        version="1",
        description="Let It Ride, One Eyed Flush and Final Count at multi-seat tables. Play over the WebSocket "
        "`/ws/tables/{table_id}?token=...` (see docs/protocol.md); REST for players, wallets, tables and history.",
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(  # body/message sizes, JSON depth, rate limits, slow clients (limits.py)
        HardeningMiddleware, limits=limits or Limits(), known_tokens=server.known_tokens
    )

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
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(ApiError("bad_json", "the body is not valid JSON", 422))
        where = [".".join(str(p) for p in e.get("loc", ()) if p != "body") for e in errors]
        code = "bad_amount" if any(w.endswith("amount") for w in where) else "bad_message"
        message = "; ".join(
            f"{w or 'body'}: {e.get('msg', 'invalid')}" for w, e in zip(where, errors, strict=True)
        )
        return _error(ApiError(code, message or "invalid request", 422))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Routing and parsing refusals (unknown path, wrong method, a body FastAPI cannot parse) in the
        protocol's error shape instead of ``{"detail": ...}``."""
        if exc.status_code == 400 and "pars" in str(exc.detail):
            error = ApiError("bad_json", "the body could not be parsed as JSON", 422)
        else:
            code = HTTP_CODES.get(exc.status_code, "bad_message")
            message = {
                404: f"no such endpoint: {request.method} {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}",
            }.get(exc.status_code, str(exc.detail))
            error = ApiError(code, message, exc.status_code)
        response = _error(error)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.post("/players", status_code=201)
    async def register(request: Request, body: RegisterBody) -> dict[str, Any]:
        info, token = await off_loop(request, server.register, body.name)
        return {"player_id": info.player_id, "name": info.name, "token": token, "balance": 0}

    @app.get("/me")
    async def me(request: Request, p: Auth) -> dict[str, Any]:
        return await off_loop(request, server.me, p)

    @app.post("/wallet/buy-in")
    async def buy_in(request: Request, body: MoneyBody, p: Auth) -> dict[str, Any]:
        return await off_loop(request, server.cashier, p, "buy-in", body.amount, body.request_id)

    @app.post("/wallet/cash-out")
    async def cash_out(request: Request, body: MoneyBody, p: Auth) -> dict[str, Any]:
        return await off_loop(request, server.cashier, p, "cash-out", body.amount, body.request_id)

    @app.get("/wallet")
    async def wallet(
        request: Request, p: Auth, last: Annotated[int, Query(ge=1, le=500)] = 20
    ) -> dict[str, Any]:
        return await off_loop(request, server.wallet, p, last)

    @app.get("/tables")
    async def tables(request: Request) -> list[dict[str, Any]]:
        return await off_loop(request, server.list_tables)

    @app.post("/tables", status_code=201)
    async def create_table(
        request: Request, body: TableBody, x_admin_token: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        server.check_admin(x_admin_token)
        return await off_loop(
            request,
            server.create_table,
            body.game,
            body.name,
            body.seats,
            body.min_bet,
            body.max_bet,
            body.rules,
            body.paytable,
        )

    @app.patch("/tables/{table_id}")
    async def set_limits(
        request: Request,
        table_id: int,
        body: LimitsBody,
        x_admin_token: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        server.check_admin(x_admin_token)
        return await off_loop(request, server.set_limits, table_id, body.min_bet, body.max_bet)

    @app.get("/tables/{table_id}")
    async def table(request: Request, table_id: int) -> dict[str, Any]:
        runner = await off_loop(request, server.runner, table_id)
        return await runner.call(runner.public_view)  # type: ignore[no-any-return]

    def read(fn: Callable[..., T], *args: Any, **kw: Any) -> Callable[[], T]:
        """``fn(session, *args, **kw)`` in a session of its own (to run on a REST thread)."""

        def call() -> T:
            with server.sessions() as s:
                return fn(s, *args, **kw)

        return call

    @app.get("/tables/{table_id}/history", response_model=list[dict[str, Any]])
    async def table_history(
        request: Request,
        table_id: int,
        last: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
        before: Annotated[
            int | None, Query(ge=1, description="the next page: rounds below this round_id")
        ] = None,
    ) -> Response:
        """A table's public results, newest first: no balances (a player's are theirs: ``GET /history``)."""
        await off_loop(request, server.runner, table_id)  # not_found for an unknown table
        return await json_off_loop(
            request, read(history, None, last, before, table_id=table_id, show_balances=None)
        )

    @app.get("/jackpots")
    async def get_jackpots(request: Request) -> list[dict[str, Any]]:
        return await off_loop(request, read(jackpots))

    @app.get("/jackpots/history", response_model=list[dict[str, Any]])
    async def get_jackpot_history(
        request: Request,
        game: str | None = None,
        meter: str | None = None,
        last: Annotated[int, Query(ge=1, le=JACKPOT_PAGE_MAX)] = 50,
        before: Annotated[
            int | None, Query(ge=1, description="the next page: entries below this entry_id")
        ] = None,
    ) -> Response:
        return await json_off_loop(request, read(jackpot_history, game, meter, last, before))

    def viewer(authorization: str | None, x_admin_token: str | None) -> int | None:
        """Whose balances a reader may see: every player's (admin token), a player's own (their token), or
        none (anonymous, or a token that is not valid). (On a REST thread.)"""
        if server.is_admin(x_admin_token):
            return ALL_BALANCES
        token = bearer(authorization)
        if token is None:
            return None
        try:
            return server.authenticate(token).player_id
        except ApiError:
            return None

    @app.get("/rounds/{round_id}")
    async def get_round(
        request: Request,
        round_id: int,
        authorization: Annotated[str | None, Header()] = None,
        x_admin_token: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        """A finished round's full recall; balances only the reader's own (an operator: all)."""

        def recall() -> dict[str, Any]:
            show = viewer(authorization, x_admin_token)
            with server.sessions() as s:
                return round_recall(s, round_id, show)

        return await off_loop(request, recall)

    @app.get("/history", response_model=list[dict[str, Any]])
    async def get_history(
        request: Request,
        player: str | None = None,
        last: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
        before: Annotated[
            int | None, Query(ge=1, description="the next page: rounds below this round_id")
        ] = None,
        authorization: Annotated[str | None, Header()] = None,
        x_admin_token: Annotated[str | None, Header()] = None,
    ) -> Response:
        """A player's rounds with their balances (their token; ``player`` may only name themself), or any
        player's / all rounds for an operator (``X-Admin-Token``). Newest first, a page at a time."""

        def rows() -> list[dict[str, Any]]:
            with server.sessions() as s:
                if server.is_admin(x_admin_token):
                    return history(s, player, last, before)
                me = server.authenticate(bearer(authorization))
                if player and player_id_of(s, player) != me.player_id:
                    raise ApiError(
                        "forbidden", "a player's history is theirs: you may read only your own", 403
                    )
                return history(s, me.player_id, last, before, show_balances=me.player_id)

        return await json_off_loop(request, rows)

    app.include_router(games_router)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"ok": True}

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: int, token: str | None = None) -> None:
        await websocket.accept()
        try:
            who = await off_loop(websocket, server.authenticate, token)
            runner = await off_loop(websocket, server.runner, table_id)
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

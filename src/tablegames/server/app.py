"""The FastAPI app: REST endpoints, the WebSocket per table, and the web page (docs/protocol.md).

``create_app(database_url, ...)`` builds a self-contained app (used by ``tablegames serve`` and by tests
in-process with ``TestClient``); the database schema, meters and demo tables are set up, and unfinished rounds
recovered, when the app starts (its lifespan).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from tablegames.randomness import RandomSource
from tablegames.rules import registry
from tablegames.server import detection, hints
from tablegames.server.affinity import pin_process
from tablegames.server.alerts import AlertHub
from tablegames.server.cluster import NotOwner
from tablegames.server.connections import ConnectionLimits, bounded_http_protocol
from tablegames.server.contract.asyncapi import asyncapi_bytes
from tablegames.server.core import MAX_TABLE_THREADS, Config, default_table_threads
from tablegames.server.detection import Detector
from tablegames.server.errors import ApiError
from tablegames.server.limits import HardeningMiddleware, Limits
from tablegames.server.notify import Listener, is_postgres
from tablegames.server.outage import UNAVAILABLE_MESSAGE, database_unreachable
from tablegames.server.routes import (
    adjustments,
    detect,
    games,
    jackpots,
    lab,
    office,
    play,
    players,
    protection,
    reports,
    rounds,
    staff,
    tables,
    wallet,
)
from tablegames.server.routes.deps import COMMON_ERRORS, Out
from tablegames.server.service import Server

T = TypeVar("T")
REST_THREADS = 4  # threads for the REST handlers' database work (few: they share the interpreter lock)

log = logging.getLogger("tablegames.server")

STATIC_DIR = Path(__file__).parent / "static"


def run(
    app: Any,
    host: str,
    port: int,
    connections: ConnectionLimits | None = None,
    cpus: Collection[int] | None = None,
) -> None:
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
      every message, should not wait 5 ms for the interpreter each time one of them is busy;
    - ``cpus``: the process's threads pinned to these CPUs (``server/affinity.py``; None: not pinned).
    """
    import gc
    import sys

    import uvicorn

    bounds = (connections or ConnectionLimits()).resolved()
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 100)  # young collections less often; full ones (long pauses) rarely
    sys.setswitchinterval(0.001)  # the event loop gets the GIL back from a busy table thread within 1 ms
    if cpus is not None:
        pin_process(cpus)
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


SWEEP_SECONDS = 1.0  # how often the players' sessions are swept (server/sessions.py)


async def _sweep_sessions(app: FastAPI, server: Server) -> None:
    """Every second, on a REST thread: idle and over-long sessions end, due reality checks are sent."""
    loop = asyncio.get_running_loop()
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        try:
            await loop.run_in_executor(app.state.rest_threads, server.player_sessions.sweep)
        except Exception:
            log.exception("sweeping the players' sessions failed; retried in a second")


def _detection(
    app: FastAPI, server: Server, seconds: float | None, alpha: float
) -> tuple[Listener | None, Detector | None]:
    """The supervisors' alerts (issue 27): the hub on this loop, on PostgreSQL the listener of every process's
    alerts, and the live detector when ``seconds`` is given."""
    hub: AlertHub = app.state.alerts
    hub.loop = asyncio.get_running_loop()
    feed = None
    if is_postgres(server.database_url):
        feed = Listener(server.database_url, hub.from_notify, hub.loop, channel=detection.CHANNEL)
        feed.start()
    detector = None
    if seconds is not None:
        detector = Detector(
            server.db, server.config.clock, alpha=alpha, interval=seconds, on_alert=hub.from_thread
        )
        detector.start()
    app.state.detector, app.state.alert_feed = detector, feed
    return feed, detector


def _error(exc: ApiError) -> JSONResponse:
    return JSONResponse({"error": exc.to_dict()}, status_code=exc.status, headers=exc.headers)


class Health(Out):
    ok: bool


ROUTERS = (
    games.router,
    staff.router,
    adjustments.router,
    players.router,
    wallet.router,
    protection.router,
    tables.router,
    jackpots.router,
    rounds.router,
    play.router,
    lab.router,
    reports.router,
    office.router,
    detect.router,
)


def _titles() -> str:
    """The registered games' titles, in words ("A, B and C")."""
    titles = [d.title for d in registry.DEFINITIONS]
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]


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
    table_threads: int | None = None,
    limits: Limits | None = None,
    node: str | None = None,
    advertise: str = "",
    min_house_edge: Fraction = Fraction(0),
    prepare_hints: bool = False,
    clock: Callable[[], float] | None = None,
    strategy_cache: Path | None = None,
    seal_seconds: float | None = None,
    dual_control_cents: int = Config.dual_control_cents,
    bot_seconds: float = 1.0,
    bot_unwatched_rounds: int = 200,
    practice_bots: bool = False,
    detect_seconds: float | None = None,
    detect_alpha: float = 1e-6,
) -> FastAPI:
    """The table server app.

    Live rounds deal from a provably fair source with a secret server seed (``require_live``). For tests only,
    ``source_factory`` deals seeded decks and ``deck_factory(table_id)`` gives each next round's deck.
    ``table_threads``: worker threads for the tables' steps (1 to ``MAX_TABLE_THREADS``; default: 1 on SQLite, 2 on
    PostgreSQL, ``core.default_table_threads``). ``limits``: the
    hardening middleware's bounds (``server/limits.py``; default ``Limits()``). ``node`` / ``advertise``: this
    process's name among several on one PostgreSQL database and the URL clients reach it at
    (``server/cluster.py``; default: a name unique to this server instance, no URL). ``min_house_edge``: the
    lowest exact house edge of any wager ``POST /tables`` opens a table with unless the request confirms it
    (``confirm_negative_edge``, server/tables.py).
    ``prepare_hints``: solve each table's exact strategy when it opens, so that hints are exact from the
    first hand (``server/hints.py``); ``strategy_cache``: the directory they are kept in across restarts
    (``analysis/strategy_cache.py``). ``seal_seconds``: seal the ledger into the audit chain this often
    (``server/ledger_seal.py``). ``dual_control_cents``: an adjustment above this waits for a second staff
    member (``server/adjustments.py``). ``clock``: the one clock of time-based rules (epoch seconds; tests move
    their own).
    ``bot_seconds``, ``bot_unwatched_rounds``, ``practice_bots``: the practice bots' pace, their bound at a
    table nobody watches, and whether seated players may seat them (``server/bots.py``).
    ``detect_seconds``: run the live detector (server/detection.py) on a thread of its own, a pass this often
    (None: off; ``serve`` runs it unless ``--no-detect``); ``detect_alpha``: its false-positive bound per
    player-test.
    """
    if table_threads is None:
        table_threads = default_table_threads(database_url)
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
        node=node,
        advertise=advertise,
        min_house_edge=Fraction(min_house_edge),
        prepare_hints=prepare_hints,
        strategy_cache=strategy_cache,
        seal_seconds=seal_seconds,
        dual_control_cents=dual_control_cents,
        bot_seconds=bot_seconds,
        bot_unwatched_rounds=bot_unwatched_rounds,
        practice_bots=practice_bots,
    )
    hints.use_disk_cache(strategy_cache)
    if clock is not None:
        config.clock = clock
    server = Server(database_url, config, admin_token)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.rest_threads = ThreadPoolExecutor(max_workers=REST_THREADS, thread_name_prefix="rest")
        server.start(demo_tables=demo_tables)
        from tablegames.server.meters import MeterFeed  # other processes' meters (issue 16)

        feed = MeterFeed(server)
        feed.start()
        sweeper = asyncio.create_task(_sweep_sessions(app, server))  # reality checks, time-outs (issue 26)
        alert_feed, detector = _detection(app, server, detect_seconds, detect_alpha)
        sealer = None
        if config.seal_seconds is not None:
            from tablegames.server.ledger_seal import Sealer

            sealer = Sealer(server.db.tx, config.clock, config.seal_seconds)
            sealer.start()
        try:
            yield
        finally:
            sweeper.cancel()
            if detector is not None:
                detector.stop()
            if alert_feed is not None:
                alert_feed.stop()
            if sealer is not None:
                sealer.stop()
            feed.stop()
            server.stop()
            app.state.rest_threads.shutdown(wait=False, cancel_futures=True)
            lab.stop(app)

    app = FastAPI(
        title="tablegames table server",
        version="1",
        description=f"{_titles()} at multi-seat tables. Play over the WebSocket "
        "`/ws/tables/{table_id}?token=...` (see docs/protocol.md); REST for players, wallets, tables and history.",
        lifespan=lifespan,
    )
    app.state.server = server
    app.state.alerts = AlertHub()
    app.state.detector = app.state.alert_feed = None
    app.add_middleware(  # body/message sizes, JSON depth, rate limits, slow clients (limits.py)
        HardeningMiddleware, limits=limits or Limits(), known_tokens=server.known_tokens
    )

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(NotOwner)
    async def not_owner(request: Request, exc: NotOwner) -> RedirectResponse:
        """A table served by another process (``GET /tables/{id}``): the same request there."""
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(exc.owner["url"].rstrip("/") + request.url.path + query, status_code=307)

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        if database_unreachable(exc):  # an outage (issue 20): one line, a retryable 503
            log.warning("%s %s: the database cannot be reached", request.method, request.url.path)
            response = _error(ApiError("unavailable", UNAVAILABLE_MESSAGE, 503))
            response.headers["Retry-After"] = "1"
            return response
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

    for router in ROUTERS:
        app.include_router(router, responses=COMMON_ERRORS)  # the errors any route may answer

    @app.get("/asyncapi.json", include_in_schema=False)
    async def asyncapi() -> Response:
        """The WebSocket protocol as an AsyncAPI 3 document, made from the contract's models (made once)."""
        return Response(asyncapi_bytes(), media_type="application/json")

    @app.get("/health", tags=["health"], response_model=Health, responses=COMMON_ERRORS)
    async def health() -> Health:
        return Health(ok=True)

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

"""What the routers share, as dependencies the way fastapi/full-stack-fastapi-template has them: the app's
server (``ServerDep``), a staff action's check (``staff_may``: server/permissions.py), the current player (``Auth``); database work off the
event loop (on the REST threads); the error responses every route documents."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Path, Request, WebSocket
from fastapi.responses import Response
from starlette.requests import HTTPConnection

from tablegames.server.contract.base import Closed
from tablegames.server.core import PlayerInfo
from tablegames.server.errors import ApiError
from tablegames.server.permissions import PLAY_VIEW, TOKEN_ACTOR, TOKEN_ROLE, Actor, check, may
from tablegames.server.queries import ALL_BALANCES
from tablegames.server.service import Server

T = TypeVar("T")


async def server_of(connection: HTTPConnection) -> Server:
    """The app's server (``create_app``), for a request or a WebSocket. (A coroutine: FastAPI would run a plain
    function on its threadpool, a thread hop for an attribute.)"""
    server: Server = connection.app.state.server
    return server


ServerDep = Annotated[Server, Depends(server_of)]
"""A route's server: ``server: ServerDep``."""


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def staff_actor(server: Server, authorization: str | None, x_admin_token: str | None) -> Actor | None:
    """Who makes the request as staff: the admin token (``token:admin``, a wrong one refused) or a live staff
    session (``Authorization: Bearer``); None: neither (a player's token, or nothing). Blocks on the database:
    call it on a REST thread."""
    if x_admin_token is not None:
        server.players.check_admin(x_admin_token)
        return Actor(TOKEN_ACTOR, TOKEN_ROLE)
    token = bearer(authorization)
    if token is None:
        return None
    try:
        who = server.staff.authenticate(token)
    except ApiError:
        return None
    return Actor(who.actor, who.role)


def staff_may(action: str) -> Any:
    """A dependency: the :class:`~tablegames.server.permissions.Actor` of a request whose staff member (or the
    admin token) may do ``action`` (server/permissions.py), else ``forbidden`` (403) before the route runs."""

    async def allowed(
        request: Request,
        server: ServerDep,
        authorization: Annotated[str | None, Header()] = None,
        x_admin_token: Annotated[str | None, Header()] = None,
    ) -> Actor:
        if x_admin_token is not None:  # a comparison, no database: on the event loop
            server.players.check_admin(x_admin_token)
            return check(Actor(TOKEN_ACTOR, TOKEN_ROLE), action)
        actor = await off_loop(request, staff_actor, server, authorization, None)
        if actor is None:
            raise ApiError(
                "forbidden",
                f"{action} needs a staff session (POST /staff/login, then Authorization: Bearer) or the admin "
                "token (X-Admin-Token)",
                403,
            )
        return check(actor, action)

    allowed.action = action  # type: ignore[attr-defined]  # (the permission matrix test reads it)
    return Depends(allowed)


def sees_everyone(
    server: Server, authorization: str | None, x_admin_token: str | None, refuse: bool = True
) -> bool:
    """Whether the reader is staff allowed to see every player's play (``play.view``); a staff member whose
    role is not is refused (403), or with ``refuse`` False treated as anyone. Blocks on the database: call it on
    a REST thread."""
    actor = staff_actor(server, authorization, x_admin_token)
    if actor is None:
        return False
    if not refuse and not may(actor.role, PLAY_VIEW):
        return False
    return check(actor, PLAY_VIEW) is actor


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


def read(server: Server, fn: Callable[..., T], *args: Any, **kw: Any) -> Callable[[], T]:
    """``fn(session, *args, **kw)`` in a session of its own (to run on a REST thread)."""

    def call() -> T:
        with server.sessions() as s:
            return fn(s, *args, **kw)

    return call


async def current_player(
    request: Request, server: ServerDep, authorization: Annotated[str | None, Header()] = None
) -> PlayerInfo:
    """The player of the ``Authorization: Bearer <token>`` header (checked on every request)."""
    return await off_loop(request, server.players.authenticate, bearer(authorization))


Auth = Annotated[PlayerInfo, Depends(current_player)]


class Out(Closed):
    """A response body: every field named and typed, no other (issue 23: the contract is closed)."""


class ErrorDetail(Out):
    code: str
    message: str
    field: str | None = None  # the parameter a ``bad_rules`` refusal is about


class ErrorOut(Out):
    """Every refusal (docs/protocol.md): a typed ``code`` and a clear message; nothing was changed."""

    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error responses of a route, documented with the protocol's error body."""
    return {status: {"model": ErrorOut, "description": "refused; nothing changed"} for status in statuses}


COMMON_ERRORS = errors(400, 413, 422, 429, 503)


def viewer(server: Server, authorization: str | None, x_admin_token: str | None) -> int | None:
    """Whose balances a reader may see: every player's (admin token), a player's own (their token), or
    none (anonymous, or a token that is not valid). Blocks on the database: call it on a REST thread."""
    if sees_everyone(server, authorization, x_admin_token, refuse=False):
        return ALL_BALANCES
    token = bearer(authorization)
    if token is None:
        return None
    try:
        return server.players.authenticate(token).player_id
    except ApiError:
        return None


MAX_ROW_ID = 2**63 - 1  # the largest id either database stores (BIGINT / SQLite INTEGER)
RowId = Annotated[int, Path(ge=1, le=MAX_ROW_ID, description="a round's or table's id")]
"""A round or table id in a path: a larger number is refused (422) before any database sees it."""

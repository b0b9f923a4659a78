"""The role x endpoint matrix (issue 25), generated from the app's routes: every route declares its access in
``server/permissions.py`` (a route added without one fails here), each staff route's dependency checks the very
action it declares, and every role (and the admin token, a player, nobody) is allowed or refused (403) exactly
as the table of actions says."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.routing import APIRoute, APIWebSocketRoute
from starlette.routing import Mount, Route

from server_harness import ADMIN, Harness, api_routes
from tablegames.server import permissions
from tablegames.server.db import AuditEntry
from tablegames.server.permissions import (
    ALLOWED,
    PLAYER,
    PLAYER_OR,
    PRACTICE_OR,
    PUBLIC,
    ROUTES,
    STAFF_SESSION,
)
from tablegames.server.staff import ROLES

pytestmark = pytest.mark.timeout(300)

PATH_VALUES = {"table_id": "1", "round_id": "1", "name": "nobody", "change": "disable", "adjustment_id": "1",
               "decision": "approve"}  # fmt: skip


def app_routes(app: Any) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for r in api_routes(app.routes):
        if isinstance(r, APIWebSocketRoute):
            out.add(("WS", r.path))
        elif isinstance(r, APIRoute | Route) and not isinstance(r, Mount):
            out.update((m, r.path) for m in (r.methods or ()) if m != "HEAD")
    return out


def url(path: str) -> str:
    for k, v in PATH_VALUES.items():
        path = path.replace("{" + k + "}", v)
    return path


def declared_actions(route: APIRoute) -> set[str]:
    """The staff actions the route's dependencies check (``staff_may`` / ``allowed_to`` mark them)."""
    found: set[str] = set()
    stack = [route.dependant]
    while stack:
        d = stack.pop()
        action = getattr(d.call, "action", None)
        if action is not None:
            found.add(action)
        stack.extend(d.dependencies)
    return found


def may(who: str, action: str) -> bool:
    """Whether a caller of :func:`callers` may do ``action``: the table of server/permissions.py."""
    if who == "token":
        return action in permissions.TOKEN_ACTIONS
    return who in ROLES and permissions.may(who, action)


@pytest.fixture
def h(make_server: Callable[..., Harness]) -> Harness:
    return make_server()


@pytest.fixture
def callers(h: Harness) -> Iterator[dict[str, dict[str, str]]]:
    """Request headers of each kind of caller: a live session of each role, the admin token, a player, nobody."""
    out: dict[str, dict[str, str]] = {"nobody": {}, "token": {"X-Admin-Token": ADMIN}}
    for role in ROLES:
        out[role] = h.staff(f"{role} one", role)
    out["player"] = h.player("Pia", buy_in=0)[1]
    yield out


def test_every_route_declares_its_access(h: Harness) -> None:
    routes = app_routes(h.client.app)
    assert routes - set(ROUTES) == set(), "routes without a declared access in server/permissions.py"
    assert set(ROUTES) - routes == set(), "declared accesses of routes that do not exist"
    kinds = {
        PUBLIC,
        PLAYER,
        STAFF_SESSION,
        *ALLOWED,
        *(p + a for a in ALLOWED for p in (PLAYER_OR, PRACTICE_OR)),
    }
    assert set(ROUTES.values()) <= kinds


def test_each_staff_route_checks_the_action_it_declares(h: Harness) -> None:
    for r in api_routes(h.client.app.routes):  # type: ignore[attr-defined]
        if not isinstance(r, APIRoute):
            continue
        for m in r.methods - {"HEAD"}:
            access = ROUTES[(m, r.path)]
            expected = {access} if access in ALLOWED else set()
            assert declared_actions(r) == expected, (m, r.path)


STAFF_ROUTES = sorted(k for k, v in ROUTES.items() if v in ALLOWED)


@pytest.mark.parametrize(("method", "path"), STAFF_ROUTES, ids=lambda x: str(x))
def test_a_staff_route_is_allowed_to_exactly_its_roles(
    h: Harness, callers: dict[str, dict[str, str]], method: str, path: str
) -> None:
    action = ROUTES[(method, path)]
    for who, headers in callers.items():
        allowed = may(who, action)
        r = h.client.request(method, url(path), json={}, headers=headers)
        if allowed:
            assert r.status_code not in (401, 403), (who, r.status_code, r.text)
        elif who in ROLES:  # a staff member whose role may not: forbidden
            assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", (who, r.text)
        else:  # no staff identity (nobody, a player; the token on the staff accounts' routes): refused
            assert r.status_code in (401, 403), (who, r.text)


@pytest.mark.parametrize(
    ("method", "path"), sorted(k for k, v in ROUTES.items() if v.startswith(PLAYER_OR)), ids=lambda x: str(x)
)
def test_a_players_own_data_or_everyones_for_staff_who_may_see_play(
    h: Harness, callers: dict[str, dict[str, str]], method: str, path: str
) -> None:
    action = ROUTES[(method, path)].removeprefix(PLAYER_OR)
    params = {"player": "Pia"}
    for who, headers in callers.items():
        r = h.client.request(method, url(path), params=params, headers=headers)
        if who == "nobody":
            assert r.status_code == 401, r.text
        elif who in ROLES and not permissions.may(who, action):
            assert r.status_code == 403, (who, r.text)
        else:  # the token, a staff role that may, or Pia herself
            assert r.status_code == 200, (who, r.text)


def test_public_player_and_session_routes(h: Harness, callers: dict[str, dict[str, str]]) -> None:
    for (method, path), access in sorted(ROUTES.items()):
        if method == "WS" or access in ALLOWED or access.startswith((PLAYER_OR, PRACTICE_OR)):
            continue
        if path == "/staff/logout":
            continue  # (ends the session the other checks use: tested in test_server_staff.py)
        anonymous = h.client.request(method, url(path), json={})
        if access == PUBLIC:
            assert anonymous.status_code not in (401, 403), (method, path, anonymous.text)
            continue
        assert anonymous.status_code == 401, (method, path, anonymous.text)
        own = callers["player"] if access == PLAYER else callers["auditor"]
        r = h.client.request(method, url(path), json={}, headers=own)
        assert r.status_code not in (401, 403), (method, path, r.text)
        if access == STAFF_SESSION:  # a player's token is no staff session
            assert h.client.request(method, url(path), json={}, headers=callers["player"]).status_code == 401


def test_a_staff_change_names_its_staff_member_in_the_audit_trail(
    h: Harness, callers: dict[str, dict[str, str]]
) -> None:
    body = {"game": "final-count", "name": "by a supervisor", "seats": 3}
    r = h.client.post("/tables", json=body, headers=callers["supervisor"])
    assert r.status_code == 201, r.text
    table = r.json()["table_id"]
    assert (
        h.client.patch(f"/tables/{table}", json={"min_bet": 200}, headers=callers["operator"]).status_code
        == 200
    )
    assert (
        h.client.patch(f"/tables/{table}", json={"min_bet": 300}, headers=callers["auditor"]).status_code
        == 403
    )
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(AuditEntry.actor, AuditEntry.action).where(AuditEntry.subject == f"table:{table}")
        ).all()
    assert [tuple(x) for x in rows] == [
        ("staff:supervisor one", "table.open"),
        ("staff:operator one", "table.limits"),
    ]


@pytest.mark.parametrize(
    ("method", "path"),
    sorted(k for k, v in ROUTES.items() if v.startswith(PRACTICE_OR)),
    ids=lambda x: str(x),
)
def test_practice_routes_are_refused_before_the_body_is_read(
    h: Harness, callers: dict[str, dict[str, str]], method: str, path: str
) -> None:
    """Staff who may (and the token) get past the check (here: their bad body refused as such); staff who may
    not are forbidden; a player on a server that is not a practice server is refused too, whatever the body."""
    action = ROUTES[(method, path)].removeprefix(PRACTICE_OR)
    for who, headers in callers.items():
        r = h.client.request(method, url(path).replace("{seat}", "99"), json={"seat": "x"}, headers=headers)
        if may(who, action):
            assert r.status_code not in (401, 403), (who, r.text)
        else:
            assert r.status_code in (401, 403), (who, r.text)

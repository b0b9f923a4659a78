"""The routers' dependencies (issue 23): every router takes the server as ``ServerDep`` and a staff action as
``staff_may(ACTION)`` (routes/deps.py, server/permissions.py; issue 25), the way fastapi/full-stack-fastapi-template
has them, instead of looking the server up and checking the admin token inline."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tablegames.server.routes as routes
from server_harness import ADMIN
from tablegames.server.app import create_app

ROUTERS = sorted(
    p for p in Path(routes.__file__).parent.glob("*.py") if p.name not in ("__init__.py", "deps.py")
)
OPERATOR_ROUTES = [("post", "/tables"), ("patch", "/tables/{table_id}")]


def called_names(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "")
    return out


@pytest.mark.parametrize("path", ROUTERS, ids=lambda p: p.name)
def test_no_router_looks_the_server_up_or_checks_the_admin_token_itself(path: Path) -> None:
    assert not called_names(path) & {"server_of", "check_admin"}


@pytest.fixture
def client(tmp_path: Any) -> Any:
    app = create_app(f"sqlite:///{tmp_path / 'deps.sqlite3'}", admin_token=ADMIN, demo_tables=True)
    with TestClient(app) as c:
        yield c


@pytest.mark.parametrize(("method", "path"), OPERATOR_ROUTES)
def test_an_operator_route_documents_the_admin_header(client: Any, method: str, path: str) -> None:
    operation = client.get("/openapi.json").json()["paths"][path][method]
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert "x-admin-token" in headers
    assert "403" in operation["responses"]


@pytest.mark.parametrize(("method", "path"), OPERATOR_ROUTES)
def test_an_operator_route_refuses_before_it_reads_the_body(client: Any, method: str, path: str) -> None:
    """Without the admin token a request is ``forbidden``, whatever its body (a body the route would refuse
    included: nothing about the route's checks is told to a caller who is not the operator)."""
    url = path.format(table_id=1)
    for headers in ({}, {"X-Admin-Token": ADMIN + "x"}, {"Authorization": "Bearer not-a-staff-session"}):
        for body in ({"name": "x", "min_bet": "many"}, {"game": "final-count", "name": "ok", "seats": 3}):
            r = client.request(method.upper(), url, json=body, headers=headers)
            assert r.status_code == 403, r.text
            error = r.json()["error"]
            assert error["code"] == "forbidden" and "admin token (X-Admin-Token)" in error["message"]
    r = client.request(
        method.upper(), url, json={"name": "x", "min_bet": "many"}, headers={"X-Admin-Token": ADMIN}
    )
    assert r.status_code == 422  # the operator's bad body: refused as such

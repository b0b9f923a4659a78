"""The REST contract is closed and typed (issue 23): every object schema of ``/openapi.json`` names its fields
and allows no other (a map's values are typed), and every 2xx answer has a schema."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from server_harness import ADMIN, Harness, api_routes
from tablegames.server.app import create_app
from tablegames.server.handhistory import MEDIA_TYPES


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path: Path = tmp_path_factory.mktemp("openapi") / "openapi.sqlite3"
    return create_app(f"sqlite:///{path}").openapi()


def walk(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object under ``node`` with where it is."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{where}/{i}")


def is_open(schema: dict[str, Any]) -> bool:
    """An object schema that lets fields through unnamed and untyped."""
    if schema.get("type") != "object" and "properties" not in schema:
        return False
    extra = schema.get("additionalProperties", True)
    return extra is True or extra == {}


def test_no_schema_is_open(spec: dict[str, Any]) -> None:
    open_ = [where for where, s in walk(spec["components"]["schemas"], "#/components/schemas") if is_open(s)]
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            open_ += [w for w, s in walk(op.get("responses", {}), f"{method} {path}") if is_open(s)]
    assert open_ == []


def test_every_success_has_a_schema(spec: dict[str, Any]) -> None:
    untyped = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            for status, response in op["responses"].items():
                if not status.startswith("2"):
                    continue
                content = response.get("content", {})
                # JSON, or a file a route hands over (the hand history's CSV / JSON Lines) with its own schema
                schema = content.get("application/json", {}).get("schema") or next(
                    (c.get("schema") for c in content.values() if c.get("schema")), None
                )
                if not schema or schema == {}:
                    untyped.append(f"{method.upper()} {path} {status}")
    assert untyped == []


def test_the_contracts_models_are_the_answers(spec: dict[str, Any]) -> None:
    """The round's events, its fairness record and its view are the WebSocket contract's models."""
    schemas = spec["components"]["schemas"]
    assert "SettledEvent" in schemas and "FairnessRecord" in schemas and "RoundView" in schemas


def test_every_answer_of_a_played_round_is_its_model(make_server: Callable[..., Harness]) -> None:
    """Real answers, not just the spec: after a One Eyed Flush round (a jackpot meter, a provably fair deck),
    every GET route's answer validates against its response model (closed: a field the model lacks fails)."""
    h = make_server(source_factory=None)
    table = h.table("one-eyed-flush")
    token, headers = h.player("ann")
    ws = h.seated(token, table)
    assert ws.request(type="wager", wagers={"main": 500, "jackpot": 100})["type"] == "ack"
    for _ in range(10):
        st = ws.state()
        if st["round"]["phase"] != "deciding":
            break
        assert ws.request(type="act", action="stand")["type"] == "ack"
    round_id = ws.seen_or_next(lambda m: m["type"] == "round_result")["round_id"]
    headers = {**headers, "X-Admin-Token": ADMIN}
    _, one_time = h.server.staff.add("console:test", "Ada", "admin")
    staff = {"Authorization": f"Bearer {h.server.staff.login('Ada', one_time).token}"}
    checked = []
    for route in api_routes(h.client.app.routes):  # type: ignore[attr-defined]
        if not isinstance(route, APIRoute) or not route.include_in_schema or "GET" not in route.methods:
            continue
        path = route.path.format(table_id=table, round_id=round_id)
        admins = path in ("/staff", "/staff/me")  # (an admin's session; the rest: the token and a player's)
        r = h.client.get(path, headers=staff if admins else headers)
        assert r.status_code == 200, (path, r.text)
        if route.response_model is None:  # a file (the hand history): one of its documented media types
            assert r.headers["content-type"].split(";")[0] in MEDIA_TYPES.values(), path
            continue
        TypeAdapter(route.response_model).validate_python(r.json())
        checked.append(route.path)
    assert {
        "/rounds/{round_id}",
        "/history",
        "/tables/{table_id}",
        "/me",
        "/wallet",
        "/jackpots/history",
    } <= set(checked)

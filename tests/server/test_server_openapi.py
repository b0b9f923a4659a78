"""The REST contract is closed and typed (issue 23): every object schema of ``/openapi.json`` names its fields
and allows no other (a map's values are typed), and every 2xx answer has a schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablegames.server.app import create_app


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
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                if not schema or schema == {}:
                    untyped.append(f"{method.upper()} {path} {status}")
    assert untyped == []


def test_the_contracts_models_are_the_answers(spec: dict[str, Any]) -> None:
    """The round's events, its fairness record and its view are the WebSocket contract's models."""
    schemas = spec["components"]["schemas"]
    assert "SettledEvent" in schemas and "FairnessRecord" in schemas and "RoundView" in schemas

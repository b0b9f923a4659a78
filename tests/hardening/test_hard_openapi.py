"""Schemathesis against the server's own OpenAPI spec, in process (ASGI), with bounded examples: no request ever
gets a 5xx, and every response conforms to the spec (content type; body schema where the spec documents it).
Run once anonymously and once with a valid player token and the admin token, so the generated bodies reach past
authentication into validation and the handlers."""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import checks
from test_hard_support import make_app

from server_harness import ADMIN
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(300)

_STATE: dict[str, Any] = {}


@pytest.fixture(scope="module")
def api_schema() -> Any:
    tmp = tempfile.TemporaryDirectory(prefix="hard-openapi-")
    # generous limits: schemathesis fires requests much faster than a player (429s would hide the handlers)
    app = make_app(
        f"sqlite:///{Path(tmp.name) / 'api.sqlite3'}", limits=Limits(http_rate=10_000.0, http_burst=10_000.0)
    )
    with TestClient(app) as client:
        name = f"fuzz{secrets.token_hex(3)}"
        token = client.post("/players", json={"name": name}).json()["token"]
        client.post(
            "/wallet/buy-in",
            json={"amount": 50_000, "request_id": "seed"},
            headers={"Authorization": f"Bearer {token}"},
        )
        client.post(
            "/tables",
            json={"game": "final-count", "name": "fuzz", "seats": 3},
            headers={"X-Admin-Token": ADMIN},
        )
        _STATE["token"] = token
        _STATE["client"] = client
        yield schemathesis.openapi.from_asgi("/openapi.json", app)
    tmp.cleanup()


CHECKS = [checks.not_a_server_error, checks.content_type_conformance, checks.response_schema_conformance]


def _call(case: Any, authed: bool) -> None:
    headers = dict(case.headers or {})
    if authed:
        headers.setdefault("Authorization", f"Bearer {_STATE['token']}")
        headers.setdefault("X-Admin-Token", ADMIN)
    response = case.call(headers=headers)
    _STATE.setdefault("statuses", []).append(response.status_code)
    case.validate_response(response, checks=CHECKS)
    assert response.status_code < 500


@pytest.mark.parametrize("authed", [False, True], ids=["anonymous", "with-credentials"])
def test_api_against_its_openapi_spec(api_schema: Any, authed: bool) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    labels = {op.label for op in operations}
    assert {"POST /players", "POST /wallet/buy-in", "POST /tables", "GET /rounds/{round_id}"} <= labels
    _STATE["statuses"] = []
    for op in operations:

        @given(case=op.as_strategy())
        @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def run(case: Any) -> None:
            _call(case, authed)

        run()
    statuses = _STATE["statuses"]
    assert len(statuses) >= 3 * len(operations)
    assert any(200 <= c < 300 for c in statuses) and any(400 <= c < 500 for c in statuses)
    if authed:  # past authentication: handlers and validation answered, not only 401s
        assert sum(c not in (401, 403) for c in statuses) > len(statuses) // 2


def test_every_response_is_documented_with_a_model(api_schema: Any) -> None:
    """Every REST operation names its success body's model (a ``$ref``, or a list of one) and documents the
    protocol's error body: the spec says what each answer holds, not just "an object"."""
    spec = _STATE["client"].get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {"ErrorOut", "TableOut", "RoundSummary", "RoundRecall", "MeterEntry", "GameOut"} <= set(schemas)
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
            if "application/json" not in ok["content"]:  # a file handed over: each media type its schema
                assert all(c["schema"].get("description") for c in ok["content"].values()), (method, path)
                continue
            body = ok["content"]["application/json"]["schema"]
            ref = body.get("$ref") or body.get("items", {}).get("$ref")
            assert ref, f"{method.upper()} {path}: its answer has no model"
            errors = [k for k in op["responses"] if k.startswith("4")]
            assert errors, f"{method.upper()} {path}: no error response documented"
            for k in errors:
                assert op["responses"][k]["content"]["application/json"]["schema"]["$ref"].endswith(
                    "ErrorOut"
                )

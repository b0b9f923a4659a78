"""Helpers of the hardening tests (no tests here): an in-process server with players, sockets that record every
message, and the money invariants."""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tablegames.randomness import SeededRandom
from tablegames.server.app import create_app
from tablegames.server.ledger import check_ledger
from tablegames.server.limits import HardeningMiddleware, Limits

ADMIN = "hardening-admin-token"
PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"


def set_limits(app: FastAPI, limits: Limits) -> None:
    """Use ``limits`` for the hardening middleware that ``create_app`` installed (before the app starts)."""
    found = [m for m in app.user_middleware if m.cls is HardeningMiddleware]
    assert found, "create_app must install HardeningMiddleware"
    found[0].kwargs["limits"] = limits


def make_app(url: str, seed: int = 1, limits: Limits | None = None, **kw: Any) -> FastAPI:
    counter = itertools.count(seed)
    kw.setdefault("betting_seconds", 30.0)
    kw.setdefault("turn_seconds", 30.0)
    kw.setdefault("admin_token", ADMIN)
    kw.setdefault("source_factory", lambda: SeededRandom(next(counter)))
    app = create_app(url, **kw)
    if limits is not None:
        set_limits(app, limits)
    return app


@contextmanager
def postgres_url() -> Iterator[str | None]:
    """A fresh schema on the test PostgreSQL (None when TABLEGAMES_TEST_POSTGRES_URL is not set)."""
    base = os.environ.get(PG_ENV)
    if not base:
        yield None
        return
    schema = f"h_{secrets.token_hex(6)}"
    admin = sa.create_engine(base)
    with admin.begin() as c:
        c.execute(sa.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as c:
            c.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


class Sock:
    """A TestClient WebSocket that records every message it receives."""

    def __init__(self, client: TestClient, token: str, table_id: int, stack: ExitStack) -> None:
        self.ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}?token={token}"))
        self.log: list[dict[str, Any]] = []
        self.ids = itertools.count()

    def recv(self) -> dict[str, Any]:
        m: dict[str, Any] = self.ws.receive_json()
        self.log.append(m)
        return m

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 1000) -> dict[str, Any]:
        for _ in range(limit):
            m = self.recv()
            if pred(m):
                return m
        raise AssertionError("expected message not received")

    def seen_or_next(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """A message already received that matches, else the next one that does."""
        for m in self.log:
            if pred(m):
                return m
        return self.until(pred)

    def request(self, **msg: Any) -> dict[str, Any]:
        msg.setdefault("request_id", f"q{next(self.ids)}-{secrets.token_hex(2)}")
        rid = msg["request_id"]
        self.ws.send_json(msg)
        return self.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == rid)

    def state(self) -> dict[str, Any]:
        """The current state: asks for it, then reads up to a ping marker (older pushes are skipped)."""
        marker = f"mark-{next(self.ids)}"
        self.ws.send_json({"type": "state"})
        self.ws.send_json({"type": "ping", "request_id": marker})
        last: dict[str, Any] | None = None
        while True:
            m = self.recv()
            if m["type"] == "state":
                last = m
            elif m["type"] == "pong" and m.get("request_id") == marker:
                assert last is not None
                return last


class Harness:
    def __init__(self, client: TestClient, stack: ExitStack) -> None:
        self.client = client
        self.stack = stack
        self.server: Any = client.app.state.server  # type: ignore[attr-defined]

    def player(self, name: str, buy_in: int = 100_000) -> tuple[str, dict[str, str]]:
        r = self.client.post("/players", json={"name": name})
        assert r.status_code == 201, r.text
        token = str(r.json()["token"])
        headers = {"Authorization": f"Bearer {token}"}
        if buy_in:
            r = self.client.post(
                "/wallet/buy-in", json={"amount": buy_in, "request_id": "init"}, headers=headers
            )
            assert r.status_code == 200, r.text
        return token, headers

    def table(self, game: str, seats: int = 3, **kw: Any) -> int:
        body = {"game": game, "name": f"{game} {secrets.token_hex(2)}", "seats": seats, **kw}
        r = self.client.post("/tables", json=body, headers={"X-Admin-Token": ADMIN})
        assert r.status_code == 201, r.text
        return int(r.json()["table_id"])

    def sock(self, token: str, table_id: int) -> Sock:
        s = Sock(self.client, token, table_id, self.stack)
        s.until(lambda m: m["type"] == "state")
        return s

    def seated(self, token: str, table_id: int) -> Sock:
        s = self.sock(token, table_id)
        ack = s.request(type="sit")
        assert ack["type"] == "ack", ack
        s.until(lambda m: m["type"] == "state")
        return s

    def balance(self, headers: dict[str, str]) -> int:
        return int(self.client.get("/me", headers=headers).json()["balance"])

    def totals(self) -> dict[str, int]:
        with self.server.sessions() as s:
            rows = s.execute(sa.text("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")).all()
        return {str(k): int(v) for k, v in rows}

    def ledger_ok(self) -> None:
        with self.server.sessions() as s:
            check = check_ledger(s)
        assert check.ok, check


@contextmanager
def harness(app: FastAPI) -> Iterator[Harness]:
    with ExitStack() as stack:
        client = stack.enter_context(TestClient(app))
        yield Harness(client, stack)

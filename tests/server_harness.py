"""The table server under test, shared by the server and hardening suites (no tests here): a WebSocket client that
records every message it receives, and an in-process server harness to register players, open tables and
sockets, and check balances and the ledger.

Imported as ``server_harness``: pytest puts ``tests/`` on ``sys.path`` for ``tests/conftest.py`` (the default
prepend import mode; ``tests/`` has no ``__init__.py``)."""

from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from fastapi.testclient import TestClient

from tablegames.server.ledger import check_ledger

ADMIN = "test-admin-token"

Message = dict[str, Any]


PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"
"""The test PostgreSQL's URL (CI sets it with .ci/start-postgres); the PostgreSQL tests skip without it."""


@contextmanager
def fresh_schema(prefix: str = "t") -> Iterator[str | None]:
    """A fresh schema on the test PostgreSQL, as a URL whose search path is that schema, dropped afterwards;
    None when :data:`PG_ENV` is not set. Every PostgreSQL test (server, hardening, lab, cluster, ops) runs in
    one of its own, so they never see each other's tables."""
    base = os.environ.get(PG_ENV)
    if not base:
        yield None
        return
    schema = f"{prefix}_{secrets.token_hex(6)}"
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


def pg_url_or_skip(url: str | None) -> str:
    """``url``, or skip the test when there is no test PostgreSQL."""
    if url is None:
        import pytest

        pytest.skip(f"{PG_ENV} is not set (CI sets it with .ci/start-postgres)")
    return url


class WS:
    """A WebSocket client that records every message it receives (``log``). ``until`` reads at most
    ``max_messages`` messages looking for the one it wants."""

    def __init__(
        self,
        client: TestClient,
        token: str | None,
        table_id: int,
        stack: ExitStack,
        max_messages: int = 500,
        watch: bool = False,
    ) -> None:
        query = f"?token={token}" if token is not None else "?watch=1" if watch else ""
        url = f"/ws/tables/{table_id}" + query
        self.ws = stack.enter_context(client.websocket_connect(url))
        self.log: list[Message] = []
        self.sent: list[Message] = []  # every message sent with ``send`` (the contract tests check them)
        self.max_messages = max_messages
        self._ids = itertools.count()

    def send(self, **msg: Any) -> None:
        self.sent.append(msg)
        self.ws.send_json(msg)

    def send_text(self, text: str) -> None:
        self.ws.send_text(text)

    def recv(self) -> Message:
        m: Message = self.ws.receive_json()
        self.log.append(m)
        return m

    def until(self, pred: Callable[[Message], bool]) -> Message:
        for _ in range(self.max_messages):
            m = self.recv()
            if pred(m):
                return m
        raise AssertionError("message not received")

    def seen_or_next(self, pred: Callable[[Message], bool]) -> Message:
        """A message already received that matches, else the next one that does."""
        for m in self.log:
            if pred(m):
                return m
        return self.until(pred)

    def decision(self) -> str | None:
        """The decision id of the latest state received (what an ``act`` answers), or None."""
        for m in reversed(self.log):
            if m["type"] == "state":
                return m.get("decision")
        return None

    def request(self, **msg: Any) -> Message:
        """Send with a fresh request_id (unless given) and return the ack or error answering it. An ``act``
        names the decision of the latest state received unless it gives one (``decision=None``: none)."""
        msg.setdefault("request_id", f"r{next(self._ids)}-{secrets.token_hex(3)}")
        if msg["type"] == "act" and "decision" not in msg:
            msg["decision"] = self.decision()
        if msg.get("decision", "") is None:
            del msg["decision"]
        rid = msg["request_id"]
        self.send(**msg)
        return self.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == rid)

    def next_state(self) -> Message:
        """Ask for a state and return the next state message (possibly a push sent before the answer)."""
        self.send(type="state")
        return self.until(lambda m: m["type"] == "state")

    def state(self) -> Message:
        """The current state: asks for it, then reads up to a ping marker (older pushes are skipped)."""
        marker = f"mark-{next(self._ids)}"
        self.send(type="state")
        self.send(type="ping", request_id=marker)
        last: Message | None = None
        while True:
            m = self.recv()
            if m["type"] == "state":
                last = m
            elif m["type"] == "pong" and m.get("request_id") == marker:
                assert last is not None
                return last


class Harness:
    """An in-process server (a started TestClient) with helpers to register players and open sockets; its
    sockets read at most ``max_messages`` messages in ``WS.until``."""

    def __init__(self, client: TestClient, stack: ExitStack, max_messages: int = 500) -> None:
        self.client = client
        self.stack = stack
        self.max_messages = max_messages
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

    def staff(self, name: str, role: str) -> dict[str, str]:
        """A new staff member of ``role``, logged in: the headers of their session."""
        _, password = self.server.staff.add("console:test", name, role)
        r = self.client.post("/staff/login", json={"name": name, "password": password})
        assert r.status_code == 200, r.text
        return {"Authorization": f"Bearer {r.json()['token']}"}

    def table(self, game: str, seats: int = 5, **kw: Any) -> int:
        body = {"game": game, "name": f"{game} {secrets.token_hex(2)}", "seats": seats, **kw}
        r = self.client.post("/tables", json=body, headers={"X-Admin-Token": ADMIN})
        assert r.status_code == 201, r.text
        return int(r.json()["table_id"])

    def ws(self, token: str | None, table_id: int, wait: bool = True) -> WS:
        """A socket at the table; with ``wait``, once its first state has arrived."""
        ws = WS(self.client, token, table_id, self.stack, self.max_messages)
        if wait:
            ws.until(lambda m: m["type"] == "state")
        return ws

    def seated(self, token: str, table_id: int) -> WS:
        """A socket whose player sat down (the ``sit`` acknowledged and the state after it received)."""
        ws = self.ws(token, table_id)
        ack = ws.request(type="sit")
        assert ack["type"] == "ack", ack
        ws.until(lambda m: m["type"] == "state")
        return ws

    def balance(self, headers: dict[str, str]) -> int:
        return int(self.client.get("/me", headers=headers).json()["balance"])

    def totals(self) -> dict[str, int]:
        """Balances by account kind (wallet, house, cashier, in_play, jackpot)."""
        with self.server.sessions() as s:
            rows = s.execute(sa.text("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")).all()
        return {str(k): int(v) for k, v in rows}

    def check_ledger(self) -> None:
        with self.server.sessions() as s:
            check = check_ledger(s)
        assert check.ok, check


def api_routes(routes: list[Any]) -> Iterator[Any]:
    """Every route, those of the included routers too (FastAPI keeps an included router as one entry)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from api_routes(inner.routes)
        else:
            yield route


def eventually(check: Callable[[], bool], what: str, seconds: float = 15.0) -> None:
    """Wait for ``check`` (a notice's delivery, a reconnection): the test is about what, never how fast."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)

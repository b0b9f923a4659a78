"""Helpers of the operations tests: a player over REST and one WebSocket, a table created with the admin token."""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tablegames.loadtest.proxy import haproxy_binary

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"
ADMIN = "ops-admin"

needs_haproxy = pytest.mark.skipif(
    haproxy_binary() is None, reason="haproxy is not installed (.ci/system-deps)"
)
needs_pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"{PG_ENV} is not set (.ci/start-postgres)")


class Player:
    """A registered, bought-in player and its socket to one table (through ``base``: a node or the proxy)."""

    def __init__(self, base: str, name: str, buy_in: int = 100_000) -> None:
        self.base = base
        r = httpx.post(f"{base}/players", json={"name": name}, timeout=10)
        assert r.status_code == 201, r.text
        self.token = r.json()["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}
        r = httpx.post(
            f"{base}/wallet/buy-in", json={"amount": buy_in, "request_id": f"b-{name}"}, headers=self.headers
        )
        assert r.status_code == 200, r.text
        self.ws: ClientConnection | None = None
        self.messages: list[dict[str, Any]] = []

    def join(self, table_id: int, base: str | None = None) -> dict[str, Any]:
        """Connect to the table's socket (at ``base``, default the player's) and sit; the state after sitting."""
        url = "ws" + (base or self.base)[4:] + f"/ws/tables/{table_id}?token={self.token}"
        self.ws = connect(url, open_timeout=10)
        first = self.until(lambda m: m["type"] in ("state", "redirect"))
        if first["type"] == "redirect":  # not the table's owner (issue 16): go there, same path
            self.close()
            return self.join(table_id, first["url"])
        self.send(type="sit", request_id=f"sit-{table_id}")
        self.until(lambda m: m["type"] == "ack" and m.get("request_id") == f"sit-{table_id}")
        return self.until(lambda m: m["type"] == "state" and m.get("seat") is not None)

    def send(self, **msg: Any) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(msg))

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 15.0) -> dict[str, Any]:
        assert self.ws is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no such message within {timeout} s; last: {self.messages[-3:]}")
            try:
                msg = json.loads(self.ws.recv(timeout=left))
            except TimeoutError:
                continue
            self.messages.append(msg)
            assert msg.get("type") != "error" or msg.get("code") != "server_error", msg
            if pred(msg):
                return msg

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def create_table(base: str, game: str, seats: int = 5) -> int:
    r = httpx.post(
        f"{base}/tables",
        json={
            "game": game,
            "name": f"{game} {secrets.token_hex(2)}",
            "seats": seats,
            "min_bet": 100,
            "max_bet": 10_000,
        },
        headers={"X-Admin-Token": ADMIN},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    return int(r.json()["table_id"])

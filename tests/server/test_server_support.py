"""Helpers of the table-server tests (imported by conftest.py and the tests): a recording WebSocket client, an
in-process server harness, rigged decks."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from tablegames.cards import CARDS, parse_card
from tablegames.server.db import make_engine
from tablegames.server.ledger import check_ledger

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"
ADMIN = "test-admin-token"


def rigged_deck(first: Sequence[str]) -> list[int]:
    """A deck whose first cards are ``first`` (e.g. ``["Jh", "2c", ...]``), the rest in order."""
    head = [int(parse_card(c)) for c in first]
    return head + [int(c) for c in CARDS if int(c) not in head]


class WS:
    """A WebSocket client that records every message it receives."""

    def __init__(self, client: TestClient, token: str | None, table_id: int, stack: ExitStack) -> None:
        url = f"/ws/tables/{table_id}" + (f"?token={token}" if token is not None else "")
        self.ws = stack.enter_context(client.websocket_connect(url))
        self.log: list[dict[str, Any]] = []
        self._ids = itertools.count()

    def send(self, **msg: Any) -> None:
        self.ws.send_json(msg)

    def send_text(self, text: str) -> None:
        self.ws.send_text(text)

    def recv(self) -> dict[str, Any]:
        m: dict[str, Any] = self.ws.receive_json()
        self.log.append(m)
        return m

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 500) -> dict[str, Any]:
        for _ in range(limit):
            m = self.recv()
            if pred(m):
                return m
        raise AssertionError("message not received")

    def request(self, **msg: Any) -> dict[str, Any]:
        """Send with a fresh request_id (unless given) and return the ack or error answering it."""
        msg.setdefault("request_id", f"r{next(self._ids)}-{secrets.token_hex(3)}")
        rid = msg["request_id"]
        self.send(**msg)
        return self.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == rid)

    def state(self) -> dict[str, Any]:
        """Ask for and return a fresh state."""
        self.send(type="state")
        return self.until(lambda m: m["type"] == "state")


class Harness:
    """An in-process server with helpers to register players and open sockets."""

    def __init__(self, client: TestClient, stack: ExitStack) -> None:
        self.client = client
        self.stack = stack
        self.app = client.app
        self.server = client.app.state.server  # type: ignore[attr-defined]

    def player(self, name: str, buy_in: int = 100_000) -> tuple[str, dict[str, str]]:
        r = self.client.post("/players", json={"name": name})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        if buy_in:
            r = self.client.post(
                "/wallet/buy-in", json={"amount": buy_in, "request_id": "init"}, headers=headers
            )
            assert r.status_code == 200, r.text
        return token, headers

    def ws(self, token: str | None, table_id: int, wait: bool = True) -> WS:
        ws = WS(self.client, token, table_id, self.stack)
        if wait:
            ws.until(lambda m: m["type"] == "state")
        return ws

    def table(self, game: str, seats: int = 5, **kw: Any) -> int:
        body = {"game": game, "name": f"{game} {secrets.token_hex(2)}", "seats": seats, **kw}
        r = self.client.post("/tables", json=body, headers={"X-Admin-Token": ADMIN})
        assert r.status_code == 201, r.text
        return int(r.json()["table_id"])

    def balance(self, headers: dict[str, str]) -> int:
        return int(self.client.get("/me", headers=headers).json()["balance"])

    def totals(self) -> dict[str, int]:
        """Balances by account kind (wallet, house, cashier, in_play, jackpot)."""
        with self.server.sessions() as s:
            rows = s.execute(sa.text("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")).all()
        return {k: int(v) for k, v in rows}

    def check_ledger(self) -> None:
        with self.server.sessions() as s:
            check = check_ledger(s)
        assert check.ok, check


def ledger_ok(url: str) -> None:
    engine = make_engine(url)
    try:
        with engine.connect() as c, sa.orm.Session(bind=c) as s:
            check = check_ledger(s)
        assert check.ok, check
    finally:
        engine.dispose()


Chooser = Callable[[int, dict[str, Any]], str]


def first_legal(seat: int, state: dict[str, Any]) -> str:
    return str(state["round"]["legal_actions"][0])


def play_round(
    seated: dict[int, WS],
    wagers: dict[int, dict[str, int]],
    options: dict[int, dict[str, str]] | None = None,
    choose: Chooser = first_legal,
) -> dict[int, dict[str, Any]]:
    """Every seat wagers, then each seat acts when its turn comes (``choose``); returns each seat's
    ``round_result``. Every socket receives every state in the same order, so the driver follows the turns."""
    options = options or {}
    last: dict[str, Any] = {}
    for seat, ws in seated.items():
        ack = ws.request(type="wager", wagers=wagers[seat], options=options.get(seat, {}))
        assert ack["type"] == "ack", ack
        last = ack
    st_ws = list(seated.values())[-1]
    rid = last["round_id"]
    st = st_ws.until(
        lambda m: m["type"] == "state" and m["round_id"] == rid and m["round"]["phase"] != "betting"
    )
    while st["round"]["phase"] == "deciding":
        seat: int = st["round"]["to_act"]
        ws = seated[seat]
        seq: int = st["seq"]

        def my_turn(m: dict[str, Any], seat: int = seat, seq: int = seq) -> bool:
            return (
                m["type"] == "state"
                and m["round_id"] == rid
                and m["seq"] >= seq
                and m["round"]["phase"] == "deciding"
                and m["round"]["to_act"] == seat
            )

        mine = st if ws is st_ws else ws.until(my_turn)
        ack = ws.request(type="act", action=choose(seat, mine))
        assert ack["type"] == "ack", ack
        after: int = mine["seq"]
        st = ws.until(lambda m, after=after: m["type"] == "state" and m["seq"] > after)  # type: ignore[misc]
        st_ws = ws
    return {seat: ws.until(lambda m: m["type"] == "round_result") for seat, ws in seated.items()}

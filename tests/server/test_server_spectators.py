"""Spectators (issue 24): anyone may watch a table without an account (``?watch=1``): public cards only, never a
hidden one (checked over 32 rounds of every registered game against the rounds' full histories), nothing they
send changes anything, and many of them share the table's socket bound, not a player's."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import TypeAdapter
from test_server_secrecy import check_log
from test_server_support import every_wager, first_legal, play_round

from server_harness import WS, Harness
from tablegames.rules import registry
from tablegames.server.contract import ServerMessage

SERVER = TypeAdapter(ServerMessage)

pytestmark = pytest.mark.timeout(600)
ROUNDS = 8  # per game: 32 over the four


def _spectator(h: Harness, table: int) -> WS:
    ws = WS(h.client, None, table, h.stack, watch=True)
    ws.until(lambda m: m["type"] == "state")
    return ws


def _ping(ws: WS) -> bool:
    ws.send(type="ping", request_id="are-you-there")
    return ws.until(lambda m: m["type"] == "pong")["request_id"] == "are-you-there"


def test_a_spectator_sees_every_round_and_never_a_hidden_card(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    histories: dict[int, list[dict[str, object]]] = {}
    checked = rounds = 0
    for d in registry.DEFINITIONS:
        table = h.table(d.key, seats=2)
        watcher = _spectator(h, table)
        welcome = watcher.log[0]
        assert welcome["type"] == "welcome" and welcome["seat"] is None and welcome["balance"] == 0
        socks = {}
        for seat in (1, 2):
            tok, _ = h.player(f"{d.key[:4]}{seat}")
            socks[seat] = h.ws(tok, table)
            assert socks[seat].request(type="sit", seat=seat)["type"] == "ack"
        wagers, options, _ = every_wager(d, 300)
        for _ in range(ROUNDS):
            done = play_round(
                socks, dict.fromkeys(socks, wagers), dict.fromkeys(socks, options), choose=first_legal
            )
            rounds += 1
        last = done[1]["round_id"]
        watcher.until(
            lambda m, last=last: (
                m["type"] == "state" and m["round_id"] == last and m["round"]["phase"] == "settled"
            )
        )
        states = [m for m in watcher.log if m["type"] == "state"]
        assert all(m["seat"] is None for m in states)
        assert len({m["round_id"] for m in states if m["round_id"]}) >= ROUNDS - 1  # it watched the rounds
        checked += check_log(h, watcher.log, histories)
        for (
            m
        ) in watcher.log:  # every message it was sent is the contract's (docs/protocol.md, /asyncapi.json)
            SERVER.validate_python(m)
        # nothing a spectator sends changes anything
        for msg in (
            {"type": "sit", "seat": 1},
            {"type": "wager", "wagers": {"main": 100}},
            {"type": "act", "action": "stand"},
            {"type": "hints", "on": True},
            {"type": "leave"},
        ):
            answer = watcher.request(**msg)
            assert answer["type"] == "error" and answer["code"] == "spectator", answer
        assert _ping(watcher)
    assert rounds == 4 * ROUNDS and checked > 4 * ROUNDS  # cards were shown to it, each one checked


def test_spectators_share_the_tables_bound_not_a_players(make_server: Callable[..., Harness]) -> None:
    """Five spectators at once all stay (a player's own bound is 3 sockets a table); a missing token without
    ``watch`` is still refused."""
    h = make_server()
    table = h.table("final-count", seats=2)
    watchers = [_spectator(h, table) for _ in range(5)]
    assert all(_ping(w) for w in watchers)
    with h.client.websocket_connect(f"/ws/tables/{table}") as ws:
        assert ws.receive_json()["code"] == "unauthorized"

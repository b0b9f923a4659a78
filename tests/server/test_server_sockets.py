"""Sockets per player and per table are bounded (issue 11 defect 8: one token opened 350 sockets that never read,
each got every broadcast, and another seat's round slowed from 13 ms to 219 ms).

A player keeps at most ``MAX_SOCKETS_PER_PLAYER_TABLE`` sockets at a table and ``MAX_SOCKETS_PER_PLAYER`` over
all tables: a newer one closes the player's oldest (an ``error`` with code ``replaced``, then close code
``4409``). A table keeps at most ``MAX_SOCKETS_PER_TABLE``: then an onlooker's new socket is refused
(``too_many_sockets``, ``4503``) and a seated player's replaces the oldest onlooker socket."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from test_server_support import play_round

from server_harness import WS, Harness
from tablegames.server import protocol as runner_module

# the documented bounds and close codes (docs/protocol.md)
MAX_SOCKETS_PER_PLAYER_TABLE = getattr(runner_module, "MAX_SOCKETS_PER_PLAYER_TABLE", 4)
MAX_SOCKETS_PER_PLAYER = getattr(runner_module, "MAX_SOCKETS_PER_PLAYER", 16)
CLOSE_REPLACED = 4409
CLOSE_TABLE_FULL = 4503

pytestmark = pytest.mark.timeout(120)


def closed_with(ws: WS, code: str) -> int:
    """Read until the server closes the socket: the error it sent first has ``code``; returns the close code."""
    err = ws.until(lambda m: m["type"] == "error")
    assert err["code"] == code, err
    with pytest.raises(WebSocketDisconnect) as exc:
        for _ in range(100):
            ws.recv()
    return int(exc.value.code)


def open_sockets(h: Harness, player_id: int, table: int | None = None) -> int:
    runners = [h.server.runners[table]] if table is not None else list(h.server.runners.values())
    return sum(
        1
        for r in runners
        for c in r.conns
        if c.player.player_id == player_id and not getattr(c, "gone", c.closed)
    )


def player_id(h: Harness, headers: dict[str, str]) -> int:
    return int(h.client.get("/me", headers=headers).json()["player_id"])


def test_more_sockets_than_the_cap_close_the_players_oldest_and_others_play_on(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    table = h.table("final-count", seats=2)
    tok_a, head_a = h.player("many")
    tok_b, _ = h.player("calm")
    calm = h.seated(tok_b, table)
    extra = 3
    socks = [h.ws(tok_a, table) for _ in range(MAX_SOCKETS_PER_PLAYER_TABLE + extra)]
    assert open_sockets(h, player_id(h, head_a), table) == MAX_SOCKETS_PER_PLAYER_TABLE
    for ws in socks[:extra]:
        assert closed_with(ws, "replaced") == CLOSE_REPLACED
    # the newest sockets work: the player sits and both play a round to the end
    newest = socks[-1]
    assert newest.request(type="sit")["type"] == "ack"
    results = play_round({1: calm, 2: newest}, {1: {"main": 100}, 2: {"main": 200}})
    assert {r["seat"] for r in results[1]["results"]} == {1, 2}
    for ws in socks[extra:-1]:  # the player's other live sockets saw the round too
        assert ws.until(lambda m: m["type"] == "round_result")["round_id"] == results[1]["round_id"]
    h.check_ledger()


def test_sockets_over_all_tables_are_bounded_per_player(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    tok, headers = h.player("wide")
    tables = [h.table("final-count") for _ in range(5)]
    socks: list[WS] = []
    for t in tables:
        socks += [h.ws(tok, t) for _ in range(MAX_SOCKETS_PER_PLAYER_TABLE)]
    over = len(socks) - MAX_SOCKETS_PER_PLAYER
    assert over > 0
    assert open_sockets(h, player_id(h, headers)) == MAX_SOCKETS_PER_PLAYER
    for ws in socks[:over]:
        assert closed_with(ws, "replaced") == CLOSE_REPLACED
    assert socks[over].state()["table_id"] == tables[over // MAX_SOCKETS_PER_PLAYER_TABLE]  # still open


def test_a_full_table_refuses_onlookers_and_makes_room_for_its_players(
    make_server: Callable[..., Harness], monkeypatch: Any
) -> None:
    monkeypatch.setattr(runner_module, "MAX_SOCKETS_PER_TABLE", 6, raising=False)
    h = make_server()
    table = h.table("final-count", seats=2)
    tok_p, _ = h.player("sitter")
    player = h.seated(tok_p, table)
    tok_1, _ = h.player("w1")
    tok_2, _ = h.player("w2")
    watchers = [h.ws(tok_1, table) for _ in range(3)] + [h.ws(tok_2, table) for _ in range(2)]
    # 1 + 5 sockets: the table is full, another onlooker socket is refused
    refused = h.ws(tok_2, table, wait=False)
    live = h.server.runners[table].conns
    assert len([c for c in live if not getattr(c, "gone", c.closed)]) == 6
    assert closed_with(refused, "too_many_sockets") == CLOSE_TABLE_FULL
    tok_late, _ = h.player("late")
    late = h.ws(tok_late, table, wait=False)
    assert closed_with(late, "too_many_sockets") == CLOSE_TABLE_FULL
    # the seated player's second socket gets in: the oldest onlooker socket makes room
    second = h.ws(tok_p, table)
    assert closed_with(watchers[0], "too_many_sockets") == CLOSE_TABLE_FULL
    assert second.state()["seat"] == 1 and player.state()["seat"] == 1
    assert len([c for c in h.server.runners[table].conns if not getattr(c, "gone", c.closed)]) == 6

"""Hardening class: sockets per player (issue 11 defect 8: one token opened 350 sockets that never read, each got
every broadcast, none was dropped, and another seat's round slowed from 13 ms to 219 ms).

One player keeps opening sockets that never read, at one table and at several, while another player plays rounds:
at every moment the player has at most ``MAX_SOCKETS_PER_PLAYER_TABLE`` open at a table and
``MAX_SOCKETS_PER_PLAYER`` in all, each replaced one was closed with ``4409``, the table's broadcast reaches a
bounded number of sockets, and the other player's rounds go on to the end with the books balanced.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from test_hard_support import harness, make_app

from tablegames.server import protocol as runner_module
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(300)

PER_TABLE = getattr(runner_module, "MAX_SOCKETS_PER_PLAYER_TABLE", 4)
PER_PLAYER = getattr(runner_module, "MAX_SOCKETS_PER_PLAYER", 16)
LIMITS = Limits(http_rate=10_000.0, http_burst=10_000.0)


def play_one(ws: Any) -> dict[str, Any]:
    """One Final Count round of a lone seated player: wager, stand (or turn) at each turn, the result."""
    assert ws.request(type="wager", wagers={"main": 100})["type"] == "ack"
    while True:
        st = ws.state()
        if st["round"]["phase"] == "settled":
            rid = st["round_id"]
            return dict(
                ws.seen_or_next(lambda m, rid=rid: m["type"] == "round_result" and m["round_id"] == rid)
            )
        if st["round"]["phase"] == "deciding":
            legal = st["round"]["legal_actions"]
            assert ws.request(type="act", action="stand" if "stand" in legal else legal[0])["type"] == "ack"


def live_sockets(server: Any, player_id: int, table: int | None = None) -> int:
    runners = [server.runners[table]] if table is not None else list(server.runners.values())
    return sum(
        1
        for r in runners
        for c in r.conns
        if c.player.player_id == player_id and not getattr(c, "gone", c.closed)
    )


def test_a_player_flooding_sockets_stays_bounded_and_the_table_plays_on() -> None:
    with tempfile.TemporaryDirectory(prefix="hard-sock-") as tmp:
        app = make_app(f"sqlite:///{Path(tmp) / 'sock.sqlite3'}", limits=LIMITS)
        with harness(app) as h:
            tables = [h.table("final-count", seats=2) for _ in range(5)]
            tok_f, head_f = h.player("flood")
            tok_c, _ = h.player("calm")
            flood_id = int(h.client.get("/me", headers=head_f).json()["player_id"])
            calm = h.seated(tok_c, tables[0])
            opened = []
            for n in range(60):  # sockets that never read, over the five tables
                opened.append(h.ws(tok_f, tables[n % 5], wait=False))
                for t in tables:
                    assert live_sockets(h.server, flood_id, t) <= PER_TABLE
                assert live_sockets(h.server, flood_id) <= PER_PLAYER
                if n % 10 == 9:  # the other player keeps playing meanwhile
                    result = play_one(calm)
                    assert [r["seat"] for r in result["results"]] == [1]
            assert live_sockets(h.server, flood_id) == min(PER_PLAYER, 5 * PER_TABLE)
            assert (
                len([c for c in h.server.runners[tables[0]].conns if not getattr(c, "gone", c.closed)])
                <= PER_TABLE + 1
            )
            # every replaced socket was told so and closed with 4409
            replaced = 0
            for ws in opened[: len(opened) - min(PER_PLAYER, 5 * PER_TABLE)]:
                with pytest.raises(WebSocketDisconnect) as exc:
                    for _ in range(200):
                        m = ws.recv()
                        if m["type"] == "error":
                            assert m["code"] == "replaced"
                assert exc.value.code == 4409
                replaced += 1
            assert replaced == 60 - min(PER_PLAYER, 5 * PER_TABLE)
            h.check_ledger()

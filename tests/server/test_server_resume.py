"""A restart or a takeover in the middle of play (issue 20, defects 5 and 7). Each test stops the server with
rounds and requests in flight and starts another server instance on the same database: a single-process restart
on SQLite; on PostgreSQL the second instance is another node that takes the tables over (their leases, fenced).

5. Request ids were forgotten: the answers to ``sit``, ``leave``, ``act`` and ``client_seed`` lived in the
   owner's memory, so the same ``sit`` got ``already_seated`` and the same ``act`` ``wrong_phase`` after a restart,
   though docs/protocol.md promises the first answer with ``duplicate: true`` at any later time. They are stored
   with the change they answer, in its transaction.
6. A server fault decided for the player: the interrupted round was finished at once by the timeout defaults (a
   Three Card Poker player folded and lost the Ante). It resumes (GLI-19 interrupted games): the pending decision
   gets a fresh turn clock, the player who comes back takes it, only one who does not gets the default.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from server_harness import ADMIN, WS, Harness
from tablegames.engine import Table
from tablegames.engine.events import RoundEnded
from tablegames.randomness import SeededRandom, shuffle_deck
from tablegames.rules import make_rules
from tablegames.server.app import create_app

pytestmark = pytest.mark.timeout(120)

TCP = "three-card-poker"
DECK = [int(c) for c in shuffle_deck(SeededRandom(20))]
BUY_IN = 100_000


@contextmanager
def serving(url: str, **kw: Any) -> Iterator[Harness]:
    """One server instance on ``url`` (leaving the block stops it: its rounds stay as stored, unfinished)."""
    kw.setdefault("betting_seconds", 30.0)
    kw.setdefault("turn_seconds", 30.0)
    kw.setdefault("admin_token", ADMIN)
    with ExitStack() as stack:
        client = stack.enter_context(TestClient(create_app(url, **kw)))
        yield Harness(client, stack)


def sql(h: Harness, query: str, **params: Any) -> list[Any]:
    with h.server.sessions() as s:
        return list(s.execute(sa.text(query), params).all())


def engine_nets(wagers: dict[int, dict[str, int]], actions: list[tuple[int, str]]) -> dict[int, int]:
    """What the engine pays each seat for these wagers and decisions on :data:`DECK` (the money expected)."""
    rnd = Table(make_rules(TCP), seats=2, source=SeededRandom(0)).new_round(deck=DECK)
    for seat, ws in wagers.items():
        for name, amount in ws.items():
            rnd.place_wager(seat, name, amount)
    rnd.deal()
    for seat, action in actions:
        rnd.act(seat, action)
    ended = rnd.history[-1]
    assert isinstance(ended, RoundEnded)
    return dict(ended.net_by_seat)


def test_an_interrupted_round_resumes_for_the_player_who_comes_back(db_url: str) -> None:
    """Three Card Poker: the server stops while Ann's Play-or-fold is pending. The next server does not fold
    for her: she reconnects, gets her cards, the same decision on a fresh clock and her hint, and plays; Bob,
    who does not come back within his turn, gets the timeout default (fold). Settled once, money exact."""
    wagers = {1: {"ante": 500, "pair-plus": 100}, 2: {"ante": 300}}
    with serving(db_url, deck_factory=lambda _t: DECK) as h:
        table = h.table(TCP, seats=2)
        (ta, ha), (tb, hb) = h.player("ann", BUY_IN), h.player("bob", BUY_IN)
        a, b = h.seated(ta, table), h.seated(tb, table)
        round_id = a.request(type="wager", wagers=wagers[1])["round_id"]
        assert b.request(type="wager", wagers=wagers[2])["type"] == "ack"
        before = a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
        assert before["round"]["to_act"] == 1
        cards = before["round"]["seats"][0]["cards"]
        totals = h.totals()
        steps = sql(h, "SELECT COUNT(*) FROM round_steps WHERE round_id = :r", r=round_id)[0][0]
        assert steps == 4  # three wagers and the deal
        assert totals["in_play"] == 2 * 500 + 100 + 2 * 300  # the Play set aside with each Ante
    turn = 6.0
    with serving(db_url, deck_factory=lambda _t: DECK, turn_seconds=turn) as h:
        started = time.time()
        # nothing was decided for anybody: the round is open, its stakes in play
        assert sql(h, "SELECT status FROM rounds WHERE id = :r", r=round_id) == [("deciding",)]
        assert sql(h, "SELECT COUNT(*) FROM round_steps WHERE round_id = :r", r=round_id) == [(steps,)]
        assert h.totals() == totals
        again = h.ws(ta, table, wait=False)
        welcome = again.until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] == 1
        st = again.until(lambda m: m["type"] == "state")
        assert st["round_id"] == round_id and st["decision"] == before["decision"]  # the same decision
        assert st["round"]["phase"] == "deciding" and st["round"]["to_act"] == 1
        assert st["round"]["seats"][0]["cards"] == cards
        assert st["round"]["seats"][1]["cards"] == [None, None, None]  # never Bob's
        assert turn - (time.time() - started) - 1 <= st["seconds_left"] <= turn  # a fresh turn clock
        assert again.request(type="hints", on=True)["type"] == "ack"
        hint = again.until(lambda m: m["type"] == "hint")
        assert hint["round_id"] == round_id
        ack = again.request(type="act", action="play", decision=st["decision"])
        assert ack["type"] == "ack" and ack["duplicate"] is False
        assert ack["event"] == {"type": "action", "seat": 1, "action": "play", "by": "player"}
        # Bob does not come back: his turn (a fresh one) times out to the default, then the round settles
        result = again.until(lambda m: m["type"] == "round_result")
        assert result["round_id"] == round_id
        nets = engine_nets(wagers, [(1, "play"), (2, "fold")])
        assert {r["seat"]: r["net"] for r in result["results"]} == nets
        assert h.balance(ha) == BUY_IN + nets[1] and h.balance(hb) == BUY_IN + nets[2]
        assert h.balance(ha) != BUY_IN - 500 + engine_nets(wagers, [(1, "fold"), (2, "fold")])[1] + 500
        rec = h.client.get(f"/rounds/{round_id}").json()
        acts = [(e["seat"], e["action"], e["by"]) for e in rec["events"] if e["type"] == "action"]
        assert acts == [(1, "play", "player"), (2, "fold", "timeout")]
        assert rec["status"] == "settled" and rec["recovered"] is True
        stakes = sql(
            h, "SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'stakes' AND round_id = :r", r=round_id
        )
        assert stakes == [(1,)]  # settled once
        after = h.totals()
        assert after["in_play"] == 0 and sum(after.values()) == 0 and after["cashier"] == totals["cashier"]
        h.check_ledger()
    with serving(db_url, deck_factory=lambda _t: DECK) as h:  # another restart changes nothing
        assert h.totals() == after
        assert sql(h, "SELECT status FROM rounds WHERE id = :r", r=round_id) == [("settled",)]


def test_an_open_betting_window_resumes_with_its_wagers(db_url: str) -> None:
    """The server stops while Bob has not wagered yet: Ann's wager stays in, betting reopens on a fresh clock,
    Bob wagers after the restart and the round is dealt to both."""
    with serving(db_url, deck_factory=lambda _t: DECK) as h:
        table = h.table(TCP, seats=2)
        (ta, ha), (tb, hb) = h.player("ann", BUY_IN), h.player("bob", BUY_IN)
        h.seated(ta, table)
        b = h.seated(tb, table)
        round_id = b.request(type="wager", wagers={"ante": 500})["round_id"]
    with serving(db_url, deck_factory=lambda _t: DECK, betting_seconds=20.0) as h:
        assert sql(h, "SELECT status FROM rounds WHERE id = :r", r=round_id) == [("betting",)]
        a = h.ws(ta, table)
        st = a.state()
        assert st["round_id"] == round_id and st["betting_open"] and st["round"]["phase"] == "betting"
        assert 10 < st["seconds_left"] <= 20
        ack = a.request(type="wager", wagers={"ante": 200})
        assert ack["type"] == "ack" and ack["round_id"] == round_id
        dealt = a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
        assert {s["seat"] for s in dealt["round"]["seats"] if s["wagers"]} == {1, 2}
        assert h.balance(ha) == BUY_IN - 400 and h.balance(hb) == BUY_IN - 1000
        h.check_ledger()


def answer(ws: WS, rid: str) -> dict[str, Any]:
    return ws.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == rid)


def test_request_ids_are_answered_as_duplicates_after_a_restart(db_url: str) -> None:
    """The same ``sit``, ``leave``, ``act`` and ``client_seed`` after a restart (a takeover on PostgreSQL) get
    their first answers, ``duplicate: true``, and change nothing."""
    with serving(db_url, source_factory=None) as h:  # provably fair: client seeds are taken
        table = h.table("let-it-ride", seats=2)
        (ta, ha), (tb, _) = h.player("ann", BUY_IN), h.player("bob", BUY_IN)
        a, b = h.ws(ta, table), h.ws(tb, table)
        first: dict[str, dict[str, Any]] = {}
        first["b-sit"] = b.request(type="sit", seat=2, request_id="b-sit")
        first["b-leave"] = b.request(type="leave", request_id="b-leave")
        first["a-sit"] = a.request(type="sit", seat=1, request_id="a-sit")
        st = a.until(lambda m: m["type"] == "state" and m["seat"] == 1)
        lucky = hashlib.sha256(b"lucky").hexdigest()  # committed first, then revealed (issue 20 defect 3)
        first["a-commit"] = a.request(
            type="client_seed", seed_hash=lucky, commitment=st["next_commitment"], request_id="a-commit"
        )
        first["a-seed"] = a.request(
            type="client_seed", seed="lucky", commitment=st["next_commitment"], request_id="a-seed"
        )
        first["a-wager"] = a.request(type="wager", wagers={"bets": 500}, request_id="a-wager")
        deciding = a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
        first["a-pull"] = a.request(
            type="act", action="pull", decision=deciding["decision"], request_id="a-pull"
        )
        assert all(m["type"] == "ack" and m["duplicate"] is False for m in first.values()), first
        round_id = first["a-wager"]["round_id"]
        steps = sql(h, "SELECT seq, payload FROM round_steps WHERE round_id = :r ORDER BY seq", r=round_id)
        balance = h.balance(ha)
    with serving(db_url, source_factory=None) as h:
        a, b = h.ws(ta, table), h.ws(tb, table)
        for rid, msg in {
            "b-sit": {"type": "sit", "seat": 2},
            "b-leave": {"type": "leave"},
            "a-sit": {"type": "sit", "seat": 1},
            "a-commit": {
                "type": "client_seed",
                "seed_hash": lucky,
                "commitment": first["a-seed"]["commitment"],
            },
            "a-seed": {"type": "client_seed", "seed": "lucky", "commitment": first["a-seed"]["commitment"]},
            "a-wager": {"type": "wager", "wagers": {"bets": 500}},
            "a-pull": {"type": "act", "action": "pull", "decision": deciding["decision"]},
        }.items():
            ws = b if rid.startswith("b-") else a
            ws.send(**msg, request_id=rid)
            assert answer(ws, rid) == {**first[rid], "duplicate": True}, rid
        # the decision taken before the restart, under a new request id: its duplicate too
        late = a.request(type="act", action="ride", decision=deciding["decision"])
        assert (
            late["type"] == "ack" and late["duplicate"] is True and late["event"] == first["a-pull"]["event"]
        )
        # nothing changed: Bob does not sit (his sit was answered long ago, before his leave), no step, no money
        st = a.state()
        assert st["occupants"] == {"1": "ann"} and st["round"]["bets_up"]["1"] == ["2", "$"]
        assert st["round"]["stage"] == 2 and st["decision"] != deciding["decision"]
        assert (
            sql(h, "SELECT seq, payload FROM round_steps WHERE round_id = :r ORDER BY seq", r=round_id)
            == steps
        )
        assert h.balance(ha) == balance
        # and the round goes on for Ann
        assert a.request(type="act", action="ride")["duplicate"] is False
        a.until(lambda m: m["type"] == "round_result" and m["round_id"] == round_id)
        h.check_ledger()


def seated_players(h: Harness, table: int) -> dict[int, str]:
    rows = sql(
        h,
        "SELECT s.seat, p.name FROM seatings s JOIN players p ON p.id = s.player_id WHERE s.table_id = :t",
        t=table,
    )
    return {int(seat): str(name) for seat, name in rows}


def test_a_player_who_went_on_a_break_in_a_dealt_round_loses_the_seat_after_a_restart(db_url: str) -> None:
    """Issue 26: Ann goes on a break while she plays in a dealt round; her seat is to be given up once that round is
    settled. The server stops first (that was kept in its memory only): the next one resumes the round, its turn
    timeouts finish it, and her seat is free then; Bob, who is not away, keeps his."""
    with serving(db_url, deck_factory=lambda _t: DECK) as h:
        table = h.table(TCP, seats=2)
        (ta, ha), (tb, _) = h.player("ann", BUY_IN), h.player("bob", BUY_IN)
        a, b = h.seated(ta, table), h.seated(tb, table)
        round_id = a.request(type="wager", wagers={"ante": 500})["round_id"]
        assert b.request(type="wager", wagers={"ante": 300})["type"] == "ack"
        a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
        r = h.client.post("/protection/break", json={"period": "1d"}, headers=ha)
        assert r.status_code == 200 and r.json()["kind"] == "break"
        assert seated_players(h, table) == {
            1: "ann",
            2: "bob",
        }  # she plays in the round: kept until it is settled
    with serving(db_url, deck_factory=lambda _t: DECK, turn_seconds=0.3) as h:
        deadline = time.monotonic() + 20
        while sql(h, "SELECT status FROM rounds WHERE id = :r", r=round_id) != [("settled",)]:
            assert time.monotonic() < deadline, "the resumed round was not finished by its timeouts"
            time.sleep(0.05)
        while seated_players(h, table) != {2: "bob"}:
            assert time.monotonic() < deadline, (
                f"the seat of the player on a break was kept: {seated_players(h, table)}"
            )
            time.sleep(0.05)
        rec = h.client.get(f"/rounds/{round_id}").json()
        assert [(e["seat"], e["by"]) for e in rec["events"] if e["type"] == "action"] == [
            (1, "timeout"),
            (2, "timeout"),
        ]
        assert h.totals()["in_play"] == 0
        h.check_ledger()

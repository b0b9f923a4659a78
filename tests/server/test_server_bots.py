"""Practice bots (issue 24, server/bots.py): seated by the operator (or a seated player on a practice server),
each plays the exact strategy at the table's minimum wager with play money bought in from the cashier; a table of
bots plays unattended up to its bound, the ledger exact; refusals change nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from server_harness import ADMIN, WS, Harness
from tablegames.analysis.advice import advisor
from tablegames.engine import Action, Bot, Table
from tablegames.randomness import LiveRandom
from tablegames.server.db import AuditEntry, RoundRow, RoundStep

ADMIN_HEADERS = {"X-Admin-Token": ADMIN}
GAME = "final-count"  # its exact strategy solves in well under a second


def settled_rounds(h: Harness, table_id: int) -> int:
    with h.server.sessions() as s:
        return int(
            s.scalar(
                sa.select(sa.func.count())
                .select_from(RoundRow)
                .where(RoundRow.table_id == table_id, RoundRow.status == "settled")
            )
            or 0
        )


def wait_for(pred: Callable[[], bool], seconds: float = 240.0) -> None:
    end = time.time() + seconds
    while time.time() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def audit_actions(h: Harness) -> list[tuple[str, str, str]]:
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(AuditEntry.actor, AuditEntry.action, AuditEntry.subject).order_by(AuditEntry.id)
        ).all()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def replay_decisions(h: Harness, table_id: int) -> list[tuple[str, str, str]]:
    """Every stored decision of the table's settled rounds as (by, action taken, the exact strategy's choice),
    the rounds rebuilt on a fresh engine from their decks and steps (the strategy solved here, not the server's
    cache)."""
    runner = h.server.runners[table_id]
    out: list[tuple[str, str, str]] = []
    with h.server.sessions() as s:
        rounds = s.scalars(
            sa.select(RoundRow).where(RoundRow.table_id == table_id, RoundRow.status == "settled")
        ).all()
        for row in rounds:
            steps = s.scalars(
                sa.select(RoundStep.payload).where(RoundStep.round_id == row.id).order_by(RoundStep.seq)
            ).all()
            engine = Table(runner.rules, seats=runner.row.seats, source=LiveRandom())
            rnd = engine.open_round(row.round_no, row.deck)
            for st in steps:
                if st["op"] == "wager":
                    rnd.place_wager(st["seat"], st["wager"], st["amount"], st.get("option"))
                elif st["op"] == "deal":
                    rnd.deal()
                elif st["op"] == "act":
                    seat, taken = st["seat"], Action.parse(st["action"])
                    best = Bot(advisor(rnd, seat)).choose(rnd, seat)
                    out.append((st["by"], str(taken), str(best)))
                    rnd.act(seat, taken, by=st["by"])
            assert rnd.is_over
    return out


def add_bot(h: Harness, table_id: int, seat: Any, headers: dict[str, str] | None = None) -> Any:
    return h.client.post(
        f"/tables/{table_id}/bots", json={"seat": seat}, headers=ADMIN_HEADERS if headers is None else headers
    )


def test_a_table_of_bots_plays_100_rounds_unattended_by_the_exact_strategy(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server(bot_seconds=0.0, bot_unwatched_rounds=100)
    table_id = h.table(GAME, seats=3, min_bet=100, max_bet=1_000)
    before = h.totals()
    for seat in (1, 2, 3):
        r = add_bot(h, table_id, seat)
        assert r.status_code == 201, r.text
        assert r.json() == {
            "table_id": table_id,
            "seat": seat,
            "name": f"[bot] {table_id}.{seat}",
            "removed": False,
        }
    wait_for(lambda: settled_rounds(h, table_id) >= 100)
    time.sleep(0.5)
    assert settled_rounds(h, table_id) == 100  # the bound: nobody watches, so they stop at 100 rounds
    h.check_ledger()
    after = h.totals()
    assert sum(after.values()) == sum(before.values())  # money moved, none made or lost
    decisions = replay_decisions(h, table_id)
    assert len(decisions) >= 100
    assert {by for by, _, _ in decisions} == {"bot"}
    wrong = [(taken, best) for _, taken, best in decisions if taken != best]
    assert not wrong, wrong[:5]
    # every bot wagered the minimum main wager each round (once all three sat: the first bot may have begun
    # before the others were seated)
    with h.server.sessions() as s:
        steps = s.execute(sa.select(RoundStep.round_id, RoundStep.payload)).all()
    per_round: dict[int, list[dict[str, Any]]] = {}
    for round_id, payload in steps:
        if payload["op"] == "wager":
            per_round.setdefault(round_id, []).append(payload)
    assert len(per_round) == 100
    assert {(w["wager"], w["amount"]) for ws in per_round.values() for w in ws} == {("main", 100)}
    seats = [sorted(w["seat"] for w in per_round[r]) for r in sorted(per_round)]
    full = seats.index([1, 2, 3])  # (how many rounds began before the last bot sat depends on the load)
    assert all(s == [1, 2, 3] for s in seats[full:]) and full < 50, seats[:full]
    # a socket watching starts them again
    watcher = WS(h.client, None, table_id, h.stack, watch=True)
    watcher.until(lambda m: m["type"] == "state")
    wait_for(lambda: settled_rounds(h, table_id) >= 102, 60)
    assert ("token:admin", "table.bot.add", f"table:{table_id}") in audit_actions(h)


def test_a_person_joining_a_bot_table_plays_normally(make_server: Callable[..., Harness]) -> None:
    h = make_server(bot_seconds=0.0, betting_seconds=5.0)
    table_id = h.table("three-card-poker", seats=3, min_bet=100, max_bet=1_000)  # (every seat decides)
    for seat in (1, 2):
        assert add_bot(h, table_id, seat).status_code == 201
    token, headers = h.player("ann")
    ws = h.seated(token, table_id)
    played: list[int] = []  # the rounds ann wagered in
    acted = False
    for _ in range(1000):
        time.sleep(0.15)  # (within the sockets' rate limit)
        st = ws.state()
        assert st["seat"] == 3 and st["bots"] == [1, 2] and st["occupants"]["3"] == "ann"
        rnd = st["round"]
        mine = played and st["round_id"] == played[-1] and rnd["phase"] != "settled"
        if not mine and acted:
            break
        if not mine and st["betting_open"]:
            ack = ws.request(type="wager", wagers={"ante": 100})
            if ack["type"] == "ack":  # (refused while the bots' round was still being played)
                played.append(ack["round_id"])
        elif mine and rnd["to_act"] == 3 and st["decision"]:
            ack = ws.request(type="act", action=rnd["legal_actions"][0], decision=st["decision"])
            assert ack["type"] == "ack", ack
            acted = True
    assert acted
    results = ws.seen_or_next(lambda m: m["type"] == "round_result" and m["round_id"] == played[-1])
    assert {r["seat"] for r in results["results"]} == {1, 2, 3}
    nets = {
        m["round_id"]: r["net"]
        for m in ws.log
        if m["type"] == "round_result"
        for r in m["results"]
        if r["seat"] == 3
    }
    assert sorted(nets) == sorted(played)
    assert h.balance(headers) == 100_000 + sum(nets.values())
    h.check_ledger()


def test_only_the_operator_seats_bots_and_refusals_change_nothing(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server(bot_seconds=30.0)
    table_id = h.table(GAME, seats=3)
    token, headers = h.player("ann")
    h.seated(token, table_id)  # seat 1
    entries = len(audit_actions(h))
    for bad_headers in ({}, {"X-Admin-Token": "wrong"}, headers):  # (not a practice server: a player may not)
        r = add_bot(h, table_id, 2, bad_headers)
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", r.text
        r = h.client.delete(f"/tables/{table_id}/bots/2", headers=bad_headers)
        assert r.status_code == 403
    for seat, status, code in (
        (0, 400, "bad_seat"),
        (4, 400, "bad_seat"),
        ("2", 422, "bad_message"),
        (True, 422, "bad_message"),
        (1, 409, "seat_taken"),  # ann sits there
    ):
        r = add_bot(h, table_id, seat)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), (seat, r.text)
    r = h.client.delete(f"/tables/{table_id}/bots/1", headers=ADMIN_HEADERS)  # a person, not a bot
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_a_bot")
    r = h.client.post("/tables/999/bots", json={"seat": 1}, headers=ADMIN_HEADERS)
    assert r.status_code == 404
    assert len(audit_actions(h)) == entries  # nothing changed, nothing recorded
    assert h.client.get(f"/tables/{table_id}").json()["occupied"] == {"1": "ann"}
    # the operator's change is audited; the bot is bought in from the cashier and cashed out when removed
    cashier = h.totals()["cashier"]
    assert add_bot(h, table_id, 2).status_code == 201
    assert add_bot(h, table_id, 2).json()["error"]["code"] == "seat_taken"
    assert h.totals()["cashier"] == cashier - 100 * 100  # BUY_IN_BETS minimum wagers (min_bet 100)
    r = h.client.delete(f"/tables/{table_id}/bots/2", headers=ADMIN_HEADERS)
    assert r.status_code == 200 and r.json()["removed"] is True, r.text
    assert h.totals()["cashier"] == cashier
    assert audit_actions(h)[entries:] == [
        ("token:admin", "table.bot.add", f"table:{table_id}"),
        ("token:admin", "table.bot.remove", f"table:{table_id}"),
    ]
    assert h.client.get(f"/tables/{table_id}").json()["occupied"] == {"1": "ann"}
    h.check_ledger()


def test_on_a_practice_server_a_seated_player_seats_bots(make_server: Callable[..., Harness]) -> None:
    h = make_server(bot_seconds=30.0, practice_bots=True)
    table_id = h.table(GAME, seats=3)
    ann, ann_headers = h.player("ann")
    _, bob_headers = h.player("bob")
    ws = h.seated(ann, table_id)
    assert ws.state()["may_seat_bots"] is True
    r = add_bot(h, table_id, 3, bob_headers)  # bob does not sit here
    assert r.status_code == 403, r.text
    r = add_bot(h, table_id, 3, ann_headers)
    assert r.status_code == 201, r.text
    state = ws.until(lambda m: m["type"] == "state" and m["bots"] == [3])
    assert state["occupants"]["3"] == f"[bot] {table_id}.3"
    actors = [a for a, action, _ in audit_actions(h) if action == "table.bot.add"]
    assert actors == [
        f"player:{ws.state()['seat'] and h.client.get('/me', headers=ann_headers).json()['player_id']}"
    ]
    watcher = WS(h.client, None, table_id, h.stack, watch=True)
    seen = watcher.until(lambda m: m["type"] == "state")
    assert seen["bots"] == [3] and seen["may_seat_bots"] is False  # a spectator sits nowhere


def test_a_bot_removed_in_a_round_leaves_once_it_is_settled(make_server: Callable[..., Harness]) -> None:
    h = make_server(bot_seconds=0.0, betting_seconds=30.0)
    table_id = h.table(GAME, seats=2)
    token, _ = h.player("ann")
    ws = h.seated(token, table_id)  # seat 1: the bot's round waits for ann's wager (or the betting clock)
    assert add_bot(h, table_id, 2).status_code == 201
    ws.until(lambda m: m["type"] == "state" and m["round"] is not None and m["round"]["phase"] == "betting")
    r = h.client.delete(f"/tables/{table_id}/bots/2", headers=ADMIN_HEADERS)
    assert r.status_code == 200 and r.json()["removed"] is False  # its wager is in play
    assert ws.request(type="wager", wagers={"main": 100})["type"] == "ack"
    for _ in range(200):
        time.sleep(0.15)
        st = ws.state()
        if st["round"]["to_act"] == 1 and st["decision"]:
            ws.request(type="act", action=st["round"]["legal_actions"][0], decision=st["decision"])
        if st["occupants"] == {"1": "ann"}:
            break
    assert st["occupants"] == {"1": "ann"} and st["bots"] == []
    h.check_ledger()

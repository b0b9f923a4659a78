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
    return h.client.post(f"/tables/{table_id}/bots", json={"seat": seat}, headers=headers or ADMIN_HEADERS)


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
    assert sum(sorted(w["seat"] for w in ws) == [1, 2, 3] for ws in per_round.values()) >= 97
    # a socket watching starts them again
    watcher = WS(h.client, None, table_id, h.stack, watch=True)
    watcher.until(lambda m: m["type"] == "state")
    wait_for(lambda: settled_rounds(h, table_id) >= 102, 60)
    assert ("token:admin", "table.bot.add", f"table:{table_id}") in audit_actions(h)

"""Replay a round from its history: the events alone are enough to rebuild it exactly.

>>> from tablegames.rules import GAMES, make_rules
>>> from tablegames.randomness import SeededRandom
>>> from tablegames.engine import Table, Bot
>>> for game in GAMES:
...     t = Table(make_rules(game), seats=2, source=SeededRandom(5))
...     r = t.new_round()
...     for s in (1, 2): _ = r.place_wager(s, r.main_wager(), 500)
...     _ = r.deal()
...     while not r.is_over: _ = r.act(r.to_act, Bot().choose(r, r.to_act))
...     again = replay(t.rules, r.history)
...     assert [e.to_dict() for e in again.history[1:]] == [e.to_dict() for e in r.history[1:]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablegames.engine.base import Round, Table
from tablegames.engine.events import (
    ActionTaken,
    CardDealt,
    Event,
    JackpotContribution,
    RoundStarted,
    WagerPlaced,
)
from tablegames.rules import GameRules


def deck_from_history(history: Sequence[Event]) -> list[int]:
    """A 52-card deck with every dealt card at its recorded position (undealt positions filled in order)."""
    dealt = {e.position: int(e.card) for e in history if isinstance(e, CardDealt)}
    rest = iter(c for c in range(52) if c not in dealt.values())
    return [dealt[i] if i in dealt else next(rest) for i in range(52)]


def meters_before(history: Sequence[Event]) -> dict[str, int]:
    """Meter values before the round, from the first contribution to each meter."""
    out: dict[str, int] = {}
    for e in history:
        if isinstance(e, JackpotContribution) and e.meter not in out:
            out[e.meter] = e.meter_after - e.amount
    return out


def replay(
    rules: GameRules,
    history: Sequence[Event],
    table: Table | None = None,
    until: int | None = None,
) -> Round:
    """Rebuild a round by re-applying its wagers and decisions to the same cards.

    ``table`` (optional) is the table to play it on (its meters are used as they are); otherwise a fresh
    table with the meter values the history implies, the round at its recorded number. ``until`` stops after that many events of the
    original history (to rebuild an unfinished round's state).
    """
    start = history[0]
    if not isinstance(start, RoundStarted):
        raise ValueError("a history starts with round_started")
    events = history if until is None else history[:until]
    if table is None:  # a fresh table: the round keeps its number
        table = Table(rules, seats=max(start.seats), meters=meters_before(history))
        table.count_from(start.round_no - 1)
    rnd = table.new_round(deck=deck_from_history(history))
    dealt = False
    for e in events:
        if isinstance(e, WagerPlaced):
            rnd.place_wager(e.seat, e.wager, e.amount, e.option)
        elif isinstance(e, CardDealt) and not dealt:
            rnd.deal()
            dealt = True
        elif isinstance(e, ActionTaken):
            rnd.act(e.seat, e.action, by=e.by)
    return rnd


def at_meters(rnd: Round, meters: Mapping[str, int]) -> Round:
    """A finished round as it plays out when its linked meters stood at ``meters`` before it.

    The round itself when its events already say so (every meter it contributed to started at that value);
    otherwise its wagers and decisions replayed on the same cards at a fresh table whose meters start there,
    so every contribution, hit and reset is the engine's own computation at those values. Meters the round did
    not touch keep the values it saw. The cards and decisions do not depend on the meters, so the replay has
    the same events but for the meter amounts (a server calls this holding the meters' database lock: a hit
    then pays the meter's value at that instant, R-OEF-9 and R-LIR-7).
    """
    seen = {**rnd.meters_before, **meters_before(rnd.history)}
    if all(seen.get(name) == value for name, value in meters.items()):
        return rnd
    table = Table(rnd.table.rules, seats=rnd.table.seats, meters={**seen, **meters})
    table.count_from(rnd.round_no - 1)
    again = replay(rnd.table.rules, rnd.history, table=table)
    if len(again.history) != len(rnd.history) or again.phase != rnd.phase:
        raise AssertionError(f"round {rnd.round_no} replayed differently at other meter values")
    return again

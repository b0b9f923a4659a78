"""The detection tests' live decisions: three seats betting 100 cents each at an engine table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tablegames.engine import Round, Table
from tablegames.randomness import SeededRandom


def live_decisions(rules: Any, rounds: int, seed: int = 8) -> Iterator[tuple[Round, int]]:
    """Each decision of ``rounds`` rounds as ``(round, seat to act)``; the caller acts before the next."""
    table = Table(rules, seats=3, source=SeededRandom(seed))
    for _ in range(rounds):
        rnd = table.new_round()
        for seat in (1, 2, 3):
            rnd.place_wager(seat, rnd.main_wager(), 100)
        rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            yield rnd, seat

"""The engine-backed kernel: the default simulation kernel of a game without a Numba kernel of its own.

It plays each round through the round engine itself (``engine.Table``, the game's flow), on the same cards a
Numba kernel would deal (``kernels.load_round``: the chunk's seeded stream, or given decks), every seat placing
the job's wagers and deciding by the job's strategy (``basic``: the definition's rule of thumb; ``optimal``: the
exact analyzer's, when the game has one), and adds every settlement to the kernels' accumulators. So
``simulate`` and the report's verification work for every registered game; a Numba kernel
(``GameDefinition.kernel``) is only a faster way to the same counts. Slow (a few thousand rounds a second).

Meters: every round starts at their reset values (the meter prizes of a chunk do not depend on the rounds before
it); the linked-meter bookkeeping across rounds is the Numba kernels' (``simulation.meters``). A neighbour bonus
(R-LIR-8) counts in the row of the wager that feeds the meters. Outcome tables: none (the wager rows only).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from tablegames.engine.base import Table
from tablegames.engine.events import NeighbourBonusPaid, Settled
from tablegames.rules import GameRules, registry
from tablegames.rules.definition import DecisionContext
from tablegames.simulation.adapter import I64, Decide, Kernel, KernelJob, StrategyTables
from tablegames.simulation.kernels import load_round

STRATEGIES = ("basic", "optimal")


@lru_cache(maxsize=16)
def _decide(rules: Any, strategy: str) -> Decide:
    from tablegames.simulation.strategy import resolve_strategy

    return resolve_strategy(strategy, rules)


def engine_run(
    start: int,
    end: int,
    decks: I64,
    deck: I64,
    rng: Any,
    scratch: I64,
    nseats: int,
    rules: Any,
    placements: tuple[tuple[str, int, str | None], ...],
    strategy: str,
    wager_acc: I64,
    seat_acc: I64,
    hist: I64,
    seat1: I64,
    detail: I64,
) -> int:
    """Rounds ``start .. end-1`` through the round engine (the kernels' convention, ``with_hits`` off):
    wager row ``i`` is ``placements[i]`` (the main wager first; a wager it puts in play, such as a Play
    wager, counts in its row)."""
    table = Table(rules, seats=nseats)
    resets = dict(table.meters)
    decide = _decide(rules, strategy)
    row = {name: i for i, (name, _, _) in enumerate(placements)}
    feeding = [w.name for w in registry.of(rules).wagers if w.feeds and w.name in row]
    bonus_row = row[feeding[0]] if feeding else 0
    cards = np.empty(52, dtype=np.int64)
    for r in range(start, end):
        load_round(r, 52, decks, deck, rng, cards)
        table.meters = dict(resets)
        rnd = table.new_round([int(c) for c in cards])
        for seat in range(1, nseats + 1):
            for name, amount, option in placements:
                rnd.place_wager(seat, name, amount, option)
        rnd.deal()
        while rnd.to_act is not None:
            seat = rnd.to_act
            context: DecisionContext = rnd.decision_context(seat)
            rnd.act(seat, decide(context), by="bot")
        x = [0] * len(placements)
        seat_net = [0] * nseats
        for e in rnd.history:
            if isinstance(e, Settled):
                i = row.get(e.wager, 0)
                wager_acc[i, 2] += e.staked
                wager_acc[i, 3] += e.returned
                x[i] += e.returned - e.staked
                seat_acc[e.seat - 1, 1] += e.staked
                seat_acc[e.seat - 1, 2] += e.returned
                seat_net[e.seat - 1] += e.returned - e.staked
            elif isinstance(e, NeighbourBonusPaid):
                wager_acc[bonus_row, 3] += e.amount
                x[bonus_row] += e.amount
                seat_acc[e.seat - 1, 2] += e.amount
                seat_net[e.seat - 1] += e.amount
        for i, (_, amount, _) in enumerate(placements):
            wager_acc[i, 0] += nseats
            wager_acc[i, 1] += nseats * amount
            _add_square(wager_acc, i, 4, x[i])
        for s in range(nseats):
            seat_acc[s, 0] += placements[0][1]
            _add_square(seat_acc, s, 3, seat_net[s])
        if seat1.shape[0] > 0:
            seat1[r] = seat_net[0]
    return end


def _add_square(acc: I64, i: int, j: int, x: int) -> None:
    """As ``kernels.add_square``, in Python integers."""
    q = x * x
    acc[i, j] += q >> 32
    acc[i, j + 1] += q & 0xFFFFFFFF


class EngineKernel(Kernel):
    """The kernel adapter of a game without a Numba kernel (see the module docstring)."""

    detail_width = 0
    with_hits = False

    def kernel(self) -> Any:
        return engine_run

    def prepare(self, rules: Any, wagers: Any, seats: int, strategy: str) -> KernelJob:
        from tablegames.simulation.strategy import StrategyError

        if strategy not in STRATEGIES:
            raise StrategyError(
                f"{rules.game} is simulated by the round engine: strategy basic or optimal, not {strategy!r}"
            )
        _decide(rules, strategy)  # an optimal strategy without an analyzer fails here, clearly
        definition = registry.of(rules)
        placements = tuple(
            (w.name, wagers.amount(definition, w.name), wagers.option(definition, w.name) or None)
            for w in definition.wagers
            if wagers.amount(definition, w.name)
        )
        return KernelJob(
            deal_cards=52,
            wager_rows=tuple(name for name, _, _ in placements),
            hist_size=0,
            args=(rules, placements, strategy),
        )

    def strategy_tables(self, rules: GameRules, decide: Decide) -> StrategyTables:
        return StrategyTables()

    def hand_key(self, context: Any) -> str:
        from tablegames.simulation.strategy import StrategyError

        raise StrategyError(f"{context.game} has no strategy-file keys (it is simulated by the round engine)")

    def file_action(self, text: str, context: Any) -> None:
        return None

    def outcomes(self, block: Any, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        return None


KERNEL = EngineKernel()

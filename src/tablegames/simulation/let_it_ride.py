"""Let It Ride's simulation kernel adapter (R-LIR-1..8): the kernel's lookup tables and arguments, its strategy
tables, the strategy-file keys and the layout of its outcome counts.

>>> t = lir_tables(lir.LetItRideRules())
>>> from tablegames.cards import parse_cards
>>> int(t.five[lir_index(parse_cards("Ah Kh Qh Jh Th"))]) == lir.LirHand.ROYAL_FLUSH
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.engine.actions import PULL, RIDE, Action
from tablegames.engine.events import EnvyPaid, Event, HandResult
from tablegames.rules import let_it_ride as lir
from tablegames.rules.common import enum_key
from tablegames.rules.poker import ThreeCardCategory, three_card_category_of
from tablegames.simulation import kernels
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.strategy import named_strategy_tables, rank_cards, rank_text
from tablegames.simulation.tables import (
    R3,
    R4,
    expand_sorted,
    odds_array,
    pattern_tables,
    rank_index,
    rank_multisets,
)

I8 = npt.NDArray[np.int8]


def lir_index(cards: Sequence[int]) -> int:
    """Index of five cards into :attr:`LirTables.five` (flush flag included).

    >>> from tablegames.cards import parse_cards
    >>> lir_index(parse_cards("2c 2d 2h 2s 3c"))
    1
    """
    flush = len({c & 3 for c in cards}) == 1
    base: int = 13 ** len(cards)
    return int(flush) * base + rank_index([c >> 2 for c in cards])


@dataclass(frozen=True)
class LirTables:
    five: I8  # [2 * 13^5]: lir.LirHand by (flush, ranks); -1 for impossible patterns
    bonus: I8  # [2 * 13^3]: ThreeCardCategory by (flush, ranks)
    main_odds: I64  # [10] by lir.LirHand: "X to 1", or -1 (lose)
    bonus_odds: I64  # [7] by ThreeCardCategory
    prog_meter: I64  # [10] by lir.LirHand: index of the meter it wins, or -1
    prog_fixed: I64  # [10] by lir.LirHand: fixed prize in cents
    envy: I64  # [10] by lir.LirHand: Envy Bonus paid to each other progressive seat (R-LIR-8)
    meter_names: tuple[str, ...]
    meter_resets: tuple[int, ...]


@lru_cache(maxsize=1)
def _lir_hand_tables() -> tuple[I8, I8]:
    """The base-game class of every ordered five-rank tuple and the 3-Card Bonus class of every ordered
    three-rank tuple, plain then flush, from the rules' pattern tables (shared with the exact analysis)."""
    plain, flush = pattern_tables(5, lir.lir_hand_of)
    five = np.concatenate([expand_sorted(plain, 5), expand_sorted(flush, 5)])
    p3, f3 = pattern_tables(3, three_card_category_of)
    bonus = np.concatenate([expand_sorted(p3, 3), expand_sorted(f3, 3)])
    five.setflags(write=False)
    bonus.setflags(write=False)
    return five, bonus


@lru_cache(maxsize=16)
def lir_tables(rules: lir.LetItRideRules) -> LirTables:
    """Let It Ride tables for ``rules`` (R-LIR-4..8)."""
    five, bonus = _lir_hand_tables()
    cfg = rules.progressive
    names = tuple(m.name for m in cfg.meters)

    return LirTables(
        five=five,
        bonus=bonus,
        main_odds=odds_array(rules.main_paytable, list(lir.LirHand)),
        bonus_odds=odds_array(rules.bonus_paytable, list(lir.BonusHand)),
        prog_meter=np.array(
            [names.index(cfg.meter_prizes[h]) if h in cfg.meter_prizes else -1 for h in lir.LirHand],
            dtype=np.int64,
        ),
        prog_fixed=np.array([cfg.fixed_prizes_cents.get(h, 0) for h in lir.LirHand], dtype=np.int64),
        envy=np.array([cfg.envy_cents.get(h, 0) for h in lir.LirHand], dtype=np.int64),
        meter_names=names,
        meter_resets=tuple(m.reset_cents for m in cfg.meters),
    )


class LetItRideKernel(Kernel):
    detail_width = kernels.D_LIR
    meter_row_name = "progressive meters"
    components = frozenset({"progressive fixed prizes", "progressive envy", "progressive meters"})

    def kernel(self) -> Any:
        return kernels.lir_run

    def prepare(self, rules: lir.LetItRideRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        w, ones = wagers, np.ones(seats, dtype=np.int64)
        t = lir_tables(rules)
        st = named_strategy_tables(rules, strategy, w.main)
        args = (
            w.main * ones,
            w.bonus * ones,
            w.progressive * ones,
            t.five,
            t.bonus,
            st.lir_first,
            st.lir_second,
            t.main_odds,
            t.bonus_odds,
            t.prog_meter,
            t.prog_fixed,
            t.envy,
            np.int64(rules.cap_cents),
        )
        return KernelJob(
            deal_cards=3 * (seats + 1),
            wager_rows=("bets", "bonus", "progressive", "progressive fixed prizes", "progressive envy"),
            hist_size=67,
            args=args,
            meter_row=2,
        )

    def strategy_tables(self, rules: lir.LetItRideRules, decide: Decide) -> StrategyTables:
        first = np.zeros(2 * R3, dtype=np.int8)
        for ms in rank_multisets(3):
            for flush in (False, True) if len(set(ms)) == 3 else (False,):
                act = decide(lir.LirDecision(1, tuple(rank_cards(ms, flush))))
                first[int(flush) * R3 + rank_index(ms)] = int(act == RIDE)
        second = np.zeros(4 * R4, dtype=np.int8)
        for ms in rank_multisets(4):
            for flush in (False, True) if len(set(ms)) == 4 else (False,):
                cards = tuple(rank_cards(ms, flush))
                for up in (0, 1):
                    act = decide(lir.LirDecision(2, cards, bool(up)))
                    second[(up * 2 + int(flush)) * R4 + rank_index(ms)] = int(act == RIDE)
        first = np.concatenate([expand_sorted(first[i * R3 : (i + 1) * R3], 3) for i in range(2)])
        second = np.concatenate([expand_sorted(second[i * R4 : (i + 1) * R4], 4) for i in range(4)])
        return StrategyTables({"lir_first": first, "lir_second": second})

    def hand_key(self, context: lir.LirDecision) -> str:
        suited = "s" if len({c & 3 for c in context.cards}) == 1 else ""
        return f"{context.stage}:{rank_text(context.cards)}{suited}"

    def file_action(self, text: str, context: lir.LirDecision) -> Action | None:
        return {"ride": RIDE, "pull": PULL}.get(text)

    def at_risk_units(self, name: str, units: int, hist: Sequence[int]) -> float:
        """The bets that were not pulled (RULES.md: the element of risk)."""
        if name != "bets":
            return units
        riding = [sum(hist[i * 4 + u] for i in range(10)) for u in (1, 2, 3)]
        hands = sum(riding)
        return units * sum(u * c for u, c in zip((1, 2, 3), riding, strict=True)) / hands if hands else units

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h, hands = hist, counts[0]
        names = [enum_key(x) for x in lir.LirHand]
        block("final hand", names, [sum(h[i * 4 : i * 4 + 4]) for i in range(10)], hands)
        block(
            "bets riding",
            ["1 ($ only)", "2", "3"],
            [sum(h[i * 4 + u] for i in range(10)) for u in (1, 2, 3)],
            hands,
        )
        block("bonus", [enum_key(x) for x in ThreeCardCategory], h[40:47], counts[1])
        block("progressive", names, h[47:57], counts[2])
        block("envy payments", names, h[57:67], counts[2])

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: bet 1 and bet 2 returned when pulled, base staked and returned, bonus, progressive (its
        meter part excluded: the meter book pays it), Envy received, the final hand."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        col = {"bet 1": 0, "bet 2": 1, "base": 3, "bonus": 4, "progressive": 5}
        for e in settled(history):
            out[e.seat - 1, col[e.wager]] = e.returned - e.meter_cents
            if e.wager == "base":
                out[e.seat - 1, 2] = e.staked
        hands = {enum_key(h): int(h) for h in lir.LirHand}
        for ev in history:
            if isinstance(ev, EnvyPaid):
                out[ev.seat - 1, 6] += ev.amount
            elif isinstance(ev, HandResult) and ev.owner.startswith("seat "):
                out[int(ev.owner.split()[1]) - 1, 7] = hands[ev.hand]
        return out


KERNEL = LetItRideKernel()

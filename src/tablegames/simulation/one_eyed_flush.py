"""One Eyed Flush's simulation kernel adapter (R-OEF-1..10): the kernel's arguments, its strategy tables,
the strategy-file keys and the layout of its outcome counts."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tablegames.engine.actions import STAND, Action, discard
from tablegames.engine.events import ActionTaken, Event
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.common import enum_key
from tablegames.simulation import kernels
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.strategy import StrategyError, named_strategy_tables
from tablegames.simulation.tables import (
    CLASS_LETTERS,
    N_CLASSES,
    card_class,
    flip_bet_index,
    oef_tables,
    representative,
    triple_index,
)


class OneEyedFlushKernel(Kernel):
    detail_width = kernels.D_OEF
    meter_row_name = "jackpot meter"
    components = frozenset({"jackpot fixed prizes", "jackpot meter"})

    def kernel(self) -> Any:
        return kernels.oef_run

    def prepare(self, rules: oef.OneEyedFlushRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        w, ones = wagers, np.ones(seats, dtype=np.int64)
        t2 = oef_tables(rules)
        st = named_strategy_tables(rules, strategy)
        flip_idx = flip_bet_index(oef.FlipBet.parse(w.flip_outcome))
        args = (
            w.main * ones,
            w.jackpot * ones,
            w.flip * ones,
            flip_idx * ones,
            t2.card_class,
            t2.hand_code,
            t2.has_wild,
            t2.category,
            t2.compare,
            np.int64(len(t2.hands)),
            t2.bust,
            t2.win_odds,
            t2.dealer_discard,
            t2.jackpot_meter,
            t2.jackpot_fixed,
            t2.flip_odds,
            st.oef_discard,
        )
        return KernelJob(
            deal_cards=4 * (seats + 1),
            wager_rows=("main", "jackpot", "jackpot fixed prizes", "flip"),
            hist_size=25,
            args=args,
            meter_row=1,
        )

    def strategy_tables(self, rules: oef.OneEyedFlushRules, decide: Decide) -> StrategyTables:
        n3 = N_CLASSES**3
        sorted_choice: dict[tuple[tuple[int, ...], int], int] = {}
        t: tuple[int, ...]
        for t in itertools.combinations_with_replacement(range(N_CLASSES), 3):
            cards = representative(t)
            if cards is None:
                continue
            for f in range(N_CLASSES):
                flip = representative([f], cards)
                if flip is None:
                    continue
                act = decide(oef.OefDecision(tuple(cards), flip[0]))
                sorted_choice[(t, f)] = -1 if act.index is None else card_class(cards[act.index])
        table = np.full(n3 * N_CLASSES, -1, dtype=np.int64)
        for ordered in itertools.product(range(N_CLASSES), repeat=3):
            for f in range(N_CLASSES):
                k = sorted_choice.get((tuple(sorted(ordered)), f))
                if k is not None and k >= 0:
                    table[triple_index(ordered) * N_CLASSES + f] = ordered.index(k)
        return StrategyTables({"oef_discard": table})

    def hand_key(self, context: oef.OefDecision) -> str:
        cls = sorted((card_class(c) for c in context.cards), reverse=True)
        return "".join(CLASS_LETTERS[k] for k in cls) + "|" + CLASS_LETTERS[card_class(context.flip_card)]

    def file_action(self, text: str, context: oef.OefDecision) -> Action | None:
        """``stand`` or ``discard X``, X the class letter of the card to throw."""
        if text == "stand":
            return STAND
        parts = text.split()
        if len(parts) == 2 and parts[0] == "discard" and len(parts[1]) == 1:
            k = CLASS_LETTERS.find(parts[1].upper())
            for i, c in enumerate(context.cards):
                if card_class(c) == k:
                    return discard(i)
            raise StrategyError(f"strategy file: {text!r} names a card not in {self.hand_key(context)}")
        return None

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h, hands = hist, counts[0]
        cats = [enum_key(x) for x in oef.Category]
        block("main", ["win", "push", "lose", "bust"], h[0:4], hands)
        block("player final hand", cats, h[4:10], hands)
        block("dealer final hand", cats, h[10:16], rounds)
        block("jackpot (first three cards)", cats, h[16:22], counts[1])
        block("flip", ["hit"], h[22:23], counts[3])
        block("draws", ["players who drew"], h[23:24], hands)
        block("dealer draws", ["dealer drew"], h[24:25], rounds)

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: main, jackpot (its meter part excluded) and flip returned, and whether the seat drew."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        col = {"main": 0, "jackpot": 1, "flip": 2}
        for e in settled(history):
            out[e.seat - 1, col[e.wager]] = e.returned - e.meter_cents
        for ev in history:
            if isinstance(ev, ActionTaken) and ev.action.startswith("discard"):
                out[ev.seat - 1, 3] = 1
        return out


KERNEL = OneEyedFlushKernel()

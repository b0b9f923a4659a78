"""Detection scorers for Let It Ride (RULES.md §1): the ``protect`` scenarios ``community-2``, ``community-1`` and
``both-community``.

Decision 1 (wager 1, R-LIR-2) is taken on the player's three cards, decision 2 (wager 2, R-LIR-3) with the first
community card too. The informed player of a scenario decides as ``protect``'s (``informed_action``): with the
second community card seen, decision 1 on four cards (decision 2 then on all five), decision 2 on five;
with the first seen, decision 1 on four cards (the fair decision 2 follows); with both seen, both on five.
Riding only when strictly better (the cautious tie-break). Values per unit (one of the three wagers), the whole
remaining hand, the aggregate cap (R-LIR-5) not applied, as ``protect`` computes them; the legal values are the
exact advisor's (``LetItRideStrategy.first`` / ``second``).

``p``: over the hidden cards the player has not seen (49 for a card hidden at decision 1, 48 at decision 2,
the 1,176 pairs for both at decision 1), each equally likely, the fraction for which the chosen action is the
informed choice. ``community-1`` hides nothing at decision 2 (the card is then dealt face up): there the
informed choice is the legal one and a mistake carries no information (``p`` 0).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import let_it_ride as lir
from tablegames.analysis.common import colex_of
from tablegames.analysis.detect import DecisionScore
from tablegames.analysis.protect_let_it_ride import _colex, hand5
from tablegames.engine import Action, Round
from tablegames.engine.actions import PULL, RIDE
from tablegames.rules.let_it_ride import LetItRideRules

SCENARIOS = ("community-2", "community-1", "both-community")


@lru_cache(maxsize=4)
def _tables(rules: LetItRideRules) -> dict[str, Any]:
    """The solution's tables: ``win`` [k, hand], ``first_c2`` [N4, 2] (decision 1 on four cards, decision 2
    then on five: sums over the 48 completions), ``first_c1`` [2, N4] (decision 1 on four cards, the fair
    decision 2 after), the five-card hands by colex index."""
    sol = lir._solve(rules, None)
    win = np.asarray(sol.win, dtype=np.int64)
    best = np.stack([np.maximum(win[s + 2], win[s + 1]) for s in (0, 1)])
    first_c2 = np.asarray(lir.hist4(rules.qualifier_rank), dtype=np.int64) @ best.T
    first_c1 = np.stack([np.where(sol.ride2[s], sol.sums4[:, s + 2], sol.sums4[:, s + 1]) for s in (0, 1)])
    return {"win": win, "first_c2": first_c2, "first_c1": first_c1, "hand5": hand5(rules.qualifier_rank)}


def _colex_rows(rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    s = np.sort(rows, axis=1)
    return _colex([s[:, j] for j in range(s.shape[1])])


class LetItRideScorer:
    def __init__(self, rules: LetItRideRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        self.strategy = lir.optimal_strategy(rules)
        self.t = _tables(rules)

    def score(self, rnd: Round, seat: int, action: Action) -> DecisionScore:
        flow: Any = rnd.flow
        mine = [int(c) for c in rnd.seats[seat].cards]
        c1, c2 = int(rnd.dealer[1]), int(rnd.dealer[2])
        return self.score_cards(mine, c1, c2, int(flow.stage), "1" in flow.up[seat], action)

    def _stage(self, prior: Sequence[Action]) -> tuple[int, bool]:
        return 1 + len(prior), bool(prior) and prior[0] == RIDE

    def score_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> DecisionScore:
        stage, up1 = self._stage(prior)
        d = dealt["dealer"]
        return self.score_cards(dealt[f"seat {seat}"], int(d[1]), int(d[2]), stage, up1, action)

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        stage, up1 = self._stage(prior)
        legal = self._legal(list(dealt[f"seat {seat}"]), int(dealt["dealer"][1]), stage, up1)
        return legal[action] < max(legal.values())

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The player's cards (a set), the stage and wager 1's state, the first community card at decision 2,
        the action: all :meth:`mistake_dealt` reads."""
        stage, up1 = self._stage(prior)
        c1 = int(dealt["dealer"][1])  # (read at decision 1 too, as mistake_dealt does)
        if stage == 1:
            c1 = -1
        return (tuple(sorted(dealt[f"seat {seat}"])), c1, stage, up1, action)

    def score_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The player's cards (a set), both community cards, the stage, wager 1's state and the action."""
        stage, up1 = self._stage(prior)
        d = dealt["dealer"]
        return (tuple(sorted(dealt[f"seat {seat}"])), int(d[1]), int(d[2]), stage, up1, action)

    def _legal(self, mine: list[int], c1: int, stage: int, up1: bool) -> dict[Action, Fraction]:
        if stage == 1:
            return self.strategy.first(mine)
        return self.strategy.second([*mine, c1], bet1_up=up1)

    def score_cards(
        self, mine: Sequence[int], c1: int, c2: int, stage: int, up1: bool, action: Action
    ) -> DecisionScore:
        mine = [int(c) for c in mine]
        legal = self._legal(mine, c1, stage, up1)
        legal_best = RIDE if legal[RIDE] > legal[PULL] else PULL
        win, h5 = self.t["win"], self.t["hand5"]
        sc = self.scenario
        if stage == 2 and sc == "community-1":  # nothing hidden any more
            return DecisionScore(action, legal, legal, legal_best, legal_best, {legal_best: Fraction(1)})
        if stage == 2:  # c2 hidden: decided on five cards
            k = 1 + int(up1)
            rest = np.array([c for c in range(52) if c not in (*mine, c1)], dtype=np.int64)
            base = np.array([*mine, c1], dtype=np.int64)
            hands = h5[_colex_rows(np.column_stack([np.tile(base, (len(rest), 1)), rest]))]
            rides = win[k + 1, hands] > win[k, hands]
            h = int(h5[colex_of([*mine, c1, c2])])
            exposed = {PULL: Fraction(int(win[k, h])), RIDE: Fraction(int(win[k + 1, h]))}
        elif sc == "both-community":
            pairs = np.array(list(combinations([c for c in range(52) if c not in mine], 2)), dtype=np.int64)
            base = np.tile(np.array(mine, dtype=np.int64), (len(pairs), 1))
            hands = h5[_colex_rows(np.column_stack([base, pairs]))]
            pull_v, ride_v = np.maximum(win[2], win[1]), np.maximum(win[3], win[2])
            rides = ride_v[hands] > pull_v[hands]
            h = int(h5[colex_of([*mine, c1, c2])])
            exposed = {PULL: Fraction(int(pull_v[h])), RIDE: Fraction(int(ride_v[h]))}
        else:  # decision 1 with one community card seen
            seen = c2 if sc == "community-2" else c1
            rest = np.array([c for c in range(52) if c not in mine], dtype=np.int64)
            qs = _colex_rows(np.column_stack([np.tile(np.array(mine, dtype=np.int64), (len(rest), 1)), rest]))
            q = colex_of([*mine, seen])
            if sc == "community-2":
                table = self.t["first_c2"]
                rides = table[qs, 1] > table[qs, 0]
                pull_s, ride_s = int(table[q, 0]), int(table[q, 1])
            else:
                table = self.t["first_c1"]
                rides = table[1, qs] > table[0, qs]
                pull_s, ride_s = int(table[0, q]), int(table[1, q])
            exposed = {PULL: Fraction(pull_s, 48), RIDE: Fraction(ride_s, 48)}
        informed = RIDE if exposed[RIDE] > exposed[PULL] else PULL
        n = int(np.count_nonzero(rides))
        support = {RIDE: Fraction(n, len(rides)), PULL: Fraction(len(rides) - n, len(rides))}
        return DecisionScore(action, legal, exposed, legal_best, informed, support)


def scorer(rules: LetItRideRules, scenario: str) -> LetItRideScorer:
    return LetItRideScorer(rules, scenario)


from tablegames.analysis.let_it_ride_detect_pairs import PAIR_SCENARIOS, pair_scorer  # noqa: E402, F401

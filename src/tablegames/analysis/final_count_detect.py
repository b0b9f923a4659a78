"""Detection scorers for Final Count (RULES.md §3): the ``protect`` scenarios ``peek-own`` and ``dealer-hole``.

A player whose two up cards total even decides stand or turn (R-FC-4; an odd total is turned by the dealer,
R-FC-3, no decision); the third cards are face down and unseen by everyone (R-FC-2). Under ``peek-own`` the
player has seen the own third card, under ``dealer-hole`` the dealer's. Cards matter by value only (R-FC-1):
the exposure is ``protect``'s arithmetic (``protect_final_count.seen_values``: standing's and turning's results
summed over the ordered pairs of third cards, by the seen card's value), the informed player turns when that is
strictly better (stand on an exact tie: the cautious choice, as ``protect``'s ``informed_action`` and the exact
advisor), and the legal values are the exact advisor's (``FinalCountStrategy.options``).

**Convention** (the legal information): the decision's four up cards, the player's two and the dealer's two,
as the exact advisor and ``protect`` read them. ``p``: over the 48 other cards, each equally likely to be the
hidden third card (R-0.1), the fraction for which the chosen action is the informed choice (exact). The other
seats' up cards are public too (R-FC-2) but are not conditioned on: the test's step is exactly Bernoulli(``p``)
for an honest player who decides on the four up cards (with or without random mistakes), as the advisor does;
one who also counts the other seats' cards is outside that null (the card removal is small; not measured). A
hand has one decision: the test's first-mistake rule never drops one.

>>> from tablegames.rules import make_rules
>>> from tablegames.cards import parse_cards
>>> sc = scorer(make_rules("final-count"), "dealer-hole")
>>> dealt = {"seat 1": parse_cards("5c 5d 3h"), "dealer": parse_cards("Kc 8d 2s")}
>>> s = sc.score_dealt(dealt, 1, TURN)  # 10 against the dealer's 18 showing: stand, unless the 2 is seen
>>> s.legal_best.name, s.informed_best.name, s.evidence, 0 < s.p < 1
('stand', 'turn', True, True)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from tablegames.analysis import final_count as fca
from tablegames.analysis.detect import DecisionScore
from tablegames.analysis.protect_final_count import seen_values
from tablegames.engine import Action, Round, best_action
from tablegames.rules.final_count import STAND, TURN, FcDecision, FinalCountRules

SCENARIOS = ("peek-own", "dealer-hole")

IntArray = npt.NDArray[np.int64]


class _Situation:
    """One situation (the up cards' values): the legal values and best action, and by the seen card's value
    the informed choice, each action's exposed value and the support."""

    def __init__(self, scorer: FinalCountScorer, pv: tuple[int, int], dv: tuple[int, int], ctx: FcDecision):
        r = scorer.counts.copy()
        for v in (*pv, *dv):
            r[v] -= 1
        legal = scorer.strategy.options(list(ctx.player_up), list(ctx.dealer_up))
        self.legal: dict[Action, Fraction | float] = dict(legal)
        self.legal_best = best_action(self.legal, ctx)
        s_val, t_val = seen_values(pv, dv, r, scorer.scenario, scorer.rules)
        n = int(r.sum())
        self.turns = [bool(t) for t in (t_val > s_val).tolist()]  # cautious: stand on an exact tie
        self.exposed: list[dict[Action, Fraction | float]] = [
            {STAND: Fraction(int(s), int(k) * (n - 1)), TURN: Fraction(int(t), int(k) * (n - 1))} if k else {}
            for s, t, k in zip(s_val.tolist(), t_val.tolist(), r.tolist(), strict=True)
        ]
        turn_weight = sum(int(k) for k, t in zip(r.tolist(), self.turns, strict=True) if t)
        self.support = {TURN: Fraction(turn_weight, n), STAND: Fraction(n - turn_weight, n)}


class FinalCountScorer:
    """Scores stand-or-turn decisions (R-FC-4) under ``peek-own`` or ``dealer-hole``."""

    def __init__(self, rules: FinalCountRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        self.strategy = fca.optimal_strategy(rules)
        self.counts: IntArray = np.asarray(fca._solve(rules).counts, dtype=np.int64)
        self._value = [rules.value(c) for c in range(52)]
        self._situations: dict[tuple[tuple[int, int], tuple[int, int]], _Situation] = {}

    def _hidden(self, mine: Sequence[int], dealer: Sequence[int]) -> int:
        return int(mine[2] if self.scenario == "peek-own" else dealer[2])

    def score(self, rnd: Round, seat: int, action: Action) -> DecisionScore:
        mine = [int(c) for c in rnd.seats[seat].cards]
        return self.score_cards(mine, [int(c) for c in rnd.dealer], action)

    def score_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> DecisionScore:
        """A recorded decision from the dealt cards by owner (each's two up cards, then the third)."""
        return self.score_cards(dealt[f"seat {seat}"], dealt["dealer"], action)

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        s = self._situation(dealt[f"seat {seat}"], dealt["dealer"])
        return s.legal[action] < s.legal[s.legal_best]

    def _values(self, mine: Sequence[int], dealer: Sequence[int]) -> tuple[tuple[int, int], tuple[int, int]]:
        v = self._value
        a, b = sorted((v[int(mine[0])], v[int(mine[1])]))
        c, d = sorted((v[int(dealer[0])], v[int(dealer[1])]))
        return (a, b), (c, d)

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The values of the four up cards (each pair sorted) and the action: all the legal values read."""
        return (*self._values(dealt[f"seat {seat}"], dealt["dealer"]), action)

    def score_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The up cards' values, the hidden card's value and the action: all the score reads."""
        mine, dealer = dealt[f"seat {seat}"], dealt["dealer"]
        return (*self._values(mine, dealer), self._value[self._hidden(mine, dealer)], action)

    def _situation(self, mine: Sequence[int], dealer: Sequence[int]) -> _Situation:
        pv, dv = self._values(mine, dealer)
        found = self._situations.get((pv, dv))
        if found is None:
            v = self._value
            ctx = FcDecision(
                (int(mine[0]), int(mine[1])),
                (int(dealer[0]), int(dealer[1])),
                v[int(mine[0])] + v[int(mine[1])],
                v[int(dealer[0])] + v[int(dealer[1])],
            )
            found = self._situations[(pv, dv)] = _Situation(self, pv, dv, ctx)
        return found

    def score_cards(self, mine: Sequence[int], dealer: Sequence[int], action: Action) -> DecisionScore:
        """The score from the seat's three cards and the dealer's three (each: two up, then the third)."""
        s = self._situation(mine, dealer)
        seen = self._value[self._hidden(mine, dealer)]
        informed = TURN if s.turns[seen] else STAND
        return DecisionScore(action, s.legal, s.exposed[seen], s.legal_best, informed, s.support)


def scorer(rules: FinalCountRules, scenario: str) -> FinalCountScorer:
    """The scorer of ``peek-own`` or ``dealer-hole``."""
    return FinalCountScorer(rules, scenario)

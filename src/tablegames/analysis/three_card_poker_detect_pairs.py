"""Collusion in Three Card Poker (RULES.md §4): ``share=2``, a player who sees a tablemate's three cards.

The informed player knows the partner's cards are not in the dealer's hand: playing is valued against every
dealer hand of the 46 cards left (Ante and Play, R-TCP-4, with the Ante Bonus, R-TCP-5), and he plays when that
is worth more than the lost Ante, folding on an exact tie (the cautious tie-break, as ``protect``'s informed
player: ``protect_three_card_poker.informed_action``, tested equal).

The sum over the dealer hands avoiding the partner's cards B is inclusion-exclusion over the ``dealer-K``
exposure sums (:func:`~tablegames.analysis.three_card_poker_detect.exposure`: the sum of the play values of the
dealer hands containing a seen K-set): ``total - sum_x S1(x) + sum_{x<y} S2(x, y) - S3(B)``, so each partner hand
costs seven look-ups and ``p`` (over the C(49, 3) = 18,424 partner hands, each equally likely given the player's
three cards, R-0.1) is an exact count per hand class.

>>> from tablegames.rules import make_rules
>>> from tablegames.analysis.common import colex_of
>>> t = pair_table(make_rules("three-card-poker"), colex_of([0, 1, 2]))  # 2c 2d 2h: trips, always play
>>> len(t.rows), int(t.plays.sum())
(18424, 18424)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.advice import advisor
from tablegames.analysis.common import colex_of
from tablegames.analysis.detect import DecisionScore, LegalMistakes, scorer
from tablegames.analysis.protect_three_card_poker import _values
from tablegames.engine import Action, Round, best_action
from tablegames.rules.three_card_poker import FOLD, PLAY, ThreeCardPokerRules

PAIR_SCENARIOS = ("share=2",)
DEALER_LEFT = comb(46, 3)  # the dealer hands once the player's and the partner's six cards are out
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class PairTable:
    """One player hand (a class representative): each partner hand (its colex row, ascending), the sum of the
    play values over the dealer hands avoiding both, and whether the informed player plays."""

    rows: IntArray
    sums: IntArray
    plays: npt.NDArray[np.bool_]

    def find(self, partner: Sequence[int]) -> int:
        i = colex_of(sorted(int(c) for c in partner))
        j = int(self.rows.searchsorted(i))
        assert j < len(self.rows) and int(self.rows[j]) == i, "the partner's cards overlap the player's"
        return j

    def support(self) -> dict[Action, Fraction]:
        n = int(np.count_nonzero(self.plays))
        return {PLAY: Fraction(n, len(self.plays)), FOLD: Fraction(len(self.plays) - n, len(self.plays))}


@lru_cache(maxsize=2_000)
def pair_table(rules: ThreeCardPokerRules, i: int) -> PairTable:
    """The ``share=2`` table of player hand ``i`` (colex) by inclusion-exclusion (see the module)."""
    from tablegames.analysis.three_card_poker_detect import exposure  # (it imports this module)

    rows, v = _values(rules, i)  # the partner's possible hands are the dealer's possible hands
    e1, e2 = exposure(rules, i, 1), exposure(rules, i, 2)
    s1 = np.zeros(52, dtype=np.int64)
    s1[e1.keys] = e1.sums
    s2 = np.zeros(52 * 52, dtype=np.int64)
    s2[e2.keys] = e2.sums  # key: low card + 52 * high card
    c = tcpa._hands().cards[rows]  # ascending
    a, b, d = c[:, 0], c[:, 1], c[:, 2]
    sums = int(v.sum()) - (s1[a] + s1[b] + s1[d]) + (s2[a + 52 * b] + s2[a + 52 * d] + s2[b + 52 * d]) - v
    return PairTable(rows, sums, sums > -DEALER_LEFT)


class ThreeCardPokerPairScorer(LegalMistakes):
    """Scores play-or-fold decisions under ``share=2`` (the partner's three cards seen)."""

    def __init__(self, rules: ThreeCardPokerRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        # the legal values and the mistake check: the game's scorer (its module imports this one)
        self.legal: Any = scorer(rules, "dealer-1")
        hands = tcpa._hands()
        self._rep_of: list[int] = hands.rep[hands.cls].tolist()

    def score(self, rnd: Round, seat: int, action: Action, *, partner: int) -> DecisionScore:
        context = rnd.decision_context(seat)
        legal = advisor(rnd, seat, self.legal.strategy)(context)
        mine = [int(c) for c in rnd.seats[seat].cards]
        theirs = [int(c) for c in rnd.seats[partner].cards]
        return self.score_cards(mine, theirs, action, legal, best_action(legal, context))

    def score_dealt(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> DecisionScore:
        """A recorded decision from the dealt cards by owner: the same score as :meth:`score` (tested)."""
        return self.score_cards(dealt[f"seat {seat}"], dealt[f"seat {partner}"], action)

    def score_key(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> Hashable:
        """The player's hand class, the partner's cards relabelled alike (a set) and the action."""
        mine = [int(c) for c in dealt[f"seat {seat}"]]
        perm = self.legal._perm_of[colex_of(sorted(mine))]
        theirs = sorted((int(x) >> 2) * 4 + perm[int(x) & 3] for x in dealt[f"seat {partner}"])
        return (self._rep_of[colex_of(sorted(mine))], tuple(theirs), action)

    def score_cards(
        self,
        mine: Sequence[int],
        theirs: Sequence[int],
        action: Action,
        legal: Mapping[Action, Fraction | float] | None = None,
        legal_best: Action | None = None,
    ) -> DecisionScore:
        """The score from the cards alone (the player's three, the partner's three)."""
        i = colex_of(sorted(int(c) for c in mine))
        if legal is None or legal_best is None:  # the dealer scorer's per-hand legal values (shared)
            known = self.legal._legal.get(i)
            if known is None:
                strategy = self.legal.strategy
                options = {Action(name): v for name, v in strategy.options(list(mine)).items()}
                known = self.legal._legal[i] = (options, PLAY if strategy.plays[i] else FOLD)
            legal, legal_best = known
        perm = self.legal._perm_of[i]
        t = pair_table(self.rules, self._rep_of[i])
        j = t.find([(int(c) >> 2) * 4 + perm[int(c) & 3] for c in theirs])
        informed = PLAY if bool(t.plays[j]) else FOLD
        exposed: dict[Action, Fraction | float] = {
            PLAY: Fraction(int(t.sums[j]), DEALER_LEFT),
            FOLD: Fraction(-1),
        }
        return DecisionScore(action, legal, exposed, legal_best, informed, t.support())


def pair_scorer(rules: ThreeCardPokerRules, scenario: str) -> ThreeCardPokerPairScorer:
    return ThreeCardPokerPairScorer(rules, scenario)

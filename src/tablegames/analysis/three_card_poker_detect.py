"""Detection scorers for Three Card Poker (RULES.md §4): the ``dealer-K`` scenarios of ``tablegames protect``.

The player decides play or fold on the own three cards (R-TCP-2); under ``dealer-K`` the first K dealer cards
are seen. For a player hand, every dealer hand of the 49 cards left is valued by playing against it (Ante and
Play, R-TCP-4, with the Ante Bonus, R-TCP-5, as ``protect`` values it); the value of playing given a seen set is
the mean over the dealer hands that contain it, each K-set of the 49 cards being equally likely under the null
(the shuffle, R-0.1). The informed player plays when that is worth more than the lost Ante, folding on an exact
tie (the cautious tie-break, as ``protect`` and the exact advisor).

``p`` of a decision: the fraction of the K-sets for which the chosen action is the informed choice (exact).

>>> from tablegames.rules import make_rules
>>> rules = make_rules("three-card-poker")
>>> t = exposure(rules, 0, 1)  # the hand 2c 2d 2h (colex 0): trips, play whatever the dealer shows
>>> int(t.plays.sum()), len(t.keys)
(49, 49)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from math import comb

import numpy as np
import numpy.typing as npt

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.advice import advisor
from tablegames.analysis.common import colex_index, colex_of
from tablegames.analysis.detect import DecisionScore
from tablegames.analysis.protect_three_card_poker import SEEN, _values
from tablegames.engine import Action, Round, best_action
from tablegames.rules.three_card_poker import FOLD, PLAY, ThreeCardPokerRules

SCENARIOS = ("dealer-1", "dealer-2", "dealer-3")
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Exposure:
    """One player hand under ``dealer-K``: each possible seen K-set (its key, sorted), the sum of the play
    values of its ``n`` completions, and whether the informed player plays."""

    keys: IntArray
    sums: IntArray
    n: int
    plays: npt.NDArray[np.bool_]

    def find(self, seen: Sequence[int]) -> int:
        key = seen_key(seen)
        j = int(self.keys.searchsorted(key))
        assert j < len(self.keys) and int(self.keys[j]) == key, (
            "the seen cards are not among the hand's dealer cards"
        )
        return j

    def support(self) -> dict[Action, Fraction]:
        """P(each action is the informed choice), each seen set equally likely."""
        n = int(np.count_nonzero(self.plays))
        return {PLAY: Fraction(n, len(self.plays)), FOLD: Fraction(len(self.plays) - n, len(self.plays))}


PERMS = np.array(list(permutations(range(4))), dtype=np.int64)  # the 24 suit relabellings


@lru_cache(maxsize=1)
def hand_perm() -> IntArray:
    """For every hand (colex), the index of a suit relabelling (:data:`PERMS`) taking it to its class'
    representative (the analysis' ``rep``): a hand's exposure is its representative's, cards relabelled."""
    t = tcpa._hands()
    target = t.rep[t.cls]
    out = np.full(tcpa.HANDS, -1, dtype=np.int64)
    rank, suit = t.cards >> 2, t.cards & 3
    for j, perm in enumerate(PERMS):
        relabelled = colex_index(np.sort(rank * 4 + perm[suit], axis=1))
        out = np.where((out < 0) & (relabelled == target), j, out)
    assert (out >= 0).all()
    return out


def canonical(mine: Sequence[int], seen: Sequence[int]) -> tuple[int, list[int]]:
    """The representative of the player's hand and the seen cards relabelled alike (suits never matter)."""
    i = colex_of(mine)
    t = tcpa._hands()
    perm = PERMS[int(hand_perm()[i])]
    return int(t.rep[t.cls[i]]), [(int(c) >> 2) * 4 + int(perm[int(c) & 3]) for c in seen]


def seen_key(seen: Sequence[int]) -> int:
    key = 0
    for c in sorted(int(c) for c in seen)[::-1]:  # sum of card * 52**t, t the card's rank in the sorted set
        key = key * 52 + c
    return key


@lru_cache(maxsize=30_000)
def exposure(rules: ThreeCardPokerRules, i: int, k: int) -> Exposure:
    """The ``dealer-k`` exposure table of player hand ``i`` (colex index)."""
    rows, v = _values(rules, i)
    cards = tcpa._hands().cards[rows]  # each row sorted ascending
    if k == 3:
        flat = cards @ np.array([1, 52, 52**2], dtype=np.int64)
        order = np.argsort(flat)
        uniq, sums = flat[order], v[order].astype(np.int64)
    else:
        sub = list(combinations(range(3), k))
        keys = np.zeros((len(rows), len(sub)), dtype=np.int64)
        for j, s in enumerate(sub):
            for t, col in enumerate(s):
                keys[:, j] += cards[:, col] * 52**t
        flat = keys.ravel()
        total = np.bincount(flat, weights=np.repeat(v, len(sub)).astype(np.float64), minlength=52**k)
        uniq = np.flatnonzero(np.bincount(flat, minlength=52**k))
        sums = np.rint(total[uniq]).astype(np.int64)
    n = comb(49 - k, 3 - k)
    return Exposure(uniq, sums, n, sums > -n)


@lru_cache(maxsize=4)
def _legal_values(rules: ThreeCardPokerRules) -> dict[int, tuple[dict[Action, Fraction | float], Action]]:
    """A hand's legal values and best action by its colex index, filled as hands are met; one per rule set,
    shared by the scenarios' scorers (the legal information is every scenario's)."""
    return {}


class ThreeCardPokerScorer:
    """Scores play-or-fold decisions under ``dealer-K`` (the seen cards: the dealer's first K)."""

    def __init__(self, rules: ThreeCardPokerRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        self.k = SEEN[scenario]
        self.strategy = tcpa.optimal_strategy(rules)
        self._exposures: dict[int, Exposure] = {}
        self._supports: dict[int, dict[Action, Fraction]] = {}
        self._legal = _legal_values(rules)
        hands = tcpa._hands()
        self._rep_of: list[int] = hands.rep[hands.cls].tolist()
        self._perm_of: list[list[int]] = PERMS[hand_perm()].tolist()

    def score(self, rnd: Round, seat: int, action: Action) -> DecisionScore:
        context = rnd.decision_context(seat)
        legal = advisor(rnd, seat, self.strategy)(context)
        legal_best = best_action(legal, context)
        mine = [int(c) for c in rnd.seats[seat].cards]
        return self.score_cards(mine, [int(c) for c in rnd.dealer[: self.k]], action, legal, legal_best)

    def score_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> DecisionScore:
        """A recorded decision from the round's dealt cards by owner (``"seat N"``, ``"dealer"``, in deal
        order), without replaying the round: the same score as :meth:`score` (tested)."""
        return self.score_cards(dealt[f"seat {seat}"], dealt["dealer"][: self.k], action)

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        a, b, c = sorted(int(x) for x in dealt[f"seat {seat}"])
        value = int(self.strategy.play_sum[a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6])  # colex_of
        return value < -tcpa.DEALER_HANDS if action == PLAY else value > -tcpa.DEALER_HANDS

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The player's cards (a set) and the action: all :meth:`mistake_dealt` reads."""
        return (tuple(sorted(dealt[f"seat {seat}"])), action)

    def score_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The player's hand class (its representative), the seen dealer cards relabelled alike (a set) and the
        action: the score is the representative's (suits never matter: the legal values are a class's, the
        exposure is the representative's, :meth:`score_cards`), so hands of a class share the cache."""
        a, b, c = sorted(int(x) for x in dealt[f"seat {seat}"])
        i = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6  # colex_of
        perm = self._perm_of[i]
        seen = sorted((int(x) >> 2) * 4 + perm[int(x) & 3] for x in dealt["dealer"][: self.k])
        return (self._rep_of[i], tuple(seen), action)

    def score_cards(
        self,
        mine: Sequence[int],
        seen: Sequence[int],
        action: Action,
        legal: Mapping[Action, Fraction | float] | None = None,
        legal_best: Action | None = None,
    ) -> DecisionScore:
        """The score from the cards alone (the player's three, the dealer's seen K)."""
        a, b, c = sorted(int(x) for x in mine)
        i = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6  # colex_of(mine), three cards
        if legal is None or legal_best is None:
            known = self._legal.get(i)
            if known is None:  # a hand's legal values and best action, once (a function of the hand)
                options: dict[Action, Fraction | float] = {
                    Action(name): v for name, v in self.strategy.options(mine).items()
                }
                known = self._legal[i] = (options, PLAY if self.strategy.plays[i] else FOLD)
            legal = known[0] if legal is None else legal
            legal_best = known[1] if legal_best is None else legal_best
        rep, perm = self._rep_of[i], self._perm_of[i]  # canonical(mine, seen), from lists
        relabelled = [(int(c) >> 2) * 4 + perm[int(c) & 3] for c in seen]
        t = self._exposures.get(rep)
        if t is None:  # (a dict of its own: hashing the rules for the shared cache costs more than a lookup)
            t = self._exposures[rep] = exposure(self.rules, rep, self.k)
            self._supports[rep] = t.support()
        j = t.find(relabelled)
        informed = PLAY if bool(t.plays[j]) else FOLD
        exposed: dict[Action, Fraction | float] = {PLAY: Fraction(int(t.sums[j]), t.n), FOLD: Fraction(-1)}
        return DecisionScore(action, legal, exposed, legal_best, informed, self._supports[rep])


@lru_cache(maxsize=4)
def class_table(rules: ThreeCardPokerRules) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """``dealer-1`` for the simulation kernel: per hand class (the analysis' ``rep`` order) and seen card (in
    the representative's suits), whether the informed player plays; and per class P(play is informed)."""
    t = tcpa._hands()
    plays = np.zeros((len(t.rep), 52), dtype=np.bool_)
    p_play = np.zeros(len(t.rep))
    for j, rep in enumerate(t.rep.tolist()):
        e = exposure(rules, rep, 1)
        plays[j, e.keys] = e.plays
        p_play[j] = float(e.support()[PLAY])
    return plays, p_play


def scorer(rules: ThreeCardPokerRules, scenario: str) -> ThreeCardPokerScorer:
    return ThreeCardPokerScorer(rules, scenario)


from tablegames.analysis.three_card_poker_detect_pairs import PAIR_SCENARIOS, pair_scorer  # noqa: E402, F401

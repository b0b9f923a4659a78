"""Collusion in One Eyed Flush (RULES.md §2): ``share=2``, a player who sees a tablemate's three cards.

The informed player knows the partner's three cards (dealt face down, R-OEF-4) are not among the cards still
unseen: the dealer's two face-down cards, the player's draw and the dealer's draw (R-OEF-5, R-OEF-7). Each
option (stand, or discard a card of a class and draw) is valued by ``protect``'s ``share=K`` arithmetic: the
shared one-state kernel (``one_eyed_flush_kernel.options``, mode 3: nothing seen) on the deck less the
player's three cards, the Flip Card and the partner's three, by card classes (13 natural ranks and the wild
class, R-OEF-1) with exact multiplicities; the informed player plays the best option (exact ties: stand, the
cautious choice; among discards R-0.5: the kernel's ``choose``), as ``protect_one_eyed_flush.share``'s
informed player does (tested equal). The dealer's draw against a wild (R-OEF-7) looks at this player's hand
only, as ``protect`` models it. The legal values are the exact advisor's (the game's own scorer's).

``p``: over the partner's possible hands given the player's information (the own three cards and the Flip
Card: C(48, 3) = 17,296 hands), each equally likely (R-0.1), the fraction for which the chosen action's option
is the informed choice: a count per class multiset of the partner's hand (at most C(16, 3) = 560, each
weighing the product of C(left, k) over its classes), computed once per player state (tested against a count
over every partner hand). As in the player scorer, discarding either of two cards of one class is one option.

>>> from tablegames.rules import make_rules
>>> from tablegames.cards import parse_cards
>>> from tablegames.engine.actions import discard
>>> sc = pair_scorer(make_rules("one-eyed-flush"), "share=2")
>>> dealt = {"seat 1": parse_cards("2c 7d Qh"), "seat 2": parse_cards("3c 4d 5h")}
>>> dealt["dealer"] = parse_cards("9c 5d 8h")
>>> s = sc.score_dealt(dealt, 1, discard(2), partner=2)  # the Qh out for a draw
>>> s.legal_best == discard(2), s.mistake, sum(s.support.values()) == 1
(True, False, True)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tablegames.analysis import one_eyed_flush as oefa
from tablegames.analysis import one_eyed_flush_kernel as kern
from tablegames.analysis.detect import DecisionScore, LegalMistakes, scorer
from tablegames.analysis.protect_one_eyed_flush import _kernels
from tablegames.engine import Action, Round
from tablegames.rules.one_eyed_flush import OneEyedFlushRules

if TYPE_CHECKING:
    from tablegames.analysis.one_eyed_flush_detect import OneEyedFlushScorer

PAIR_SCENARIOS = ("share=2",)
State = tuple[int, int, int, int]  # the player's sorted classes and the Flip Card's class
Classes = tuple[int, int, int]  # the partner's sorted classes
TRIPLES = np.array(list(combinations_with_replacement(range(oefa.NC), 3)), dtype=np.int64)
TIMES = (TRIPLES[:, :, None] == np.arange(oefa.NC)[None, None, :]).sum(axis=1)  # [triple, class]: how often
CHOOSE = np.array([[comb(n, k) for k in range(4)] for n in range(53)], dtype=np.int64)  # C(n, k), k <= 3


class OneEyedFlushPairScorer(LegalMistakes):
    """Scores stand-or-draw decisions (R-OEF-5) under ``share=2`` (the partner's three cards seen)."""

    def __init__(self, rules: OneEyedFlushRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        # the legal values, the mistake check and the decision's form: the game's scorer (its module imports
        # this one)
        self.legal = cast("OneEyedFlushScorer", scorer(rules, "dealer-hole-1"))
        self.kernels = _kernels()
        self._fair_best = oefa._solve(rules).best
        self._tables = kern.table_args(self.legal.tables)
        self._values: dict[tuple[State, Classes], tuple[int, list[int], int]] = {}
        self._supports = _supports_of(rules)

    # --- the protocol --------------------------------------------------------------------------------------

    def score(self, rnd: Round, seat: int, action: Action, *, partner: int) -> DecisionScore:
        mine = [int(c) for c in rnd.seats[seat].cards]
        theirs = [int(c) for c in rnd.seats[partner].initial_cards]  # the three dealt (before any draw)
        return self.score_cards(mine, int(rnd.dealer[1]), theirs, action)

    def score_dealt(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> DecisionScore:
        """A recorded decision from the dealt cards by owner (each seat's three, then its draw; the dealer's
        first, the Flip Card, ...): the same score as :meth:`score` (tested)."""
        return self.score_cards(
            dealt[f"seat {seat}"][:3], int(dealt["dealer"][1]), dealt[f"seat {partner}"][:3], action
        )

    def score_key(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> Hashable:
        """The player's state (sorted classes, the Flip Card's class), the action's option and the partner's
        sorted classes: all :meth:`score_dealt`'s answers read."""
        state, option = self.legal._state(dealt[f"seat {seat}"][:3], int(dealt["dealer"][1]), action)
        return (state, option, self._classes(dealt[f"seat {partner}"][:3]))

    # --- the values ----------------------------------------------------------------------------------------

    def _classes(self, cards: Sequence[int]) -> Classes:
        a, b, c = sorted(self.legal.class_of[int(x)] for x in cards[:3])
        return (a, b, c)

    def informed(self, state: State, theirs: Classes) -> tuple[int, list[int], int]:
        """The informed option, every option's value summed over the unseen cards and the number of deals, the
        partner's classes out of the deck (``protect``'s ``share`` kernel's state; cached)."""
        key = (state, theirs)
        found = self._values.get(key)
        if found is None:
            if len(self._values) >= 200_000:  # (bounds the memory)
                self._values.clear()
            rem = self._left(state)
            for x in theirs:
                rem[x] -= 1
            assert (rem >= 0).all(), "the partner's cards overlap the player's or the Flip Card"
            a, b, c, f = state
            ev = np.zeros(4, dtype=np.int64)
            n = int(
                self.kernels["options"](3, a, b, c, f, -1, -1, -1, rem, *self._tables, self.legal.pay, ev)
            )
            best = int(self.kernels["choose"](ev, a, b, c, self.legal.prefer))  # cautious, then
            found = self._values[key] = (best, ev.tolist(), n)
        return found

    def _left(self, state: State) -> Any:
        rem = self.legal.counts.copy()
        for x in state:
            rem[x] -= 1
        return rem

    def support(self, state: State) -> list[Fraction]:
        """P(each option is the informed choice) over the partner's C(48, 3) hands: per class multiset of the
        partner's hand, its number of hands (the product of C(left, k)) to the option ``protect``'s ``share``
        kernel plays (once per state)."""
        found = self._supports.get(state)
        if found is None:
            left = self._left(state)
            ways = CHOOSE[left[None, :], TIMES].prod(axis=1)  # the partner's hands of each class multiset
            keep = ways > 0
            rems = (left[None, :] - TIMES[keep]).astype(np.int64)
            states = np.tile(np.array(state, dtype=np.int64), (len(rems), 1))
            out = np.zeros(len(rems), dtype=np.float64)
            chosen = np.zeros(len(rems), dtype=np.int64)
            share = self.kernels["share"]
            share(states, rems, self._fair_best, self.legal.pay, *self._tables, out, chosen)
            weights = [int(ways[keep][chosen == o].sum()) for o in range(4)]
            total = sum(weights)
            assert total == comb(int(left.sum()), 3), "the partner's hands are C(48, 3)"
            found = self._supports[state] = [Fraction(w, total) for w in weights]
        return found

    def score_cards(
        self, mine: Sequence[int], flip: int, theirs: Sequence[int], action: Action
    ) -> DecisionScore:
        """The score from the cards alone (the player's three, the Flip Card, the partner's three)."""
        state, _option = self.legal._state(mine, flip, action)
        best, ev, n = self.informed(state, self._classes(theirs))
        score: DecisionScore = self.legal.decision(
            mine, flip, action, best, ev, n, lambda: self.support(state)
        )
        return score


@lru_cache(maxsize=4)
def _supports_of(rules: OneEyedFlushRules) -> dict[State, list[Fraction]]:
    """The states' supports, shared by the scorers of a rule set (filled as mistakes are met)."""
    return {}


def pair_scorer(rules: OneEyedFlushRules, scenario: str) -> OneEyedFlushPairScorer:
    return OneEyedFlushPairScorer(rules, scenario)

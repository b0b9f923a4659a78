"""Detection scorers for One Eyed Flush (RULES.md §2): the ``protect`` scenarios ``dealer-hole-1``,
``dealer-hole-both`` and ``next-card``.

A player decides on the own three cards and the Flip Card (R-OEF-4): stand, or discard one card and draw
(R-OEF-5). Under ``dealer-hole-1`` the dealer's first face-down card is seen, under ``dealer-hole-both`` both
(the dealer's first and third), under ``next-card`` the card a draw would bring (the deck's next card at the
decision). The exposure is ``protect``'s (``protect_one_eyed_flush.informed_action``): the shared one-state
kernel (``one_eyed_flush_kernel.options``) sums every option's result over the unseen cards by card classes
(13 natural ranks and the wild class, R-OEF-1), and the informed player plays the best option (exact ties:
stand, the cautious choice; among discards R-0.5, the kernel's ``choose``); the dealer's draw against a wild
(R-OEF-7) looks at this player's hand only, as ``protect`` models it. The legal values are the exact
advisor's (``OneEyedFlushStrategy.options``). Discarding either of two cards of one class is one option: the
actions share their support, and the chosen one is the informed choice when its option is.

``p``: over the hidden cards the player has not seen (the other 48 cards: the player's are face down to the
others, R-OEF-4), each equally likely (R-0.1), by class with exact multiplicities (ordered pairs for
``dealer-hole-both``), the fraction for which the chosen action's option is the informed choice (exact). A hand
has one decision.

``next-card`` from a recorded round (:meth:`OneEyedFlushScorer.score_dealt`): the next card is the seat's own
draw when it drew, else the first draw after it (a later seat's, in seat order, then the dealer's); when no one
drew after a standing player the card was never dealt and is not in the record: the decision is then scored
with ``p`` 0 (no information: the test skips it). Whether it is dealt depends on the later seats' decisions and
the dealer's cards, not on the card itself, so the steps left are still exact (for tables where no later seat
sees it).

>>> from tablegames.rules import make_rules
>>> from tablegames.cards import parse_cards
>>> sc = scorer(make_rules("one-eyed-flush"), "next-card")
>>> dealt = {"seat 1": parse_cards("2c 7d Qh 3s"), "dealer": parse_cards("9c 5d 8h")}
>>> s = sc.score_dealt(dealt, 1, discard(2))  # Qh drawn out for the 3s
>>> s.legal_best == discard(2), s.mistake, s.p < 1
(True, False, True)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import one_eyed_flush as oefa
from tablegames.analysis import one_eyed_flush_kernel as kern
from tablegames.analysis.detect import DecisionScore, Lazy
from tablegames.analysis.protect_one_eyed_flush import MODES, _kernels
from tablegames.engine import Action, Round, best_action
from tablegames.engine.actions import STAND, discard
from tablegames.rules.one_eyed_flush import OefDecision, OneEyedFlushRules

SCENARIOS = ("dealer-hole-1", "dealer-hole-both", "next-card")
IntArray = npt.NDArray[np.int64]
State = tuple[int, int, int, int]  # the player's sorted classes and the Flip Card's class


class _Exposure:
    """One state under the scenario: by the seen classes, the informed option, every option's summed value
    and the number of deals; and P(each option is the informed choice)."""

    def __init__(self, scorer: OneEyedFlushScorer, state: State) -> None:
        a, b, c, f = state
        rem = scorer.counts.copy()
        for x in state:
            rem[x] -= 1
        mode = scorer.mode
        options, choose = scorer.kernels["options"], scorer.kernels["choose"]
        args = (*kern.table_args(scorer.tables), scorer.pay)
        nc = len(rem)
        size = nc * nc if mode == 1 else nc  # row of the seen classes: g * nc + h, or g
        self.best = np.full(size, -1, dtype=np.int8)  # (arrays: a state's rows, compact in memory)
        self.ev = np.zeros((size, 4), dtype=np.int64)
        self.n = np.zeros(size, dtype=np.int64)
        weights = [0, 0, 0, 0]
        for g in range(len(rem)):
            wg = int(rem[g])  # the ways the seen cards fall (ordered pairs for two cards)
            if not wg:
                continue
            rem[g] -= 1
            for h in range(len(rem)) if mode == 1 else (-1,):
                wh = int(rem[h]) if h >= 0 else 1
                if not wh:
                    continue
                if h >= 0:
                    rem[h] -= 1
                ev = np.zeros(4, dtype=np.int64)
                gh = (g, h) if mode == 1 else (g, -1) if mode == 0 else (-1, -1)
                n = int(options(mode, a, b, c, f, *gh, g if mode == 2 else -1, rem, *args, ev))
                best = int(choose(ev, a, b, c, scorer.prefer))  # cautious, then, as protect's bot
                row = g * nc + h if mode == 1 else g
                self.best[row], self.ev[row], self.n[row] = best, ev, n
                weights[best] += wg * wh
                if h >= 0:
                    rem[h] += 1
            rem[g] += 1
        total = sum(weights)
        self.support = [Fraction(w, total) for w in weights]


class OneEyedFlushScorer:
    """Scores stand-or-draw decisions (R-OEF-5) under one of the scenarios."""

    def __init__(self, rules: OneEyedFlushRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        self.mode = MODES[scenario]
        sol = oefa._solve(rules)
        self.tables = sol.tables
        self.pay = sol.pay
        self.counts: IntArray = np.asarray(sol.tables.counts, dtype=np.int64).copy()
        self.prefer = sol.tables.prefer
        self.kernels = _kernels()
        self.strategy = oefa.optimal_strategy(rules)
        self.class_of: list[int] = [int(sol.tables.classes.card_class(c)) for c in range(52)]
        self._exposures: dict[State, _Exposure] = {}
        self._legal = _legal_values(rules)

    # --- the hidden cards -------------------------------------------------------------------------------

    def _hidden_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action
    ) -> tuple[int, ...] | None:
        dealer = dealt["dealer"]
        if self.mode == 0:
            return (int(dealer[0]),)
        if self.mode == 1:
            return (int(dealer[0]), int(dealer[2]))
        mine = dealt[f"seat {seat}"]
        if action.name == "discard":
            return (int(mine[3]),) if len(mine) > 3 else None
        later = sorted(
            int(k[5:]) for k, v in dealt.items() if k.startswith("seat ") and int(k[5:]) > seat and len(v) > 3
        )
        if later:
            return (int(dealt[f"seat {later[0]}"][3]),)
        return (int(dealer[3]),) if len(dealer) > 3 else None

    # --- the protocol --------------------------------------------------------------------------------------

    def score(self, rnd: Round, seat: int, action: Action) -> DecisionScore:
        dealer = [int(c) for c in rnd.dealer]
        hidden = (
            (dealer[0],)
            if self.mode == 0
            else (dealer[0], dealer[2])
            if self.mode == 1
            else (int(rnd.deck[rnd.next_card]),)
        )
        return self.score_cards([int(c) for c in rnd.seats[seat].cards], dealer[1], hidden, action)

    def score_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> DecisionScore:
        """A recorded decision from the round's dealt cards by owner (in deal order: the seat's three, then its
        draw; the dealer's first, Flip Card, third, then its draw): the same score as :meth:`score` (tested;
        ``next-card`` with the card never dealt: ``p`` 0, see the module)."""
        mine = dealt[f"seat {seat}"]
        return self.score_cards(
            mine[:3], int(dealt["dealer"][1]), self._hidden_dealt(dealt, seat, action), action
        )

    def mistake_dealt(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> bool:
        legal, best = self._legal_of(dealt[f"seat {seat}"][:3], int(dealt["dealer"][1]))
        return legal[action] < legal[best]

    def _state(self, mine: Sequence[int], flip: int, action: Action) -> tuple[State, int]:
        classes = [self.class_of[int(c)] for c in mine[:3]]
        a, b, c = sorted(classes)
        option = 0 if action.index is None else 1 + (a, b, c).index(classes[action.index])
        return (a, b, c, self.class_of[flip]), option

    def mistake_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The player's classes (sorted), the Flip Card's class and the action's option: all the legal values
        read."""
        return self._state(dealt[f"seat {seat}"], int(dealt["dealer"][1]), action)

    def score_key(
        self, dealt: Mapping[str, Sequence[int]], seat: int, action: Action, prior: Sequence[Action] = ()
    ) -> Hashable:
        """The state, the action's option and the hidden cards' classes (None: not recorded)."""
        hidden = self._hidden_dealt(dealt, seat, action)
        seen = None if hidden is None else tuple(self.class_of[c] for c in hidden)
        return (*self._state(dealt[f"seat {seat}"], int(dealt["dealer"][1]), action), seen)

    # --- the values ----------------------------------------------------------------------------------------

    def _legal_of(self, mine: Sequence[int], flip: int) -> tuple[dict[Action, Fraction | float], Action]:
        key = (*(int(c) for c in mine[:3]), flip)
        found = self._legal.get(key)
        if found is None:
            if len(self._legal) >= 200_000:  # (bounds the memory: a hand and Flip Card rarely repeat)
                self._legal.clear()
            legal: dict[Action, Fraction | float] = dict(self.strategy.options(list(key[:3]), flip))
            ctx = OefDecision(key[:3], flip, self.rules.wild_cards, self.rules.bust_limit)
            found = self._legal[key] = (legal, best_action(legal, ctx))
        return found

    def exposure(self, state: State) -> _Exposure:
        """The state's exposure table (computed once per scorer)."""
        found = self._exposures.get(state)
        if found is None:
            found = self._exposures[state] = _Exposure(self, state)
        return found

    def score_cards(
        self, mine: Sequence[int], flip: int, hidden: Sequence[int] | None, action: Action
    ) -> DecisionScore:
        """The score from the player's three cards, the Flip Card and the hidden cards (None: unknown)."""
        legal, legal_best = self._legal_of(mine, flip)
        if hidden is None:  # next-card never dealt: no information (p 0)
            return DecisionScore(action, legal, legal, legal_best, legal_best, {})
        e = self.exposure(self._state(mine, flip, action)[0])
        seen = [self.class_of[int(c)] for c in hidden]
        row = seen[0] * len(self.counts) + seen[1] if len(seen) == 2 else seen[0]
        best, n = int(e.best[row]), int(e.n[row])
        assert best >= 0, "the hidden cards are among the player's or the Flip Card"
        return self.decision(mine, flip, action, best, e.ev[row].tolist(), n, e.support)

    def decision(
        self,
        mine: Sequence[int],
        flip: int,
        action: Action,
        best: int,
        ev: Sequence[int],
        n: int,
        support: Sequence[Fraction] | Callable[[], Sequence[Fraction]],
    ) -> DecisionScore:
        """The score of ``action`` from the informed option ``best``, every option's value summed over ``n``
        deals (``ev``) and P(each option is the informed choice) (a callable: computed when first read)."""
        legal, legal_best = self._legal_of(mine, flip)
        classes = [self.class_of[int(c)] for c in mine[:3]]
        key = sorted(classes)

        def option_of(a: Action) -> int:
            return 0 if a.index is None else 1 + key.index(classes[a.index])

        if option_of(action) == best:
            informed = action
        else:
            informed = STAND if best == 0 else discard(classes.index(key[best - 1]))
        exposed: dict[Action, Fraction | float] = {a: Fraction(ev[option_of(a)], n) for a in legal}
        if callable(support):
            by_option = support
            lazy = Lazy(lambda: {a: by_option()[option_of(a)] for a in legal})
            return DecisionScore(action, legal, exposed, legal_best, informed, lazy)
        chances = {a: support[option_of(a)] for a in legal}
        return DecisionScore(action, legal, exposed, legal_best, informed, chances)


@lru_cache(maxsize=4)
def _legal_values(rules: OneEyedFlushRules) -> dict[tuple[int, ...], Any]:
    """The legal values and best action by the player's cards and the Flip Card, shared by the scenarios'
    scorers of a rule set (filled as decisions are met)."""
    return {}


def scorer(rules: OneEyedFlushRules, scenario: str) -> OneEyedFlushScorer:
    """The scorer of ``dealer-hole-1``, ``dealer-hole-both`` or ``next-card``."""
    return OneEyedFlushScorer(rules, scenario)


from tablegames.analysis.one_eyed_flush_detect_pairs import PAIR_SCENARIOS, pair_scorer  # noqa: E402, F401

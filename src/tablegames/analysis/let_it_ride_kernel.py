"""The exact Let It Ride solver (RULES.md §1) behind :mod:`tablegames.analysis.let_it_ride`: lookup tables built
from the rule functions, the two decisions solved over every 4-card set and 3-card hand, the strategy object.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt
from numba import njit

from tablegames.analysis.common import (
    colex_of,
    combinations_array,
)
from tablegames.engine.actions import PULL, RIDE, Action
from tablegames.rules.common import NO_PAY, PayTable
from tablegames.rules.indexing import build_pattern_tables, rank_weights
from tablegames.rules.let_it_ride import (
    LetItRideRules,
    LirHand,
    bets_up_return,
    lir_hand_of,
    pulled_return,
)
from tablegames.rules.poker import three_card_category_of

IntArray = npt.NDArray[np.int64]

N3 = comb(52, 3)  # 22,100 player hands
N4 = comb(52, 4)  # 270,725 player hand + first community card sets
PER_HAND = 49 * 48  # ordered community cards per player hand
TOTAL_DEALS = N3 * PER_HAND
NH = len(LirHand)
BET_SIZES = (100, 500, 1_000, 2_500, 5_000, 10_000, 50_000)  # cents per wager, for the cap table


# --- lookup tables built from the rule functions -------------------------------------------------


@lru_cache(maxsize=4)
def five_card_tables(qualifier: int = 10) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """``LirHand`` by the rank index of the sorted ranks (``rules.indexing``), without and with a flush, from
    ``lir_hand_of`` with the lowest paying pair ``qualifier`` (R-LIR-4): the pattern tables the simulation
    expands too. The tables that depend on the hand classes (this, :func:`pattern_hist`, :func:`hist4`) are
    the only structural ones: keyed by the qualifier, every pay table re-uses them."""
    return build_pattern_tables(5, lambda ranks, flush: lir_hand_of(ranks, flush, qualifier))


_RANK = (np.arange(52) // 4).astype(np.int32)
_SUIT_BIT = (1 << (np.arange(52) % 4)).astype(np.uint8)


def _ranks_suits(hands: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """Rank indices (``rules.indexing.rank_index``) and flush flags of rows of increasing cards (rank order =
    card order)."""
    keys = np.zeros(len(hands), dtype=np.int32)
    bits = np.full(len(hands), 15, dtype=np.uint8)
    for i, weight in enumerate(rank_weights(hands.shape[1]).tolist()):
        col = hands[:, i]
        keys += _RANK[col] * weight
        bits &= _SUIT_BIT[col]
    return keys, bits != 0


@lru_cache(maxsize=8)
def combos(n: int, k: int) -> npt.NDArray[np.int8]:
    """Cached :func:`combinations_array` (read-only)."""
    out = combinations_array(n, k)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=2)
def pattern_hist(qualifier: int = 10) -> npt.NDArray[np.int64]:
    """``[13**4 * 2, 10]``: for a 4-card set with sorted ranks of base-13 key ``k`` and suited flag ``f`` (row
    ``2k + f``), how many of its 48 completions make each base hand.

    A completion of rank ``r`` is one of the ``4 - count(r)`` cards of that rank left; when the four cards are
    suited, exactly one card of each rank not among them shares their suit and makes a flush-type hand.
    """
    plain, flush = five_card_tables(qualifier)
    out = np.zeros((13**4 * 2, NH), dtype=np.int64)
    pats = np.array(list(combinations_with_replacement(range(13), 4)), dtype=np.int64)  # sorted rows
    key4 = pats @ rank_weights(4)
    distinct = (np.diff(pats, axis=1) > 0).all(axis=1)
    for r in range(13):
        left = 4 - (pats == r).sum(axis=1)
        ok = left > 0
        key5 = np.sort(np.concatenate([pats, np.full((len(pats), 1), r)], axis=1), axis=1) @ rank_weights(5)
        cat_plain = plain[key5[ok]].astype(np.int64)
        np.add.at(out, (2 * key4[ok], cat_plain), left[ok])
        # suited four cards: the one completion of their suit is a flush-type hand (ranks not among them)
        suited = ok & distinct
        in_pattern = (pats == r).any(axis=1)
        fl = suited & ~in_pattern
        same = suited & in_pattern
        np.add.at(out, (2 * key4[same] + 1, plain[key5[same]].astype(np.int64)), left[same])
        np.add.at(out, (2 * key4[fl] + 1, plain[key5[fl]].astype(np.int64)), left[fl] - 1)
        np.add.at(out, (2 * key4[fl] + 1, flush[key5[fl]].astype(np.int64)), 1)
    return out


@lru_cache(maxsize=2)
def hist4(qualifier: int = 10) -> npt.NDArray[np.int64]:
    """``[270725, 10]``: for each 4-card set (colex index), the base-hand classes over its 48 completions."""
    keys, suited = _ranks_suits(combos(52, 4))
    out = pattern_hist(qualifier)[keys.astype(np.int64) * 2 + suited]
    out.flags.writeable = False
    return out


_COMB = [np.array([comb(c, i + 1) for c in range(52)], dtype=np.int32) for i in range(5)]


def _drop_index(hands: npt.NDArray[np.int8], drop: int) -> npt.NDArray[np.int32]:
    """Colex index of each row with column ``drop`` removed."""
    cols = [j for j in range(hands.shape[1]) if j != drop]
    out = np.zeros(len(hands), dtype=np.int32)
    for i, j in enumerate(cols):
        out += _COMB[i][hands[:, j]]
    return out


@lru_cache(maxsize=1)
def three_of_four() -> IntArray:
    """``[4, 270725]``: colex index of each 4-card set's 3-card subsets (dropping card j)."""
    fours = combos(52, 4)
    return np.stack([_drop_index(fours, d) for d in range(4)]).astype(np.int64)


# --- the solution ----------------------------------------------------------------------------------


def win_table(paytable: PayTable[LirHand], bet_cents: int, cap_cents: int | None) -> IntArray:
    """``W[k, h]``: the base game's net result in cents with ``k`` wagers of ``bet_cents`` up (the others
    pulled) and final hand ``h``, the win capped at ``cap_cents`` (None: no cap): from the rules' own
    ``pulled_return`` and ``bets_up_return`` (R-LIR-2..5), as the flow settles and the kernel compiles."""
    w = np.zeros((4, NH), dtype=np.int64)
    for h in LirHand:
        odds = NO_PAY if (o := paytable.odds(h)) is None else o
        for k in (1, 2, 3):
            cap = k * bet_cents * max(odds, 0) if cap_cents is None else cap_cents  # None: the win itself
            returned = (3 - k) * pulled_return(bet_cents) + bets_up_return(k, bet_cents, odds, cap)
            w[k, h] = returned - 3 * bet_cents
    return w


def largest_base_win(rules: LetItRideRules, bet_cents: int) -> int:
    """The largest base-game win of a hand at ``bet_cents`` a wager, before the cap: all three wagers up on the
    best-paying hand (R-LIR-4)."""
    return 3 * bet_cents * max(rules.main_paytable.pays.values(), default=0)


def strategy_bet(rules: LetItRideRules, bet_cents: int | None) -> int | None:
    """The bet size the optimal strategy at ``bet_cents`` depends on: ``bet_cents`` when the cap (R-LIR-5) can
    reach it, else None.

    The strategy depends on the bet only through the cap: when not even the largest win at that bet reaches the
    cap, every win is ``bet_cents`` times the win of a unit wager, so the decisions and the EVs per unit are
    those of the uncapped strategy, one strategy shared by all such bets. Above that (standard pay table: the
    Royal Flush's 1000 to 1 on three wagers, so bets of $16.67 and more against the $50,000 cap) a three-up
    Royal Flush is capped and the EVs change.

    >>> rules = LetItRideRules()
    >>> strategy_bet(rules, 1_666), strategy_bet(rules, 1_667), strategy_bet(rules, None)
    (None, 1667, None)
    """
    if bet_cents is None or largest_base_win(rules, bet_cents) <= rules.cap_cents:
        return None
    return bet_cents


@dataclass(frozen=True, eq=False)
class _Solution:
    unit: int  # cents of one wager (1 when the cap does not apply)
    win: IntArray  # [4, NH]
    sums4: IntArray  # [N4, 4]: sum over the 48 completions of W[k]
    ride2: npt.NDArray[np.bool_]  # [2, N4]: ride wager 2, given wager 1 pulled (0) / up (1)
    value3: IntArray  # [2, N3]: sum over the 49*48 community cards, wager 1 pulled (0) / ridden (1)
    ride1: npt.NDArray[np.bool_]  # [N3]
    qualifier: int = 10  # the lowest paying pair (R-LIR-4): which hand tables the solution is over


@lru_cache(maxsize=4)  # ~10 MB each: a few bet sizes the cap reaches (strategy_bet); the rest share one
def _solve(rules: LetItRideRules, bet_cents: int | None) -> _Solution:
    """The optimal strategy's decisions and values. Only :func:`hist4` (by the qualifier) and the 3-of-4 index
    are structural; a pay-table or cap change re-solves from them in one compiled pass (exact integers)."""
    if strategy_bet(rules, bet_cents) != bet_cents:
        # the cap cannot reach this bet: the uncapped solution (in units of one wager) is the same
        return _solve(rules, None)
    unit = 1 if bet_cents is None else bet_cents
    cap = None if bet_cents is None else rules.cap_cents
    w = win_table(rules.main_paytable, unit, cap)
    sums4, ride2, value3 = _resolve(hist4(rules.qualifier_rank), w, three_of_four())
    ride1 = value3[1] > value3[0]
    return _Solution(unit, w, sums4, ride2, value3, ride1, rules.qualifier_rank)


@njit(cache=True, nogil=True)
def _resolve(h4, w, idx3):  # type: ignore[no-untyped-def]
    """The re-solve in integers: ``sums4 = h4 @ w.T``; decision 2 (ride only when strictly better: the
    cautious tie-break) for both states of wager 1; each 4-set's value summed into its four 3-card subsets."""
    n4 = h4.shape[0]
    sums4 = np.zeros((n4, 4), dtype=np.int64)
    ride2 = np.zeros((2, n4), dtype=np.bool_)
    value3 = np.zeros((2, N3), dtype=np.int64)
    for q in range(n4):
        for k in range(4):
            t = 0
            for h in range(h4.shape[1]):
                t += h4[q, h] * w[k, h]
            sums4[q, k] = t
        for s in range(2):
            ride = sums4[q, s + 2] > sums4[q, s + 1]
            ride2[s, q] = ride
            v = sums4[q, s + 2] if ride else sums4[q, s + 1]
            for j in range(4):
                value3[s, idx3[j, q]] += v
    return sums4, ride2, value3


@dataclass(frozen=True, eq=False)
class LetItRideStrategy:
    """The optimal strategy with the exact EV of both options at both decisions.

    EVs are in units of one base wager and cover the whole remaining hand (all wagers still up, the ``$``
    wager included). Cautious tie-break: on exactly equal EVs the wager is pulled. ``bet_cents`` is None for
    the strategy without the cap, shared by every bet the cap cannot reach (:func:`strategy_bet`).
    """

    rules: LetItRideRules
    bet_cents: int | None
    _sol: _Solution = field(repr=False)

    def first(self, cards3: Sequence[int]) -> dict[Action, Fraction]:
        """EVs of pulling / riding wager 1 on the player's three cards (R-LIR-2)."""
        idx = _index(cards3, 3)
        d = PER_HAND * self._sol.unit
        return {
            PULL: Fraction(int(self._sol.value3[0, idx]), d),
            RIDE: Fraction(int(self._sol.value3[1, idx]), d),
        }

    def second(self, cards4: Sequence[int], bet1_up: bool | None = None) -> dict[Action, Fraction]:
        """EVs of pulling / riding wager 2 on the three cards plus the first community card (R-LIR-3).

        ``bet1_up``: whether wager 1 rides; by default, what the optimal first decision on ``cards4[:3]`` did.
        """
        idx = _index(cards4, 4)
        s = int(self.rides_first(cards4[:3]) if bet1_up is None else bet1_up)
        d = 48 * self._sol.unit
        sums = self._sol.sums4[idx]
        return {PULL: Fraction(int(sums[s + 1]), d), RIDE: Fraction(int(sums[s + 2]), d)}

    def rides_first(self, cards3: Sequence[int]) -> bool:
        return bool(self._sol.ride1[_index(cards3, 3)])

    def best(self, cards: Sequence[int], bet1_up: bool | None = None) -> Action:
        """The optimal action for three cards (wager 1) or four cards (wager 2)."""
        if len(cards) == 3:
            return RIDE if self.rides_first(cards) else PULL
        idx = _index(cards, 4)
        s = int(self.rides_first(cards[:3]) if bet1_up is None else bet1_up)
        return RIDE if self._sol.ride2[s, idx] else PULL


def _index(cards: Sequence[int], n: int) -> int:
    cs = [int(c) for c in cards]
    if len(cs) != n or len(set(cs)) != n or not all(0 <= c < 52 for c in cs):
        raise ValueError(f"need {n} distinct cards, got {cards!r}")
    return colex_of(cs)


def optimal_strategy(rules: LetItRideRules, bet_cents: int | None = None) -> LetItRideStrategy:
    """The cached optimal strategy for ``rules`` (and, when given, the wager size that applies the cap): one
    object for every bet the cap cannot reach (:func:`strategy_bet`), a few capped bet sizes kept (LRU)."""
    return _strategy(rules, strategy_bet(rules, bet_cents))


@lru_cache(maxsize=4)
def _strategy(rules: LetItRideRules, bet_cents: int | None) -> LetItRideStrategy:
    return LetItRideStrategy(rules, bet_cents, _solve(rules, bet_cents))


# --- the analysis ------------------------------------------------------------------------------------


def rides_in(sol: _Solution) -> IntArray:
    """``[N4]``: of the four ways a 4-card set splits into the player's three cards and the first community
    card, how many have wager 1 ridden (the ordered deals through a 4-set weigh its splits equally)."""
    return np.asarray(_rides_in(sol.ride1, three_of_four()), dtype=np.int64)


@njit(cache=True, nogil=True)
def _rides_in(ride1, idx3):  # type: ignore[no-untyped-def]
    out = np.zeros(idx3.shape[1], dtype=np.int64)
    for j in range(4):
        for q in range(idx3.shape[1]):
            if ride1[idx3[j, q]]:
                out[q] += 1
    return out


@njit(cache=True, nogil=True)
def _counts(h4, rode, ride2):  # type: ignore[no-untyped-def]
    counts = np.zeros((4, h4.shape[1]), dtype=np.int64)
    for q in range(h4.shape[0]):
        r = rode[q]
        k1 = 2 if ride2[0, q] else 1  # wager 1 pulled (4 - r splits): wager 2 rides or not
        k2 = 3 if ride2[1, q] else 2  # wager 1 up (r splits)
        for h in range(h4.shape[1]):
            counts[k1, h] += (4 - r) * h4[q, h]
            counts[k2, h] += r * h4[q, h]
    return counts


def outcome_counts(sol: _Solution) -> IntArray:
    """``[4, NH]``: ordered deals ending with ``k`` wagers up and base hand ``h`` under the strategy."""
    return np.asarray(_counts(hist4(sol.qualifier), rides_in(sol), sol.ride2), dtype=np.int64)


@lru_cache(maxsize=1)
def _bonus_table() -> npt.NDArray[np.int8]:
    """The 3-Card Bonus class of every three-card set by colex index (the tables
    ``analysis.let_it_ride.bonus_counts`` counts)."""
    keys, is_flush = _ranks_suits(combos(52, 3))
    plain, flush = build_pattern_tables(3, three_card_category_of)
    return np.where(is_flush, flush[keys], plain[keys]).astype(np.int8)

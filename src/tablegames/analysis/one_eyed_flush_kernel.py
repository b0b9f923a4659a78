"""The exact One Eyed Flush solver (RULES.md §2) behind :mod:`tablegames.analysis.one_eyed_flush`: lookup tables
built from the rule functions, the Numba kernel (and its pure-Python twin), the solution and strategy object.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, permutations
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from tablegames.engine.actions import STAND, Action, discard
from tablegames.rules.one_eyed_flush import (
    CLASSES,
    Category,
    Hand,
    OneEyedFlushRules,
    compare,
    dealer_discard,
    evaluate,
    is_bust,
)

if TYPE_CHECKING:
    pass


IntArray = npt.NDArray[np.int64]
NC = CLASSES.n  # 13 natural ranks (rank - 2) and the wild class (rules.indexing.CardClasses)
WILD = CLASSES.wild_class
D = 48 * 47 * 46 * 45
RESULTS = ("win", "push", "loss", "bust")
NCAT = len(Category)
card_class = CLASSES.card_class
class_cards = CLASSES.class_cards


def class_name(k: int) -> str:
    return CLASSES.letters[k]


@dataclass(frozen=True, eq=False)
class _Tables:
    counts: IntArray  # [NC]
    hand_of: IntArray  # [NC, NC, NC] -> hand id (any order), -1 if impossible
    hands: tuple[Hand, ...]  # id -> Hand
    hand_cat: IntArray  # [H]
    value: IntArray  # [H, H]: main-wager result for player id vs dealer id (+odds, 0, -1)
    result: IntArray  # [H, H]: 0 win, 1 push, 2 loss
    bust_stand: npt.NDArray[np.bool_]  # [H]
    bust_draw: npt.NDArray[np.bool_]  # [H]
    ddisc: IntArray  # [NC, NC, NC, 2]: position the dealer discards (w = player holds a wild), -1 stands
    win_odds: IntArray  # [NCAT]


_rep = CLASSES.representative


def _hands() -> Iterator[tuple[tuple[int, int, int], list[int]]]:
    """Every multiset of three card classes (a <= b <= c) that real cards can make, with representative cards."""
    for classes in combinations_with_replacement(range(NC), 3):
        cards = _rep(classes)
        if cards is not None:
            yield classes, cards


def _ways(classes: tuple[int, ...], counts: Sequence[int] | IntArray) -> int:
    """How many sets of real cards fall in these classes (``counts[k]``: the cards of class k)."""
    ways = 1
    for k in set(classes):
        ways *= comb(int(counts[k]), classes.count(k))
    return ways


@lru_cache(maxsize=16)
def _tables(rules: OneEyedFlushRules) -> _Tables:
    cc = class_cards()
    counts = np.array([len(x) for x in cc], dtype=np.int64)
    hand_ids: dict[Hand, int] = {}
    hand_of = np.full((NC, NC, NC), -1, dtype=np.int64)
    ddisc = np.full((NC, NC, NC, 2), -1, dtype=np.int64)
    for classes, cards in _hands():
        hid = hand_ids.setdefault(evaluate(cards), len(hand_ids))
        dropped = []
        for w in (0, 1):
            i = dealer_discard(cards, bool(w), rules.dealer_wild_draw)
            dropped.append(None if i is None else classes[i])
        # every order of the same classes: same hand; the discarded class found at its position
        for perm in set(permutations(classes)):
            hand_of[perm] = hid
            for w in (0, 1):
                k = dropped[w]
                ddisc[(*perm, w)] = -1 if k is None else perm.index(k)
    hands = tuple(sorted(hand_ids, key=hand_ids.__getitem__))
    n = len(hands)
    value = np.zeros((n, n), dtype=np.int64)
    result = np.zeros((n, n), dtype=np.int64)
    for i, hp in enumerate(hands):
        for j, hd in enumerate(hands):
            r = compare(hp, hd, rules.ties)
            value[i, j] = rules.win_odds(hp.category) if r > 0 else (0 if r == 0 else -1)
            result[i, j] = 0 if r > 0 else (1 if r == 0 else 2)
    return _Tables(
        counts=counts,
        hand_of=hand_of,
        hands=hands,
        hand_cat=np.array([int(h.category) for h in hands], dtype=np.int64),
        value=value,
        result=result,
        bust_stand=np.array([is_bust(h, False, rules.bust) for h in hands], dtype=np.bool_),
        bust_draw=np.array([is_bust(h, True, rules.bust) for h in hands], dtype=np.bool_),
        ddisc=ddisc,
        win_odds=np.array([rules.win_odds(c) for c in Category], dtype=np.int64),
    )


# --- the kernel ----------------------------------------------------------------------------------------


def _kernel_py(
    counts: IntArray,
    hand_of: IntArray,
    hand_cat: IntArray,
    result: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    ddisc: IntArray,
    idx4: IntArray,
    out: IntArray,
) -> None:
    """For every sorted player class triple (a, b, c) and Flip Card class f, the outcome tallies of each
    option: ``out[a, b, c, f, option, category, result]`` with option 0 = stand, 1..3 = discard the card at
    position 0..2 of the sorted triple, result 0 win / 1 push / 2 loss / 3 bust; each option's tallies sum
    to D (impossible states stay 0).

    After a draw, the cards out of the deck are the three first cards, the Flip Card and the new card, whichever
    card was thrown: the dealer's distribution is memoized by that sorted 4-class multiset (``idx4``) and f.
    """
    nh = result.shape[0]
    dist = np.zeros((2, nh), dtype=np.int64)
    n4 = idx4.max() + 1
    memo = np.zeros((n4, NC, 2, nh), dtype=np.int64)
    known = np.zeros((n4, NC), dtype=np.bool_)
    rem = np.zeros(NC, dtype=np.int64)
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                if hand_of[a, b, c] < 0:
                    continue
                for f in range(NC):
                    for k in range(NC):
                        rem[k] = counts[k]
                    rem[a] -= 1
                    rem[b] -= 1
                    rem[c] -= 1
                    rem[f] -= 1
                    if rem[a] < 0 or rem[b] < 0 or rem[c] < 0 or rem[f] < 0:
                        continue
                    # stand
                    hp = hand_of[a, b, c]
                    cat = hand_cat[hp]
                    if bust_stand[hp]:
                        out[a, b, c, f, 0, cat, 3] += D
                    else:
                        w = 1 if (a == WILD or b == WILD or c == WILD) else 0
                        _dealer_dist(rem, f, 45, hand_of, ddisc, dist)
                        for hd in range(nh):
                            out[a, b, c, f, 0, cat, result[hp, hd]] += dist[w, hd]
                    # draw: the player's new card y, then the dealer's hidden cards and draw
                    for y in range(NC):
                        ny = rem[y]
                        if ny == 0:
                            continue
                        if y <= a:
                            key = idx4[y, a, b, c]
                        elif y <= b:
                            key = idx4[a, y, b, c]
                        elif y <= c:
                            key = idx4[a, b, y, c]
                        else:
                            key = idx4[a, b, c, y]
                        if not known[key, f]:
                            rem[y] -= 1
                            _dealer_dist(rem, f, 1, hand_of, ddisc, memo[key, f])
                            rem[y] += 1
                            known[key, f] = True
                        dd = memo[key, f]
                        for pos in range(3):
                            if pos == 0:
                                k1, k2 = b, c
                            elif pos == 1:
                                k1, k2 = a, c
                            else:
                                k1, k2 = a, b
                            if pos == 1 and b == a:
                                continue
                            if pos == 2 and c == b:
                                continue
                            hp = hand_of[k1, k2, y]
                            cat = hand_cat[hp]
                            if bust_draw[hp]:
                                out[a, b, c, f, 1 + pos, cat, 3] += ny * 47 * 46 * 45
                                continue
                            w = 1 if (k1 == WILD or k2 == WILD or y == WILD) else 0
                            for hd in range(nh):
                                out[a, b, c, f, 1 + pos, cat, result[hp, hd]] += ny * dd[w, hd]
                    # equal classes: copy the first position's tallies
                    if b == a:
                        out[a, b, c, f, 2] = out[a, b, c, f, 1]
                    if c == b:
                        out[a, b, c, f, 3] = out[a, b, c, f, 2]


def _dealer_dist_py(
    rem: IntArray, f: int, tail: int, hand_of: IntArray, ddisc: IntArray, dist: IntArray
) -> None:
    """Weights of the dealer's final hand ids, for w = 0 / 1, over the two hidden cards (ordered) from
    ``rem`` and the dealer's draw from what is left; a dealer who stands takes the factor (left * tail)."""
    dist[:, :] = 0
    n = 0
    for k in range(NC):
        n += rem[k]
    left = n - 2
    for g in range(NC):
        ng = rem[g]
        if ng == 0:
            continue
        rem[g] -= 1
        for h in range(NC):
            nh2 = rem[h]
            if nh2 == 0:
                continue
            wgh = ng * nh2
            rem[h] -= 1
            for w in range(2):
                pos = ddisc[f, g, h, w]
                if pos < 0:
                    dist[w, hand_of[f, g, h]] += wgh * left * tail
                    continue
                if pos == 0:
                    k1, k2 = g, h
                elif pos == 1:
                    k1, k2 = f, h
                else:
                    k1, k2 = f, g
                for z in range(NC):
                    nz = rem[z]
                    if nz > 0:
                        dist[w, hand_of[k1, k2, z]] += wgh * nz * tail
            rem[h] += 1
        rem[g] += 1


_KERNEL: Any = None


def _compiled() -> Any:
    """The Numba-compiled kernel (cached on disk), or the plain Python one with TABLEGAMES_NO_NUMBA=1."""
    global _KERNEL, _dealer_dist
    if _KERNEL is None:
        import os

        if os.environ.get("TABLEGAMES_NO_NUMBA"):
            _dealer_dist = _dealer_dist_py
            _KERNEL = _kernel_py
        else:
            from numba import njit

            _dealer_dist = njit(cache=True)(_dealer_dist_py)
            _KERNEL = njit(cache=True)(_kernel_py)
    return _KERNEL


_dealer_dist: Any = _dealer_dist_py


@dataclass(frozen=True, eq=False)
class _Solution:
    tables: _Tables
    tallies: IntArray  # [NC, NC, NC, NC, 4, NCAT, 4]
    ev: IntArray  # [NC, NC, NC, NC, 4] numerators over D (options impossible or absent: very negative)
    best: IntArray  # [NC, NC, NC, NC]: chosen option
    weight: IntArray  # [NC, NC, NC, NC]: deals (player card sets x flip cards) in the state


NO_OPTION = -(10**15)


@lru_cache(maxsize=1)
def _multiset_index() -> IntArray:
    """``[NC]*4``: a compact id for each sorted 4-class multiset (other entries -1)."""
    idx = np.full((NC, NC, NC, NC), -1, dtype=np.int64)
    for i, key in enumerate(combinations_with_replacement(range(NC), 4)):
        idx[key] = i
    return idx


@lru_cache(maxsize=16)
def _solve(rules: OneEyedFlushRules) -> _Solution:
    t = _tables(rules)
    kernel = _compiled()
    out = np.zeros((NC, NC, NC, NC, 4, NCAT, 4), dtype=np.int64)
    kernel(
        t.counts, t.hand_of, t.hand_cat, t.result, t.bust_stand, t.bust_draw, t.ddisc, _multiset_index(), out
    )
    pay = np.zeros((NCAT, 4), dtype=np.int64)
    pay[:, 0] = t.win_odds
    pay[:, 2] = -1
    pay[:, 3] = -1
    ev = np.einsum("abcdoks,ks->abcdo", out, pay)
    present = out.sum(axis=(5, 6)) > 0
    ev = np.where(present, ev, NO_OPTION)
    # cautious tie-break: stand unless a draw is strictly better; among discards, the first position
    best = np.argmax(ev, axis=4)
    weight = np.zeros((NC, NC, NC, NC), dtype=np.int64)
    counts = t.counts
    for (a, b, c), _ in _hands():
        ways = _ways((a, b, c), counts)
        for f in range(NC):
            left = int(counts[f]) - (a, b, c).count(f)
            if left > 0 and present[a, b, c, f, 0]:
                weight[a, b, c, f] = ways * left
    return _Solution(t, out, ev, best, weight)


@dataclass(frozen=True, eq=False)
class OneEyedFlushStrategy:
    """The optimal draw strategy with the exact EV (units of the main wager) of every option."""

    rules: OneEyedFlushRules
    _sol: _Solution = field(repr=False)

    def _state(self, cards3: Sequence[int], flip_card: int) -> tuple[tuple[int, ...], list[int], int]:
        cards = [int(c) for c in cards3]
        if len(cards) != 3 or len({*cards, int(flip_card)}) != 4:
            raise ValueError("need three distinct player cards and a different Flip Card")
        classes = [card_class(c) for c in cards]
        key = tuple(sorted(classes))
        positions = [key.index(k) for k in classes]
        return key, positions, card_class(int(flip_card))

    def options(self, cards3: Sequence[int], flip_card: int) -> dict[Action, Fraction]:
        """EV of standing and of discarding each card (R-OEF-5), for the main wager."""
        key, positions, f = self._state(cards3, flip_card)
        ev = self._sol.ev[(*key, f)]
        out = {STAND: Fraction(int(ev[0]), D)}
        for i, pos in enumerate(positions):
            out[discard(i)] = Fraction(int(ev[1 + pos]), D)
        return out

    def best(self, cards3: Sequence[int], flip_card: int) -> Action:
        key, positions, f = self._state(cards3, flip_card)
        opt = int(self._sol.best[(*key, f)])
        return STAND if opt == 0 else discard(positions.index(opt - 1))


@lru_cache(maxsize=16)
def optimal_strategy(rules: OneEyedFlushRules) -> OneEyedFlushStrategy:
    return OneEyedFlushStrategy(rules, _solve(rules))

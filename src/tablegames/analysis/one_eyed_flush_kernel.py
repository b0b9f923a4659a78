"""The exact One Eyed Flush solver (RULES.md §2) behind :mod:`tablegames.analysis.one_eyed_flush`: on the
lookup tables of :mod:`tablegames.analysis.one_eyed_flush_tables`, the one state loop (Numba; its Python source
runs as such under ``NUMBA_DISABLE_JIT=1``) that both the exact analysis and the exposure scenarios of
:mod:`tablegames.analysis.protect_one_eyed_flush` run, the solution and the strategy object.

Everything is read from the rules object (issue 15): the wild cards (the card classes), the ties, the bust rule and
limit, the dealer's draw thresholds and wild draw build the tables; the main pay table only weighs the outcome
tallies. So the tables and the kernel's tallies are cached by :func:`structure` (the rules with every payout at its
default), and a pay-table change re-solves with one product of the cached tallies and the payouts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from tablegames.analysis.one_eyed_flush_tables import NC as NC
from tablegames.analysis.one_eyed_flush_tables import NCAT as NCAT
from tablegames.analysis.one_eyed_flush_tables import RESULTS as RESULTS
from tablegames.analysis.one_eyed_flush_tables import WILD as WILD
from tablegames.analysis.one_eyed_flush_tables import D as D
from tablegames.analysis.one_eyed_flush_tables import IntArray as IntArray
from tablegames.analysis.one_eyed_flush_tables import _hands as _hands
from tablegames.analysis.one_eyed_flush_tables import _structural_tables as _structural_tables
from tablegames.analysis.one_eyed_flush_tables import _Tables as _Tables
from tablegames.analysis.one_eyed_flush_tables import _tables as _tables
from tablegames.analysis.one_eyed_flush_tables import _ways as _ways
from tablegames.analysis.one_eyed_flush_tables import class_name as class_name
from tablegames.analysis.one_eyed_flush_tables import class_value as class_value
from tablegames.analysis.one_eyed_flush_tables import pay_matrix as pay_matrix
from tablegames.analysis.one_eyed_flush_tables import structure as structure
from tablegames.engine.actions import STAND, Action, discard
from tablegames.rules.one_eyed_flush import OneEyedFlushRules

# --- the kernels (compiled by Numba on first use; each calls the others compiled) --------------------------

F = TypeVar("F", bound=Callable[..., Any])


def _jit(fn: F) -> F:
    """``fn`` compiled by Numba on its first call and cached on disk (its Python source runs under
    ``NUMBA_DISABLE_JIT=1``)."""
    return cast(F, njit(cache=True)(fn))


@_jit
def _dealer(
    rem: IntArray, f: int, g: int, h: int, zf: int, hand_of: IntArray, ddisc: IntArray, dist: IntArray
) -> int:
    """``dist[w, hand]``: the dealer's final hands (w = the player holds a wild) over the dealer's unknown
    cards: the face-down ``g``/``h`` (-1: unknown, from ``rem``) and the draw (``zf`` >= 0: known, else from
    what is left; a dealer who stands counts once per possible draw card). Returns the total weight."""
    dist[:, :] = 0
    total = 0
    for gg in range(NC):
        if g >= 0:
            if gg != g:
                continue
            wg = 1
        else:
            wg = rem[gg]
            if wg == 0:
                continue
            rem[gg] -= 1
        for hh in range(NC):
            if h >= 0:
                if hh != h:
                    continue
                wh = 1
            else:
                wh = rem[hh]
                if wh == 0:
                    continue
                rem[hh] -= 1
            wgh = wg * wh
            left = 0
            for k in range(NC):
                left += rem[k]
            if zf >= 0:
                left = 1
            total += wgh * left
            for w in range(2):
                pos = ddisc[f, gg, hh, w]
                if pos < 0:
                    dist[w, hand_of[f, gg, hh]] += wgh * left
                    continue
                if pos == 0:
                    k1, k2 = gg, hh
                elif pos == 1:
                    k1, k2 = f, hh
                else:
                    k1, k2 = f, gg
                if zf >= 0:
                    dist[w, hand_of[k1, k2, zf]] += wgh
                else:
                    for z in range(NC):
                        nz = rem[z]
                        if nz > 0:
                            dist[w, hand_of[k1, k2, z]] += wgh * nz
            if h < 0:
                rem[hh] += 1
        if g < 0:
            rem[gg] += 1
    return total


@_jit
def _tallies(
    mode: int,
    a: int,
    b: int,
    c: int,
    f: int,
    g: int,
    h: int,
    y: int,
    rem: IntArray,
    hand_of: IntArray,
    hand_cat: IntArray,
    result: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    live: IntArray,
    ddisc: IntArray,
    dist: IntArray,
    tal: IntArray,
    memo: IntArray,
    known: npt.NDArray[np.bool_],
    idx4: IntArray,
) -> int:
    """One state: ``tal[option, category, result]`` (option 0 stand, 1 + position of the sorted classes
    a <= b <= c discarded; result 0 win / 1 push / 2 loss / 3 bust) summed over the unseen cards, and the number
    of those deals. ``mode``: 0 dealer-hole-1 (``g`` seen), 1 dealer-hole-both (``g``, ``h``), 2 next-card
    (``y``), 3 nothing seen (the fair game; ``rem`` may be reduced further: share). ``rem``: the cards not seen.
    With ``memo`` non-empty (mode 3, ``rem`` = the deck less the three and the Flip Card), the dealer's
    distribution after a draw is memoized by the sorted 4-class multiset out of the deck (``idx4``) and f."""
    nh = result.shape[0]
    zf = y if mode == 2 else -1
    tal[:, :, :] = 0
    hp = hand_of[a, b, c]
    cat = hand_cat[hp]
    wild = live[hp, 0]  # R-OEF-7, the rules' live_wild (a busted stand never reaches the dealer)
    # stand: the dealer's draw takes the next card (known in next-card)
    n = _dealer(rem, f, g, h, zf, hand_of, ddisc, dist)
    if mode == 3:
        left = 0
        for k in range(NC):
            left += rem[k]
        scale = left - 3  # the draws' extra dimension: the dealer's draw after the player's
    else:
        scale = 45
    n_state = n * scale
    if bust_stand[hp]:
        tal[0, cat, 3] += n_state
    else:
        for hd in range(nh):
            tal[0, cat, result[hp, hd]] += dist[wild, hd] * scale
    use_memo = memo.shape[0] > 0
    for yy in range(NC):
        if mode == 2:
            if yy != y:
                continue
            ny = 1
        else:
            ny = rem[yy]
            if ny == 0:
                continue
        if use_memo:
            if yy <= a:
                key = idx4[yy, a, b, c]
            elif yy <= b:
                key = idx4[a, yy, b, c]
            elif yy <= c:
                key = idx4[a, b, yy, c]
            else:
                key = idx4[a, b, c, yy]
            if not known[key, f]:
                rem[yy] -= 1
                _dealer(rem, f, g, h, -1, hand_of, ddisc, memo[key, f])
                rem[yy] += 1
                known[key, f] = True
            dd = memo[key, f]
            m = 0
            for k in range(nh):
                m += dd[0, k]
        else:
            if mode != 2:
                rem[yy] -= 1
            m = _dealer(rem, f, g, h, -1, hand_of, ddisc, dist)
            if mode != 2:
                rem[yy] += 1
            dd = dist
        for pos in range(3):
            if pos == 0:
                k1, k2 = b, c
            elif pos == 1:
                if b == a:
                    continue
                k1, k2 = a, c
            else:
                if c == b:
                    continue
                k1, k2 = a, b
            hq = hand_of[k1, k2, yy]
            cq = hand_cat[hq]
            if bust_draw[hq]:
                tal[1 + pos, cq, 3] += ny * m
                continue
            w = live[hq, 1]  # R-OEF-7, the rules' live_wild
            for hd in range(nh):
                tal[1 + pos, cq, result[hq, hd]] += ny * dd[w, hd]
    # equal classes: the same option as the first position of the class
    if b == a:
        tal[2, :, :] = tal[1, :, :]
    if c == b:
        tal[3, :, :] = tal[2, :, :]
    return int(n_state)


@_jit
def _choose(ev: IntArray, a: int, b: int, c: int, prefer: IntArray) -> int:
    """The option played at a state of sorted classes ``a <= b <= c`` with exact values ``ev[option]`` (integer
    numerators over one denominator: ties are exact): the highest value; on a tie, standing (cautious,
    RULES.md); among tied discards, R-0.5: the class of the highest ``prefer`` (the rules'
    ``discard_preference``: higher point value, then higher rank), the first position of equal classes."""
    best = 0
    best_class = -1
    for o in range(1, 4):
        k = a if o == 1 else (b if o == 2 else c)
        if ev[o] > ev[best] or (ev[o] == ev[best] and best > 0 and prefer[k] > prefer[best_class]):
            best = o
            best_class = k
    return best


@_jit
def _value(tal: IntArray, pay: IntArray, ev: IntArray, a: int, b: int, c: int, prefer: IntArray) -> int:
    """``ev[option]`` = the tallies weighed by ``pay[category, result]``; returns the option played
    (:func:`_choose`: cautious, then R-0.5)."""
    for o in range(4):
        s = 0
        for k in range(NCAT):
            for r in range(4):
                s += tal[o, k, r] * pay[k, r]
        ev[o] = s
    return int(_choose(ev, a, b, c, prefer))


@_jit
def _best_all(ev: IntArray, prefer: IntArray, best: IntArray) -> None:
    """``best[a, b, c, f]`` = :func:`_choose` at every state (the exact analysis' strategy)."""
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                for f in range(NC):
                    best[a, b, c, f] = _choose(ev[a, b, c, f], a, b, c, prefer)


@_jit
def _states(
    mode: int,
    counts: IntArray,
    ways3: IntArray,
    pay: IntArray,
    fair_best: IntArray,
    hand_of: IntArray,
    hand_cat: IntArray,
    result: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    live: IntArray,
    ddisc: IntArray,
    prefer: IntArray,
    idx4: IntArray,
    store: IntArray,
    changes: IntArray,
) -> int:
    """The one state loop: every state of ``mode`` (see :func:`_tallies`): the three cards, the Flip Card and
    the card(s) seen. With ``store`` non-empty (the exact analysis, mode 3) each state's tallies are kept
    (``store[a, b, c, f]``, the draws memoized); else the best option by ``pay`` is played and the sum of its
    results weighted by the state's deals returned, ``changes[a, b, c, fair option, informed option]``
    counting deals."""
    nh = result.shape[0]
    dist = np.zeros((2, nh), dtype=np.int64)
    tal = np.zeros((4, NCAT, 4), dtype=np.int64)
    ev = np.zeros(4, dtype=np.int64)
    rem = np.zeros(NC, dtype=np.int64)
    keep = store.shape[0] > 0
    n4 = idx4.max() + 1 if keep else 0
    memo = np.zeros((n4, NC, 2, nh), dtype=np.int64)
    known = np.zeros((n4, NC), dtype=np.bool_)
    total = 0
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                if ways3[a, b, c] == 0:
                    continue
                for f in range(NC):
                    for s1 in range(NC):
                        if mode == 3 and s1 > 0:
                            continue
                        for s2 in range(NC):
                            if mode != 1 and s2 > 0:
                                continue
                            for k in range(NC):
                                rem[k] = counts[k]
                            rem[a] -= 1
                            rem[b] -= 1
                            rem[c] -= 1
                            wf = rem[f]
                            if wf <= 0:
                                continue
                            rem[f] -= 1
                            weight = ways3[a, b, c] * wf
                            g = -1
                            h = -1
                            y = -1
                            if mode != 3:
                                w1 = rem[s1]
                                if w1 <= 0:
                                    continue
                                rem[s1] -= 1
                                weight *= w1
                                if mode == 0:
                                    g = s1
                                elif mode == 2:
                                    y = s1
                                else:
                                    w2 = rem[s2]
                                    if w2 <= 0:
                                        continue
                                    rem[s2] -= 1
                                    weight *= w2
                                    g = s1
                                    h = s2
                            n_state = _tallies(
                                mode,
                                a,
                                b,
                                c,
                                f,
                                g,
                                h,
                                y,
                                rem,
                                hand_of,
                                hand_cat,
                                result,
                                bust_stand,
                                bust_draw,
                                live,
                                ddisc,
                                dist,
                                tal,
                                memo,
                                known,
                                idx4,
                            )
                            if keep:
                                for o in range(4):
                                    for k in range(NCAT):
                                        for r in range(4):
                                            store[a, b, c, f, o, k, r] = tal[o, k, r]
                                continue
                            best = _value(tal, pay, ev, a, b, c, prefer)
                            total += weight * ev[best]
                            changes[a, b, c, fair_best[a, b, c, f], best] += weight * n_state
    return total


@_jit
def _options(
    mode: int,
    a: int,
    b: int,
    c: int,
    f: int,
    g: int,
    h: int,
    y: int,
    rem: IntArray,
    hand_of: IntArray,
    hand_cat: IntArray,
    result: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    live: IntArray,
    ddisc: IntArray,
    prefer: IntArray,
    pay: IntArray,
    ev: IntArray,
) -> int:
    """One state's ``ev[option]`` under ``pay`` (summed over the unseen cards) and its number of deals: the
    informed bot's decision and ``share``'s are :func:`_choose` of ``ev``."""
    nh = result.shape[0]
    dist = np.zeros((2, nh), dtype=np.int64)
    tal = np.zeros((4, NCAT, 4), dtype=np.int64)
    memo = np.zeros((0, NC, 2, nh), dtype=np.int64)
    known = np.zeros((0, NC), dtype=np.bool_)
    idx4 = np.zeros((1, 1, 1, 1), dtype=np.int64)  # no memo: not read
    n = _tallies(
        mode,
        a,
        b,
        c,
        f,
        g,
        h,
        y,
        rem,
        hand_of,
        hand_cat,
        result,
        bust_stand,
        bust_draw,
        live,
        ddisc,
        dist,
        tal,
        memo,
        known,
        idx4,
    )
    _value(tal, pay, ev, a, b, c, prefer)
    return int(n)


_KERNELS: dict[str, Any] = {"states": _states, "options": _options, "choose": _choose, "best_all": _best_all}


def kernels() -> dict[str, Any]:
    """The kernels: ``states`` (the one state loop), ``options`` (one state), ``choose`` (the option played,
    R-0.5) and ``best_all`` (it at every state); compiled by Numba on their first call (cached on disk), plain
    Python under Numba's own ``NUMBA_DISABLE_JIT=1``."""
    return _KERNELS


def table_args(t: _Tables) -> tuple[Any, ...]:
    """The tables as the kernels take them, after the state: hand_of, hand_cat, result, bust_stand, bust_draw,
    live (R-OEF-7), ddisc, prefer (R-0.5)."""
    return (t.hand_of, t.hand_cat, t.result, t.bust_stand, t.bust_draw, t.live, t.ddisc, t.prefer)


# --- the solution ------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Tallies:
    """What depends only on the structure: every state's option tallies, their weights and which exist."""

    tables: _Tables
    tallies: npt.NDArray[np.int32]  # [NC, NC, NC, NC, 4, NCAT, 4]
    present: npt.NDArray[np.bool_]  # [NC, NC, NC, NC, 4]: the option exists in the state
    weight: IntArray  # [NC, NC, NC, NC]: deals (player card sets x flip cards) in the state


@dataclass(frozen=True, eq=False)
class _Solution:
    tables: _Tables
    tallies: npt.NDArray[np.int32]  # [NC, NC, NC, NC, 4, NCAT, 4] (shared with the structural cache)
    ev: IntArray  # [NC, NC, NC, NC, 4] numerators over D (options impossible or absent: very negative)
    best: IntArray  # [NC, NC, NC, NC]: chosen option
    weight: IntArray  # [NC, NC, NC, NC]: deals (player card sets x flip cards) in the state
    pay: IntArray  # [NCAT, 4]: the main wager's net by category and result


NO_OPTION = -(10**15)


@lru_cache(maxsize=1)
def _multiset_index() -> IntArray:
    """``[NC]*4``: a compact id for each sorted 4-class multiset (other entries -1)."""
    idx = np.full((NC, NC, NC, NC), -1, dtype=np.int64)
    for i, key in enumerate(combinations_with_replacement(range(NC), 4)):
        idx[key] = i
    return idx


@lru_cache(maxsize=8)
def _structural_tallies(rules: OneEyedFlushRules) -> _Tallies:
    t = _structural_tables(rules)
    out = np.zeros((NC, NC, NC, NC, 4, NCAT, 4), dtype=np.int64)
    none = np.zeros((0, 0, 0, 4, 4), dtype=np.int64)  # no changes counted: the states' tallies are kept
    unused = (np.zeros((NCAT, 4), dtype=np.int64), np.zeros((0, 0, 0, 0), dtype=np.int64))  # pay, fair_best
    kernels()["states"](3, t.counts, t.ways3, *unused, *table_args(t), _multiset_index(), out, none)
    present = out.sum(axis=(5, 6)) > 0
    tallies = out.astype(
        np.int32
    )  # every option's tallies sum to D < 2**31: half the memory of a cache entry
    left = t.counts[None, None, None, :] - (
        (np.arange(NC)[None, None, None, :] == np.arange(NC)[:, None, None, None]).astype(np.int64)
        + (np.arange(NC)[None, None, None, :] == np.arange(NC)[None, :, None, None])
        + (np.arange(NC)[None, None, None, :] == np.arange(NC)[None, None, :, None])
    )
    weight = np.where(present[..., 0], t.ways3[..., None] * left, 0)
    return _Tallies(t, tallies, present, weight)


@lru_cache(maxsize=8)
def _solve(rules: OneEyedFlushRules) -> _Solution:
    s = _structural_tallies(structure(rules))
    pay = pay_matrix(rules)
    ev = np.einsum("abcdoks,ks->abcdo", s.tallies, pay, dtype=np.int64)
    ev = np.where(s.present, ev, NO_OPTION)
    # exact ties: stand unless a draw is strictly better (cautious); among discards R-0.5 (the tables' prefer)
    best = np.zeros(ev.shape[:4], dtype=np.int64)
    kernels()["best_all"](ev, s.tables.prefer, best)
    return _Solution(s.tables, s.tallies, ev, best, s.weight, pay)


@dataclass(frozen=True, eq=False)
class OneEyedFlushStrategy:
    """The optimal draw strategy with the exact EV (units of the main wager) of every option."""

    rules: OneEyedFlushRules
    _sol: _Solution = field(repr=False)

    def _state(self, cards3: Sequence[int], flip_card: int) -> tuple[tuple[int, ...], list[int], int]:
        cards = [int(c) for c in cards3]
        if len(cards) != 3 or len({*cards, int(flip_card)}) != 4:
            raise ValueError("need three distinct player cards and a different Flip Card")
        card_class = self._sol.tables.classes.card_class
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


@lru_cache(maxsize=8)
def optimal_strategy(rules: OneEyedFlushRules) -> OneEyedFlushStrategy:
    return OneEyedFlushStrategy(rules, _solve(rules))

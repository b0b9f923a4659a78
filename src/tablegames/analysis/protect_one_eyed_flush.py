"""Game protection for One Eyed Flush (RULES.md §2): the dealer's face-down cards or the next card seen.

The dealer's first and third cards are dealt face down beside the Flip Card (R-OEF-4), and a draw takes the
next card of the deck (R-OEF-5), which goes to the dealer's draw (R-OEF-7) when the player stands. The
scenarios: ``dealer-hole-1`` (one of the dealer's face-down cards seen), ``dealer-hole-both`` (both),
``next-card`` (the card a draw would bring). Every deal is enumerated by card classes (13 natural ranks and
the wild class, exact multiplicities) as the exact analyzer (``analysis.one_eyed_flush``) does, with its
tables built from the rule functions (``evaluate``, ``compare``, ``is_bust``, ``dealer_discard``): for each
state of the informed player (the three cards, the Flip Card and the seen card(s)) a Numba kernel sums every
option's result over the unseen cards, and the best option is played (cautious: stand on a tie, then the
first card). The EV is an exact fraction of the C(52,3) x 49 x 48 x 47 x 46 x 45 ordered deals.

``share=K`` (the other K-1 players' three cards known) is simulated: seeded deals, each solved exactly over the
unseen cards for both the informed and the fair strategy; the dealer's draw against a wild (R-OEF-7) looks at
this player's hand only (the others' draws are not modelled).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import one_eyed_flush as oefa
from tablegames.analysis.protect import Exposure, GameProtection, Scenario, changes_from_counts, mean_ci
from tablegames.engine.actions import STAND, Action, discard
from tablegames.rules.one_eyed_flush import OneEyedFlushRules

IntArray = npt.NDArray[np.int64]
NC = oefa.NC
WILD = oefa.WILD

SCENARIOS = (
    Scenario(
        "dealer-hole-1", "one of the dealer's two face-down cards seen before the player's decision", True
    ),
    Scenario(
        "dealer-hole-both", "both of the dealer's face-down cards seen before the player's decision", True
    ),
    Scenario(
        "next-card", "the next card of the deck (what a draw would bring) seen before the decision", True
    ),
)
MODES = {"dealer-hole-1": 0, "dealer-hole-both": 1, "next-card": 2, "none": 3}  # none: nothing exposed
TOTAL = comb(52, 3) * 49 * 48 * 47 * 46 * 45


# --- the kernels (plain Python, compiled by Numba on first use) ----------------------------------------


def _dealer_py(
    rem: IntArray,
    f: int,
    g: int,
    h: int,
    zf: int,
    hand_of: IntArray,
    ddisc: IntArray,
    dist: IntArray,
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


def _options_py(
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
    value: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    ddisc: IntArray,
    dist: IntArray,
    ev: IntArray,
) -> int:
    """``ev[option]`` (0 stand, 1 + position of the sorted classes a <= b <= c discarded) summed over the
    unseen cards, and the number of those deals (the state's weight per state), for ``mode``: 0 dealer-hole-1
    (``g`` seen), 1 dealer-hole-both (``g``, ``h``), 2 next-card (``y``), 3 nothing seen but ``rem`` reduced
    (share). ``rem``: the cards not seen (the three, the Flip Card and the seen card(s) taken out)."""
    nh = value.shape[0]
    zf = y if mode == 2 else -1
    hp = hand_of[a, b, c]
    wild = 1 if (a == WILD or b == WILD or c == WILD) else 0
    # stand
    n = _dealer(rem, f, g, h, zf, hand_of, ddisc, dist)
    if mode == 3:
        left = 0
        for k in range(NC):
            left += rem[k]
        scale = left - 3  # the draws' extra dimension: the dealer's draw after the player's
    else:
        scale = 45
    n_state = n * scale
    acc = 0
    if bust_stand[hp]:
        acc = -n_state
    else:
        for hd in range(nh):
            acc += dist[wild, hd] * value[hp, hd]
        acc *= scale
    ev[0] = acc
    for o in range(1, 4):
        ev[o] = 0
    for yy in range(NC):
        if mode == 2:
            if yy != y:
                continue
            ny = 1
        else:
            ny = rem[yy]
            if ny == 0:
                continue
            rem[yy] -= 1
        m = _dealer(rem, f, g, h, -1, hand_of, ddisc, dist)
        for pos in range(3):
            if pos == 0:
                k1, k2 = b, c
            elif pos == 1:
                k1, k2 = a, c
            else:
                k1, k2 = a, b
            hq = hand_of[k1, k2, yy]
            if bust_draw[hq]:
                ev[1 + pos] -= ny * m
                continue
            w = 1 if (k1 == WILD or k2 == WILD or yy == WILD) else 0
            s = 0
            for hd in range(nh):
                s += dist[w, hd] * value[hq, hd]
            ev[1 + pos] += ny * s
        if mode != 2:
            rem[yy] += 1
    return int(n_state)


def _solve_py(
    mode: int,
    counts: IntArray,
    ways3: IntArray,
    fair_best: IntArray,
    hand_of: IntArray,
    value: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    ddisc: IntArray,
    changes: IntArray,
) -> int:
    """Every state of ``mode`` (0..3, 3: nothing seen): the sum of the best option's results weighted by the state's deals;
    ``changes[a, b, c, fair option, informed option]`` counts deals."""
    nh = value.shape[0]
    dist = np.zeros((2, nh), dtype=np.int64)
    ev = np.zeros(4, dtype=np.int64)
    rem = np.zeros(NC, dtype=np.int64)
    total = 0
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                if ways3[a, b, c] == 0:
                    continue
                for f in range(NC):
                    for s1 in range(NC):
                        for s2 in range(NC):
                            if mode != 1 and s2 > 0:
                                continue
                            for k in range(NC):
                                rem[k] = counts[k]
                            rem[a] -= 1
                            rem[b] -= 1
                            rem[c] -= 1
                            wf = rem[f]
                            rem[f] -= 1
                            if wf <= 0:
                                continue
                            g = -1
                            h = -1
                            y = -1
                            if mode == 3:  # nothing seen: the fair game through this kernel
                                if s1 > 0:
                                    continue
                                weight = ways3[a, b, c] * wf
                            else:
                                w1 = rem[s1]
                                if w1 <= 0:
                                    continue
                                rem[s1] -= 1
                                weight = ways3[a, b, c] * wf * w1
                            if mode == 0:
                                g = s1
                            elif mode == 2:
                                y = s1
                            elif mode == 1:
                                w2 = rem[s2]
                                if w2 <= 0:
                                    continue
                                rem[s2] -= 1
                                weight *= w2
                                g = s1
                                h = s2
                            n_state = _options(
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
                                value,
                                bust_stand,
                                bust_draw,
                                ddisc,
                                dist,
                                ev,
                            )
                            best = 0
                            for o in range(1, 4):
                                if ev[o] > ev[best]:
                                    best = o
                            total += weight * ev[best]
                            changes[a, b, c, fair_best[a, b, c, f], best] += weight * n_state
    return total


def _share_py(
    states: IntArray,
    rems: IntArray,
    fair_best: IntArray,
    hand_of: IntArray,
    value: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    ddisc: IntArray,
    out: npt.NDArray[np.float64],
    chosen: IntArray,
) -> None:
    """Per sampled state (a, b, c, f) and its unseen cards ``rems``: the informed minus the fair option's EV
    (``out``) and the informed option (``chosen``)."""
    nh = value.shape[0]
    dist = np.zeros((2, nh), dtype=np.int64)
    ev = np.zeros(4, dtype=np.int64)
    for i in range(states.shape[0]):
        a, b, c, f = states[i, 0], states[i, 1], states[i, 2], states[i, 3]
        rem = rems[i].copy()
        n_state = _options(
            3, a, b, c, f, -1, -1, -1, rem, hand_of, value, bust_stand, bust_draw, ddisc, dist, ev
        )
        best = 0
        for o in range(1, 4):
            if ev[o] > ev[best]:
                best = o
        chosen[i] = best
        out[i] = (ev[best] - ev[fair_best[a, b, c, f]]) / n_state


_dealer: Any = _dealer_py
_options: Any = _options_py
_COMPILED: dict[str, Any] = {}


def _kernels() -> dict[str, Any]:
    """The Numba-compiled kernels (cached on disk), or the plain Python ones with TABLEGAMES_NO_NUMBA=1."""
    global _dealer, _options
    if not _COMPILED:
        import os

        if os.environ.get("TABLEGAMES_NO_NUMBA"):
            _COMPILED.update(solve=_solve_py, share=_share_py, options=_options_py)
        else:
            from numba import njit

            _dealer = njit(cache=True)(_dealer_py)
            _options = njit(cache=True)(_options_py)
            _COMPILED.update(
                solve=njit(cache=True)(_solve_py),
                share=njit(cache=True)(_share_py),
                options=_options,
            )
    return _COMPILED


# --- the scenarios -----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _ways3() -> IntArray:
    counts = [len(c) for c in oefa.class_cards()]
    out = np.zeros((NC, NC, NC), dtype=np.int64)
    for classes, _cards in oefa._hands():
        out[classes] = oefa._ways(classes, counts)
    return out


def _option_text(key: tuple[int, int, int], opt: int, sol: Any) -> str:
    hand = sol.tables.hands[int(sol.tables.hand_of[key])]
    return oefa._role_text(hand, key, opt)


def _situation(key: tuple[int, int, int], sol: Any) -> str:
    hand = sol.tables.hands[int(sol.tables.hand_of[key])]
    return str(hand.category.name).replace("_", " ").lower()


def _changes(changes: IntArray, sol: Any) -> tuple[dict[tuple[str, str, str], int], int]:
    out: dict[tuple[str, str, str], int] = {}
    n_changed = 0
    for a, b, c, fo, io in zip(*np.nonzero(changes), strict=True):
        if fo == io:
            continue
        key = (int(a), int(b), int(c))
        n = int(changes[a, b, c, fo, io])
        k = (_situation(key, sol), _option_text(key, int(fo), sol), _option_text(key, int(io), sol))
        out[k] = out.get(k, 0) + n
        n_changed += n
    return out, n_changed


@lru_cache(maxsize=8)  # an Exposure is immutable: a scenario is solved once per rules
def solve(rules: OneEyedFlushRules, scenario: str) -> Exposure:
    """The exact EV and changed decisions of a scenario, over every ordered deal."""
    sol = oefa._solve(rules)
    t = sol.tables
    k = _kernels()
    changes = np.zeros((NC, NC, NC, 4, 4), dtype=np.int64)
    total = k["solve"](
        MODES[scenario],
        t.counts,
        _ways3(),
        sol.best,
        t.hand_of,
        t.value,
        t.bust_stand,
        t.bust_draw,
        t.ddisc,
        changes,
    )
    if int(changes.sum()) != TOTAL:
        raise AssertionError(f"{scenario}: the states weigh {int(changes.sum())} deals, expected {TOTAL}")
    counts, n_changed = _changes(changes, sol)
    return Exposure(
        Fraction(int(total), TOTAL),
        changes_from_counts(counts, TOTAL),
        True,
        change_frequency=Fraction(n_changed, TOTAL),
        notes=(f"Enumerated by card classes: {TOTAL:,} ordered deals.",),
    )


def share(rules: OneEyedFlushRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
    """``share=k``: seeded deals of the player's three cards, the Flip Card and the other ``k - 1`` hands."""
    sol = oefa._solve(rules)
    t = sol.tables
    kern = _kernels()
    cls = np.array([oefa.card_class(c) for c in range(52)], dtype=np.int64)
    rng = np.random.default_rng(seed)
    m = 3 * (k - 1)
    outs: list[npt.NDArray[np.float64]] = []
    changes = np.zeros((NC, NC, NC, 4, 4), dtype=np.int64)
    done = 0
    while done < sim_rounds:  # in batches: memory stays bounded for any number of deals
        b = min(50_000, sim_rounds - done)
        perm = np.argsort(rng.random((b, 52)), axis=1)
        player = np.sort(cls[perm[:, :3]], axis=1)
        flip = cls[perm[:, 3]]
        seen = cls[perm[:, : 4 + m]]
        rems = np.broadcast_to(t.counts, (b, NC)).copy()
        for j in range(4 + m):
            np.subtract.at(rems, (np.arange(b), seen[:, j]), 1)
        states = np.concatenate([player, flip[:, None]], axis=1).astype(np.int64)
        out = np.zeros(b, dtype=np.float64)
        chosen = np.zeros(b, dtype=np.int64)
        kern["share"](
            states, rems, sol.best, t.hand_of, t.value, t.bust_stand, t.bust_draw, t.ddisc, out, chosen
        )
        outs.append(out)
        fair = sol.best[states[:, 0], states[:, 1], states[:, 2], states[:, 3]]
        np.add.at(changes, (states[:, 0], states[:, 1], states[:, 2], fair, chosen), 1)
        done += b
    fair_ev = float(oefa.analyze(rules).expected_value)
    mean, lo, hi = mean_ci(np.concatenate(outs))
    counts, n_changed = _changes(changes, sol)
    return Exposure(
        fair_ev + mean,
        changes_from_counts(counts, sim_rounds),
        False,
        ci=(fair_ev + lo, fair_ev + hi),
        rounds_simulated=sim_rounds,
        change_frequency=Fraction(n_changed, sim_rounds),
        notes=(
            f"Simulated: {sim_rounds:,} seeded deals (seed {seed}), each solved exactly over the unseen cards; "
            "the EV is the exact fair EV plus the mean gain over the fair strategy on the same deals. The "
            "dealer's draw against a wild (R-OEF-7) looks at this player's hand only.",
        ),
    )


def informed_action(rules: OneEyedFlushRules, scenario: str) -> Callable[[Any, int], Action]:
    """The scenario's optimal play at a live :class:`~tablegames.engine.one_eyed_flush.OneEyedFlushRound`
    (heads-up): seeing ``rnd.dealer[0]`` (dealer-hole-1), ``rnd.dealer[0]`` and ``rnd.dealer[2]``
    (dealer-hole-both) or the next card of the deck (next-card)."""
    sol = oefa._solve(rules)
    t = sol.tables
    options = _kernels()["options"]
    mode = MODES[scenario]
    nh = t.value.shape[0]

    def act(rnd: Any, seat: int) -> Action:
        cards = list(rnd.seats[seat].cards)
        classes = [oefa.card_class(c) for c in cards]
        key = sorted(classes)
        f = oefa.card_class(rnd.flip_card)
        rem = t.counts.copy()
        for x in (*classes, f):
            rem[x] -= 1
        g = h = y = -1
        if mode in (0, 1):
            g = oefa.card_class(rnd.dealer[0])
            rem[g] -= 1
        if mode == 1:
            h = oefa.card_class(rnd.dealer[2])
            rem[h] -= 1
        if mode == 2:
            y = oefa.card_class(rnd.deck[rnd.next_card])
            rem[y] -= 1
        ev = np.zeros(4, dtype=np.int64)
        dist = np.zeros((2, nh), dtype=np.int64)
        options(mode, *key, f, g, h, y, rem, t.hand_of, t.value, t.bust_stand, t.bust_draw, t.ddisc, dist, ev)
        best = 0
        for o in range(1, 4):
            if ev[o] > ev[best]:
                best = o
        if best == 0:
            return STAND
        return discard(classes.index(key[best - 1]))

    return act


class OneEyedFlushProtection(GameProtection):
    rounds_per_hour = 60

    def scenarios(self, rules: OneEyedFlushRules) -> list[Scenario]:
        return list(SCENARIOS)

    def solve(self, rules: OneEyedFlushRules, scenario: str, *, sim_rounds: int, seed: int) -> Exposure:
        return solve(rules, scenario)

    def share(self, rules: OneEyedFlushRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
        return share(rules, k, sim_rounds=sim_rounds, seed=seed)

    def informed_action(self, rules: OneEyedFlushRules, scenario: str) -> Callable[[Any, int], Action]:
        return informed_action(rules, scenario)


PROTECTION = OneEyedFlushProtection()

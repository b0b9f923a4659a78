"""Game protection for One Eyed Flush (RULES.md §2): the dealer's face-down cards or the next card seen.

The dealer's first and third cards are dealt face down beside the Flip Card (R-OEF-4), and a draw takes the
next card of the deck (R-OEF-5), which goes to the dealer's draw (R-OEF-7) when the player stands. The
scenarios: ``dealer-hole-1`` (one of the dealer's face-down cards seen), ``dealer-hole-both`` (both),
``next-card`` (the card a draw would bring). Every deal is enumerated by card classes (13 natural ranks and
the wild class, exact multiplicities) as the exact analyzer (``analysis.one_eyed_flush``) does, with its
tables built from the rules (``analysis.one_eyed_flush_tables``) and its one state loop
(``analysis.one_eyed_flush_kernel``): for each state of the informed player (the three cards, the Flip Card
and the seen card(s)) the loop sums every option's result over the unseen cards, and the best option is played
(exact ties: stand, the cautious choice; among discards R-0.5, the card of higher point value, then higher
rank, as the fair strategy). The EV is an exact fraction of the C(52,3) x 49 x 48 x 47 x 46 x 45 ordered deals.

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
from tablegames.analysis import one_eyed_flush_kernel as kern
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


# --- the kernels: the exact analysis' state loop (analysis.one_eyed_flush_kernel), one more sampled loop ----


_options = kern._options  # (the kernels this one calls, compiled with it)
_choose = kern._choose


@kern._jit
def _share(
    states: IntArray,
    rems: IntArray,
    fair_best: IntArray,
    pay: IntArray,
    hand_of: IntArray,
    hand_cat: IntArray,
    result: IntArray,
    bust_stand: npt.NDArray[np.bool_],
    bust_draw: npt.NDArray[np.bool_],
    live: IntArray,
    ddisc: IntArray,
    prefer: IntArray,
    out: npt.NDArray[np.float64],
    chosen: IntArray,
) -> None:
    """Per sampled state (a, b, c, f) and its unseen cards ``rems``: the informed minus the fair option's EV
    (``out``) and the informed option (``chosen``), each state valued by the shared one-state kernel."""
    ev = np.zeros(4, dtype=np.int64)
    for i in range(states.shape[0]):
        a, b, c, f = states[i, 0], states[i, 1], states[i, 2], states[i, 3]
        rem = rems[i].copy()
        n_state = _options(
            3,
            a,
            b,
            c,
            f,
            -1,
            -1,
            -1,
            rem,
            hand_of,
            hand_cat,
            result,
            bust_stand,
            bust_draw,
            live,
            ddisc,
            prefer,
            pay,
            ev,
        )
        best = _choose(ev, a, b, c, prefer)  # cautious, then, as the fair strategy
        chosen[i] = best
        out[i] = (ev[best] - ev[fair_best[a, b, c, f]]) / n_state


_KERNELS: dict[str, Any] = {**kern.kernels(), "share": _share}


def _kernels() -> dict[str, Any]:
    """The shared kernels (``states``, ``options``, ``choose``, ``best_all``) and ``share``, compiled by Numba on
    their first call (cached on disk)."""
    return _KERNELS


# --- the scenarios -----------------------------------------------------------------------------------


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
    changes = np.zeros((NC, NC, NC, 4, 4), dtype=np.int64)
    store = np.zeros((0, 0, 0, 0, 4, kern.NCAT, 4), dtype=np.int64)  # not kept: each state's best is played
    idx4 = np.zeros((1, 1, 1, 1), dtype=np.int64)
    args = (t.counts, t.ways3, sol.pay, sol.best, *kern.table_args(t), idx4, store, changes)
    total = _kernels()["states"](MODES[scenario], *args)
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
    kernels = _kernels()
    cls = np.array([t.classes.card_class(c) for c in range(52)], dtype=np.int64)
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
        kernels["share"](states, rems, sol.best, sol.pay, *kern.table_args(t), out, chosen)
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
    options, choose = _kernels()["options"], _kernels()["choose"]
    mode = MODES[scenario]
    card_class = t.classes.card_class

    def act(rnd: Any, seat: int) -> Action:
        cards = list(rnd.seats[seat].cards)
        classes = [card_class(c) for c in cards]
        key = sorted(classes)
        f = card_class(rnd.flow.flip_card)
        rem = t.counts.copy()
        for x in (*classes, f):
            rem[x] -= 1
        g = h = y = -1
        if mode in (0, 1):
            g = card_class(rnd.dealer[0])
            rem[g] -= 1
        if mode == 1:
            h = card_class(rnd.dealer[2])
            rem[h] -= 1
        if mode == 2:
            y = card_class(rnd.deck[rnd.next_card])
            rem[y] -= 1
        ev = np.zeros(4, dtype=np.int64)
        options(mode, *key, f, g, h, y, rem, *kern.table_args(t), sol.pay, ev)
        best = int(choose(ev, *key, t.prefer))  # cautious, then R-0.5 (the rules' discard_preference)
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

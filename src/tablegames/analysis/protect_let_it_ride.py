"""Game protection for Let It Ride (RULES.md §1): the community cards seen early, and players pooling cards.

The dealer's two community cards are dealt with the hands (R-LIR-2, R-LIR-3); a hole-carder who sees one of
them early decides with four or five known cards instead of three and four. Every scenario is exact: each
of the 2,598,960 five-card sets is taken in its 20 orders (which three cards are the player's, which of the
other two is the first community card), 51,979,200 equally likely ordered deals as in the analysis, and both
decisions of the informed player and of the fair strategy are looked up in tables of the exact analyzer
(``analysis.let_it_ride``: the 4-card completion histograms, the solution's decision tables). Figures are
per unit (one of the three equal wagers), the aggregate cap (R-LIR-5) not applied.

``share=K`` (K players see each other's three cards) is simulated: each seeded sample deals the player's
three cards and the other 3(K-1), and the informed and the fair decisions are both solved exactly for that
deal over every remaining pair of community cards; the mean of their difference (small variance: most deals
change nothing) is added to the fair EV.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import let_it_ride as lir
from tablegames.analysis.common import colex_of
from tablegames.analysis.protect import (
    Exposure,
    GameProtection,
    Scenario,
    changes_from_counts,
    mean_ci,
)
from tablegames.engine.actions import PULL, RIDE, Action
from tablegames.rules.let_it_ride import LetItRideRules

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SCENARIOS = (
    Scenario(
        "community-2",
        "the second community card (the dealer's last card) seen before both decisions: hole-carding",
        True,
    ),
    Scenario("community-1", "the first community card seen before decision 1 (wager 1)", True),
    Scenario("both-community", "both community cards seen before decision 1", True),
)


def _comb_table() -> list[npt.NDArray[np.int32]]:
    from math import comb

    return [np.array([comb(c, i + 1) for c in range(52)], dtype=np.int32) for i in range(5)]


_C = _comb_table()


def _colex(cols: list[npt.NDArray[Any]]) -> npt.NDArray[np.int32]:
    """Colex index of rows given as increasing columns (below C(52, 5): int32)."""
    out = np.zeros(np.shape(cols[0]), dtype=np.int32)
    for i, col in enumerate(cols):
        out += _C[i][col]
    return out


@lru_cache(maxsize=2)
def hand5(qualifier: int = 10) -> npt.NDArray[np.int8]:
    """``LirHand`` of every five-card set, by colex index (from the analyzer's pattern tables, the lowest
    paying pair ``qualifier``, R-LIR-4)."""
    plain, flush = lir.five_card_tables(qualifier)
    keys, is_flush = lir._ranks_suits(lir.combos(52, 5))
    out = np.where(is_flush, flush[keys], plain[keys]).astype(np.int8)
    out.flags.writeable = False
    return out


def _pays(win: IntArray, k: int) -> BoolArray:
    """``[NH]``: riding one more wager is worth it with ``k`` up: W[k + 1, h] > W[k, h]."""
    return np.asarray(win[k + 1] > win[k])


@lru_cache(maxsize=4)
def _informed_tables(rules: LetItRideRules, scenario: str) -> dict[str, Any]:
    """The informed player's decision tables: ``ride1`` indexed by the 4-set seen at decision 1 (or None
    when both decisions are taken on the five cards)."""
    sol = lir._solve(rules, None)
    win = sol.win
    h4 = lir.hist4(rules.qualifier_rank)
    if scenario == "community-2":
        best = np.stack([np.maximum(win[s + 2], win[s + 1]) for s in (0, 1)])  # decision 2 on five cards
        value = h4 @ best.T  # [N4, 2]
        return {"ride1": value[:, 1] > value[:, 0]}
    if scenario == "community-1":
        v4 = np.stack([np.where(sol.ride2[s], sol.sums4[:, s + 2], sol.sums4[:, s + 1]) for s in (0, 1)])
        return {"ride1": v4[1] > v4[0]}
    return {"ride1": None}  # both-community (decided on the five cards), none (the fair tables)


def _orders() -> list[tuple[tuple[int, int, int], int, int]]:
    """The 20 orders of a five-card set: (player's three columns, first community, second community)."""
    out = []
    for p in combinations(range(5), 3):
        rest = [c for c in range(5) if c not in p]
        out += [(p, rest[0], rest[1]), (p, rest[1], rest[0])]
    return out


def _sub(fives: npt.NDArray[np.int8], cols: tuple[int, ...]) -> npt.NDArray[np.int32]:
    return _colex([fives[:, c] for c in sorted(cols)])


@lru_cache(maxsize=8)  # an Exposure is immutable: a scenario is solved once per rules
def solve(rules: LetItRideRules, scenario: str) -> Exposure:
    """The exact EV and changed decisions of ``scenario``, over every ordered deal."""
    sol = lir._solve(rules, None)
    win = sol.win
    fives = lir.combos(52, 5)
    h = hand5(rules.qualifier_rank).astype(np.int32)
    h16 = (h * 16).astype(np.uint16)  # the hand's part of the tally code
    tables = _informed_tables(rules, scenario)
    tally = np.zeros(4 * lir.NH * 16, dtype=np.int64)  # (k, hand, fair1, s, fair2, r2)
    ride2 = np.concatenate([sol.ride2[0], sol.ride2[1]])  # by bet-1 state * N4 + 4-set
    pays = np.concatenate([_pays(win, 1), _pays(win, 2)])  # by bet-1 state * NH + hand
    subs: dict[tuple[int, ...], npt.NDArray[np.int32]] = {}

    def sub(cols: tuple[int, ...]) -> npt.NDArray[np.int32]:
        key = tuple(sorted(cols))
        if key not in subs:
            subs[key] = _sub(fives, key)
        return subs[key]

    for p, c1, c2 in _orders():
        ip = sub(p)
        ipc1 = sub((*p, c1))
        if scenario == "none":  # nothing exposed: the fair strategy through this enumeration
            s = sol.ride1[ip]
        elif scenario == "both-community":
            s = pays[h]  # ride both wagers exactly when the five cards pay
        else:
            s = tables["ride1"][sub((*p, c2)) if scenario == "community-2" else ipc1]
        fair2 = ride2[s * np.int32(lir.N4) + ipc1]  # the fair rule at the informed state
        if scenario == "community-2":
            r2 = pays[s * np.int32(lir.NH) + h]
        elif scenario == "both-community":
            r2 = s
        else:
            r2 = fair2  # the second decision is taken on the fair information
        fair1 = sol.ride1[ip]
        s16 = s.astype(np.uint16)
        r16 = r2.astype(np.uint16)
        code = h16 + (s16 + r16 + 1) * np.uint16(lir.NH * 16)
        code += fair1.astype(np.uint16) * np.uint16(8) + s16 * np.uint16(4)
        code += fair2.astype(np.uint16) * np.uint16(2) + r16
        tally += np.bincount(code, minlength=len(tally))
    t = tally.reshape(4, lir.NH, 2, 2, 2, 2)
    total = int((t.sum(axis=(2, 3, 4, 5)) * win).sum())
    by = t.sum(axis=(0, 1))  # [fair1, s, fair2, r2]
    name = ("pull", "ride")
    counts: dict[tuple[str, str, str], int] = {}
    for f in (0, 1):
        for i in (0, 1):
            counts[("wager 1", name[f], name[i])] = int(by[f, i].sum())
            counts[("wager 2", name[f], name[i])] = int(by[:, :, f, i].sum())
    any_change = int(by.sum()) - int(by[0, 0, 0, 0] + by[0, 0, 1, 1] + by[1, 1, 0, 0] + by[1, 1, 1, 1])
    ev = Fraction(total, lir.TOTAL_DEALS)
    return Exposure(
        ev,
        changes_from_counts(counts, lir.TOTAL_DEALS),
        True,
        change_frequency=Fraction(any_change, lir.TOTAL_DEALS),
        notes=(
            f"Enumerated: {lir.TOTAL_DEALS:,} ordered deals; per unit (one of the three wagers), "
            "the aggregate cap (R-LIR-5) not applied.",
        ),
    )


# --- share=K: seeded samples, each solved exactly -----------------------------------------------------


def _share_batch(sol: Any, h5: npt.NDArray[np.int8], player: IntArray, removed: IntArray) -> tuple[Any, ...]:
    """For rows of the player's three cards (sorted) and the cards known to be out: the informed and the fair
    strategy's sums over every remaining ordered pair of community cards, both first decisions, and the
    second decisions [2, b, 52] (informed, fair) by the first community card (``avail``: the cards left)."""
    win = sol.win
    b, m = removed.shape
    avail = np.ones((b, 52), dtype=bool)
    np.put_along_axis(avail, np.concatenate([player, removed], axis=1), False, axis=1)
    # every candidate first community card c (invalid ones masked): the 4-set P + c
    cand = np.broadcast_to(np.arange(52), (b, 52))
    four = np.sort(
        np.concatenate([np.repeat(player[:, None, :], 52, axis=1), cand[..., None]], axis=2), axis=2
    )
    q = np.where(avail, _colex([four[..., i] for i in range(4)]), 0)
    sums = sol.sums4[q].copy()  # [b, 52, 4] over the 48 completions of the full deck
    if m:
        five = np.sort(
            np.concatenate(
                [
                    np.repeat(four[:, :, None, :], m, axis=2),
                    np.broadcast_to(removed[:, None, :, None], (b, 52, m, 1)),
                ],
                axis=3,
            ),
            axis=3,
        )
        idx5 = np.where(avail[:, :, None], _colex([five[..., i] for i in range(5)]), 0)
        hr = h5[idx5].astype(np.int64)  # [b, 52, m]
        sums -= win.T[hr].sum(axis=2)  # the completions that are out of the deck
    ride2 = np.stack([sums[..., s + 2] > sums[..., s + 1] for s in (0, 1)])  # informed, [2, b, 52]
    v = np.stack([np.where(ride2[s], sums[..., s + 2], sums[..., s + 1]) for s in (0, 1)])
    v = np.where(avail[None], v, 0)
    value = v.sum(axis=2)  # [2, b]
    s_inf = value[1] > value[0]
    inf = np.maximum(value[0], value[1])
    ip = _colex([player[:, i] for i in range(3)])
    s_fair = sol.ride1[ip]
    fair2 = np.stack([sol.ride2[s][q] for s in (0, 1)])  # [2, b, 52]
    fs = np.where(s_fair[:, None], fair2[1], fair2[0])
    kf = 1 + s_fair[:, None].astype(np.int64) + fs.astype(np.int64)
    fair = np.where(avail, np.take_along_axis(sums, kf[..., None], axis=2)[..., 0], 0).sum(axis=1)
    return inf, fair, s_inf, s_fair, ride2, fair2, avail


def share(rules: LetItRideRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
    """``share=k``: the player knows the other ``k - 1`` three-card hands; simulated (see the module)."""
    sol = lir._solve(rules, None)
    h5 = hand5(rules.qualifier_rank)
    rng = np.random.default_rng(seed)
    m = 3 * (k - 1)  # removed cards
    n1 = 49 - m
    n2 = n1 - 1
    diffs: list[npt.NDArray[np.float64]] = []
    changed = {"wager 1": np.zeros((2, 2), dtype=np.int64), "wager 2": np.zeros((2, 2), dtype=np.int64)}
    any_change = 0
    done = 0
    batch = 500
    while done < sim_rounds:
        b = min(batch, sim_rounds - done)
        perm = np.argsort(rng.random((b, 52)), axis=1)
        player = np.sort(perm[:, :3], axis=1)
        inf, fair, s_inf, s_fair, ride2, fair2, avail = _share_batch(sol, h5, player, perm[:, 3 : 3 + m])
        diffs.append((inf - fair) / (n1 * n2))
        # decisions: wager 1 fair vs informed; wager 2 at the informed state, fair rule vs informed rule
        np.add.at(changed["wager 1"], (s_fair.astype(np.int64), s_inf.astype(np.int64)), 1)
        i2 = np.where(s_inf[:, None], ride2[1], ride2[0])
        f2 = np.where(s_inf[:, None], fair2[1], fair2[0])
        for f in (0, 1):
            for i in (0, 1):
                changed["wager 2"][f, i] += int(((f2 == f) & (i2 == i) & avail).sum())
        any_change += int((s_fair != s_inf).sum()) * n1 + int(
            ((f2 != i2) & avail & (s_fair == s_inf)[:, None]).sum()
        )
        done += b
    d = np.concatenate(diffs)
    mean, lo, hi = mean_ci(d)
    fair_ev = lir.analyze(rules).expected_value
    name = ("pull", "ride")
    counts = {
        ("wager 1", name[f], name[i]): int(changed["wager 1"][f, i]) * n1 for f in (0, 1) for i in (0, 1)
    }
    counts.update(
        {("wager 2", name[f], name[i]): int(changed["wager 2"][f, i]) for f in (0, 1) for i in (0, 1)}
    )
    return Exposure(
        float(fair_ev) + mean,
        changes_from_counts(counts, sim_rounds * n1),
        False,
        ci=(float(fair_ev) + lo, float(fair_ev) + hi),
        rounds_simulated=sim_rounds,
        change_frequency=Fraction(any_change, sim_rounds * n1),
        notes=(
            f"Simulated: {sim_rounds:,} seeded deals (seed {seed}) of the player's and the other {k - 1} "
            "hands, each solved exactly over every remaining pair of community cards; the EV is the exact fair "
            "EV plus the mean gain over the fair strategy on the same deals (95% interval).",
        ),
    )


# --- the informed bot, for the engine cross-check ----------------------------------------------------


def informed_action(rules: LetItRideRules, scenario: str) -> Callable[[Any, int], Action]:
    """The scenario's optimal play at a live :class:`~tablegames.engine.let_it_ride.LetItRideRound`, seeing
    the dealer's community cards as the scenario exposes them (``rnd.dealer[1]``, ``rnd.dealer[2]``)."""
    sol = lir._solve(rules, None)
    ride1 = _informed_tables(rules, scenario)["ride1"]
    win = sol.win

    def act(rnd: Any, seat: int) -> Action:
        cards = list(rnd.seats[seat].cards)
        c1, c2 = rnd.dealer[1], rnd.dealer[2]
        up1 = "1" in rnd.flow.up[seat]
        if scenario == "both-community" or (scenario == "community-2" and rnd.flow.stage == 2):
            hand = int(rules.hand([*cards, c1, c2]))
            k = 1 if rnd.flow.stage == 1 else 1 + int(up1)
            return RIDE if win[k + 1, hand] > win[k, hand] else PULL
        seen = [*cards, c2 if scenario == "community-2" else c1]
        q = colex_of(seen)
        if rnd.flow.stage == 1:
            return RIDE if ride1[q] else PULL
        return RIDE if sol.ride2[int(up1), q] else PULL

    return act


class LetItRideProtection(GameProtection):
    rounds_per_hour = 60

    def scenarios(self, rules: LetItRideRules) -> list[Scenario]:
        return list(SCENARIOS)

    def solve(self, rules: LetItRideRules, scenario: str, *, sim_rounds: int, seed: int) -> Exposure:
        return solve(rules, scenario)

    def share(self, rules: LetItRideRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
        return share(rules, k, sim_rounds=sim_rounds, seed=seed)

    def informed_action(self, rules: LetItRideRules, scenario: str) -> Callable[[Any, int], Action]:
        return informed_action(rules, scenario)


PROTECTION = LetItRideProtection()

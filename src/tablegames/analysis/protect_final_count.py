"""Game protection for Final Count (RULES.md §3): a face-down third card seen, and players pooling cards.

The third cards are dealt face down and unseen by everyone (R-FC-2): a player who peeks at their own
(``peek-own``) or sees the dealer's (``dealer-hole``) decides the even two-card total's stand-or-turn
(R-FC-4) knowing it. Cards matter only by value (R-FC-1), so every deal is enumerated by value classes with
exact card multiplicities, as the exact analyzer (``analysis.final_count``) does, and with its outcome tables
(the rules' categories and ``player_final_total``, valued at the table's pays and tie rule, issue 15): each
figure is an exact fraction of the 1,326 x 1,225 x 48 x 47 equally likely deals.

``share=K``: the player also knows the other K-1 players' two up cards (their third cards stay unseen by
all), so only the card removal changes; ``share=2`` is enumerated exactly over the other player's value pair
(1,326 x 1,225 x 1,128 x 46 x 45 deals), larger K is simulated (seeded deals, each solved exactly over the
third cards, the mean gain over the fair strategy on the same deals added to the fair EV).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import final_count as fca
from tablegames.analysis.protect import (
    Exposure,
    GameProtection,
    Scenario,
    changes_from_counts,
    simulate_share,
)
from tablegames.engine.actions import STAND, TURN, Action
from tablegames.rules.final_count import FinalCountRules, must_turn

IntArray = npt.NDArray[np.int64]

SCENARIOS = (
    Scenario(
        "peek-own", "the player's own face-down third card seen before the decision (against R-FC-2)", True
    ),
    Scenario("dealer-hole", "the dealer's face-down third card seen before the decision", True),
)


def _pairs(counts: IntArray) -> list[tuple[int, int]]:
    values = [v for v in range(len(counts)) if counts[v]]
    return [(a, b) for i, a in enumerate(values) for b in values[i:]]


@lru_cache(maxsize=4)
def _fair_turns(rules: FinalCountRules) -> npt.NDArray[np.bool_]:
    """``[nv, nv, nv, nv]``: the fair optimal decision (turn) by the player's and the dealer's up values
    (sorted pairs), from the analyzer's solution."""
    sol = fca._solve(rules)
    nv = len(sol.counts)
    out = np.zeros((nv, nv, nv, nv), dtype=bool)
    st = sol.st
    out[st.player[:, 0], st.player[:, 1], st.dealer[:, 0], st.dealer[:, 1]] = sol.turns
    return out


def _label(t2: int) -> str:
    return f"two-card total {t2}"


def seen_values(
    p: tuple[int, int],
    d: tuple[int, int],
    r: IntArray,
    scenario: str,
    rules: FinalCountRules | None = None,
) -> tuple[IntArray, IntArray]:
    """Standing's and turning's results (nets at ``rules``' pays, RULES.md's by default) summed over the
    ordered pairs of third cards (player's, dealer's) left in ``r``, by the value of the seen card: the
    player's own (``peek-own``), the dealer's (``dealer-hole``); one sum for ``none`` (nothing seen).
    ``p``, ``d``: the up-card values."""
    rules = rules or FinalCountRules()
    t = fca.tables(rules)
    sd = fca.net_table(rules)
    nv = len(r)
    t2 = p[0] + p[1]
    dealer_tot = d[0] + d[1] + np.arange(nv)  # by the dealer's third card
    joint = np.outer(r, r) - np.diag(r)  # ordered (player's third, dealer's third) card pairs
    turn = sd[t.final[t2]][:, dealer_tot]  # [p3, d3]
    stand = np.broadcast_to(sd[t2][dealer_tot], (nv, nv))
    axis = (1,) if scenario == "peek-own" else (0,) if scenario == "dealer-hole" else (0, 1)
    s_val = np.atleast_1d((joint * stand).sum(axis=axis))
    t_val = np.atleast_1d((joint * turn).sum(axis=axis))
    return s_val, t_val


@lru_cache(maxsize=8)  # an Exposure is immutable: a scenario is solved once per rules
def solve(rules: FinalCountRules, scenario: str) -> Exposure:
    """The exact EV and changed decisions of ``peek-own`` or ``dealer-hole`` (``none``: nothing seen)."""
    sol = fca._solve(rules)
    counts = sol.counts
    fair_turns = _fair_turns(rules)
    total = 0
    changed: dict[tuple[str, str, str], int] = {}
    for p in _pairs(counts):
        wp = fca._pair_weight(counts, *p)
        after = counts.copy()
        after[p[0]] -= 1
        after[p[1]] -= 1
        t2 = p[0] + p[1]
        for d in _pairs(after):
            wd = fca._pair_weight(after, *d)
            if wd == 0:
                continue
            r = after.copy()
            r[d[0]] -= 1
            r[d[1]] -= 1
            w = wp * wd
            if must_turn(t2):  # R-FC-3: no decision
                total += w * int(seen_values(p, d, r, "none", rules)[1].sum())
                continue
            s_val, t_val = seen_values(p, d, r, scenario, rules)
            informed = t_val > s_val  # cautious: stand on an exact tie
            total += w * int(np.where(informed, t_val, s_val).sum())
            fair = bool(fair_turns[(*p, *d)])
            n_seen = r * 47 if len(informed) > 1 else np.array([48 * 47])  # deals by the seen card's value
            for value in range(len(informed)):
                if informed[value] != fair and n_seen[value]:
                    key = (_label(t2), "turn" if fair else "stand", "turn" if informed[value] else "stand")
                    changed[key] = changed.get(key, 0) + w * int(n_seen[value])
    return Exposure(
        Fraction(total, fca.DEALS),
        changes_from_counts(changed, fca.DEALS),
        True,
        notes=(f"Enumerated by card values: {fca.DEALS:,} equally likely deals.",),
    )


# --- share=K ---------------------------------------------------------------------------------------------


def _batch_values(
    rules: FinalCountRules, p: IntArray, d: IntArray, r: IntArray
) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_], IntArray]:
    """For rows of (player's up values [.,2], dealer's up values [.,2], remaining counts [., NV]): the sums of
    the informed (optimal for these counts) and the fair decisions over the ordered third-card pairs, the
    fair decision where they differ (turns), and the rows' pair count (n * (n - 1))."""
    t = fca.tables(rules)
    sd = fca.net_table(rules)
    nv = t.nv
    ar = np.arange(nv)
    t2 = p.sum(axis=1)
    d2 = d.sum(axis=1)
    dealer_tot = d2[:, None] + ar  # [B, d3]
    joint = r[:, :, None] * r[:, None, :] - r[:, :, None] * np.eye(nv, dtype=np.int64)  # [B, p3, d3]
    fin = t.final[t2]  # [B, p3]
    turn_sd = sd[fin[:, :, None], dealer_tot[:, None, :]]  # [B, p3, d3]
    turn = (joint * turn_sd).sum(axis=(1, 2))
    stand_sd = sd[t2[:, None], dealer_tot]  # [B, d3]
    stand = (joint.sum(axis=1) * stand_sd).sum(axis=1)
    forced = t2 % 2 == 1
    informed = np.where(forced | (turn > stand), turn, stand)
    fair_turn = _fair_turns(rules)[p[:, 0], p[:, 1], d[:, 0], d[:, 1]] | forced
    fair = np.where(fair_turn, turn, stand)
    n = r.sum(axis=1)
    choice_differs = ~forced & ((turn > stand) != fair_turn)
    return informed, fair, choice_differs, n * (n - 1)


def _share_exact(rules: FinalCountRules) -> Exposure:
    """``share=2``, every value pair of the other player enumerated (vectorized over all three pairs)."""
    counts = fca._solve(rules).counts
    pairs = np.array(_pairs(counts), dtype=np.int64)  # [P, 2]
    n = len(pairs)
    unit = np.zeros((n, len(counts)), dtype=np.int64)
    np.add.at(unit, (np.arange(n), pairs[:, 0]), 1)
    np.add.at(unit, (np.arange(n), pairs[:, 1]), 1)
    wp = fca.pair_weights(counts[None, :], pairs)[0]  # [P]
    c1 = counts - unit  # [P, NV]
    wd = fca.pair_weights(c1, pairs)  # [P(p), P(d)]
    c2 = c1[:, None, :] - unit[None, :, :]  # [P, P, NV]
    wo = fca.pair_weights(np.maximum(c2, 0), pairs)  # [P, P, P(o)]
    w = wp[:, None, None] * wd[:, :, None] * wo
    ip, id_, io = np.nonzero(w > 0)
    weights = w[ip, id_, io]
    r = c2[ip, id_] - unit[io]
    informed = np.zeros(len(ip), dtype=np.int64)
    differs = np.zeros(len(ip), dtype=bool)
    step = 20_000
    for s0 in range(0, len(ip), step):
        sl = slice(s0, s0 + step)
        inf, _fair, dif, pr = _batch_values(rules, pairs[ip[sl]], pairs[id_[sl]], r[sl])
        informed[sl] = inf
        differs[sl] = dif
        assert (pr == 46 * 45).all()
    total_deals = comb(52, 2) * comb(50, 2) * comb(48, 2) * 46 * 45
    ev = Fraction(int((weights * informed).sum()), total_deals)
    changed: dict[tuple[str, str, str], int] = {}
    fair_turns = _fair_turns(rules)
    for i in np.nonzero(differs)[0].tolist():
        p, d = pairs[ip[i]], pairs[id_[i]]
        f = bool(fair_turns[p[0], p[1], d[0], d[1]])
        key = (_label(int(p.sum())), "turn" if f else "stand", "stand" if f else "turn")
        changed[key] = changed.get(key, 0) + int(weights[i]) * 46 * 45
    return Exposure(
        ev,
        changes_from_counts(changed, total_deals),
        True,
        notes=(
            f"Enumerated by card values: {total_deals:,} deals (the other player's two up cards included).",
        ),
    )


def share(rules: FinalCountRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
    """``share=k``: exact for k = 2, else simulated (see the module; the loop: ``protect.simulate_share``)."""
    if k == 2:
        return _share_exact(rules)
    values = np.array([rules.value(c) for c in range(52)], dtype=np.int64)
    counts = fca._solve(rules).counts
    fair_turns = _fair_turns(rules)
    m = 4 + 2 * (k - 1)  # the four up cards, then the other players' two up cards

    def batch(decks: IntArray) -> tuple[npt.NDArray[np.float64], list[tuple[str, str, str]]]:
        b = len(decks)
        v = values[decks[:, :m]]
        p = np.sort(v[:, :2], axis=1)
        d = np.sort(v[:, 2:4], axis=1)
        r = np.tile(counts, (b, 1))
        for j in range(m):
            np.subtract.at(r, (np.arange(b), v[:, j]), 1)
        informed, fair, differs, pairs = _batch_values(rules, p, d, r)
        keys = []
        for i in np.nonzero(differs)[0].tolist():
            f = bool(fair_turns[p[i, 0], p[i, 1], d[i, 0], d[i, 1]])
            keys.append((_label(int(p[i].sum())), "turn" if f else "stand", "stand" if f else "turn"))
        return (informed - fair) / pairs, keys

    fair_ev = float(fca.analyze(rules).expected_value)
    return simulate_share(sim_rounds, seed, fair_ev, batch, how="solved exactly over the third cards")


# --- the informed bot -----------------------------------------------------------------------------------


def informed_action(rules: FinalCountRules, scenario: str) -> Callable[[Any, int], Action]:
    """The scenario's optimal play at a live :class:`~tablegames.engine.final_count.FinalCountRound`: the seen
    third card (``peek-own``: the seat's own, ``dealer-hole``: the dealer's), or the other seats' up cards
    (``share=K``)."""
    t = fca.tables(rules)
    sd = fca.net_table(rules)
    counts = fca._solve(rules).counts
    ar = np.arange(t.nv)

    def act(rnd: Any, seat: int) -> Action:
        me = rnd.seats[seat].cards
        p = sorted(rules.value(c) for c in me[:2])
        d = sorted(rules.value(c) for c in rnd.dealer[:2])
        r = counts.copy()
        for c in [*me[:2], *rnd.dealer[:2]]:
            r[rules.value(c)] -= 1
        t2, d2 = p[0] + p[1], d[0] + d[1]
        if scenario.startswith("share="):
            for other in rnd.active_seats:
                if other.seat != seat:
                    for c in other.cards[:2]:
                        r[rules.value(c)] -= 1
            return TURN if _turn_better(rules, p, d, r) else STAND
        seen = rules.value(me[2] if scenario == "peek-own" else rnd.dealer[2])
        r[seen] -= 1
        if scenario == "peek-own":
            stand = int((r * sd[t2][d2 + ar]).sum())
            turn = int((r * sd[t.final[t2, seen]][d2 + ar]).sum())
        else:
            stand = int(r.sum()) * int(sd[t2][d2 + seen])
            turn = int((r * sd[t.final[t2]][:, d2 + seen]).sum())
        return TURN if turn > stand else STAND

    return act


def _turn_better(rules: FinalCountRules, p: list[int], d: list[int], r: IntArray) -> bool:
    t = fca.tables(rules)
    sd = fca.net_table(rules)
    ar = np.arange(t.nv)
    t2, d2 = p[0] + p[1], d[0] + d[1]
    joint = np.outer(r, r) - np.diag(r)
    turn = int((joint * sd[t.final[t2]][:, d2 + ar]).sum())
    stand = int((joint.sum(axis=0) * sd[t2][d2 + ar]).sum())
    return turn > stand


class FinalCountProtection(GameProtection):
    rounds_per_hour = 60

    def scenarios(self, rules: FinalCountRules) -> list[Scenario]:
        return list(SCENARIOS)

    def solve(self, rules: FinalCountRules, scenario: str, *, sim_rounds: int, seed: int) -> Exposure:
        return solve(rules, scenario)

    def share(self, rules: FinalCountRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
        return share(rules, k, sim_rounds=sim_rounds, seed=seed)

    def share_exact(self, rules: FinalCountRules, k: int) -> bool:
        return k <= 2

    def informed_action(self, rules: FinalCountRules, scenario: str) -> Callable[[Any, int], Action]:
        return informed_action(rules, scenario)


PROTECTION = FinalCountProtection()

"""The Let It Ride math report's strategy text, full decision table and chart (RULES.md §1), from the solution
of :mod:`tablegames.analysis.let_it_ride_kernel`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis.let_it_ride_kernel import (
    N3,
    PER_HAND,
    TOTAL_DEALS,
    IntArray,
    _ranks_suits,
    _Solution,
    _solve,
    combos,
    rides_in,
)
from tablegames.cards import CARDS, format_cards
from tablegames.rules.let_it_ride import (
    LetItRideRules,
    ride_first,
    ride_second,
)


def bet1_figures(sol: _Solution) -> dict[str, Fraction]:
    """Figures of the first decision: probability of riding and the EV of wager 1."""
    ride = sol.ride1
    # EV of wager 1 alone when it rides: value3[1] - value3[0] is exactly wager 1's contribution when the
    # second decision does not depend on wager 1 (always true without the cap).
    gain = (sol.value3[1] - sol.value3[0]).astype(object)
    ridden = int(ride.sum())
    ev_ride_total = sum(gain[ride].tolist(), 0)
    return {
        "p_ride_bet1": Fraction(ridden, N3),
        "ev_bet1": Fraction(ev_ride_total, TOTAL_DEALS * sol.unit),
        "ev_bet1_when_ridden": Fraction(ev_ride_total, ridden * PER_HAND * sol.unit)
        if ridden
        else Fraction(0),
    }


def bet2_figures(sol: _Solution) -> dict[str, Fraction]:
    """Probability of riding wager 2 and its EV, over all ordered deals under the strategy (by 4-card set: of
    its four splits into three cards and a community card, ``rides_in`` have wager 1 up)."""
    rode = rides_in(sol)
    r1, r0 = sol.ride2[1].astype(np.int64), sol.ride2[0].astype(np.int64)
    n_ride = int((rode * r1 + (4 - rode) * r0).sum()) * 48
    gain1 = sol.sums4[:, 3] - sol.sums4[:, 2]
    gain0 = sol.sums4[:, 2] - sol.sums4[:, 1]
    ev = int((rode * r1 * gain1).sum() + ((4 - rode) * r0 * gain0).sum())
    return {"p_ride_bet2": Fraction(n_ride, TOTAL_DEALS), "ev_bet2": Fraction(ev, TOTAL_DEALS * sol.unit)}


@lru_cache(maxsize=2)
def _published_tables(qualifier: int = 10) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The published strategy (``ride_first``/``ride_second`` of the rules module, with the table's lowest
    paying pair) for every 3- and 4-card set, by calling the rule functions once per rank pattern and flush
    flag."""
    out = []
    for n, rule in ((3, ride_first), (4, ride_second)):

        def fn(cards: list[int], rule: Any = rule) -> bool:
            return bool(rule(cards, qualifier))

        hands = combos(52, n)
        keys, is_flush = _ranks_suits(hands)
        code = keys * 2 + is_flush
        uniq, inverse = np.unique(code, return_inverse=True)
        first = np.zeros(len(uniq), dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(hands))[::-1]
        decisions = np.array([fn([int(c) for c in hands[i]]) for i in first.tolist()], dtype=bool)
        out.append(decisions[inverse])
    return out[0], out[1]


def _group(hands: npt.NDArray[np.int8], limit: int = 12) -> list[str]:
    from tablegames.analysis.common import canonical_key

    groups: dict[tuple[int, ...], int] = {}
    for row in hands.tolist():
        key = canonical_key(row)
        groups[key] = groups.get(key, 0) + 1
    items = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    text = [f"{format_cards(k)} (and {n - 1} suit variants)" if n > 1 else format_cards(k) for k, n in items]
    return text[:limit] + ([f"... {len(text) - limit} more classes"] if len(text) > limit else [])


def strategy_description(
    rules: LetItRideRules, sol: _Solution, full: bool
) -> tuple[dict[str, Any], list[str]]:
    pub1, pub2 = _published_tables(rules.qualifier_rank)
    b1, b2 = bet1_figures(sol), bet2_figures(sol)
    pair = f"{rules.qualifier.value} or better"
    summary = [
        f"Wager 1 (three cards): ride with a paying pair ({pair}) or trips, three to a royal flush, three "
        "suited in a row except 2-3-4 and A-2-3, three to a straight flush with one gap and at least one high "
        "card (ten or better), or with two gaps and at least two high cards; otherwise pull.",
        f"Wager 2 (four cards): ride with a paying hand ({pair}, two pair, trips, ...), four to a flush, "
        "or four to an outside straight with at least one high card; otherwise pull.",
    ]
    d1 = np.nonzero(pub1 != sol.ride1)[0]
    d2 = np.nonzero(pub2 != sol.ride2[0])[0]
    zero2 = sol.sums4[:, 2] == sol.sums4[:, 1]
    if len(d1) == 0:
        summary.append("The exact first decision equals this published rule on all 22,100 three-card hands.")
    else:
        summary.append(f"The exact first decision differs from the published rule on {len(d1)} hands:")
        summary.extend("  " + s for s in _group(combos(52, 3)[d1]))
    if len(d2) == 0:
        summary.append("The exact second decision equals this published rule on all 270,725 four-card sets.")
    else:
        tied = int(zero2[d2].sum())
        summary.append(
            f"The exact second decision differs from the published rule on {len(d2)} four-card sets "
            f"({tied} of them have riding worth exactly 0 and are pulled by the cautious tie-break):"
        )
        summary.extend("  " + s for s in _group(combos(52, 4)[d2]))
    if bool((sol.ride2[0] != sol.ride2[1]).any()):
        summary.append("With the cap, the second decision also depends on whether wager 1 rides.")
    summary.append(
        f"P(ride wager 1) = {float(b1['p_ride_bet1']):.5f}, P(ride wager 2) = {float(b2['p_ride_bet2']):.5f}; "
        f"EV of wager 1 when ridden = {float(b1['ev_bet1_when_ridden']):+.5f}."
    )
    data: dict[str, Any] = {
        "p_ride_bet1": float(b1["p_ride_bet1"]),
        "p_ride_bet2": float(b2["p_ride_bet2"]),
        "ev_bet1": float(b1["ev_bet1"]),
        "ev_bet1_when_ridden": float(b1["ev_bet1_when_ridden"]),
        "ev_bet2": float(b2["ev_bet2"]),
        "differences_from_published": {"bet1": len(d1), "bet2": len(d2)},
    }
    if full:
        data["table"] = full_table(sol)
    return data, summary


def full_table(sol: _Solution) -> dict[str, list[dict[str, Any]]]:
    """Every decision, one entry per suit-isomorphism class: the EVs of pull and ride (remaining hand).

    The classes are found by :func:`suit_classes` (issue 28: 24 relabellings of all 270,725 four-card sets
    took most of ``analyze --format json``'s second); the rows, their order (by :func:`canonical_keys`) and
    their representatives (each class's first set in index order) are the same as when every set's canonical
    key was computed."""
    names = [str(CARDS[c]) for c in range(52)]
    threes = combos(52, 3)
    first3, count3 = suit_classes(threes)
    first_rows = []
    for i, n, hand in zip(first3.tolist(), count3.tolist(), threes[first3].tolist(), strict=True):
        pull, ride = (int(sol.value3[s, i]) / (PER_HAND * sol.unit) for s in (0, 1))
        first_rows.append(
            {
                "cards": " ".join([names[c] for c in hand]),
                "hands": n,
                "pull": round(pull, 6),
                "ride": round(ride, 6),
                "best": "ride" if sol.ride1[i] else "pull",
            }
        )
    fours = combos(52, 4)
    first4, count4 = suit_classes(fours)
    second_rows = []
    values = (sol.sums4[first4] / (48 * sol.unit)).tolist()  # (elementwise: as row by row)
    ride0, ride1 = sol.ride2[0, first4].tolist(), sol.ride2[1, first4].tolist()
    for j, (n, hand) in enumerate(zip(count4.tolist(), fours[first4].tolist(), strict=True)):
        row = values[j]
        second_rows.append(
            {
                "cards": " ".join([names[c] for c in hand]),
                "sets": n,
                "bet1_pulled": {"pull": round(row[1], 6), "ride": round(row[2], 6)},
                "bet1_up": {"pull": round(row[2], 6), "ride": round(row[3], 6)},
                "best": "ride" if ride0[j] else "pull",
                "best_bet1_up": "ride" if ride1[j] else "pull",
            }
        )
    return {"bet1": first_rows, "bet2": second_rows}


def suit_classes(hands: npt.NDArray[np.int8]) -> tuple[IntArray, IntArray]:
    """The suit-isomorphism classes of ``hands`` (rows of distinct cards): each class's first row and its
    size, classes ordered by :func:`canonical_keys`.

    A class is the multiset of the four suits' rank sets (13-bit masks, sorted: one key of 52 bits), so one
    pass finds them; the canonical keys are then needed for one row per class only.

    >>> first, size = suit_classes(combos(52, 3))
    >>> int(size.sum()), len(first)  # 22,100 three-card hands in 1,755 classes
    (22100, 1755)
    """
    masks = np.zeros((len(hands), 4), dtype=np.int64)
    rows = np.arange(len(hands))
    for i in range(hands.shape[1]):
        col = hands[:, i].astype(np.int64)
        masks[rows, col % 4] |= np.int64(1) << (col // 4)
    masks.sort(axis=1)
    key = ((masks[:, 0] << 39) | (masks[:, 1] << 26)) | ((masks[:, 2] << 13) | masks[:, 3])
    _, first, count = np.unique(key, return_index=True, return_counts=True)
    order = np.argsort(canonical_keys(hands[first]), kind="stable")
    return first[order], count[order]


def canonical_keys(hands: npt.NDArray[np.int8]) -> IntArray:
    """One key per suit-isomorphism class: the smallest base-52 code over the 24 suit relabellings."""
    from itertools import permutations

    ranks = (hands // 4).astype(np.int64)
    suits = (hands % 4).astype(np.int64)
    best = np.full(len(hands), np.iinfo(np.int64).max, dtype=np.int64)
    n = hands.shape[1]
    for perm in permutations(range(4)):
        cards = np.sort(ranks * 4 + np.array(perm)[suits], axis=1)
        code = np.zeros(len(hands), dtype=np.int64)
        for i in range(n):
            code = code * 52 + cards[:, i]
        np.minimum(best, code, out=best)
    return best


def plot_strategy(rules: LetItRideRules, bet_cents: int | None, path: Path) -> None:
    """The EV gain of riding each wager, over all hands sorted, split at zero."""
    from tablegames.analysis.charts import pyplot

    sol = _solve(rules, bet_cents)
    g1 = np.sort((sol.value3[1] - sol.value3[0]) / (PER_HAND * sol.unit))[::-1]
    g2 = np.sort((sol.sums4[:, 2] - sol.sums4[:, 1]) / (48 * sol.unit))[::-1]
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, g, title, n in (
        (axes[0], g1, "wager 1: three cards", "three-card hands"),
        (axes[1], g2, "wager 2: four cards", "four-card sets"),
    ):
        x = np.arange(len(g))
        ax.plot(x[g > 0], g[g > 0], ".", ms=2, color="#27ae60", label=f"ride ({int((g > 0).sum()):,})")
        ax.plot(x[g <= 0], g[g <= 0], ".", ms=1, color="#c0392b", label=f"pull ({int((g <= 0).sum()):,})")
        ax.axhline(0, color="black", lw=0.8)
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_title(title)
        ax.set_xlabel(f"{n}, best first")
        ax.set_ylabel("EV(ride) - EV(pull), units")
        ax.legend()
    fig.suptitle("Let It Ride: value of letting each wager ride (cautious: pull at exactly 0)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the analyzer, as generic callers use it ------------------------------------------------------------

"""Simulated returns lie within four standard errors of every exact figure (published or from the exact
analysis), at sizes that run in a second or two each."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from tablegames.rules import make_rules
from tablegames.rules.let_it_ride import LirHand
from tablegames.simulation import Wagers, make_job, run_job

# Published five-card category counts out of C(52,5) = 2,598,960 (R-LIR-4, R-LIR-7).
FIVE = {
    LirHand.ROYAL_FLUSH: 4,
    LirHand.STRAIGHT_FLUSH: 36,
    LirHand.QUADS: 624,
    LirHand.FULL_HOUSE: 3_744,
    LirHand.FLUSH: 5_108,
    LirHand.STRAIGHT: 10_200,
    LirHand.TRIPS: 54_912,
}
C52_5 = 2_598_960


def simulate(
    game: str, rounds: int, seed: int, options: dict[str, str] | None = None, **kw: Any
) -> dict[str, Any]:
    job = make_job(make_rules(game, options or {}), rounds, seed=seed, **kw)
    return run_job(job).summary()


def within(row: dict[str, Any], exact: float, key: str = "return") -> None:
    se = row["std_error"]
    assert se > 0
    assert abs(row[key] - exact) <= 4 * se, f"{key} {row[key]:.5f} vs exact {exact:.5f} (4 SE = {4 * se:.5f})"


@pytest.mark.parametrize("strategy", ["basic", "optimal"])
def test_let_it_ride_house_edge(strategy: str) -> None:
    """3.5057% with the published basic strategy (it differs from the optimal one only on hands of exactly
    zero value, so the figure is the same) and with the optimal one (Wizard of Odds: 3.51%)."""
    s = simulate("let-it-ride", 3_000_000, seed=11, strategy=strategy)
    within(s["results"]["bets"], 0.035057, "house_edge")


@pytest.mark.parametrize(
    ("paytable", "returned"),
    [
        ("seed", Fraction(4 * 51 + 44 * 51 + 52 * 41 + 720 * 7 + 1096 * 4 + 3744 * 2, 22_100)),  # 2.75%
        ("50-40-30-6-3-1", Fraction(1) - Fraction(710, 10_000)),  # 7.10% published
        ("50-40-30-6-4-1", Fraction(1) - Fraction(214, 10_000)),  # 2.14% published
    ],
)
def test_three_card_bonus(paytable: str, returned: Fraction) -> None:
    """R-LIR-6 on 3-card counts 4 / 44 / 52 / 720 / 1,096 / 3,744 of 22,100 (mini royal .. pair)."""
    s = simulate(
        "let-it-ride", 2_000_000, seed=12, options={"bonus-paytable": paytable}, wagers=Wagers(500, bonus=500)
    )
    row = s["results"]["bonus"]
    # The published figures are rounded to 0.01%: allow that on top of 4 SE.
    assert abs(row["return"] - float(returned)) <= 4 * row["std_error"] + 0.00005


def test_progressive_fixed_prizes_and_envy_seven_seats() -> None:
    """R-LIR-7 fixed prizes ($50/$40/$30/$9 for 1) and R-LIR-8 Envy ($1,000 / $300 from each of 6 others)."""
    s = simulate("let-it-ride", 400_000, seed=13, seats=7, wagers=Wagers(500, progressive=100))
    fixed = (
        sum(
            FIVE[h] * p
            for h, p in {
                LirHand.FULL_HOUSE: 50,
                LirHand.FLUSH: 40,
                LirHand.STRAIGHT: 30,
                LirHand.TRIPS: 9,
            }.items()
        )
        / C52_5
    )
    within(s["results"]["progressive fixed prizes"], fixed)
    envy = 6 * (FIVE[LirHand.ROYAL_FLUSH] * 1000 + FIVE[LirHand.STRAIGHT_FLUSH] * 300) / C52_5
    within(s["results"]["progressive envy"], envy)


def test_meters_account_exactly() -> None:
    """Every cent added to a meter is paid at a hit or is still on it: paid = hits * reset + contributions -
    (final - reset), for each meter (R-LIR-7), and the meter frequencies match the five-card counts."""
    s = simulate("let-it-ride", 1_000_000, seed=14, seats=7, wagers=Wagers(500, progressive=100))
    n = s["rounds"]
    for j in s["jackpots"]:
        assert j["paid_cents"] == j["hits"] * j["reset_cents"] + j["contribution_per_round_cents"] * n - (
            j["final_value_cents"] - j["reset_cents"]
        )
    minor = next(j for j in s["jackpots"] if j["meter"] == "minor")
    assert minor["contribution_per_round_cents"] == 7 * 2  # 2% of each of seven $1 wagers
    p = FIVE[LirHand.QUADS] / C52_5
    expected = 7 * n * p
    assert abs(minor["hits"] - expected) <= 4 * (expected * (1 - p)) ** 0.5


def test_one_eyed_flush_main_and_jackpot() -> None:
    """Main wager vs the exact analysis (optimal strategy, heads-up); Jackpot fixed prizes vs the exact
    first-three-card counts (R-OEF-9)."""
    from tablegames.analysis import one_eyed_flush as exact

    rules = make_rules("one-eyed-flush")
    s = simulate("one-eyed-flush", 1_500_000, seed=15, strategy="optimal", wagers=Wagers(500, jackpot=100))
    within(s["results"]["main"], float(exact.analyze(rules).house_edge), "house_edge")
    counts = exact.first_three_counts()
    fixed = sum(counts[c] * p for c, p in rules.jackpot.fixed_prizes_cents.items()) / 22_100 / 100
    within(s["results"]["jackpot fixed prizes"], fixed)


@pytest.mark.parametrize("outcome", ["1", "9", "ten-value", "one-eyed"])
def test_flip_card_every_outcome_returns_48_of_52(outcome: str) -> None:
    """R-OEF-10: 4 cards at 11 to 1, 16 ten-value cards at 2 to 1, 3 one-eyed at 15 to 1: all return 48/52."""
    s = simulate("one-eyed-flush", 600_000, seed=16, wagers=Wagers(500, flip=500, flip_outcome=outcome))
    within(s["results"]["flip"], 48 / 52)


@pytest.mark.parametrize("face", ["10", "0"])
def test_final_count_house_edge(face: str) -> None:
    """R-FC-1..5 with the optimal strategy vs the exact analysis."""
    from tablegames.analysis import final_count as exact

    rules = make_rules("final-count", {"face-value": face})
    s = simulate("final-count", 2_000_000, seed=17, options={"face-value": face}, strategy="optimal")
    within(s["results"]["main"], float(exact.analyze(rules).house_edge), "house_edge")


def test_let_it_ride_average_wager_counts_only_bets_left_riding() -> None:
    """Element of risk divides by the average total wagered: pulled bets (R-LIR-2, R-LIR-3) are not at risk.
    The exact average is 1.2237 units (Grochowski: 1.23 bets in action), so the element of risk is ~2.86%."""
    from tablegames.analysis.api import analyze_game

    exact = analyze_game(make_rules("let-it-ride"))
    row = simulate("let-it-ride", 1_000_000, seed=13)["results"]["bets"]
    assert abs(row["average_wager_units"] - float(exact.average_wager)) < 0.004  # sd of bets up ~0.6 -> 4 SE
    assert abs(row["element_of_risk"] - row["house_edge"] / row["average_wager_units"]) < 1e-12

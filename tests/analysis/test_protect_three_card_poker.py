"""Three Card Poker's game protection: dealer cards flashed before the play-or-fold decision (R-TCP-2)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_protect import engine_mean

from tablegames.analysis.api import analyze_game
from tablegames.analysis.protect import protect
from tablegames.analysis.protect_three_card_poker import solve
from tablegames.rules import make_rules

RULES = make_rules("three-card-poker")


def test_one_flashed_dealer_card_moves_the_player_from_minus_3373_to_plus_3483_percent() -> None:
    """The published anchor (E. Jacobson): one flashed dealer card turns -3.373% into +3.483%."""
    r = protect(RULES, "dealer-1")
    assert r.exact and r.player_ev == Fraction(443_162, 12_724_075)
    assert f"{float(r.fair_player_ev):+.3%}" == "-3.373%" and f"{float(r.player_ev):+.3%}" == "+3.483%"
    assert r.decisions_changed and r.change == r.player_ev - analyze_game(RULES).expected_value
    print("dealer-1", r.player_ev, float(r.player_ev))


def test_nothing_seen_is_the_fair_analysis_exactly_and_more_seen_is_worth_more() -> None:
    assert solve(RULES, "none").player_ev == analyze_game(RULES).expected_value
    assert solve(RULES, "none").decisions_changed == ()
    evs = [solve(RULES, s).player_ev for s in ("none", "dealer-1", "dealer-2", "dealer-3")]
    assert evs == sorted(evs) and evs[-1] == Fraction(38_556_249, 101_792_600)


@pytest.mark.parametrize(
    ("scenario", "rounds"), [("dealer-1", 30_000), ("dealer-2", 20_000), ("dealer-3", 20_000)]
)
def test_the_engine_with_an_informed_bot_agrees_within_4_se(scenario: str, rounds: int) -> None:
    r = protect(RULES, scenario)
    mean, se = engine_mean("three-card-poker", scenario, rounds)
    assert abs(mean - float(r.player_ev)) < 4 * se, (mean, se, float(r.player_ev))
    assert abs(mean - float(r.fair_player_ev)) > 4 * se  # the bot really plays on what it sees


def test_share_2_is_simulated_and_says_so() -> None:
    r = protect(RULES, "share=2", sim_rounds=2_000)
    assert not r.exact and r.ci is not None and r.rounds_simulated == 2_000
    lo, hi = r.ci
    assert lo <= float(r.player_ev) <= hi and lo < float(r.fair_player_ev) + 0.01


@pytest.mark.parametrize(
    "options",
    [
        {"qualifier": "king-high", "ties": "dealer-wins"},
        {"qualifier": "jack-high", "ante-bonus.trips": "7", "no-qualify-ante": "0", "play-pays": "2"},
    ],
    ids=["king-high,dealer-wins", "jack-high,payouts"],
)
def test_the_protection_reads_the_rule_set(options: dict[str, str]) -> None:
    """Issue 15: the protection's own enumeration takes the rules' qualifier and payouts: nothing seen is
    the fair analysis of the same rules exactly (not RULES.md's), and more seen is worth more."""
    rules = make_rules("three-card-poker", options)
    fair = analyze_game(rules).expected_value
    assert fair != analyze_game(RULES).expected_value
    assert solve(rules, "none").player_ev == fair
    assert fair < solve(rules, "dealer-3").player_ev

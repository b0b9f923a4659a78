"""Three Card Poker's exact analysis against the published figures (Wizard of Odds), R-TCP-7."""

from __future__ import annotations

import json
from fractions import Fraction

from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game, tune
from tablegames.analysis.three_card_poker import DEALS, optimal_strategy
from tablegames.cards import parse_cards
from tablegames.cli import app
from tablegames.rules import make_rules

RULES = make_rules("three-card-poker")


def test_ante_play_house_edge_element_of_risk_and_strategy_match_the_published_figures() -> None:
    a = analyze_game(RULES)
    assert a.total == DEALS == 22_100 * 18_424
    assert a.house_edge == Fraction(686_689, 20_358_520)
    assert f"{float(a.house_edge):.2%}" == "3.37%"  # per Ante, Ante Bonus 5-4-1 included
    assert f"{float(a.element_of_risk):.2%}" == "2.01%"
    assert a.strategy_summary[0] == "Play Q-6-4 or better, fold the rest."
    print("Ante/Play house edge", a.house_edge, float(a.house_edge), "element of risk", a.element_of_risk)


def test_pair_plus_house_edges_match_the_published_figures() -> None:
    pp = analyze_game(RULES).side_bets["pair-plus"]
    assert pp.house_edge == Fraction(128, 5525) and f"{float(pp.house_edge):.2%}" == "2.32%"
    low = analyze_game(make_rules("three-card-poker", {"pair-plus": "40-30-6-3-1"})).side_bets["pair-plus"]
    assert low.house_edge == Fraction(402, 5525) and f"{float(low.house_edge):.2%}" == "7.28%"
    print("Pair Plus", pp.house_edge, low.house_edge)


def test_the_strategy_gives_both_options_for_every_hand() -> None:
    s = optimal_strategy(RULES)
    q64 = s.options(parse_cards("Qh 6d 4c"))
    q63 = s.options(parse_cards("Qh 6d 3c"))
    assert q64["fold"] == q63["fold"] == -1
    assert q64["play"] > -1 > q63["play"]  # the threshold hand plays, one pip less folds
    # the EV of playing an unbeatable hand: A-K-Q suited wins or the dealer does not qualify; bonus 5 to 1
    akq = s.options(parse_cards("As Ks Qs"))["play"]
    assert 6 < akq < 7


def test_tune_solves_a_pair_plus_payout() -> None:
    r = tune(RULES, Fraction(5, 100), "pair-plus:flush")
    assert r.wager == "pair plus" and r.odds == 3  # 3 to 1 gives 7.28%, 4 to 1 2.32%: 5% lies between


def test_cli_analyze_json() -> None:
    out = CliRunner().invoke(app, ["analyze", "three-card-poker", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["game"] == "three-card-poker" and data["house_edge_exact"] == "686689/20358520"
    assert data["side_bets"]["pair-plus"]["house_edge_exact"] == "128/5525"


def test_the_dealer_not_qualifying_is_a_category_of_the_ante() -> None:
    """R-TCP-4: one name across the engine and the analysis: every return-table row where the dealer does not
    qualify settles as ``dealer-does-not-qualify``; the categories add up to 1."""
    from tablegames.analysis.three_card_poker import analyze
    from tablegames.rules import three_card_poker as tcp_rules

    a = analyze(tcp_rules.ThreeCardPokerRules())
    rows = [o for o in a.outcomes if "dealer does not qualify" in o.name]
    assert rows and all(o.category == tcp_rules.NOT_QUALIFIED for o in rows)
    assert {o.category for o in a.outcomes} == {"fold", tcp_rules.NOT_QUALIFIED, "win", "push", "lose"}
    assert sum(a.categories().values()) == 1

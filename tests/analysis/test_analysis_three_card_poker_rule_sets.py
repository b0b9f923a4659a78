"""Three Card Poker's exact analysis under random valid rule sets (issue 15): it settles each stacked deck as the
engine does (``deal_value``, the generic tie test's check), agrees with a seeded simulation within 4 SE, and
counts the dealer hands against each player hand as a direct enumeration does, for every qualifier."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_analysis_engine_tie_registry import tie

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.common import colex_of
from tablegames.rules import make_rules, registry
from tablegames.rules import three_card_poker as tcp
from tablegames.rules.parameters import LOSES, Parameter
from tablegames.simulation import Wagers, make_job, run_job

GAME = "three-card-poker"
PARAMS = [p for p in registry.get(GAME).parameters if p.listed and p.kind != "text"]


def _value(p: Parameter) -> st.SearchStrategy[str]:
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "int":
        return st.integers(0, 3).map(str)  # the Ante and Play payouts
    return st.one_of(st.just(LOSES), st.integers(0, 60).map(str))  # a pay-table entry


@st.composite
def rule_sets(draw: st.DrawFn) -> dict[str, str]:
    """A random valid rule set: a few parameters changed (the qualifier and ties often among them)."""
    chosen = draw(st.lists(st.sampled_from(PARAMS), min_size=1, max_size=6, unique_by=lambda p: p.name))
    options = {p.name: draw(_value(p)) for p in chosen}
    if draw(st.booleans()):
        options["qualifier"] = draw(st.sampled_from([q.value for q in tcp.Qualifier]))
    return options


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=rule_sets(), seed=st.integers(0, 10**6))
def test_random_rule_sets_settle_as_the_engine_on_random_decks(options: dict[str, str], seed: int) -> None:
    """The generic analysis-engine tie test (Ante with Play and Ante Bonus, Pair Plus, the fold) on random
    rule sets: the analysis' own tables give the engine's net for every wager, deck by deck."""
    rules = make_rules(GAME, options)
    assert tie(rules, 500, f"tcp-{seed}") > 0


def test_the_tie_covers_the_fold_the_dealer_not_qualifying_ties_and_the_bonus() -> None:
    """``deal_value`` on chosen decks: a fold, a tie (push or the dealer's, by ``ties``), a non-qualifying
    dealer (by ``qualifier``), an Ante Bonus, Pair Plus paid after a fold."""
    from test_analysis_engine_tie_registry import engine_nets

    from tablegames.analysis.common import stacked_deck
    from tablegames.cards import parse_cards

    found = analyzer(GAME)
    cases = [
        ({}, "9h 6d 3c", "Ah Kd 8s", {"ante": -500, "pair-plus": -500}),  # folds (under Q-6-4)
        ({}, "Qh 9d 8c", "Qs 9c 8s", {"ante": 0, "pair-plus": -500}),  # an equal hand pushes both
        ({"ties": "dealer-wins"}, "Qh 9d 8c", "Qs 9c 8s", {"ante": -1000, "pair-plus": -500}),
        ({"qualifier": "king-high"}, "Kh 7d 2c", "Qs Jc 9s", {"ante": 500, "pair-plus": -500}),
        ({}, "4h 5h 6h", "9h 9d 9s", {"ante": 1000 + 2500, "pair-plus": 40 * 500}),  # bonus 5 to 1
        ({"pair-plus.flush": "9"}, "2h 7h 9h", "Ah Kd 8s", {"ante": 1000, "pair-plus": 9 * 500}),
    ]
    for options, seat, dealer, want in cases:
        rules = make_rules(GAME, options)
        deck = list(stacked_deck(parse_cards(seat), parse_cards(dealer)))
        wagers = found.tie_wagers(rules, 500)
        assert found.deal_value(rules, deck, wagers) == want == engine_nets(rules, deck, wagers), options


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=rule_sets(), seed=st.integers(1, 10**6))
def test_random_rule_sets_agree_with_a_seeded_simulation_within_4_se(
    options: dict[str, str], seed: int
) -> None:
    """House edge of the Ante (Play and Ante Bonus included) and of Pair Plus: exact vs 300,000 simulated
    rounds of the kernel (which settles as the engine, tests/simulation) with the optimal strategy."""
    rules = make_rules(GAME, options)
    a = analyze_game(rules)
    job = make_job(rules, 300_000, seed=seed, strategy="optimal", wagers=Wagers(500, **{"pair-plus": 100}))
    res = run_job(job).summary()["results"]
    for name, exact in (("ante", a.house_edge), ("pair-plus", a.side_bets["pair-plus"].house_edge)):
        row = res[name]
        assert abs(row["house_edge"] - float(exact)) <= 4 * row["std_error"] + 1e-12, (
            name,
            row,
            float(exact),
        )


@pytest.mark.parametrize("qualifier", list(tcp.Qualifier))
def test_dealer_hand_counts_match_a_direct_enumeration_for_every_qualifier(qualifier: tcp.Qualifier) -> None:
    """The per-class histograms give, for each qualifier, the counts a direct enumeration of the 18,424 dealer
    hands finds with the rules' own ``result`` (R-TCP-3/4), for random player hands."""
    rules = tcp.ThreeCardPokerRules(qualifier=qualifier)
    counts = tcpa._rules_counts(rules).results
    rng = random.Random(str(qualifier))
    for _ in range(3):
        mine = rng.sample(range(52), 3)
        me = tcp.strength(mine)
        want = [0, 0, 0, 0]
        for d in combinations([c for c in range(52) if c not in mine], 3):
            want[rules.result(me, tcp.strength(d))] += 1
        assert counts[colex_of(mine)].tolist() == want, (qualifier, mine)


def test_the_qualifier_and_dealer_ties_move_the_edge() -> None:
    """R-TCP-4's alternatives: each qualifier is a different game; queen high is the one that gives the house
    the most (the dealer failing to qualify mostly pushes a Play the player would have won, and a stricter
    qualifier pays the Ante so often that every hand plays); ties won by the dealer cost the player."""
    edges = {
        q.value: analyze_game(make_rules(GAME, {"qualifier": q.value})).house_edge for q in tcp.Qualifier
    }
    assert edges["queen-high"] == Fraction(686_689, 20_358_520)
    assert len(set(edges.values())) == len(edges)
    assert max(edges, key=lambda q: edges[q]) == "queen-high"
    assert edges["none"] < 0 and edges["pair"] < edges["ace-high"] < 0 < edges["king-high"]
    for strict in ("king-high", "ace-high", "pair"):
        assert tcpa.optimal_strategy(make_rules(GAME, {"qualifier": strict})).plays.all(), strict
    dealer = analyze_game(make_rules(GAME, {"ties": "dealer-wins"}))
    assert dealer.house_edge > edges["queen-high"]
    assert dealer.strategy_summary[0] == "Play Q-6-4 or better, fold the rest."


def test_a_payout_change_reuses_the_counts() -> None:
    """What depends only on the qualifier is counted once; a pay-table change re-solves from it (the speed
    of issue 15's live re-solve)."""
    analyze_game(make_rules(GAME))
    before = tcpa._counts.cache_info().misses
    for options in (
        {"pair-plus.flush": "5"},
        {"ante-bonus.trips": "3"},
        {"ante-pays": "2", "ties": "dealer-wins"},
    ):
        analyze_game(make_rules(GAME, options))
    assert tcpa._counts.cache_info().misses == before


@settings(max_examples=10, deadline=None)
@given(options=rule_sets())
def test_the_worked_examples_hold_under_random_rule_sets(options: dict[str, str]) -> None:
    """The report's worked examples take their expected outcomes from the rule set (the engine checks them):
    a stricter qualifier that plays every hand, or other payouts, still build every example."""
    from tablegames.analysis.examples import play_example

    rules = make_rules(GAME, options)
    examples = analyzer(rules).worked_examples(rules)
    assert len(examples) == 5
    for spec in examples:
        played = play_example(rules, spec)  # raises ExampleError when the engine settles otherwise
        assert {s.wager for s in played.settlements if s.seat == 1} >= set(spec.expect)

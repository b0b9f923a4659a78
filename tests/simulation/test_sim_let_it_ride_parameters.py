"""Let It Ride at random valid rule sets (issue 15): every group of RULES.md §1's parameters drawn (qualifier,
main and 3-Card Bonus pay tables, cap, the Progressive's wager, prizes, meters and Envy amounts). The kernel
settles stacked decks exactly as the round engine; the exact analysis settles them as the engine too
(``deal_value``); and a seeded simulation (the kernel, equal to the engine deal by deal) lands within 4 SE of
the exact figures."""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction
from math import comb

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.analysis import let_it_ride as lira
from tablegames.analysis.api import analyzer
from tablegames.analysis.common import ExampleSpec, stacked_deck
from tablegames.analysis.examples import play_example
from tablegames.cards import parse_cards
from tablegames.rules import make_rules
from tablegames.rules.common import enum_key
from tablegames.rules.let_it_ride import PAYING, BonusHand, LetItRideRules, Qualifier
from tablegames.simulation import make_job, run_job
from tablegames.simulation.job import Wagers

from .sim_helpers import random_decks, stacked
from .test_sim_equivalence import LIR_SPECIAL, check

# pays low to high (tens-or-better .. royal-flush), each from a sensible range, or "-" (the hand loses)
MAIN_RANGES = ((0, 2), (1, 4), (2, 5), (3, 8), (5, 10), (8, 15), (25, 100), (100, 500), (500, 2_000))
BONUS_RANGES = {
    BonusHand.PAIR: (0, 2),
    BonusHand.FLUSH: (2, 5),
    BonusHand.STRAIGHT: (4, 8),
    BonusHand.TRIPS: (25, 45),
    BonusHand.STRAIGHT_FLUSH: (35, 60),
    BonusHand.MINI_ROYAL: (40, 100),
}
FEW = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rule_sets(draw: st.DrawFn) -> dict[str, str]:
    """A random valid rule set as ``--rule`` options (a subset of the parameters; the rest RULES.md's)."""
    options: dict[str, str] = {"qualifier": draw(st.sampled_from([q.value for q in Qualifier][6:]))}
    if draw(st.booleans()):
        options["bonus-paytable"] = draw(st.sampled_from(["seed", "50-40-30-6-3-1", "50-40-30-6-4-1"]))
    for hand, (lo, hi) in zip(PAYING, MAIN_RANGES, strict=True):
        if draw(st.booleans()):
            options[f"main.{enum_key(hand)}"] = draw(st.one_of(st.integers(lo, hi).map(str), st.just("-")))
    for bonus, (lo, hi) in BONUS_RANGES.items():
        if draw(st.booleans()):
            options[f"bonus.{enum_key(bonus)}"] = str(draw(st.integers(lo, hi)))
    options["cap"] = str(draw(st.sampled_from([50_000, 500_000, 5_000_000, 100_000_000])))
    options["progressive.wager"] = str(draw(st.sampled_from([100, 200, 500])))
    prize = st.one_of(
        st.sampled_from(["mega", "major", "minor", "-"]), st.integers(1, 200).map(lambda d: f"${d}")
    )
    for hand in draw(st.lists(st.sampled_from(PAYING), max_size=3, unique=True)):
        options[f"progressive.{enum_key(hand)}"] = draw(prize)
    for meter in ("mega", "major", "minor"):
        if draw(st.booleans()):
            options[f"meter.{meter}.reset"] = str(draw(st.integers(0, 10_000_000)))
            options[f"meter.{meter}.share"] = f"{draw(st.integers(0, 15))}%"
    for hand in draw(st.lists(st.sampled_from(PAYING), max_size=2, unique=True)):
        options[f"envy.{enum_key(hand)}"] = str(draw(st.integers(0, 200_000)))
    return options


# heads-up, in deal order: a royal flush, a straight flush, quads (the meters), trips and a flush (fixed prizes)
HEADS_UP_SPECIAL = [
    stacked_deck(parse_cards(seat), parse_cards(dealer))
    for seat, dealer in (
        ("As Ks Qs", "2h Js Ts"),
        ("5s 6s 7s", "2d 8s 9s"),
        ("8c 8s 8d", "2d 8h 9d"),
        ("7c 7d 7h", "2d 2s 9c"),
        ("2h 5h 9h", "3c Kh Jh"),
    )
]


def wagers(rules: LetItRideRules, bet: int = 500) -> Wagers:
    return Wagers(bet, bonus=bet, progressive=rules.progressive.wager_cents)


@FEW
@given(options=rule_sets(), seats=st.sampled_from([1, 3]), strategy=st.sampled_from(["basic", "optimal"]))
def test_kernel_settles_as_the_engine_at_random_rule_sets(
    options: dict[str, str], seats: int, strategy: str
) -> None:
    rules = make_rules("let-it-ride", options)
    decks = random_decks(80, f"lir-params-{sorted(options.items())}")
    if seats == 3:
        decks = LIR_SPECIAL + decks
    else:  # a royal flush, a straight flush and quads heads-up: the meters, the fixed prizes and the cap
        decks += [
            stacked(1, {1: h}, dealer=d) for h, d in (("As Ks Qs", "2h Js Ts"), ("5s 6s 7s", "2d 8s 9s"))
        ]
        decks += [stacked(1, {1: "8c 8s 8d"}, dealer="2d 8h 9d")]
    detail, _ = check("let-it-ride", options, seats, wagers(rules, 2_000), decks, strategy)
    assert detail.shape == (len(decks), seats, 8)


@FEW
@given(options=rule_sets(), seed=st.integers(0, 10**6))
def test_the_analysis_settles_stacked_decks_as_the_engine_at_random_rule_sets(
    options: dict[str, str], seed: int
) -> None:
    """``deal_value`` (the analysis' own tables) equals the engine's net of every wager, deck by deck, at a
    small bet and at one the cap may reach."""
    rules = make_rules("let-it-ride", options)
    found = analyzer(rules)
    rng = random.Random(seed)
    for bet in (500, 250_000):
        placed = found.tie_wagers(rules, bet)
        decks = [list(d) for d in HEADS_UP_SPECIAL]
        for _ in range(25):
            decks.append(list(range(52)))
            rng.shuffle(decks[-1])
        for deck in decks:
            nets: dict[str, int] = defaultdict(int)
            for s in play_example(rules, ExampleSpec("tie", tuple(deck), placed)).settlements:
                nets[s.wager] += s.net
            assert found.deal_value(rules, deck, placed) == dict(nets), (options, bet, deck)


@FEW
@given(options=rule_sets(), seed=st.integers(0, 10**6))
def test_a_seeded_simulation_is_within_4_se_of_the_exact_figures(options: dict[str, str], seed: int) -> None:
    """The base game's house edge (at the simulated bet: the cap included), the 3-Card Bonus return and the
    Progressive's fixed prizes, exact, against 200,000 simulated rounds of the optimal strategy."""
    rules = make_rules("let-it-ride", options)
    bet = 500
    job = make_job(rules, 200_000, wagers=wagers(rules, bet), strategy="optimal", seed=seed)
    s = run_job(job).summary()["results"]
    exact = lira.analyze(rules, bet)
    bonus = lira.bonus_side_bet(rules.bonus_paytable)
    counts = lira.five_card_counts(rules.qualifier_rank)
    cfg = rules.progressive
    fixed = Fraction(
        sum(counts[h] * c for h, c in cfg.fixed_prizes_cents.items()), comb(52, 5) * cfg.wager_cents
    )
    for row, key, want in (
        (s["bets"], "house_edge", exact.house_edge),
        (s["bonus"], "return", 1 + bonus.expected_value),
        (s["progressive fixed prizes"], "return", fixed),
    ):
        se = row["std_error"]
        assert abs(row[key] - float(want)) <= 4 * se + 1e-12, (options, key, row[key], float(want), se)

"""One Eyed Flush under random valid rule sets (issue 15): every structural rule (wild cards, bust limit and rule,
the dealer's draw thresholds and wild draw, ties) and payout (main pay table, Jackpot, Flip Card) drawn at once.
For each: the exact analysis agrees with a seeded simulation within 4 SE; the kernel settles exactly as the
round engine on random and stacked decks (3 seats, every wager); the analysis' own settlement of a deal
(``deal_value``) is the engine's, cent for cent."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.analysis import one_eyed_flush as exact
from tablegames.analysis.common import ExampleSpec, stacked_deck
from tablegames.analysis.examples import play_example
from tablegames.cards import CARDS, format_cards
from tablegames.rules import make_rules
from tablegames.rules.common import enum_key
from tablegames.rules.one_eyed_flush import ALL_FLIP_BETS, Category, OneEyedFlushRules
from tablegames.simulation import run_job
from tablegames.simulation.job import Wagers, make_job, run_decks
from tablegames.simulation.meters import MeterBook
from tablegames.simulation.strategy import optimal_advisor

from .sim_helpers import engine_detail, random_decks, stacked

GAME = "one-eyed-flush"


@st.composite
def rule_sets(draw: st.DrawFn) -> dict[str, str]:
    """A random valid rule set as ``--rule`` options (RULES.md's defaults for what is not drawn)."""
    opts = {
        "ties": draw(st.sampled_from(["casino", "tournament"])),
        "bust": draw(st.sampled_from(["after-draw", "always"])),
        "bust-limit": str(draw(st.integers(9, 22))),
        "dealer-pair-draws-from": str(draw(st.integers(1, 11))),
        "dealer-no-pair-draws-from": str(draw(st.integers(3, 11))),
        "dealer-wild-draw": draw(st.sampled_from(["vs-wild", "always", "never"])),
    }
    wild = draw(st.lists(st.integers(0, 51), max_size=6, unique=True))
    opts["wild-cards"] = " ".join(str(CARDS[c]) for c in wild) or "none"
    for cat in draw(st.lists(st.sampled_from(list(Category)), max_size=3, unique=True)):
        opts[f"main.{enum_key(cat)}"] = str(draw(st.integers(1, 4)))
    opts["jackpot.wager"] = str(draw(st.sampled_from([100, 200, 500])))
    opts["jackpot.trips"] = str(draw(st.integers(0, 5_000)))
    if draw(st.booleans()):
        opts |= {"jackpot.trips-with-wild": "0", "jackpot.meter-hand": "trips-with-wild"}
    opts["flip.value"] = str(draw(st.integers(0, 20)))
    opts["flip.one-eyed"] = str(draw(st.integers(0, 30)))
    return opts


def within(row: dict[str, Any], want: Fraction, key: str = "return") -> None:
    se = row["std_error"]
    assert abs(row[key] - float(want)) <= 4 * se + 1e-12, f"{key} {row[key]:.5f} vs exact {float(want):.5f}"


@settings(max_examples=5, deadline=None, derandomize=True)
@given(rule_sets(), st.sampled_from([str(b) for b in ALL_FLIP_BETS]))
def test_exact_analysis_agrees_with_a_seeded_simulation(options: dict[str, str], outcome: str) -> None:
    rules = make_rules(GAME, options)
    assert isinstance(rules, OneEyedFlushRules)
    a = exact.analyze(rules)
    jp = rules.jackpot.wager_cents
    job = make_job(
        rules,
        300_000,
        seed=21,
        strategy="optimal",
        wagers=Wagers(500, jackpot=jp, flip=500, flip_outcome=outcome),
    )
    s = run_job(job).summary()["results"]
    within(s["main"], a.house_edge, "house_edge")
    counts = exact.first_three_counts(rules)
    fixed = Fraction(sum(counts[c] * p for c, p in rules.jackpot.fixed_prizes_cents.items()), 22_100 * jp)
    within(s["jackpot fixed prizes"], fixed)
    within(s["flip"], a.side_bets[f"flip-card {outcome}"].return_)


def _special_decks(rules: OneEyedFlushRules) -> list[list[int]]:
    """Decks where the rule set's own wild cards make the Jackpot's hands (the meter twice in a row)."""
    w = format_cards(rules.wild_cards).split()
    n = format_cards([c for c in range(52) if c not in rules.wild_cards]).split()
    out = []
    if len(w) >= 3:
        out += [stacked(3, {2: " ".join(w[:3])}, dealer=" ".join(n[:3])), stacked(3, {1: " ".join(w[:3])})]
    if w:  # a wild and a natural pair (Three of a Kind with a Wild Card), and a Pair with a Wild Card
        hands = {1: f"{w[0]} {n[0]} {n[1]}"} | ({3: f"{w[1]} {n[12]} {n[30]}"} if len(w) > 1 else {})
        out.append(stacked(3, hands, dealer=" ".join(n[40:43])))
    return out


@settings(max_examples=6, deadline=None)
@given(rule_sets(), st.sampled_from(["optimal", "basic"]), st.integers(0, 10**6))
def test_kernel_settles_as_the_engine(options: dict[str, str], strategy: str, seed: int) -> None:
    rules = make_rules(GAME, options)
    assert isinstance(rules, OneEyedFlushRules)
    decks = [*_special_decks(rules), *random_decks(80, f"oef-rules-{seed}")]
    wagers = Wagers(500, jackpot=rules.jackpot.wager_cents, flip=300, flip_outcome="one-eyed")
    job = make_job(rules, len(decks), seats=3, wagers=wagers, strategy=strategy)
    advisor = optimal_advisor(rules, wagers.main) if strategy == "optimal" else None
    expected, engine_hits = engine_detail(rules, decks, job, advisor)
    res, detail = run_decks(job, np.array(decks))
    bad = np.argwhere((detail != expected).any(axis=2))
    assert len(bad) == 0, (
        f"round {bad[0][0]} seat {bad[0][1] + 1}: {detail[tuple(bad[0])]} vs {expected[tuple(bad[0])]}"
    )
    amounts = MeterBook(job.meters, job.per_round).pay(res.hits)
    kernel_hits = [
        (int(h[0]), int(h[1]), job.meters[int(h[2])].name, a) for h, a in zip(res.hits, amounts, strict=True)
    ]
    assert kernel_hits == engine_hits


@settings(max_examples=6, deadline=None)
@given(rule_sets(), st.integers(0, 10**6))
def test_deal_value_settles_as_the_engine(options: dict[str, str], seed: int) -> None:
    rules = make_rules(GAME, options)
    assert isinstance(rules, OneEyedFlushRules)
    analyzer = exact.ANALYZER
    wagers = analyzer.tie_wagers(rules, 500)
    w = [int(c) for c in rules.wild_cards]
    naturals = [c for c in range(52) if c not in w]
    special = [stacked_deck(w[:3], naturals[:3])] if len(w) >= 3 else []  # the meter's hand (or not)
    special += [stacked_deck([w[0], *naturals[10:12]], naturals[:3])] if w else []
    for deck in [*map(list, special), *random_decks(40, f"oef-tie-{seed}")]:
        played = play_example(rules, ExampleSpec("tie", tuple(deck), wagers))
        want = {s.wager: s.net for s in played.settlements if s.seat == 1}
        assert analyzer.deal_value(rules, deck, wagers) == want, f"deck {deck}"

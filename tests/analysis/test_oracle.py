"""Issue 21: the exact oracle. Each exact analyzer's decision values (``advise``) and outcome probabilities
equal, as fractions, those of the round engine on complete subtrees (``engine.chance.complete_subtree``: every
way the cards the seat has not seen can fall, each played by the engine and settled by it).

A few fixed decisions per game, each complete:
* Final Count: every completion of a decision, the seat's and the dealer's third cards (48 x 47 = 2,256 deals);
* Three Card Poker: every dealer hand at a decision (C(49, 3) = 18,424), Pair Plus beside the Ante;
* Let It Ride: a first decision's community cards (49 x 48, the second decision by the strategy), the bonus
  and progressive beside it, at a small bet and at one the $50,000 cap (R-LIR-5) reaches;
* One Eyed Flush: standing, every dealer hand for a fixed hand and a wild Flip Card (no live seat holds a
  wild: the dealer does not draw, R-OEF-7), with the jackpot and Flip Card wagers (its value only: the
  analyzer's ``deal_value`` plays the optimal discard); the jackpot meter won at a meter far from its reset;
  and a discard's complete subtree, every draw and every dealer hand (and the dealer's draw against a live
  wild) for a fixed hand and Flip Card, at a table whose dealer draws only with a Pair with a Wild Card
  against a live wild (``dealer-*-draws-from=11``: the default dealer draws on most hands, 45 draws each,
  about 1.4 million rounds; this one plays 48 x 1,081 and 44 more per dealer hand that draws: the live-wild
  rule R-OEF-7 still decides);
* the meters: Let It Ride's progressive and One Eyed Flush's jackpot at meters far from their resets (the
  analyzer's ``deal_value`` given the meters before the round, as the engine's table holds them).

Envy (R-LIR-8) is paid by *another* seat's hand, which a seat never sees before the showdown: its complete
subtree from a decision would enumerate that seat's three cards too (16,215 hands times the community
cards), and the analyzer values Envy per other player over all hands (``envy_value``), not per deal.

The outcome check is deal by deal: on every chance outcome of the optimal decision the analyzer's own
settlement (``Analyzer.deal_value``) equals the engine's, so every outcome's probability is the same.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest

from tablegames.analysis.api import analyzer
from tablegames.analysis.oracle import (
    action_values,
    net_distribution,
    optimal_policy,
    outcome_probabilities,
    seat_nets,
    value,
)
from tablegames.cards import parse_cards
from tablegames.engine import Action, Round, Table
from tablegames.engine.chance import Leaf, complete_subtree, seen_positions
from tablegames.engine.events import CardDealt
from tablegames.rules import GameRules, make_rules
from tablegames.rules.common import cents_for_share
from tablegames.rules.one_eyed_flush import METER as OEF_METER


def decision(
    rules: GameRules,
    head: str,
    wagers: tuple[tuple[str, int, str | None], ...],
    meters: dict[str, int] | None = None,
) -> Round:
    """Seat 1 (heads-up) at its first decision, the deck's first cards ``head`` (deal order, R-0.2)."""
    cards = parse_cards(head)
    rnd = Table(rules, meters=meters).new_round([*cards, *(c for c in range(52) if c not in cards)])
    for wager, amount, option in wagers:
        rnd.place_wager(1, wager, amount, option)
    rnd.deal()
    assert rnd.to_act == 1
    return rnd


def advised(rnd: Round) -> dict[Action, Fraction]:
    found = analyzer(rnd.table.rules)
    bet = rnd.seats[1].wagers[rnd.main_wager()]
    strategy = found.optimal_strategy(rnd.table.rules, found.strategy_bet(rnd.table.rules, bet))
    legal = set(rnd.legal_actions(1))
    return {a: Fraction(v) for a, v in found.advise(strategy, rnd.decision_context(1)).items() if a in legal}


def check_outcomes(rnd: Round, leaves: list[Leaf]) -> dict[tuple[tuple[str, int], ...], Fraction]:
    """Every chance outcome settles in the analysis as in the engine; returns the exact distribution."""
    rules = rnd.table.rules
    found = analyzer(rules)
    wagers = tuple((e, a, rnd.seats[1].options.get(e)) for e, a in rnd.seats[1].wagers.items())
    analysed: dict[tuple[tuple[str, int], ...], Fraction] = defaultdict(Fraction)
    for leaf in leaves:
        got = found.deal_value(rules, leaf.round.deck, wagers, meters=leaf.round.meters_before)
        assert got is not None
        want = seat_nets(leaf.round, 1)
        assert {k: v for k, v in got.items() if v or k in want} == want, f"deck {leaf.round.deck[:10]}"
        analysed[tuple(sorted(want.items()))] += leaf.weight
    engine = net_distribution(leaves, 1)
    assert engine == dict(analysed)
    assert sum(engine.values()) == 1
    return engine


def check_decision(rnd: Round, expect_leaves: dict[str, int]) -> dict[tuple[tuple[str, int], ...], Fraction]:
    policy = optimal_policy(rnd.table.rules)
    want = advised(rnd)
    leaves = {a: list(complete_subtree(rnd, 1, a, policy)) for a in rnd.legal_actions(1)}
    assert {str(a): len(v) for a, v in leaves.items()} == expect_leaves
    got = {a: value(v, 1) for a, v in leaves.items()}
    assert got == want
    best = policy(rnd, 1)
    return check_outcomes(rnd, leaves[best])


def test_final_count_every_completion_of_a_decision() -> None:
    rules = make_rules("final-count")
    # seat 4c 6c (10, even), dealer 9d Kh up (19); the thirds are unseen
    rnd = decision(rules, "4c 9d 6c Kh 2s 5s", (("main", 100, None),))
    assert len(seen_positions(rnd, 1)) == 4
    # standing: only the dealer's third card is ever seen (48); turning: the seat's, then the dealer's
    dist = check_decision(rnd, {"stand": 48, "turn": 48 * 47})
    assert {dict(nets)["main"] for nets in dist} == {-100, 100}  # standing on 10 never ties the dealer's 20+


def test_final_count_rule_set_every_completion() -> None:
    """Issue 15's parameters: J/Q/K count 0, equal totals win 2 to 1, an odd dealer pays 3 to 1."""
    rules = make_rules(
        "final-count", {"face-value": "0", "tie": "win", "win-pays": "2", "dealer-bust-pays": "3"}
    )
    rnd = decision(rules, "Kc 8d 2c 4h 7s 9s", (("main", 300, None),))
    check_decision(rnd, {"stand": 48, "turn": 48 * 47})


@pytest.mark.slow  # 2 x 18,424 engine rounds: about 25 s on a quiet machine
def test_three_card_poker_every_dealer_hand() -> None:
    rules = make_rules("three-card-poker")
    # seat Qs 6d 4h (the edge of the play/fold line), Pair Plus beside the Ante
    rnd = decision(rules, "Qs 2c 6d 3c 4h 9h", (("ante", 100, None), ("pair-plus", 100, None)))
    dist = check_decision(rnd, {"play": 18_424, "fold": 18_424})
    assert sum(p for nets, p in dist.items() if ("ante", 100) in nets) > 0  # the dealer does not qualify


@pytest.mark.parametrize("bet", [2_500_000])  # one bet keeps the suite quick; the cap reaches it
def test_let_it_ride_a_first_decision_s_community_cards(bet: int) -> None:
    rules = make_rules("let-it-ride")
    # seat Ts Js Qs (a royal draw): at 25,000 dollars a bet the cap changes what riding is worth
    rnd = decision(
        rules,
        "Ts 2c Js 3d Qs 4h",
        (("bets", bet, None), ("bonus", bet, None), ("progressive", rules.progressive.wager_cents, None)),
    )
    dist = check_decision(rnd, {"pull": 49 * 48, "ride": 49 * 48})
    assert any(dict(nets).get("progressive", 0) > 0 for nets in dist)  # a meter or fixed prize is reachable


def test_one_eyed_flush_every_dealer_hand() -> None:
    rules = make_rules("one-eyed-flush")
    # seat 5c 5d 2h stands (its value against the analyzer's, though drawing to it is better); the Flip Card
    # Jh is wild and no live seat holds a wild: the dealer's Pair with a Wild Card stands (R-OEF-7, vs-wild)
    rnd = decision(
        rules,
        "5c Qd 5d Jh 2h 3c",
        (("main", 100, None), ("jackpot", rules.jackpot.wager_cents, None), ("flip", 500, "one-eyed")),
    )
    policy = optimal_policy(rules)
    stand = Action("stand")
    assert policy(rnd, 1) != stand
    leaves = list(complete_subtree(rnd, 1, stand, policy))
    assert len(leaves) == 1_128  # C(48, 2): the dealer's two unseen cards
    assert value(leaves, 1) == advised(rnd)[stand]
    assert all(sum(1 for e in leaf.round.history if getattr(e, "to", "") == "dealer") == 3 for leaf in leaves)
    probabilities = outcome_probabilities(leaves, 1)
    assert probabilities[("flip", "win")] == 1  # one-eyed named: 15 to 1 (R-OEF-10)
    assert probabilities[("jackpot", "lose")] == 1  # a natural pair pays nothing (R-OEF-9)
    assert probabilities[("main", "lose")] > 0


def test_an_analyzer_that_ignores_a_rule_is_caught() -> None:
    """The oracle tells the pays apart: at a table paying 2 to 1 when the dealer busts, the values of an
    analysis solved for RULES.md's even money are not the engine's, those solved for the table's are."""
    table_rules = make_rules("final-count", {"dealer-bust-pays": "2"})
    rnd = decision(table_rules, "4c 9d 6c Kh 2s 5s", (("main", 100, None),))
    values = action_values(rnd, 1, optimal_policy(table_rules))
    assert values == advised(rnd)
    found = analyzer(table_rules)
    stale = found.advise(found.optimal_strategy(make_rules("final-count")), rnd.decision_context(1))
    assert values != {a: Fraction(v) for a, v in stale.items()}


NEVER_DRAWS = {"dealer-pair-draws-from": "11", "dealer-no-pair-draws-from": "11"}
"""R-OEF-7 at a table whose dealer draws only with a Pair with a Wild Card against a live wild."""


def test_let_it_ride_the_progressive_at_meters_far_from_reset() -> None:
    """R-LIR-7: a meter prize pays the whole meter (the meter before the round plus this wager's share)."""
    rules = make_rules("let-it-ride")
    meters = {"mega": 12_345_678, "major": 654_321, "minor": 98_765}
    rnd = decision(
        rules,
        "9s 2c Ts 3d Js 4h",  # a straight flush draw: the Major meter (a Straight Flush) is reachable
        (("bets", 500, None), ("progressive", rules.progressive.wager_cents, None)),
        meters=meters,
    )
    dist = check_decision(rnd, {"pull": 49 * 48, "ride": 49 * 48})
    stake = rules.progressive.wager_cents
    major = meters["major"] + rules.progressive.meter("major").contribution(stake) - stake
    assert any(dict(nets).get("progressive") == major for nets in dist)


def test_one_eyed_flush_the_jackpot_meter_far_from_reset() -> None:
    """R-OEF-9: the One Eyed Flush on the first three cards takes the meter, whatever the dealer holds (a
    dealer who never draws: every dealer hand, C(48, 2), decides the main wager only)."""
    rules = make_rules("one-eyed-flush", NEVER_DRAWS)
    stake = rules.jackpot.wager_cents
    rnd = decision(
        rules,
        "Jh Qd Js 7c Kd 3c",
        (("main", 100, None), ("jackpot", stake, None)),
        meters={OEF_METER: 777_777},
    )
    stand = Action("stand")
    assert optimal_policy(rules)(rnd, 1) == stand
    leaves = list(complete_subtree(rnd, 1, stand, optimal_policy(rules)))
    assert len(leaves) == 1_128 and value(leaves, 1) == advised(rnd)[stand]
    dist = check_outcomes(rnd, leaves)
    won = 777_777 + cents_for_share(stake, rules.jackpot.share) - stake
    assert {dict(nets)["jackpot"] for nets in dist} == {won}


@pytest.mark.slow  # over 51,888 engine rounds: 31 s on the shared 2-core machine (172 s at load 10)
def test_one_eyed_flush_a_discard_s_every_draw_and_dealer_hand() -> None:
    """Seat Kc 9d 8s against a 5h Flip Card: the optimal discard's every draw (48) and every dealer hand
    (C(47, 2)), and the dealer's every draw where the seat drew a wild and the dealer holds a Pair with a
    Wild Card (R-OEF-7's live wild); standing's every dealer hand (C(48, 2)). Values and every net as the
    analyzer's, to the cent."""
    rules = make_rules("one-eyed-flush", NEVER_DRAWS)
    rnd = decision(
        rules,
        "Kc 2c 9d 5h 8s 3c",
        (("main", 100, None), ("jackpot", rules.jackpot.wager_cents, None), ("flip", 500, "5")),
    )
    policy = optimal_policy(rules)
    best, stand = policy(rnd, 1), Action("stand")
    assert best.name == "discard"
    want = advised(rnd)
    standing = list(complete_subtree(rnd, 1, stand, policy))
    assert len(standing) == 1_128 and value(standing, 1) == want[stand]
    leaves = list(complete_subtree(rnd, 1, best, policy))
    assert value(leaves, 1) == want[best]
    dist = check_outcomes(rnd, leaves)
    dealer_draws = [
        sum(1 for e in leaf.round.history if isinstance(e, CardDealt) and e.to == "dealer") == 4
        for leaf in leaves
    ]
    drawn = sum(dealer_draws)  # each dealer hand that draws: its 45 draws
    assert drawn % 45 == 0 and len(leaves) == 48 * 1_081 + 44 * (drawn // 45) and 0 < drawn < len(leaves)
    assert sum(p for nets, p in dist.items() if dict(nets)["main"] < 0) > 0

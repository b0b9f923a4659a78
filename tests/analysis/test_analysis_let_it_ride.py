"""Exact Let It Ride analysis: published figures (Wizard of Odds, Grochowski), exactness and fast-vs-plain."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import permutations

import pytest

from tablegames.analysis import let_it_ride as lir
from tablegames.cards import parse_cards
from tablegames.engine.actions import PULL, RIDE
from tablegames.rules.let_it_ride import BONUS_PAYTABLES, LetItRideRules, LirHand, lir_hand

RULES = LetItRideRules()


@pytest.fixture(scope="module")
def analysis() -> lir.Analysis:
    return lir.analyze(RULES)


def test_published_house_edge_and_element_of_risk(analysis: lir.Analysis) -> None:
    assert round(float(analysis.house_edge) * 100, 4) == 3.5057
    assert round(float(analysis.element_of_risk) * 100, 2) == 2.86


def test_published_first_decision_figures(analysis: lir.Analysis) -> None:
    assert round(analysis.strategy["p_ride_bet1"], 5) == 0.07276
    assert round(analysis.strategy["ev_bet1"], 5) == 0.10913
    # The exact strategy is the published one (R-LIR-2/3 with the cautious tie-break) on every hand.
    assert analysis.strategy["differences_from_published"] == {"bet1": 0, "bet2": 0}


def test_published_bonus_tables(analysis: lir.Analysis) -> None:
    assert round(float(analysis.side_bets["3-card-bonus 50-40-30-6-3-1"].house_edge) * 100, 2) == 7.10
    assert round(float(analysis.side_bets["3-card-bonus 50-40-30-6-4-1"].house_edge) * 100, 2) == 2.14
    assert set(BONUS_PAYTABLES) <= {name.split(" ", 1)[1] for name in analysis.side_bets if " " in name}


def test_probabilities_are_exact_and_sum_to_one(analysis: lir.Analysis) -> None:
    assert analysis.total == 22100 * 49 * 48
    assert sum(o.probability(analysis.total) for o in analysis.outcomes) == 1
    assert analysis.p_win + analysis.p_push + analysis.p_loss == 1
    assert analysis.p_push == 0  # Let It Ride has no pushes
    assert sum(o.contribution(analysis.total) for o in analysis.outcomes) == -analysis.house_edge
    for bet in analysis.side_bets.values():
        assert sum(o.probability(bet.total) for o in bet.outcomes) == 1


def test_strategy_ev_equals_reported_ev(analysis: lir.Analysis) -> None:
    strategy = lir.optimal_strategy(RULES)
    hands = lir.combos(52, 3)
    total = Fraction(0)
    for row in hands[::97]:  # a sample: the average of max EVs is checked exactly below on all hands
        evs = strategy.first([int(c) for c in row])
        assert strategy.best([int(c) for c in row]) == (RIDE if evs[RIDE] > evs[PULL] else PULL)
    sol = lir._solve(RULES, None)
    total = Fraction(int(sol.value3.max(axis=0).sum()), lir.TOTAL_DEALS)
    assert total == analysis.expected_value


def test_five_card_counts() -> None:
    c = lir.five_card_counts()
    assert c[LirHand.ROYAL_FLUSH] == 4 and c[LirHand.STRAIGHT_FLUSH] == 36 and c[LirHand.QUADS] == 624
    assert c[LirHand.FULL_HOUSE] == 3744 and c[LirHand.FLUSH] == 5108 and c[LirHand.STRAIGHT] == 10200
    assert sum(c.values()) == 2598960


def _plain_first(cards3: list[int]) -> dict[str, Fraction]:
    """Per-hand path: every ordered pair of community cards, scored by ``lir_hand``."""
    rest = [c for c in range(52) if c not in cards3]
    pay = RULES.main_paytable
    value = {0: 0, 1: 0}
    for c4 in rest:
        four = [*cards3, c4]
        fifth = [c for c in rest if c != c4]
        results = [pay.odds(lir_hand([*four, c5])) for c5 in fifth]
        unit = [(-1 if o is None else o) for o in results]
        s1 = sum(unit)
        for s in (0, 1):
            pull, ride = (s + 1) * s1, (s + 2) * s1
            value[s] += ride if ride > pull else pull
    return {"pull": Fraction(value[0], 49 * 48), "ride": Fraction(value[1], 49 * 48)}


def test_fast_path_equals_plain_per_hand_path() -> None:
    strategy = lir.optimal_strategy(RULES)
    rng = random.Random(3)
    hands = [parse_cards("Ts Js Qs"), parse_cards("4c 5d 6h"), parse_cards("2s 3s 4s")]
    hands += [rng.sample(range(52), 3) for _ in range(3)]
    for cards in hands:
        fast = strategy.first(cards)
        plain = _plain_first([int(c) for c in cards])
        assert fast[PULL] == plain["pull"] and fast[RIDE] == plain["ride"], cards


def test_hist4_equals_lir_hand_on_a_sample() -> None:
    h4 = lir.hist4()
    fours = lir.combos(52, 4)
    rng = random.Random(4)
    for idx in rng.sample(range(len(fours)), 150):
        cards = [int(c) for c in fours[idx]]
        counts = [0] * len(LirHand)
        for c in range(52):
            if c not in cards:
                counts[lir_hand([*cards, c])] += 1
        assert h4[idx].tolist() == counts


def test_strategy_api_and_cautious_tie() -> None:
    s = lir.optimal_strategy(RULES)
    assert s is lir.optimal_strategy(LetItRideRules())  # cached on the (hashable) rules
    assert s.best(parse_cards("Ts Js Qs")) == RIDE
    assert s.best(parse_cards("9h 9c 2d")) == PULL
    assert s.best(parse_cards("Th Tc 2d")) == RIDE
    # Four to an outside straight without a high card: riding is worth exactly 0, so it is pulled.
    for order in permutations(parse_cards("4c 5d 6h 7s")):
        evs = s.second(order)
        assert evs[RIDE] == evs[PULL] and s.best(order) == PULL
    evs = s.second(parse_cards("2h 5h 9h Kh"), bet1_up=False)
    assert evs[RIDE] > evs[PULL] and isinstance(evs[RIDE], Fraction)
    # Paying pair: riding wager 2 adds exactly the wager's EV; bet 1 up adds one more such wager.
    up = s.second(parse_cards("Ah Ad 2c 7s"), bet1_up=True)
    down = s.second(parse_cards("Ah Ad 2c 7s"), bet1_up=False)
    assert up[RIDE] - down[RIDE] == down[RIDE] - down[PULL] > 0
    with pytest.raises(ValueError):
        s.first(parse_cards("Ah Ad"))


def test_aggregate_cap_by_bet_size() -> None:
    base = lir.analyze(RULES).house_edge
    assert lir.analyze(RULES, bet_cents=100).house_edge == base  # $1 wagers never reach $50,000
    big = lir.analyze(RULES, bet_cents=10_000).house_edge  # $100: a royal on 3 wagers would pay $300,000
    assert big > base


def test_house_edge_by_bet_table() -> None:
    a = lir.analyze(RULES, bet_table=True)
    by_bet = a.extra["house_edge_by_bet"]
    assert (
        by_bet["100"] == by_bet["1000"] == float(a.house_edge)
    )  # up to $16.66 a royal on 3 wagers fits the cap
    assert by_bet["100"] < by_bet["2500"] < by_bet["10000"] < by_bet["50000"]


def test_bonus_counts_equal_bonus_hand_on_every_hand() -> None:
    from collections import Counter
    from itertools import combinations

    from tablegames.rules.let_it_ride import bonus_hand

    plain = Counter(bonus_hand(h) for h in combinations(range(52), 3))
    assert lir.bonus_counts() == dict(plain)

"""Exact One Eyed Flush analysis: the class-based Numba kernel against a plain per-card enumeration."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest

from tablegames.analysis import one_eyed_flush as oef
from tablegames.cards import parse_card, parse_cards
from tablegames.engine.actions import STAND, discard
from tablegames.rules.one_eyed_flush import (
    Category,
    DealerWildDraw,
    Hand,
    OneEyedFlushRules,
    compare,
    dealer_discard,
    evaluate,
    holds_wild,
    is_bust,
)

RULES = OneEyedFlushRules()


@pytest.fixture(scope="module")
def analysis() -> oef.Analysis:
    return oef.analyze(RULES)


@cache
def _eval(cards: tuple[int, ...]) -> Hand:
    return evaluate(cards)


@cache
def _discard(cards: tuple[int, ...], wild: bool) -> int | None:
    return dealer_discard(cards, wild, DealerWildDraw.VS_WILD)


def _plain_ev(cards3: list[int], flip: int, option: int | None) -> Fraction:
    """EV of one option by enumerating real cards: the draw, the dealer's hidden pair and the dealer's draw."""
    unknown = [c for c in range(52) if c not in (*cards3, flip)]
    total = 0
    denominator = 0
    draws = [None] if option is None else unknown
    for y in draws:
        final = tuple(cards3) if y is None else tuple(c if i != option else y for i, c in enumerate(cards3))
        hand = _eval(final)
        rest = [c for c in unknown if c != y]
        left = len(rest) - 2
        if is_bust(hand, y is not None):
            total -= left * len(rest) * (len(rest) - 1)
            denominator += left * len(rest) * (len(rest) - 1)
            continue
        wild = holds_wild(final)
        for g, h in combinations(rest, 2):
            dealer = (g, flip, h)
            i = _discard(dealer, wild)
            if i is None:
                outcomes = [(_eval(dealer), left)]
            else:
                kept = tuple(c for j, c in enumerate(dealer) if j != i)
                outcomes = [(_eval((*kept, z)), 1) for z in rest if z not in (g, h)]
            for dealer_hand, n in outcomes:
                r = compare(hand, dealer_hand)
                total += 2 * n * (RULES.win_odds(hand.category) if r > 0 else r)
                denominator += 2 * n
    return Fraction(total, denominator)


@pytest.mark.parametrize(
    "cards, flip",
    [("J♥ 5c 9d", "8s"), ("8s 8d 5c", "Kd"), ("2c 3d 9h", "4s"), ("Ac Qd Ks", "Js")],
)
def test_stand_ev_equals_plain_enumeration(cards: str, flip: str) -> None:
    strategy = oef.optimal_strategy(RULES)
    cs = [int(c) for c in parse_cards(cards)]
    f = int(parse_card(flip))
    assert strategy.options(cs, f)[STAND] == _plain_ev(cs, f, None)


@pytest.mark.slow
def test_draw_ev_equals_plain_enumeration() -> None:
    strategy = oef.optimal_strategy(RULES)
    cs = [int(c) for c in parse_cards("J♥ 5c 9d")]  # the dealer's wild-pair draw depends on this hand
    f = int(parse_card("8s"))
    assert strategy.options(cs, f)[discard(2)] == _plain_ev(cs, f, 2)


def test_probabilities_are_exact(analysis: oef.Analysis) -> None:
    assert analysis.total == 22100 * 49 * oef.D
    assert sum(o.probability(analysis.total) for o in analysis.outcomes) == 1
    assert analysis.p_win + analysis.p_push + analysis.p_loss == 1
    for bet in analysis.side_bets.values():
        assert sum(o.probability(bet.total) for o in bet.outcomes) == 1


def test_strategy_ev_equals_reported(analysis: oef.Analysis) -> None:
    sol = oef._solve(RULES)
    total = 0
    for key, w in ((k, int(sol.weight[k])) for k in zip(*sol.weight.nonzero(), strict=True)):
        total += w * int(sol.ev[key].max())
    assert Fraction(total, analysis.total) == analysis.expected_value


def test_strategy_api() -> None:
    s = oef.optimal_strategy(RULES)
    assert s is oef.optimal_strategy(OneEyedFlushRules())
    oef_hand = parse_cards("J♥ J♠ K♦")
    assert s.best(oef_hand, parse_card("5c")) == STAND
    opts = s.options(parse_cards("9c Qd 8h"), parse_card("2s"))
    assert set(opts) == {STAND, discard(0), discard(1), discard(2)}
    best = s.best(parse_cards("9c Qd 8h"), parse_card("2s"))
    assert opts[best] == max(opts.values())
    # Standing on the top hand can only push or win: its EV is positive.
    assert s.options(oef_hand, parse_card("5c"))[STAND] > 0


def test_jackpot_and_flip_card(analysis: oef.Analysis) -> None:
    counts = oef.first_three_counts()
    assert counts[Category.ONE_EYED_FLUSH] == 1
    assert sum(counts.values()) == 22100
    jackpot = analysis.side_bets["jackpot (meter $5,000.00)"]
    # $5,000 for 1 on 1 hand in 22,100, $20/$30/$1 for the fixed prizes (R-OEF-9)
    n = counts
    paid = (
        500_000 * 1
        + 2_000 * n[Category.TRIPS_WITH_WILD]
        + 3_000 * n[Category.TRIPS]
        + 100 * n[Category.PAIR_WITH_WILD]
    )
    assert jackpot.return_ == Fraction(paid, 22100 * 100)
    one_eyed = analysis.side_bets["flip-card one-eyed"]
    assert one_eyed.return_ == Fraction(3 * 16, 52)  # 3 cards in 52 pay 15 to 1
    ten = analysis.side_bets["flip-card ten-value"]
    assert ten.return_ == Fraction(16 * 3, 52)


def test_variants_move_the_edge_the_right_way(analysis: oef.Analysis) -> None:
    tournament = oef.analyze(OneEyedFlushRules.from_options({"ties": "tournament"}))
    assert tournament.house_edge < analysis.house_edge  # equal hands push instead of losing
    always = oef.analyze(OneEyedFlushRules.from_options({"bust": "always"}))
    assert always.house_edge > analysis.house_edge


def test_first_three_counts_equal_evaluate_on_every_hand() -> None:
    from collections import Counter

    plain = Counter(evaluate(h).category for h in combinations(range(52), 3))
    assert oef.first_three_counts() == {c: plain.get(c, 0) for c in Category}


def test_class_tables_equal_rule_functions_on_real_cards() -> None:
    import random

    t = oef._tables(RULES)
    rng = random.Random(5)
    for _ in range(3000):
        cards = rng.sample(range(52), 3)
        k = tuple(oef.card_class(c) for c in cards)
        assert t.hands[t.hand_of[k]] == evaluate(cards)
        for w in (False, True):
            i = dealer_discard(cards, w, RULES.dealer_wild_draw)
            pos = int(t.ddisc[(*k, int(w))])
            assert (i is None) == (pos < 0)
            if i is not None:
                assert oef.card_class(cards[i]) == k[pos]  # the same class: an identical hand after the draw

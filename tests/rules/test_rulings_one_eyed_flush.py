"""One Eyed Flush rulings R-OEF-1 .. R-OEF-10, with worked hands through the rules and the round engine."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest

from tablegames.cards import parse_cards
from tablegames.engine import BadIndex, BadWager, Table, discard
from tablegames.engine.events import CardDiscarded, JackpotHit, Settled
from tablegames.rules import make_rules
from tablegames.rules.one_eyed_flush import (
    WILD_CARDS,
    BustRule,
    Category,
    DealerWildDraw,
    FlipBet,
    OneEyedFlushRules,
    Ties,
    compare,
    dealer_discard,
    evaluate,
    flip_odds,
    is_bust,
    point_value,
)

Deck = Callable[[str], list[int]]


def ev(text: str) -> Any:
    return evaluate(parse_cards(text))


def settled(rnd: Any, seat: int) -> dict[str, Settled]:
    return {e.wager: e for e in rnd.history if isinstance(e, Settled) and e.seat == seat}


def test_R_OEF_1_wilds_and_point_values() -> None:
    """R-OEF-1: wilds and point values."""
    assert {str(c) for c in WILD_CARDS} == {"Jh", "Js", "Kd"}
    assert [point_value(c) for c in parse_cards("Ac 2c 9d Tc Jd Qs Kh")] == [1, 2, 9, 10, 10, 10, 10]
    assert ev("Tc Qs 2d").category == Category.NO_PAIR  # pairs by rank, not by value


@pytest.mark.parametrize(
    ("cards", "category", "key"),
    [
        ("Jh Js Kd", Category.ONE_EYED_FLUSH, 0),
        ("Jh Kd 4c", Category.TRIPS_WITH_WILD, 0),
        ("Js 7c 7d", Category.TRIPS_WITH_WILD, 0),
        ("J♥ 5♣ 9♦", Category.PAIR_WITH_WILD, 5),
        ("Kd Qc Tc", Category.PAIR_WITH_WILD, 10),
        ("7c 7d 7h", Category.TRIPS, 0),
        ("Kc Kh Ks", Category.TRIPS, 0),
        ("8♠ 8♦ 2♣", Category.PAIR, 2),
        ("Jc Jd Ac", Category.PAIR, 1),
        ("Ac 2d 3h", Category.NO_PAIR, 6),
        ("Tc Qs 2d", Category.NO_PAIR, 22),
    ],
)
def test_R_OEF_2_categories(cards: str, category: Category, key: int) -> None:
    """R-OEF-2: categories."""
    h = ev(cards)
    assert (h.category, h.key) == (category, key)


def test_R_OEF_2_category_counts_over_all_22100_hands() -> None:
    """R-OEF-2: category counts over all 22100 hands."""
    counts: dict[Category, int] = {}
    for hand in combinations(range(52), 3):
        c = evaluate(hand).category
        counts[c] = counts.get(c, 0) + 1
    # one-eyed flush 1; two wilds + any of 49 = 147; one wild + natural pair: 3 x (11x6 + 3 + 1) = 210
    assert counts[Category.ONE_EYED_FLUSH] == 1
    assert counts[Category.TRIPS_WITH_WILD] == 147 + 210
    assert counts[Category.TRIPS] == 11 * 4 + 1  # K has three naturals, J only two
    assert sum(counts.values()) == 22_100


def test_R_OEF_3_worked_comparisons() -> None:
    """R-OEF-3: worked comparisons."""
    assert compare(ev("J♥ 5♣ 9♦"), ev("8♠ 8♦ 2♣")) == 1  # pair with a wild beats a natural pair
    assert compare(ev("J♠ K♦ 4♣"), ev("J♥ 7♣ 7♦")) == 0  # trips with a wild: standoff
    assert compare(ev("7c 7d 7h"), ev("9c 9d 9h")) == 0  # natural trips: standoff
    assert compare(ev("Jh 3c 9d"), ev("Js 4c 9h")) == 1  # lower remaining card wins
    assert compare(ev("Jh 4c 9d"), ev("Js 4d 9h")) == -1  # equal: the dealer wins
    assert compare(ev("Jh 4c 9d"), ev("Js 4d 9h"), Ties.TOURNAMENT) == 0
    assert compare(ev("5c 5d 2h"), ev("8c 8d 3h")) == 1  # pairs cancel, lower remaining wins
    assert compare(ev("Ac 2d 4h"), ev("Ad 2c 5h")) == 1  # lower total wins
    assert compare(ev("Ac 2d 4h"), ev("Ad 2c 4s")) == -1  # equal totals: player must be lower
    assert compare(ev("Ac 2d 4h"), ev("Ad 2c 4s"), Ties.TOURNAMENT) == 0


def test_R_OEF_4_flip_card_is_dealers_second_card_and_public(deck: Deck) -> None:
    """R-OEF-4: flip card is dealers second card and public."""
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("2c 9s 3d 7h 4c Qc"))
    r.place_wager(1, "main", 500)
    r.deal()
    assert str(parse_cards("7h")[0]) == r.view(1)["flip_card"]
    dealer_view = r.view(1)["dealer"]
    assert dealer_view == [None, "7h", None]
    assert r.view(2 if 2 in r.seats else None)["seats"][0]["cards"] == [None, None, None]


def test_R_OEF_5_one_discard_and_draw_at_most(deck: Deck) -> None:
    """R-OEF-5: one discard and draw at most."""
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("2c 9s 3d 7h 9c Qc 4d"))
    r.place_wager(1, "main", 500)
    r.deal()
    with pytest.raises(BadIndex):
        r.act(1, discard(3))
    r.act(1, discard(2))  # 9c out, 4d in -> 2c 3d 4d = 9, stays in
    assert [str(c) for c in r.seats[1].cards] == ["2c", "3d", "4d"]
    assert r.is_over
    assert any(isinstance(e, CardDiscarded) and e.owner == "seat 1" for e in r.history)


def test_R_OEF_6_bust_only_after_draw_by_default() -> None:
    """R-OEF-6: bust only after draw by default."""
    fifteen = ev("5c 4d 6h")
    assert fifteen.key == 15
    assert is_bust(fifteen, drew=True)
    assert not is_bust(fifteen, drew=False)
    assert is_bust(fifteen, drew=False, rule=BustRule.ALWAYS)
    assert not is_bust(ev("Ac 2d 9h"), drew=True) and not is_bust(ev("Tc Td 9h"), drew=True)


def test_R_OEF_6_drawn_no_pair_of_15_busts_in_a_round(deck: Deck) -> None:
    """R-OEF-6: drawn no pair of 15 busts in a round."""
    t = Table(OneEyedFlushRules(), seats=1)
    # player 5c 4d Ac; draws 6h for the ace -> 5+4+6 = 15 after drawing: busts at once
    r = t.new_round(deck=deck("5c 9s 4d 7h Ac Qc 6h"))
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, discard(2))
    assert settled(r, 1)["main"].outcome == "bust"
    assert r.seats[1].out


def test_R_OEF_6_undrawn_15_does_not_bust_unless_variant(deck: Deck) -> None:
    """R-OEF-6: undrawn 15 does not bust unless variant."""
    for rules, outcome in ((OneEyedFlushRules(), "lose"), (OneEyedFlushRules(bust=BustRule.ALWAYS), "bust")):
        t = Table(rules, seats=1)
        # player 5c 4d 6h (15) stands; dealer 9s 7h 2c -> No Pair 18, draws for the 9 (value >= 7): gets Ac
        r = t.new_round(deck=deck("5c 9s 4d 7h 6h 2c Ac"))
        r.place_wager(1, "main", 500)
        r.deal()
        r.act(1, "stand")
        assert settled(r, 1)["main"].outcome == outcome


@pytest.mark.parametrize(
    ("dealer", "wild", "rule", "expected"),
    [
        ("8s 8d 5c", False, DealerWildDraw.VS_WILD, "5c"),  # pair, remaining 5: draws
        ("8s 8d 4c", False, DealerWildDraw.VS_WILD, None),  # remaining 4: stands
        ("2s 3c 7h", False, DealerWildDraw.VS_WILD, "7h"),  # no pair, highest 7: draws
        ("2s 3c 6h", False, DealerWildDraw.VS_WILD, None),
        ("Tc Qc 2h", False, DealerWildDraw.VS_WILD, "Qc"),  # equal values: the higher rank goes
        ("Jd Tc Kc", False, DealerWildDraw.VS_WILD, "Kc"),
        ("Jh 5c 9d", False, DealerWildDraw.VS_WILD, None),  # pair with a wild: only against a wild
        ("Jh 5c 9d", True, DealerWildDraw.VS_WILD, "9d"),  # discards the higher natural
        ("Jh 5c 9d", False, DealerWildDraw.ALWAYS, "9d"),
        ("Jh 5c 9d", True, DealerWildDraw.NEVER, None),
        ("Js Qc Tc", True, DealerWildDraw.VS_WILD, "Qc"),
        ("Jh Kd 4c", True, DealerWildDraw.ALWAYS, None),  # three of a kind with a wild stands
        ("7c 7d 7h", True, DealerWildDraw.ALWAYS, None),
    ],
)
def test_R_OEF_7_dealer_draw_policy(
    dealer: str, wild: bool, rule: DealerWildDraw, expected: str | None
) -> None:
    cards = parse_cards(dealer)
    idx = dealer_discard(cards, wild, rule)
    assert (None if idx is None else str(cards[idx])) == expected


def test_R_OEF_7_dealer_draws_against_a_player_wild_in_a_round(deck: Deck) -> None:
    """R-OEF-7: dealer draws against a player wild in a round."""
    # player Js 2c 3d (pair with a wild, remaining 2), dealer Jh 5c 9d -> draws for 9d: gets 4h -> remaining 4
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("Js Jh 2c 5c 3d 9d 4h"))
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, "stand")
    assert [str(c) for c in r.dealer] == ["Jh", "5c", "4h"]
    assert settled(r, 1)["main"].outcome == "win"  # remaining 2 < 4


def test_R_OEF_8_main_wager_even_money_and_push(deck: Deck) -> None:
    """R-OEF-8: main wager even money and push."""
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("7c 9c 7d 9d 7h 9h"))  # trips vs trips: standoff
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, "stand")
    assert (settled(r, 1)["main"].outcome, settled(r, 1)["main"].returned) == ("push", 500)
    assert OneEyedFlushRules().win_odds(Category.ONE_EYED_FLUSH) == 1


def test_R_OEF_9_jackpot_on_first_three_cards(deck: Deck) -> None:
    """R-OEF-9: jackpot on first three cards."""
    t = Table(OneEyedFlushRules(), seats=1, meters={"one-eyed-flush": 600_000})
    r = t.new_round(deck=deck("Jh 2c Js 3c Kd 4c"))
    r.place_wager(1, "main", 500)
    r.place_wager(1, "jackpot", 100)
    r.deal()
    r.act(1, "stand")
    hit = next(e for e in r.history if isinstance(e, JackpotHit))
    assert (hit.amount, hit.reset_to) == (600_010, 500_000)
    assert settled(r, 1)["jackpot"].returned == 600_010


@pytest.mark.parametrize(
    ("first", "draw", "paid"),
    [("Jh 7c 7d", None, 2_000), ("7c 7d 7h", None, 3_000), ("Jh 5c 9d", None, 100), ("5c 5d 9h", None, 0)],
)
def test_R_OEF_9_fixed_prizes(deck: Deck, first: str, draw: str | None, paid: int) -> None:
    """R-OEF-9: fixed prizes."""
    a, b, c = first.split()
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck(f"{a} 2s {b} 3s {c} 4s"))
    r.place_wager(1, "main", 500)
    r.place_wager(1, "jackpot", 100)
    r.deal()
    r.act(1, "stand")
    assert settled(r, 1)["jackpot"].returned == paid


def test_R_OEF_9_jackpot_ignores_the_draw(deck: Deck) -> None:
    """R-OEF-9: jackpot ignores the draw."""
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("7c 2s 7d 3s 9h 4s 7h"))  # draws 7h for 9h: trips after the draw only
    r.place_wager(1, "main", 500)
    r.place_wager(1, "jackpot", 100)
    r.deal()
    r.act(1, discard(2))
    assert settled(r, 1)["jackpot"].returned == 0


def test_R_OEF_10_flip_card_wager() -> None:
    """R-OEF-10: flip card wager."""
    seven, ten, queen, jh, kd = parse_cards("7c Th Qc Jh Kd")
    assert flip_odds(FlipBet.parse("7"), seven) == 11
    assert flip_odds(FlipBet.parse("8"), seven) is None
    assert flip_odds(FlipBet.parse("ten-value"), ten) == 2
    assert flip_odds(FlipBet.parse("ten-value"), queen) == 2
    assert flip_odds(FlipBet.parse("ten-value"), kd) == 2  # wild or not
    assert flip_odds(FlipBet.parse("one-eyed"), jh) == 15
    assert flip_odds(FlipBet.parse("one-eyed"), queen) is None


def test_R_OEF_10_flip_wager_in_a_round_and_bad_outcomes(deck: Deck) -> None:
    """R-OEF-10: flip wager in a round and bad outcomes."""
    t = Table(OneEyedFlushRules(), seats=1)
    r = t.new_round(deck=deck("2c 9s 3d Js 4c Qc"))
    r.place_wager(1, "main", 500)
    with pytest.raises(BadWager, match="1-9"):
        r.place_wager(1, "flip", 100, "10")
    with pytest.raises(BadWager, match="needs an outcome"):
        r.place_wager(1, "flip", 100)
    r.place_wager(1, "flip", 100, "one-eyed")
    r.deal()
    r.act(1, "stand")
    assert settled(r, 1)["flip"].returned == 1_600


def test_variant_names_parse() -> None:
    r = make_rules("one-eyed-flush", {"ties": "tournament", "bust": "always", "dealer-wild-draw": "never"})
    described = r.describe()  # type: ignore[union-attr]
    assert {k: described[k] for k in ("ties", "bust", "dealer-wild-draw", "main.name")} == {
        "ties": "tournament",
        "bust": "always",
        "dealer-wild-draw": "never",
        "main.name": "even-money",
    }
    assert described["bust-limit"] == "14" and described["wild-cards"] == "Jh Js Kd"  # the complete rule set

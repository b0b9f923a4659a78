"""Let It Ride rulings R-LIR-1 .. R-LIR-8, with worked hands through the rules and the round engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tablegames.cards import parse_cards
from tablegames.engine import PULL, RIDE, BadWager, SideBetWithoutMain, Table
from tablegames.engine.events import CardsRevealed, JackpotHit, NeighbourBonusPaid, Settled
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError
from tablegames.rules.let_it_ride import (
    BONUS_PAYTABLES,
    BonusHand,
    LetItRideRules,
    LirHand,
    bonus_hand,
    lir_hand,
    ride_first,
    ride_second,
)

Deck = Callable[[str], list[int]]


def settled(rnd: Any, seat: int) -> dict[str, Settled]:
    """A seat's settlements by wager name, and part when only some of the wager's bets (``bets 1``)."""
    return {
        f"{e.wager} {e.part}".strip(): e for e in rnd.history if isinstance(e, Settled) and e.seat == seat
    }


def play(
    deck: list[int],
    seats: int = 1,
    actions: tuple[str, str] = ("ride", "ride"),
    meters: dict[str, int] | None = None,
    **wagers: int,
) -> Any:
    """Every seat wagers 500 on the bets plus ``wagers``, then takes ``actions`` in turn; the finished round."""
    t = Table(LetItRideRules(), seats=seats, meters=meters)
    r = t.new_round(deck=deck)
    for s in range(1, seats + 1):
        r.place_wager(s, "bets", 500)
        for w, amt in wagers.items():
            r.place_wager(s, w, amt)
    r.deal()
    for a in actions:
        for s in range(1, seats + 1):
            r.act(s, a)
    assert r.is_over
    return r


def test_R_LIR_1_three_equal_wagers_and_optional_side_bets(deck: Deck) -> None:
    """R-LIR-1: three equal wagers and optional side bets."""
    t = Table(LetItRideRules(), seats=1, bankrolls={1: 10_000})
    r = t.new_round(deck=deck("2c"))
    with pytest.raises(SideBetWithoutMain):
        r.place_wager(1, "bonus", 100)
    r.place_wager(1, "bets", 500)
    assert t.bankrolls == {1: 10_000 - 1_500}  # three equal wagers
    r.place_wager(1, "bonus", 100)
    with pytest.raises(BadWager, match="fixed"):
        r.place_wager(1, "progressive", 500)
    r.place_wager(1, "progressive", 100)
    r.deal()
    assert len(r.seats[1].cards) == 3 and len(r.dealer) == 3


def test_R_LIR_2_and_3_burn_then_community_cards_and_pulls(deck: Deck) -> None:
    """R-LIR-2, R-LIR-3: burn then community cards and pulls."""
    # deal order seat 1, dealer x3: player 2c 7d 9h; dealer Ks (burn), 4c, Jd
    r = play(deck("2c Ks 7d 4c 9h Jd"), actions=("pull", "pull"))
    reveals = [e for e in r.history if isinstance(e, CardsRevealed) and e.owner == "community"]
    assert [list(e.cards) for e in reveals] == [parse_cards("4c"), parse_cards("Jd")]
    s = settled(r, 1)
    assert s["bets 1"].returned == 500 and s["bets 2"].returned == 500
    assert s["bets $"].staked == 500  # only "$" stays: it can never be withdrawn (R-LIR-3)
    assert s["bets $"].returned == 0
    assert {e.wager for e in s.values()} == {"bets"}  # one name: the wager placed (issue 12)


def test_R_LIR_3_dollar_bet_cannot_be_withdrawn(deck: Deck) -> None:
    """R-LIR-3: dollar bet cannot be withdrawn."""
    t = Table(LetItRideRules())
    r = t.new_round(deck=deck("2c Ks 7d 4c 9h Jd"))
    r.place_wager(1, "bets", 500)
    r.deal()
    assert r.legal_actions(1) == [PULL, RIDE]
    r.act(1, "pull")
    r.act(1, "pull")
    assert r.is_over and r.legal_actions(1) == []


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("Ah Kh Qh Jh Th", LirHand.ROYAL_FLUSH),
        ("9h Kh Qh Jh Th", LirHand.STRAIGHT_FLUSH),
        ("Ah 2h 3h 4h 5h", LirHand.STRAIGHT_FLUSH),
        ("9h 9c 9d 9s 2h", LirHand.QUADS),
        ("9h 9c 9d 2s 2h", LirHand.FULL_HOUSE),
        ("9h 3h 7h Jh 2h", LirHand.FLUSH),
        ("Ac 2d 3h 4s 5c", LirHand.STRAIGHT),
        ("Tc Jd Qh Ks Ac", LirHand.STRAIGHT),
        ("Qc Kd Ah 2s 3c", LirHand.NOTHING),  # no wrap-around straight
        ("9h 9c 9d 2s 3h", LirHand.TRIPS),
        ("3h 3c 2d 2s 9h", LirHand.TWO_PAIR),
        ("Th Tc 2d 5s 9h", LirHand.TENS_OR_BETTER),
        ("9h 9c 2d 5s Kh", LirHand.NOTHING),
    ],
)
def test_R_LIR_4_hand_classes(hand: str, expected: LirHand) -> None:
    """R-LIR-4: hand classes."""
    assert lir_hand(parse_cards(hand)) == expected


def test_R_LIR_4_each_bet_up_paid_by_the_table(deck: Deck) -> None:
    """R-LIR-4: each bet up paid by the table."""
    # player Th Tc 2d, community 5s 9h: pair of tens pays 1 to 1 on every bet still up
    r = play(deck("Th Ks Tc 5s 2d 9h"), actions=("ride", "pull"))
    s = settled(r, 1)
    assert s["bets 2"].outcome == "pulled"
    assert (s["bets 1 $"].staked, s["bets 1 $"].returned) == (1_000, 2_000)


def test_R_LIR_5_aggregate_cap_on_base_game_only(deck: Deck) -> None:
    """R-LIR-5: aggregate cap on base game only."""
    # royal flush with three $25 bets: 3 x 2,500 x 1000 = $75,000 capped at $50,000
    t = Table(LetItRideRules(), seats=1)
    r = t.new_round(deck=deck("Ah 2c Kh Qh Jh Th"))
    r.place_wager(1, "bets", 2_500)
    r.deal()
    r.act(1, "ride")
    r.act(1, "ride")
    base = settled(r, 1)["bets 1 2 $"]
    assert base.returned == 7_500 + 5_000_000
    assert "win $75,000.00 capped at $50,000.00 (R-LIR-5)" in base.detail  # dollars, not cents (issue 22)


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("Qs Ks As", BonusHand.MINI_ROYAL),
        ("As 2s 3s", BonusHand.STRAIGHT_FLUSH),
        ("Ac 2d 3h", BonusHand.STRAIGHT),
        ("Qc Kd Ah", BonusHand.STRAIGHT),
        ("Kc Ad 2h", BonusHand.HIGH_CARD),
        ("2h 7h 9h", BonusHand.FLUSH),
        ("7c 7d 7h", BonusHand.TRIPS),
        ("7c 7d 9h", BonusHand.PAIR),
    ],
)
def test_R_LIR_6_three_card_bonus_hands(cards: str, expected: BonusHand) -> None:
    """R-LIR-6: three card bonus hands."""
    assert bonus_hand(parse_cards(cards)) == expected


def test_R_LIR_6_pay_tables_by_name() -> None:
    """R-LIR-6: pay tables by name."""
    seed = BONUS_PAYTABLES["seed"]
    assert seed.odds(BonusHand.MINI_ROYAL) == seed.odds(BonusHand.STRAIGHT_FLUSH) == 50  # counted as a SF
    assert [seed.odds(h) for h in (BonusHand.TRIPS, BonusHand.STRAIGHT, BonusHand.FLUSH, BonusHand.PAIR)] == [
        40,
        6,
        3,
        1,
    ]
    for name, flush in (("50-40-30-6-3-1", 3), ("50-40-30-6-4-1", 4)):
        p = make_rules("let-it-ride", {"bonus-paytable": name}).bonus_paytable  # type: ignore[union-attr]
        assert [p.odds(h) for h in BonusHand if h != BonusHand.HIGH_CARD][::-1] == [50, 40, 30, 6, flush, 1]
    with pytest.raises(RuleError, match=r"bonus-paytable.*allowed: seed"):
        make_rules("let-it-ride", {"bonus-paytable": "99-1"})


def test_R_LIR_6_bonus_is_on_first_three_cards_independent_of_base(deck: Deck) -> None:
    """R-LIR-6: bonus is on first three cards independent of base."""
    r = play(deck("7c Ks 7d 4c 7h Jd"), actions=("pull", "pull"), bonus=100)
    assert settled(r, 1)["bonus"].returned == 100 * 41  # trips 40 to 1 (seed table)


def test_R_LIR_7_progressive_meters_fixed_prizes_and_resets(deck: Deck) -> None:
    """R-LIR-7: progressive meters fixed prizes and resets."""
    # deal order s1 s2 dealer x3; community Jh Th: seat 1 royal (Ah Kh Qh), seat 2 straight flush (9h 8h 7h)
    cards = deck("Ah 9h 2c Kh 8h Jh Qh 7h Th")
    r = play(cards, seats=2, actions=("pull", "pull"), meters={"mega": 6_000_000}, progressive=100)
    t = r.table
    hits = [e for e in r.history if isinstance(e, JackpotHit)]
    assert [(h.seat, h.meter, h.amount) for h in hits] == [
        (1, "mega", 6_000_000 + 20),
        (2, "major", 500_000 + 8),
    ]
    assert t.meters["mega"] == 5_000_000 and t.meters["major"] == 500_000 and t.meters["minor"] == 50_004
    assert settled(r, 1)["progressive"].returned == 6_000_020  # wager not returned


def test_R_LIR_7_meter_hit_pays_meter_and_resets(deck: Deck) -> None:
    """R-LIR-7: meter hit pays meter and resets."""
    r = play(deck("9h 2c 9s 9c 3d 9d"), meters={"minor": 70_000}, progressive=100)
    t = r.table
    hit = next(e for e in r.history if isinstance(e, JackpotHit))
    assert (hit.meter, hit.amount, hit.reset_to) == ("minor", 70_002, 50_000)
    assert t.meters["minor"] == 50_000


def test_R_LIR_7_fixed_prize_full_house(deck: Deck) -> None:
    """R-LIR-7: fixed prize full house."""
    r = play(deck("9h 2c 9s 9c 3d 3h"), actions=("ride", "ride"), progressive=100)
    assert settled(r, 1)["progressive"].returned == 5_000


def test_R_LIR_8_envy_to_every_other_progressive_player(deck: Deck) -> None:
    """R-LIR-8: envy to every other progressive player."""
    t = Table(LetItRideRules(), seats=3)
    # seat1 royal: Ah Kh Qh + community Jh Th; seat2 has progressive, seat3 has none
    r = t.new_round(deck=deck("Ah 2c 3c 4c Kh 5d 6d Jh Qh 8s 9s Th"))
    r.place_wager(1, "bets", 500)
    r.place_wager(1, "progressive", 100)
    r.place_wager(2, "bets", 500)
    r.place_wager(2, "progressive", 100)
    r.place_wager(3, "bets", 500)
    r.deal()
    for _ in range(2):
        for s in (1, 2, 3):
            r.act(s, "pull")
    envy = [e for e in r.history if isinstance(e, NeighbourBonusPaid)]
    assert [(e.seat, e.from_seat, e.amount) for e in envy] == [
        (2, 1, 100_000)
    ]  # not to seat 1 itself, not seat 3


def test_published_basic_strategy_examples() -> None:
    assert ride_first(parse_cards("Ts Js Qs"))  # three to a royal
    assert not ride_first(parse_cards("2s 3s 4s"))
    assert not ride_first(parse_cards("As 2s 3s"))
    assert ride_first(parse_cards("8s 9s Js"))  # one gap, one high card
    assert not ride_first(parse_cards("6s 7s 9s"))  # one gap, no high card
    assert ride_first(parse_cards("8s Ts Qs"))  # two gaps, two high cards
    assert not ride_first(parse_cards("7s 9s Js"))  # two gaps, one high card
    assert ride_second(parse_cards("3c 3d 9h 9s"))  # two pair
    assert not ride_second(parse_cards("3c 3d 9h Ks"))  # low pair


def test_R_LIR_7_two_hits_of_one_meter_paid_in_seat_order_second_from_reset(deck: Deck) -> None:
    """R-LIR-7: two hits of one meter paid in seat order second from reset."""
    # community 9c Kc: seat 1 holds 9h 9s 9d, seat 2 holds Kh Ks Kd -> both four of a kind (minor meter)
    cards = deck("9h Kh 2c 9s Ks 9c 9d Kd Kc")
    r = play(cards, seats=2, actions=("pull", "pull"), meters={"minor": 70_000}, progressive=100)
    t = r.table
    hits = [(e.seat, e.meter, e.amount) for e in r.history if isinstance(e, JackpotHit)]
    assert hits == [(1, "minor", 70_004), (2, "minor", 50_000)]
    assert t.meters["minor"] == 50_000


def test_the_main_wager_is_settled_once_per_part(deck: Deck) -> None:
    """Issue 12: the bets keep one name, ``bets``; the engine's guard is per (wager, part): a part settled
    twice, or the whole wager after one of its parts, is refused; distinct parts are not."""
    r = Table(LetItRideRules()).new_round(deck=deck("2c Ks 7d 4c 9h Jd"))
    r.place_wager(1, "bets", 500)
    r.deal()
    seat = r.seats[1]
    r.settle(seat, "bets", 500, 500, "pulled", part="1")
    with pytest.raises(AssertionError, match="settled twice"):
        r.settle(seat, "bets", 500, 500, "pulled", part="1")
    with pytest.raises(AssertionError, match="settled twice"):
        r.settle(seat, "bets", 1_000, 0, "lose", part="1 $")
    with pytest.raises(AssertionError, match="settled twice"):
        r.settle(seat, "bets", 1_000, 0, "lose")
    r.settle(seat, "bets", 1_000, 0, "lose", part="2 $")
    assert [(e.wager, e.part) for e in r.history if isinstance(e, Settled)] == [
        ("bets", "1"),
        ("bets", "2 $"),
    ]

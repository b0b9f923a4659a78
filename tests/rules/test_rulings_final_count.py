"""Final Count rulings R-FC-1 .. R-FC-5, with worked hands through the rules and the round engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tablegames.cards import parse_cards
from tablegames.engine import STAND, TURN, Table
from tablegames.engine.events import Settled
from tablegames.rules.final_count import FinalCountRules, player_final_total, showdown

Deck = Callable[[str], list[int]]


def settled(rnd: Any, seat: int) -> Settled:
    return next(e for e in rnd.history if isinstance(e, Settled) and e.seat == seat)


def test_R_FC_1_values_and_face_value_variant() -> None:
    """R-FC-1: values and face value variant."""
    ten, zero = FinalCountRules(), FinalCountRules.from_options({"face-value": "0"})
    cards = parse_cards("Ac 2d 9h Tc Jd Qs Kh")
    assert [ten.value(c) for c in cards] == [1, 2, 9, 10, 10, 10, 10]
    assert [zero.value(c) for c in cards] == [1, 2, 9, 10, 0, 0, 0]


def test_R_FC_2_third_card_unseen_by_everyone(deck: Deck) -> None:
    """R-FC-2: third card unseen by everyone."""
    t = Table(FinalCountRules(), seats=2)
    r = t.new_round(deck=deck("2c 4c 6c 4d 6d 2d 9h Th Kh"))
    for s in (1, 2):
        r.place_wager(s, "main", 500)
    r.deal()
    assert r.to_act == 1
    v = r.view(1)
    assert v["seats"][0]["cards"] == ["2c", "4d", None]  # own third card not peeked
    assert v["seats"][1]["cards"] == ["4c", "6d", None]  # up cards public
    assert v["dealer"] == ["6c", "2d", None]


def test_R_FC_3_odd_two_card_total_is_turned_by_the_dealer(deck: Deck) -> None:
    """R-FC-3: odd two card total is turned by the dealer."""
    # seat 1: 2c 5d (7, odd) -> turned 9h -> 16 even, stays; dealer 6c 3d Th = 19 odd: busts -> seat 1 wins
    t = Table(FinalCountRules(), seats=1)
    r = t.new_round(deck=deck("2c 6c 5d 3d 9h Th"))
    r.place_wager(1, "main", 500)
    r.deal()
    assert r.is_over  # no decision to take
    assert (settled(r, 1).outcome, settled(r, 1).returned) == ("win", 1_000)


def test_R_FC_3_odd_stays_odd_loses_at_once(deck: Deck) -> None:
    """R-FC-3: odd stays odd loses at once."""
    t = Table(FinalCountRules(), seats=2)
    # seat 1: 2c 5d + 8h = 15 odd -> loses at once; seat 2: 4c 6d (even) decides
    r = t.new_round(deck=deck("2c 4c 6c 5d 6d 3d 8h 9h Th"))
    for s in (1, 2):
        r.place_wager(s, "main", 500)
    r.deal()
    assert r.to_act == 2
    assert settled(r, 1).outcome == "lose" and r.seats[1].out


def test_R_FC_4_even_total_player_chooses(deck: Deck) -> None:
    """R-FC-4: even total player chooses."""
    t = Table(FinalCountRules(), seats=1)
    r = t.new_round(deck=deck("4c 6c 6d 2d 9h 4h"))  # player 10 (even); dealer 6c 2d 4h = 12
    r.place_wager(1, "main", 500)
    r.deal()
    assert r.legal_actions(1) == [STAND, TURN]
    r.act(1, TURN)  # 10 + 9 = 19 odd: loses at once
    assert settled(r, 1).outcome == "lose"


def test_R_FC_4_stand_keeps_two_card_total(deck: Deck) -> None:
    """R-FC-4: stand keeps two card total."""
    t = Table(FinalCountRules(), seats=1)
    r = t.new_round(deck=deck("Tc 6c Td 2d 9h 4h"))  # player 20 stands (9h never counted); dealer 12
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, STAND)
    assert (settled(r, 1).outcome, settled(r, 1).detail) == ("win", "20 vs dealer 12")


@pytest.mark.parametrize(
    ("player", "dealer", "result"),
    [(12, 15, 1), (12, 14, -1), (14, 14, 0), (20, 12, 1), (None, 15, -1)],
)
def test_R_FC_5_showdown(player: int | None, dealer: int, result: int) -> None:
    """R-FC-5: showdown."""
    assert showdown(player, dealer) == result


def test_R_FC_5_push_in_a_round(deck: Deck) -> None:
    """R-FC-5: push in a round."""
    t = Table(FinalCountRules(), seats=1)
    r = t.new_round(deck=deck("Tc 6c 4d 2d 9h 6h"))  # player 14 stands; dealer 6+2+6 = 14
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, STAND)
    assert (settled(r, 1).outcome, settled(r, 1).returned) == ("push", 500)


def test_player_final_total_rejects_standing_on_odd() -> None:
    with pytest.raises(ValueError, match="R-FC-3"):
        player_final_total(7, 2, turned=False)

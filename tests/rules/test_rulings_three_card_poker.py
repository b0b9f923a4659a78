"""Three Card Poker rulings R-TCP-1..6, played through the engine on stacked decks."""

from __future__ import annotations

import pytest

from tablegames.cards import CARDS, parse_cards
from tablegames.engine import Table
from tablegames.engine.errors import InsufficientFunds
from tablegames.rules import make_rules
from tablegames.rules import three_card_poker as tcp

RULES = make_rules("three-card-poker")


def deck(*hands: str) -> list[int]:
    """A deck dealing ``hands`` (seat 1, seat 2, ..., dealer last) one card at a time in seat order (R-0.2)."""
    cards = [parse_cards(h) for h in hands]
    head = [int(cards[j][i]) for i in range(3) for j in range(len(cards))]
    return head + [int(c) for c in CARDS if int(c) not in head]


def play(hands: list[str], wagers: dict[int, dict[str, int]], actions: dict[int, str]) -> dict[int, int]:
    table = Table(RULES, seats=len(hands) - 1)
    rnd = table.new_round(deck=deck(*hands))
    for seat, ws in wagers.items():
        for name, amount in ws.items():
            rnd.place_wager(seat, name, amount)
    rnd.deal()
    while rnd.to_act is not None:
        rnd.act(rnd.to_act, actions[rnd.to_act])
    assert rnd.is_over
    return dict(rnd.history[-1].net_by_seat)  # type: ignore[attr-defined]


def test_R_TCP_3_ranking_a_straight_beats_a_flush_and_a23_is_the_lowest_straight() -> None:
    """R-TCP-3: straight over flush, A-2-3 the lowest straight, kickers decide pairs, suits never."""
    s = tcp.strength
    assert s(parse_cards("2h 3d 4c")) > s(parse_cards("Ah Kh 9h"))  # straight over flush
    assert s(parse_cards("Ah 2d 3c")) < s(parse_cards("2h 3d 4c")) < s(parse_cards("Qh Kd Ac"))
    assert s(parse_cards("2h 2d 3c")) > s(parse_cards("Ah Kd Jc"))  # any pair over any high card
    assert s(parse_cards("9h 9d Ac")) > s(parse_cards("9c 9s Kd"))  # the kicker decides equal pairs
    assert s(parse_cards("Ah Kd 9c")) == s(parse_cards("As Kc 9d"))  # suits never break ties
    assert tcp.tcp_hand(parse_cards("Qs Ks As")) is tcp.TcpHand.STRAIGHT_FLUSH


def test_R_TCP_4_queen_high_qualifies() -> None:
    """R-TCP-4: the dealer qualifies with queen high or better."""
    assert tcp.qualifies(parse_cards("Qh 3d 2c")) and not tcp.qualifies(parse_cards("Jh Td 8c"))


def test_R_TCP_4_dealer_not_qualifying_pays_the_ante_and_pushes_the_play() -> None:
    """R-TCP-4: not qualifying, the Ante pays 1 to 1 and the Play pushes."""
    # seat 1: 2-5-7 (plays, loses to nothing: the dealer's J-9-8 does not qualify)
    nets = play(["2h 5d 7c", "Jh 9d 8s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: 100}


def test_R_TCP_4_qualifying_dealer_higher_hand_wins_ante_and_play() -> None:
    """R-TCP-4: against a qualifying dealer the better hand wins both, an equal hand pushes both."""
    nets = play(["Kh Kd 7c", "Qh 9d 8s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: 200}
    nets = play(["Qh 9d 7c", "Qs 9c 8s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: -200}
    nets = play(["Qh 9d 8c", "Qs 9c 8s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: 0}  # an equal hand pushes both


def test_R_TCP_2_fold_loses_the_ante_only() -> None:
    """R-TCP-2: a fold loses the Ante; the Play set aside beside it comes back."""
    assert play(["2h 5d 7c", "Qh 9d 8s"], {1: {"ante": 100}}, {1: "fold"}) == {1: -100}


def test_R_TCP_5_ante_bonus_is_paid_to_a_player_who_played_whatever_the_dealer_holds() -> None:
    """R-TCP-5: the Ante Bonus (5-4-1) on a played Ante, whatever the dealer holds; none on a fold."""
    # a straight (1 to 1 bonus) losing to the dealer's trips: ante and play lost, the bonus paid
    nets = play(["4h 5d 6c", "9h 9d 9s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: -200 + 100}
    # straight flush against a non-qualifying dealer: ante 1 to 1 + bonus 5 to 1, play pushes
    nets = play(["4h 5h 6h", "Jd 9d 8s"], {1: {"ante": 100}}, {1: "play"})
    assert nets == {1: 100 + 500}
    # folded: no bonus
    assert play(["4h 5h 6h", "Jd 9d 8s"], {1: {"ante": 100}}, {1: "fold"}) == {1: -100}


def test_R_TCP_6_pair_plus_whether_played_or_folded_and_alone() -> None:
    """R-TCP-6 (and R-TCP-1: Pair Plus alone): Pair Plus pays on the player's cards, played or folded."""
    # Pair Plus alone (R-TCP-1): no decision; a pair pays 1 to 1
    table = Table(RULES, seats=1)
    rnd = table.new_round(deck=deck("Th Td 2c", "Ah Kd 8s"))
    rnd.place_wager(1, "pair-plus", 100)
    rnd.deal()
    assert rnd.to_act is None and rnd.is_over
    assert rnd.history[-1].net_by_seat == {1: 100}  # type: ignore[attr-defined]
    # folded Ante, flush on Pair Plus: 4 to 1 (40-30-6-4-1), 3 to 1 with 40-30-6-3-1
    assert play(["2h 7h 9h", "Ah Kd 8s"], {1: {"ante": 100, "pair-plus": 100}}, {1: "fold"}) == {
        1: -100 + 400
    }
    low = make_rules("three-card-poker", {"pair-plus": "40-30-6-3-1"})
    assert low.pair_plus.odds(tcp.TcpHand.FLUSH) == 3


def test_R_TCP_1_a_wager_is_needed_and_the_play_is_set_aside() -> None:
    """R-TCP-1/R-TCP-2: an Ante costs twice its amount (the Play set aside beside it)."""
    table = Table(RULES, seats=1, bankrolls={1: 150})
    rnd = table.new_round()
    with pytest.raises(InsufficientFunds):
        rnd.place_wager(1, "ante", 100)  # Ante + the Play beside it: 200 > 150
    assert table.bankrolls == {1: 150}  # refused: nothing changed
    rnd.place_wager(1, "ante", 75)
    assert table.bankrolls == {1: 0}


def _ante_outcome(hands: list[str], options: dict[str, str] | None = None) -> tuple[str, int]:
    table = Table(make_rules("three-card-poker", options), seats=1)
    rnd = table.new_round(deck=deck(*hands))
    rnd.place_wager(1, "ante", 100)
    rnd.deal()
    rnd.act(1, "play")
    settled = [e for e in rnd.history if getattr(e, "wager", None) == "ante" and hasattr(e, "outcome")]
    return settled[-1].outcome, settled[-1].returned  # type: ignore[attr-defined]


def test_R_TCP_4_the_dealer_not_qualifying_is_the_ante_s_own_outcome() -> None:
    """R-TCP-4: the dealer not qualifying is one outcome of the Ante (its category in the analysis, the
    simulation and the report), whatever it pays: 1 to 1 by default, a push at ``no-qualify-ante=0``; a
    qualifying dealer's showdown settles by what the Ante returns (a losing straight's Ante Bonus: a push)."""
    assert _ante_outcome(["2h 5d 7c", "Jh 9d 8s"]) == (tcp.NOT_QUALIFIED, 200)
    assert _ante_outcome(["2h 5d 7c", "Jh 9d 8s"], {"no-qualify-ante": "0"}) == (tcp.NOT_QUALIFIED, 100)
    assert _ante_outcome(["Kh Kd 7c", "Ah 9d 8s"]) == ("win", 200)
    assert _ante_outcome(["2h 3d 4c", "5s 6d 7h"]) == ("push", 100)  # loses the showdown, Ante Bonus 1 to 1

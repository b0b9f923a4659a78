"""``Round.check_wagers``: the wagers of one request, validated together without placing any (the server checks a
main wager and its side bets this way before it writes anything, R-0.1)."""

from __future__ import annotations

import pytest

from tablegames.engine import IllegalAction, Round, Table
from tablegames.engine.errors import BadWager, InsufficientFunds, SideBetWithoutMain
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules


def _round(game: str, bankrolls: dict[int, int] | None = None) -> Round:
    return Table(make_rules(game), seats=2, source=SeededRandom(7), bankrolls=bankrolls).new_round()


def test_a_side_bet_may_come_with_its_main_wager_and_nothing_is_placed() -> None:
    rnd = _round("one-eyed-flush")
    before = len(rnd.history)
    cost = rnd.check_wagers(1, [("main", 500, None), ("jackpot", 100, None), ("flip", 200, "ten-value")])
    assert cost == sum(rnd.wager_cost(n, a) for n, a in (("main", 500), ("jackpot", 100), ("flip", 200)))
    assert len(rnd.history) == before and not rnd.seats[1].wagers and rnd.seats[1].staked == 0


def test_side_bet_alone_or_before_its_main_is_refused() -> None:
    rnd = _round("one-eyed-flush")
    with pytest.raises(SideBetWithoutMain):
        rnd.check_wagers(1, [("jackpot", 100, None)])
    with pytest.raises(SideBetWithoutMain):
        rnd.check_wagers(1, [("jackpot", 100, None), ("main", 500, None)])
    rnd.place_wager(1, "main", 500)
    assert rnd.check_wagers(1, [("jackpot", 100, None)]) == rnd.wager_cost("jackpot", 100)


def test_a_wager_already_placed_or_twice_in_the_list_is_refused() -> None:
    rnd = _round("let-it-ride")
    with pytest.raises(BadWager, match="already placed"):
        rnd.check_wagers(1, [("bets", 500, None), ("bets", 500, None)])
    rnd.place_wager(1, "bets", 500)
    with pytest.raises(BadWager, match="already placed"):
        rnd.check_wagers(1, [("bets", 500, None)])


def test_the_bankroll_must_cover_the_whole_list() -> None:
    rnd = _round("let-it-ride", bankrolls={1: 1_600, 2: 10_000})
    bets = rnd.wager_cost("bets", 500)  # three equal bets: 1,500
    assert rnd.check_wagers(1, [("bets", 500, None)]) == bets
    with pytest.raises(InsufficientFunds):
        rnd.check_wagers(1, [("bets", 500, None), ("bonus", 500, None)])
    assert rnd.check_wagers(2, [("bets", 500, None), ("bonus", 500, None)]) == bets + 500
    with pytest.raises(IllegalAction):
        rnd.check_wagers(1, [("bets", 0, None)])

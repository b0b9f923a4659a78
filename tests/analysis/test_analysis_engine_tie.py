"""The exact analyzers settle exactly as the round engine, hand by hand on stacked decks (not only within a
Monte Carlo's standard errors): Let It Ride's base game with every number of bets up at a small wager and at a
wager where the $50,000 cap bites (R-LIR-4, R-LIR-5), its progressive at the meter the engine pays (R-LIR-7),
and One Eyed Flush's jackpot on the first three cards (R-OEF-9)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tablegames.analysis import let_it_ride as lir_analysis
from tablegames.analysis import one_eyed_flush as oef_analysis
from tablegames.cards import parse_cards
from tablegames.engine import Table
from tablegames.engine.events import HandResult, JackpotHit, Settled
from tablegames.rules.common import enum_key
from tablegames.rules.let_it_ride import LetItRideRules, LirHand
from tablegames.rules.one_eyed_flush import Category, OneEyedFlushRules


def stacked(seat_cards: str, dealer: str) -> list[int]:
    """One seat: its three cards and the dealer's three, dealt one at a time (R-0.2), then the rest."""
    mine, theirs = parse_cards(seat_cards), parse_cards(dealer)
    head = [int(c) for pair in zip(mine, theirs, strict=True) for c in pair]
    return head + [c for c in range(52) if c not in head]


# three cards of the seat; the dealer's burn card, then the two community cards (R-LIR-2, R-LIR-3)
LIR_HANDS = {
    LirHand.NOTHING: ("2c 5d 9h", "2d Js 3s"),
    LirHand.TENS_OR_BETTER: ("Tc Td 2h", "2d 5s 8c"),
    LirHand.TWO_PAIR: ("4c 4d 9h", "2d 9s 2c"),
    LirHand.TRIPS: ("7c 7d 7h", "2d 2s 9c"),
    LirHand.STRAIGHT: ("5c 6d 7h", "2d 8s 9c"),
    LirHand.FLUSH: ("2h 7h 9h", "2d Jh 4h"),
    LirHand.FULL_HOUSE: ("8c 8d 8h", "2d 3s 3c"),
    LirHand.QUADS: ("Kc Kd Kh", "2d Ks 2c"),
    LirHand.STRAIGHT_FLUSH: ("5s 6s 7s", "2d 8s 9s"),
    LirHand.ROYAL_FLUSH: ("Ts Js Qs", "2d Ks As"),
}
PLANS = {3: ("ride", "ride"), 2: ("ride", "pull"), 1: ("pull", "pull")}  # bets up at the showdown


@pytest.mark.parametrize("hand", list(LirHand), ids=enum_key)
@pytest.mark.parametrize("bet", [500, 2_500_000])
def test_let_it_ride_base_and_progressive_settle_as_the_analysis(hand: LirHand, bet: int) -> None:
    rules = LetItRideRules()
    wins = lir_analysis.win_table(rules.main_paytable, bet, rules.cap_cents)
    seat, dealer = LIR_HANDS[hand]
    for up, plan in PLANS.items():
        table = Table(rules, seats=1)
        rnd = table.new_round(deck=stacked(seat, dealer))
        rnd.place_wager(1, "bets", bet)
        rnd.place_wager(1, "progressive", rules.progressive.wager_cents)
        rnd.deal()
        for action in plan:
            rnd.act(1, action)
        assert [e.hand for e in rnd.history if isinstance(e, HandResult)] == [enum_key(hand)]
        settled = [e for e in rnd.history if isinstance(e, Settled)]
        base_net = sum(e.net for e in settled if e.wager == "bets")
        assert base_net == wins[up, hand]  # the analysis' settlement of the base game, cap included
        if bet * up * (rules.main_paytable.odds(hand) or 0) > rules.cap_cents:
            assert (
                next(e for e in settled if e.wager == "bets" and e.outcome != "pulled").capped_from
                is not None
            )
        prog = next(e for e in settled if e.wager == "progressive")
        hit = {e.meter: e.amount for e in rnd.history if isinstance(e, JackpotHit)}
        side = lir_analysis.progressive_side_bet(rules, hit)  # the meters at the value the engine paid
        outcome = next(o for o in side.outcomes if o.name == lir_analysis._hand_name(hand))
        wager = rules.progressive.wager_cents
        assert outcome.payout == (Fraction(prog.returned - wager, wager) if prog.returned else -1)


OEF_FIRST_THREE = {
    Category.NO_PAIR: "2c 5d 9h",
    Category.PAIR: "8c 8d 3h",
    Category.TRIPS: "7c 7d 7h",
    Category.PAIR_WITH_WILD: "Jh 5c 9d",
    Category.TRIPS_WITH_WILD: "Jh 7c 7d",
    Category.ONE_EYED_FLUSH: "Jh Js Kd",
}


@pytest.mark.parametrize("category", list(Category), ids=enum_key)
def test_one_eyed_flush_jackpot_settles_as_the_analysis(category: Category) -> None:
    rules = OneEyedFlushRules()
    table = Table(rules, seats=1, meters={"one-eyed-flush": 812_345})
    rnd = table.new_round(deck=stacked(OEF_FIRST_THREE[category], "2s 3d 4c"))
    rnd.place_wager(1, "main", 500)
    rnd.place_wager(1, "jackpot", rules.jackpot.wager_cents)
    rnd.deal()
    rnd.act(1, "stand")
    jackpot = next(e for e in rnd.history if isinstance(e, Settled) and e.wager == "jackpot")
    paid_meter = next((e.amount for e in rnd.history if isinstance(e, JackpotHit)), None)
    assert (paid_meter is not None) == (category == rules.jackpot.meter_category)
    side = oef_analysis.jackpot_side_bet(rules, paid_meter or 812_345 + 10)
    outcome = next(o for o in side.outcomes if o.name == enum_key(category))
    wager = rules.jackpot.wager_cents
    assert outcome.payout == (Fraction(jackpot.returned - wager, wager) if jackpot.returned else -1)

"""The ledger postings of a round, a pure function of its history (engine.postings), tested without a
database on stacked rounds of every game: Envy (R-LIR-8), two hits of one meter in a round (R-LIR-7), the
cap (R-LIR-5), the One Eyed Flush jackpot (R-OEF-9), and seeded rounds of every registered game."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from engine_support import every_wager
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.cards import parse_cards
from tablegames.engine import Bot, Round, Table
from tablegames.engine.events import JackpotContribution, JackpotHit, NeighbourBonusPaid, RoundEnded, Settled
from tablegames.engine.postings import HOUSE, IN_PLAY, Posting, meter, net_by_role, postings, wallet
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules, registry


def stacked(seats: int, hands: dict[int, str], dealer: str = "") -> list[int]:
    """A deck dealing ``hands[s]`` (3 cards) to seat s and ``dealer`` to the dealer (R-0.2 deal order)."""
    pos: dict[int, int] = {}
    for s, text in hands.items():
        for p, c in enumerate(parse_cards(text)):
            pos[p * (seats + 1) + s - 1] = int(c)
    for p, c in enumerate(parse_cards(dealer)):
        pos[p * (seats + 1) + seats] = int(c)
    rest = iter(c for c in range(52) if c not in pos.values())
    return [pos[i] if i in pos else next(rest) for i in range(52)]


def play(rules: object, seats: int, main: int, deck: Sequence[int] | None = None, seed: int = 0) -> Round:
    definition = registry.of(rules)
    table = Table(
        rules, seats=seats, source=SeededRandom(seed), bankrolls={s: 10**9 for s in range(1, seats + 1)}
    )  # type: ignore[arg-type]
    rnd = table.new_round(deck=deck)
    for s in range(1, seats + 1):
        for name, amount, option in every_wager(definition, rules, main):
            rnd.place_wager(s, name, amount, option)
    rnd.deal()
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, Bot().choose(rnd, seat), by="bot")
    return rnd


def check(rnd: Round) -> list[Posting]:
    """The postings' nets equal the engine's: per seat, house, in play, meters."""
    moves = postings(rnd.history)
    end = rnd.history[-1]
    assert isinstance(end, RoundEnded)
    net = net_by_role(moves)
    assert sum(net.values()) == 0  # every posting leaves one account and enters another
    assert all(p.amount_cents > 0 and p.from_role != p.to_role for p in moves)
    for seat, engine_net in end.net_by_seat.items():
        assert net.get(wallet(seat), 0) == engine_net
    assert net.get(HOUSE, 0) == end.house_net
    assert net.get(IN_PLAY, 0) == 0
    for name, after in end.meters.items():
        contributions = sum(
            e.amount for e in rnd.history if isinstance(e, JackpotContribution) and e.meter == name
        )
        hits = sum(e.amount for e in rnd.history if isinstance(e, JackpotHit) and e.meter == name)
        resets = sum(e.reset_to for e in rnd.history if isinstance(e, JackpotHit) and e.meter == name)
        assert net.get(meter(name), 0) == contributions - hits + resets == after - rnd.meters_before[name]
    return moves


def test_let_it_ride_two_major_hits_and_envy() -> None:
    """Two straight flushes: the Major pays seat 1, then seat 3 from its reset (R-LIR-7); each hitter pays the
    Envy Bonus to every other progressive seat (R-LIR-8), outside any wager's settlement."""
    rules = make_rules("let-it-ride")
    deck = stacked(3, {1: "Qh Jh Th", 2: "2c 7d 9s", 3: "7h 6h 5h"}, dealer="Ac 9h 8h")
    rnd = play(rules, 3, 500, deck)
    moves = check(rnd)
    hits = [p for p in moves if p.kind == "hit"]
    assert [(p.seat, p.meter) for p in hits] == [(1, "major"), (3, "major")]
    assert hits[1].amount_cents == 500_000  # the second hit is paid from the reset value
    assert [p.amount_cents for p in moves if p.kind == "seed"] == [500_000, 500_000]
    envy = [p for p in moves if p.kind == "envy"]
    assert sorted(p.seat for p in envy) == [1, 2, 2, 3]
    assert sum(p.amount_cents for p in envy) == sum(
        e.amount for e in rnd.history if isinstance(e, NeighbourBonusPaid)
    )


def test_let_it_ride_two_minor_hits_in_one_round() -> None:
    rules = make_rules("let-it-ride")
    rnd = play(rules, 3, 500, stacked(3, {1: "8c 8s 8d", 2: "Kd 4c 2s", 3: "9c 9s 9h"}, dealer="2d 8h 9d"))
    moves = check(rnd)
    assert [(p.seat, p.meter) for p in moves if p.kind == "hit"] == [(1, "minor"), (3, "minor")]


def test_let_it_ride_the_cap() -> None:
    """R-LIR-5: three $25,000 bets on a royal flush win 3 x 1000 x $25,000, capped at $50,000."""
    rules = make_rules("let-it-ride")
    rnd = play(rules, 1, 2_500_000, stacked(1, {1: "As Ks Qs"}, dealer="2h Js Ts"))
    moves = check(rnd)
    base = next(e for e in rnd.history if isinstance(e, Settled) and e.wager == "bets")
    assert base.part == "1 2 $"  # the placed wager's one name; its part: the three bets, all up
    assert base.capped_from == 3 * 2_500_000 * 1001 and base.returned == 3 * 2_500_000 + 5_000_000
    payout = [p for p in moves if p.kind == "payout" and p.wager == "bets"]
    assert [p.amount_cents for p in payout] == [base.returned]


def test_one_eyed_flush_jackpot_hit() -> None:
    """R-OEF-9: the One Eyed Flush on the first three cards takes the meter (the wager is not returned)."""
    rules = make_rules("one-eyed-flush")
    rnd = play(rules, 2, 500, stacked(2, {1: "Jh Js Kd", 2: "2c 7d 9s"}, dealer="3c 4d 8s"))
    moves = check(rnd)
    hit = [p for p in moves if p.kind == "hit"]
    assert [(p.seat, p.meter, p.from_role) for p in hit] == [(1, "one-eyed-flush", meter("one-eyed-flush"))]
    assert hit[0].amount_cents == rnd.meters_before["one-eyed-flush"] + 2 * 10  # both seats' 10% of $1


def test_stakes_before_the_deal_stay_in_play() -> None:
    rules = make_rules("let-it-ride")
    rnd = Table(rules, seats=1).new_round()
    rnd.place_wager(1, "bets", 500)
    assert postings(rnd.history) == [Posting(wallet(1), IN_PLAY, 1_500, "stake", seat=1, wager="bets")]


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 7))
def test_postings_equal_the_engine_on_every_game(
    definition: registry.GameDefinition, seed: int, seats: int
) -> None:
    """Seeded rounds of every registered game, every wager at every seat."""
    check(play(definition.make_rules(), seats, 500, seed=seed))

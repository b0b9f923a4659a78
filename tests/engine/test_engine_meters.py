"""``replay.at_meters``: a finished round settled again at other linked-meter values (what the server does under
the meters' database lock, issue 11) is exactly the round played from the start at those values."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablegames.cards import CARDS, parse_card
from tablegames.engine import Bot, Round, Table
from tablegames.engine.events import JackpotHit, RoundEnded
from tablegames.engine.replay import at_meters
from tablegames.randomness import SeededRandom, shuffle_deck
from tablegames.rules import make_rules

WAGERS: dict[str, list[tuple[str, int, str | None]]] = {
    "let-it-ride": [("bets", 500, None), ("progressive", 100, None)],
    "one-eyed-flush": [("main", 500, None), ("jackpot", 100, None)],
}
# seat 1 holds J♥ J♠ K♦ (One Eyed Flush: 100% of the meter, R-OEF-9); seat 2 whatever follows
OEF_HIT = ["Jh", "9c", "2c", "Js", "8d", "3c", "Kd", "7h", "4c"]


def play(game: str, deck: list[int], meters: dict[str, int] | None, seats: int = 2) -> Round:
    table = Table(make_rules(game), seats=seats, meters=meters)
    rnd = table.new_round(deck=deck)
    for seat in range(1, seats + 1):
        for name, amount, option in WAGERS[game]:
            rnd.place_wager(seat, name, amount, option)
    rnd.deal()
    bot = Bot()
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, bot.choose(rnd, seat))
    return rnd


def events(rnd: Round) -> list[dict[str, Any]]:
    return [e.to_dict() for e in rnd.history]


@given(
    game=st.sampled_from(sorted(WAGERS)),
    seed=st.integers(0, 10_000),
    extra=st.lists(st.integers(0, 10**9), min_size=3, max_size=3),
)
def test_a_round_at_other_meters_is_the_round_played_at_them(game: str, seed: int, extra: list[int]) -> None:
    deck = [int(c) for c in shuffle_deck(SeededRandom(seed))]
    played = play(game, deck, None)
    names = sorted(played.table.meters)
    values = {n: played.table.meter_specs[n].reset_cents + x for n, x in zip(names, extra, strict=False)}
    again = at_meters(played, values)
    assert events(again) == events(play(game, deck, values))
    assert again.table.meters == play(game, deck, values).table.meters
    assert at_meters(played, dict(played.meters_before)) is played  # the events already say so


@pytest.mark.parametrize("before", [500_000, 500_400, 1_250_000])
def test_two_hits_in_one_round_and_a_rebased_hit(before: int) -> None:
    head = [int(parse_card(c)) for c in OEF_HIT]
    deck = head + [int(c) for c in CARDS if int(c) not in head]
    played = play("one-eyed-flush", deck, None)
    (hit,) = [e for e in played.history if isinstance(e, JackpotHit)]
    assert hit.amount == 500_000 + 20  # the reset plus both seats' contributions
    again = at_meters(played, {"one-eyed-flush": before})
    (hit,) = [e for e in again.history if isinstance(e, JackpotHit)]
    assert (hit.seat, hit.amount, hit.reset_to) == (1, before + 20, 500_000)
    ended = again.history[-1]
    assert isinstance(ended, RoundEnded) and ended.meters == {"one-eyed-flush": 500_000}
    assert len(again.history) == len(played.history)

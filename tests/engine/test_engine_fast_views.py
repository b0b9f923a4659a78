"""What a push builds for every socket (issue 28), proven equal to the reference:

- an event of plain values keeps its dict (``Event.to_dict``): what it hands out equals what a fresh event
  computes, for every event of a played round of every game, for every viewer, also after the caller changed
  the dict it was given;
- ``round_view`` reads each seat's cards as the viewer sees them once: the parts of its view that read them equal
  the reference below (the view before), for every viewer, after every step of rounds of every game and variant.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from engine_support import every_wager
from test_engine_secrecy import variants

from tablegames.cards import CARDS
from tablegames.engine import Table
from tablegames.engine.base import Phase, Round
from tablegames.engine.events import PUBLIC, CardDealt, CardDiscarded, Settled, seat_name
from tablegames.engine.view import revealed_cards, round_view, round_views, seen_whole, seen_whole_by_all
from tablegames.randomness import SeededRandom
from tablegames.rules import GAMES, make_rules, registry


@pytest.mark.parametrize("game", GAMES)
def test_an_events_kept_dict_is_the_computed_one(game: str) -> None:
    table = Table(make_rules(game), seats=3, source=SeededRandom(7))
    rnd = table.new_round()
    for s in (1, 2, 3):
        for name, amount, option in every_wager(registry.get(game), table.rules, 300):
            rnd.place_wager(s, name, amount, option)
    rnd.deal()
    pick = random.Random(7)
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, str(pick.choice(rnd.legal_actions(seat))))
    assert len(rnd.history) > 5
    for e in rnd.history:
        fresh = dataclasses.replace(e)  # (built again: nothing kept)
        given = e.to_dict()
        given["type"] = "changed"
        given["card"] = "changed"
        for value in given.values():  # (its lists and dicts are its own too)
            if isinstance(value, list):
                value.append("changed")
            elif isinstance(value, dict):
                value["changed"] = "changed"
        assert e.to_dict() == fresh.to_dict() != given
        for viewer in (None, 1, 2, 3):
            assert e.for_viewer(viewer) == dataclasses.replace(e).for_viewer(viewer)
        assert e == fresh and repr(e) == repr(fresh)  # (the kept dict is no field)


def reference_parts(rnd: Round, seat: int | None) -> dict[str, Any]:
    """The parts of ``round_view`` that read the cards, as they were (each seat's visible cards worked out again
    for every use); the other parts did not change."""
    shown: dict[int, bool] = {}
    for e in rnd.history:
        if isinstance(e, CardDealt):
            shown[e.card] = rnd.card_visible(e, seat)
    revealed = revealed_cards(rnd)

    def seen(cs: Sequence[int]) -> list[int | None]:
        return [c if shown.get(c) or c in revealed else None for c in cs]

    def cards(cs: Sequence[int]) -> list[str | None]:
        return [None if c is None else str(CARDS[c]) for c in seen(cs)]

    def hand(cs: Sequence[int]) -> dict[str, Any]:
        visible = seen(cs)
        return {
            "description": rnd.definition.describe_hand(rnd.rules, visible),
            "total": rnd.definition.total(rnd.rules, visible),
        }

    hands = {
        str(s.seat): hand(s.cards)
        for s in rnd.active_seats
        if s.seat == seat or any(c is not None for c in seen(s.cards))
    }
    return {
        "seat_cards": [cards(s.cards) for s in rnd.seats.values()],
        "dealer": cards(rnd.dealer),
        "hands": hands,
        "dealer_hand": hand(rnd.dealer) if any(c is not None for c in seen(rnd.dealer)) else None,
        **rnd.flow.extra_view(rnd, cards),
    }


def same(rnd: Round, seats: int) -> None:
    for viewer in [None, *range(1, seats + 1)]:
        view, ref = rnd.view(viewer), reference_parts(rnd, viewer)
        view["seat_cards"] = [s["cards"] for s in view["seats"]]
        assert {k: view[k] for k in ref} == ref, (rnd.rules, seats, viewer)


def play_checking(
    table: Table, seats: int, pick: random.Random, check: Callable[[Round, int], object]
) -> int:
    """A round at ``table``: every wager at each seat but the last (a seat without one), the deal, random
    decisions to the end; ``check(rnd, seats)`` after every step. How many checks from the deal on were true."""
    game = table.rules.game
    rnd = table.new_round()
    check(rnd, seats)
    for s in range(1, seats + 1):
        if s == seats and seats > 1:
            continue  # (a seat without a wager)
        for name, amount, option in every_wager(registry.get(game), table.rules, 300):
            rnd.place_wager(s, name, amount, option)
        check(rnd, seats)
    rnd.deal()
    true = int(bool(check(rnd, seats)))
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, str(pick.choice(rnd.legal_actions(seat))))
        true += bool(check(rnd, seats))
    return true


@pytest.mark.parametrize("game", GAMES)
def test_a_view_is_the_reference_view(game: str) -> None:
    pick = random.Random(11)
    for n, rules in enumerate(variants(game)):
        for seats in (1, 3, 5):
            table = Table(make_rules(game, rules), seats=seats, source=SeededRandom(100 * n + seats))
            play_checking(table, seats, pick, same)


def same_views(rnd: Round, seats: int) -> bool:
    """Each viewer's view of the push is its own view; whether two viewers saw the round differently."""
    viewers = [None, *range(1, seats + 1)]
    views = round_views(rnd, [*viewers, 1, None])  # (a viewer asked twice: one view)
    assert list(views) == viewers
    for viewer in viewers:
        assert views[viewer] == round_view(rnd, viewer), (rnd.rules, seats, viewer)
    one = 2 if seats > 1 else 1
    assert round_views(rnd, [one]) == {one: rnd.view(one)}
    return len({repr(v) for v in views.values()}) > 1


@pytest.mark.parametrize("game", GAMES)
def test_the_views_of_a_push_are_each_viewers_view(game: str) -> None:
    """``round_views`` (one push: every socket's seat at once, the viewer-free parts shared, hand descriptions
    kept for the round) is ``round_view`` viewer by viewer, after every step, to the end (every card shown)."""
    pick = random.Random(5)
    differ = 0
    for n, rules in enumerate(variants(game)):
        for seats in (1, 3, 5):
            table = Table(make_rules(game, rules), seats=seats, source=SeededRandom(10 * n + seats))
            for _ in range(2):
                differ += play_checking(table, seats, pick, same_views)
    assert differ > 0  # (not vacuous: viewers saw the round differently)


def reference_history(rnd: Round, seat: int | None, start: int) -> list[dict[str, Any]]:
    """The history as a seat saw it before ``Event.whole_to``/``redacted``: a card dealt or discarded to
    another seat face down as None, another seat's private settlement detail blank (all once settled)."""
    out = []
    for e in rnd.history[start:]:
        d = dataclasses.replace(e).to_dict()  # (built again: nothing kept)
        if rnd.phase != Phase.SETTLED:
            to = getattr(e, "visible_to", PUBLIC)
            hidden = to != PUBLIC and (seat is None or to != seat_name(seat))
            if hidden and isinstance(e, CardDealt | CardDiscarded):
                d["card"] = None
            if hidden and isinstance(e, Settled):
                d["detail"] = ""
        out.append(d)
    return out


def same_history(rnd: Round, seats: int) -> bool:
    """Every viewer's history from every event on is the reference's; an event every viewer sees whole
    (``public``) is seen whole by every seat. Whether some viewer saw an event redacted."""
    redacted = False
    for viewer in [None, *range(1, seats + 1)]:
        for start in range(0, len(rnd.history), 3):
            got = rnd.visible_history(viewer, start)
            assert got == reference_history(rnd, viewer, start), (rnd.rules, viewer, start)
            whole = seen_whole(rnd, viewer, start)
            for e, everyone, w in zip(rnd.history[start:], seen_whole_by_all(rnd, start), whole, strict=True):
                assert w or not everyone, e
            redacted = redacted or not all(whole)
    return redacted


@pytest.mark.parametrize("game", GAMES)
def test_the_history_a_seat_sees_is_the_reference(game: str) -> None:
    pick = random.Random(3)
    redacted = 0
    for n, rules in enumerate(variants(game)):
        table = Table(make_rules(game, rules), seats=4, source=SeededRandom(n))
        redacted += play_checking(table, 4, pick, same_history)
    assert redacted > 0  # (not vacuous: cards were hidden from some viewer)

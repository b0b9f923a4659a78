"""An event of plain values keeps its dict (``Event.to_dict``: a round's events are turned into dicts for every
socket at every push, issue 28): what it hands out equals what a fresh event computes, for every event of a
played round of every game, for every viewer, also after the caller changed the dict it was given."""

from __future__ import annotations

import dataclasses
import random

import pytest
from engine_support import every_wager

from tablegames.engine import Table
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
        assert e.to_dict() == fresh.to_dict() != given
        for viewer in (None, 1, 2, 3):
            assert e.for_viewer(viewer) == dataclasses.replace(e).for_viewer(viewer)
        assert e == fresh and repr(e) == repr(fresh)  # (the kept dict is no field)

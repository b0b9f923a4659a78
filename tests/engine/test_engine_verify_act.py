"""verify / can / do for decisions, as for wagers: ``Round.verify_act`` raises the typed error and changes
nothing, ``can_act`` says whether ``act`` would accept, ``act`` does it; a seat's visible history comes from
one place (``visible_history``); decision contexts are the game's frozen dataclass. For every registered game."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.engine import Action, Bot, IllegalAction, Round, Table, WrongPhase, WrongSeat
from tablegames.randomness import SeededRandom
from tablegames.rules import registry


def snapshot(rnd: Round) -> str:
    return repr(([vars(s) for s in rnd.seats.values()], rnd.dealer, len(rnd.history), rnd.phase, vars(rnd)))


def candidates(definition: registry.GameDefinition) -> list[str]:
    out = ["fold", "", "x y z"]
    for d in definition.decisions:
        out += [f"{d.name} {i}" for i in (-1, 0, 1, 2, 3)] if d.indexed else [d.name, f"{d.name} 1"]
    return out


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 4))
def test_verify_can_act_agree(definition: registry.GameDefinition, seed: int, seats: int) -> None:
    table = Table(definition.make_rules(), seats=seats, source=SeededRandom(seed))
    rnd = table.new_round()
    with pytest.raises(WrongPhase):
        rnd.verify_act(1, definition.default_action)
    assert not rnd.can_act(1, definition.default_action)
    for s in range(1, seats + 1):
        rnd.place_wager(s, rnd.main_wager(), 100)
    rnd.deal()
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        ctx = rnd.decision_context(seat)
        assert type(ctx) is definition.context_type and ctx.game == definition.key
        with pytest.raises(dataclasses.FrozenInstanceError):
            ctx.game_state = 1  # type: ignore[attr-defined]
        for other in {s for s in range(0, seats + 2)} - {seat}:
            assert not rnd.can_act(other, definition.default_action)
            with pytest.raises(WrongSeat):
                rnd.verify_act(other, definition.default_action)
        legal = rnd.legal_actions(seat)
        for text in candidates(definition):
            before = snapshot(rnd)
            ok = rnd.can_act(seat, text)
            try:
                parsed = rnd.verify_act(seat, text)
            except IllegalAction:
                assert not ok
            else:
                assert ok and isinstance(parsed, Action) and parsed in legal
            assert snapshot(rnd) == before  # verifying changes nothing
        for start in (0, 3, len(rnd.history)):
            assert rnd.visible_history(seat, start) == rnd.visible_history(seat)[start:]
        action = Bot().choose(rnd, seat)
        assert rnd.can_act(seat, action) and rnd.can_act(seat, str(action))
        rnd.act(seat, action)
    assert not rnd.can_act(1, definition.default_action)

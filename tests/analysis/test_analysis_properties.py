"""Properties of the exact strategy objects on random situations (hypothesis)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.analysis import final_count, let_it_ride, one_eyed_flush
from tablegames.engine.actions import PULL, RIDE, STAND, TURN
from tablegames.engine.bots import best_action
from tablegames.rules.final_count import FinalCountRules
from tablegames.rules.let_it_ride import LetItRideRules
from tablegames.rules.one_eyed_flush import OneEyedFlushRules

cards = st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True)


@settings(max_examples=200, deadline=None)
@given(cards)
def test_lir_best_is_the_cautious_argmax(four: list[int]) -> None:
    s = let_it_ride.optimal_strategy(LetItRideRules())
    first = s.first(four[:3])
    assert s.best(four[:3]) == best_action(first)
    assert (s.best(four[:3]) == RIDE) == (first[RIDE] > first[PULL])
    # Uncapped, riding wager 2 adds the same EV whether wager 1 rides or not.
    up, down = s.second(four, bet1_up=True), s.second(four, bet1_up=False)
    assert up[RIDE] - up[PULL] == down[RIDE] - down[PULL]
    assert s.best(four) == best_action(down)
    assert all(isinstance(v, Fraction) for v in (*first.values(), *up.values()))


@settings(max_examples=25, deadline=None)
@given(cards)
def test_lir_first_values_average_the_second_decision(four: list[int]) -> None:
    """EV of each first option = mean, over the 49 first community cards, of the best second option."""
    s = let_it_ride.optimal_strategy(LetItRideRules())
    three = four[:3]
    first = s.first(three)
    for action, up in ((PULL, False), (RIDE, True)):
        values = [max(s.second([*three, c], bet1_up=up).values()) for c in range(52) if c not in three]
        assert first[action] == sum(values, Fraction(0)) / 49


@settings(max_examples=200, deadline=None)
@given(cards)
def test_oef_best_is_the_cautious_argmax(four: list[int]) -> None:
    s = one_eyed_flush.optimal_strategy(OneEyedFlushRules())
    opts = s.options(four[:3], four[3])
    best = s.best(four[:3], four[3])
    assert opts[best] == max(opts.values())
    if opts[STAND] == max(opts.values()):
        assert best == STAND
    assert all(-1 <= v <= 1 for v in opts.values())


@settings(max_examples=200, deadline=None)
@given(cards)
def test_fc_best_is_the_cautious_argmax(four: list[int]) -> None:
    rules = FinalCountRules()
    s = final_count.optimal_strategy(rules)
    opts = s.options(four[:2], four[2:])
    best = s.best(four[:2], four[2:])
    if rules.total(four[:2]) % 2:
        assert set(opts) == {TURN} and best == TURN
    else:
        assert best == best_action(opts)
        assert (best == TURN) == (opts[TURN] > opts[STAND])

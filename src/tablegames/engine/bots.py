"""Bots and hints: a documented strategy for each game, or an injected exact one.

The engine cannot import the exact analyzer (it sits above the engine), so the strategy is passed in as an
*advisor*: a function from a decision context (``Round.decision_context``) to the expected value of every
legal action. Without one, bots play the documented rule of thumb of each rules module:

* Let It Ride: the published basic strategy (``rules.let_it_ride.ride_first`` / ``ride_second``);
* One Eyed Flush: ``rules.one_eyed_flush.rule_of_thumb_discard``;
* Final Count: ``rules.final_count.rule_of_thumb_turn``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablegames.engine.actions import PULL, RIDE, STAND, TURN, Action, discard
from tablegames.engine.base import Round
from tablegames.rules import final_count as fc
from tablegames.rules import let_it_ride as lir
from tablegames.rules import one_eyed_flush as oef

Advisor = Callable[[Mapping[str, Any]], Mapping[Action, Fraction | float]]
"""Decision context -> expected value of each action (in units of the main wager)."""

# Cautious order (RULES.md, analysis assumptions): on exactly equal value, pull / stand / don't draw.
_CAUTION = {"pull": 0, "stand": 0, "ride": 1, "turn": 1, "discard": 1}


def best_action(values: Mapping[Action, Fraction | float]) -> Action:
    """The action of highest value; exact ties go to the more cautious action."""
    return max(values, key=lambda a: (values[a], -_CAUTION.get(a.name, 1), -(a.index or 0)))


def rule_of_thumb(context: Mapping[str, Any]) -> Action:
    """The documented default strategy of each game."""
    game = context["game"]
    if game == lir.GAME:
        cards = context["cards"]
        ride = lir.ride_first(cards) if context["stage"] == 1 else lir.ride_second(cards)
        return RIDE if ride else PULL
    if game == oef.GAME:
        i = oef.rule_of_thumb_discard(context["cards"], context["flip_card"])
        return STAND if i is None else discard(i)
    if game == fc.GAME:
        # totals by the table's own card values (R-FC-1, face-value variant included)
        return TURN if fc.rule_of_thumb_turn(context["total"], context["dealer_total"]) else STAND
    raise ValueError(f"unknown game {game!r}")


@dataclass(frozen=True)
class Hint:
    """The recommended action and, when an exact advisor is available, what each action is worth."""

    best: Action
    values: Mapping[Action, Fraction | float] | None

    def cost(self, action: Action) -> float | None:
        """Expected value given up by ``action`` compared to the best one (None without an advisor)."""
        if self.values is None:
            return None
        return float(self.values[self.best] - self.values[action])


class Bot:
    """Plays a seat: the advisor's best action when given one, else the rule of thumb."""

    def __init__(self, advisor: Advisor | None = None) -> None:
        self.advisor = advisor

    def hint(self, rnd: Round, seat: int) -> Hint:
        context = rnd.decision_context(seat)
        if self.advisor is not None:
            values = dict(self.advisor(context))
            legal = set(rnd.legal_actions(seat))
            values = {a: v for a, v in values.items() if a in legal}
            return Hint(best_action(values), values)
        return Hint(rule_of_thumb(context), None)

    def choose(self, rnd: Round, seat: int) -> Action:
        return self.hint(rnd, seat).best

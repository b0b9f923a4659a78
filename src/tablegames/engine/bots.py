"""Bots and hints: a documented strategy for each game, or an injected exact one.

The engine cannot import the exact analyzer (it sits above the engine), so the strategy is passed in as an
*advisor*: a function from a typed decision context (``Round.decision_context``) to the expected value of
every legal action. Without one, bots play the documented rule of thumb of the game's definition
(``GameDefinition.rule_of_thumb``; Let It Ride's is the published basic strategy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tablegames.engine.actions import Action
from tablegames.engine.base import Round
from tablegames.rules import registry
from tablegames.rules.definition import DecisionContext

Advisor = Callable[[DecisionContext], Mapping[Action, Fraction | float]]
"""Decision context -> expected value of each action (in units of the main wager)."""

# Cautious order (RULES.md, analysis assumptions): on exactly equal value, pull / stand / don't draw: the
# decisions the definitions mark ``cautious``.
_CAUTIOUS = frozenset(d.name for g in registry.DEFINITIONS for d in g.decisions if d.cautious)


def best_action(values: Mapping[Action, Fraction | float], context: DecisionContext | None = None) -> Action:
    """The action of highest value; exact ties go to the more cautious action, then (R-0.5) to the highest
    key of the game's ``tie_break`` at ``context`` (One Eyed Flush: the card of higher point value, then
    higher rank), then to the lower card index. The values are compared exactly (fractions from an advisor)."""
    tie = registry.of(context).tie_break if context is not None else None

    def key(a: Action) -> tuple[Any, ...]:
        return (values[a], a.name in _CAUTIOUS, tie(context, a) if tie is not None else (), -(a.index or 0))

    return max(values, key=key)


def rule_of_thumb(context: DecisionContext) -> Action:
    """The documented default strategy of the context's game (UnknownGameError for an unknown one)."""
    return _parse(registry.of(context).rule_of_thumb(context))


_parse = lru_cache(maxsize=256)(Action.parse)  # actions are frozen: one object per text


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
            return Hint(best_action(values, context), values)
        return Hint(rule_of_thumb(context), None)

    def choose(self, rnd: Round, seat: int) -> Action:
        return self.hint(rnd, seat).best

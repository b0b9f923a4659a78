"""The engine's view of the games it plays. Each game's round (its steps: deal, decisions, the dealer's play,
settlement) is a :class:`~tablegames.engine.base.Round` subclass in its own module, named by the game's
definition (``GameDefinition.round_class``); the rules, wagers, meters and contexts are the definition.
"""

from __future__ import annotations

from tablegames.rules import GameRules, registry
from tablegames.rules.definition import Meter


def meter_specs(rules: GameRules) -> tuple[Meter, ...]:
    """The jackpot meters a table of this game keeps (its definition's meters)."""
    return registry.of(rules).meters(rules)

"""The engine's view of the games it plays. The engine has one generic round
(:class:`~tablegames.engine.base.Round`); each game's steps (deal, decisions, the dealer's play, settlement)
are its flow, in its rules module (``GameDefinition.flow``); the rules, wagers, meters and contexts are the
definition.
"""

from __future__ import annotations

from tablegames.rules import GameRules, registry
from tablegames.rules.definition import Meter


def meter_specs(rules: GameRules) -> tuple[Meter, ...]:
    """The jackpot meters a table of this game keeps (its definition's meters)."""
    return registry.of(rules).meters(rules)

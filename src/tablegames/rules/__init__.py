"""Rules of each game: data plus pure functions, one module per game (the single definition of each game),
each registered once in :mod:`tablegames.rules.registry`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tablegames.rules.common import RuleError
from tablegames.rules.definition import GameDefinition, UnknownGameError
from tablegames.rules.final_count import FinalCountRules
from tablegames.rules.let_it_ride import LetItRideRules
from tablegames.rules.one_eyed_flush import OneEyedFlushRules
from tablegames.rules.registry import GAMES, REGISTRY, get

GameRules = LetItRideRules | OneEyedFlushRules | FinalCountRules

RULES_BY_GAME: Final[Mapping[str, Any]] = {key: d.rules_type for key, d in REGISTRY.items()}
"""A view of the registry: rules type by game key."""


def make_rules(game: str, options: Mapping[str, str] | None = None, paytable: str | None = None) -> GameRules:
    """Rules for ``game`` from ``--rule NAME=VALUE`` options (and a ``--paytable`` preset or TOML file).

    >>> make_rules("one-eyed-flush", {"ties": "tournament"}).ties.value
    'tournament'
    >>> make_rules("poker")
    Traceback (most recent call last):
    ...
    tablegames.rules.definition.UnknownGameError: unknown game 'poker'; choose let-it-ride, one-eyed-flush, final-count
    """
    rules: GameRules = get(game).make_rules(options, paytable)
    return rules


__all__ = [
    "GAMES",
    "RULES_BY_GAME",
    "GameDefinition",
    "GameRules",
    "RuleError",
    "UnknownGameError",
    "make_rules",
]

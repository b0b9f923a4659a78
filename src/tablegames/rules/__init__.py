"""Rules of each game: data plus pure functions, one module per game (the single definition of each game),
each registered once in :mod:`tablegames.rules.registry`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tablegames.rules.common import RuleError
from tablegames.rules.definition import GameDefinition, GameRules, UnknownGameError
from tablegames.rules.registry import GAMES, REGISTRY, get

RULES_BY_GAME: Final[Mapping[str, Any]] = {key: d.rules_type for key, d in REGISTRY.items()}
"""A view of the registry: rules type by game key."""


def make_rules(game: str, options: Mapping[str, str] | None = None, paytable: str | None = None) -> GameRules:
    """Rules for ``game`` from ``--rule NAME=VALUE`` options (and a ``--paytable`` preset or TOML file).

    >>> all(make_rules(game).game == game for game in GAMES)
    True
    >>> make_rules("poker")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tablegames.rules.definition.UnknownGameError: unknown game 'poker'; choose ...
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

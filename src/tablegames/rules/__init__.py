"""Rules of each game: data plus pure functions, one module per game (the single definition of each game)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablegames.rules.common import RuleError
from tablegames.rules.final_count import FinalCountRules
from tablegames.rules.let_it_ride import LetItRideRules
from tablegames.rules.one_eyed_flush import OneEyedFlushRules

GameRules = LetItRideRules | OneEyedFlushRules | FinalCountRules

RULES_BY_GAME: Final[Mapping[str, type[LetItRideRules] | type[OneEyedFlushRules] | type[FinalCountRules]]] = {
    "let-it-ride": LetItRideRules,
    "one-eyed-flush": OneEyedFlushRules,
    "final-count": FinalCountRules,
}
GAMES: Final = tuple(RULES_BY_GAME)


def make_rules(game: str, options: Mapping[str, str] | None = None, paytable: str | None = None) -> GameRules:
    """Rules for ``game`` from ``--rule NAME=VALUE`` options (and a ``--paytable`` preset or TOML file).

    >>> make_rules("one-eyed-flush", {"ties": "tournament"}).ties.value
    'tournament'
    >>> make_rules("poker")
    Traceback (most recent call last):
    ...
    tablegames.rules.common.RuleError: unknown game 'poker'; choose let-it-ride, one-eyed-flush, final-count
    """
    try:
        cls = RULES_BY_GAME[game]
    except KeyError:
        raise RuleError(f"unknown game {game!r}; choose {', '.join(GAMES)}") from None
    return cls.from_options(options, paytable)


__all__ = ["GAMES", "RULES_BY_GAME", "GameRules", "RuleError", "make_rules"]

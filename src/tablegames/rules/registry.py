"""The registry of games: every :class:`~tablegames.rules.definition.GameDefinition`, registered once.

It lives in the rules layer, the lowest layer that knows the games, so that every layer above (engine,
analysis, simulation, server, CLI) can look a game up or iterate the games without a layer importing one
above it; ``make_rules`` and ``GAMES`` are views of it. A new game is one line here.

>>> [d.key for d in DEFINITIONS]
['let-it-ride', 'one-eyed-flush', 'final-count', 'three-card-poker']
>>> get("final-count").title
'Final Count'
>>> get("poker")
Traceback (most recent call last):
...
tablegames.rules.definition.UnknownGameError: unknown game 'poker'; choose let-it-ride, one-eyed-flush, final-count, three-card-poker
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tablegames.rules import final_count, let_it_ride, one_eyed_flush, three_card_poker
from tablegames.rules.definition import GameDefinition, UnknownGameError

DEFINITIONS: Final[tuple[GameDefinition, ...]] = (
    let_it_ride.DEFINITION,
    one_eyed_flush.DEFINITION,
    final_count.DEFINITION,
    three_card_poker.DEFINITION,
)

REGISTRY: Final[Mapping[str, GameDefinition]] = {d.key: d for d in DEFINITIONS}
GAMES: Final[tuple[str, ...]] = tuple(REGISTRY)


def get(key: object) -> GameDefinition:
    """The definition of game ``key``; :class:`UnknownGameError` (listing the known games) otherwise."""
    try:
        return REGISTRY[key]  # type: ignore[index]
    except (KeyError, TypeError):
        raise UnknownGameError(key, GAMES) from None


def of(obj: Any) -> GameDefinition:
    """The definition of a rules object, a decision context or anything with a ``game`` key."""
    return get(getattr(obj, "game", obj))


__all__ = ["DEFINITIONS", "GAMES", "REGISTRY", "GameDefinition", "UnknownGameError", "get", "of"]

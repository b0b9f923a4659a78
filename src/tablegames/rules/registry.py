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

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from tablegames.rules import final_count, let_it_ride, one_eyed_flush, three_card_poker
from tablegames.rules.definition import GameDefinition, UnknownGameError

DEFINITIONS: Final[tuple[GameDefinition, ...]] = (
    let_it_ride.DEFINITION,
    one_eyed_flush.DEFINITION,
    final_count.DEFINITION,
    three_card_poker.DEFINITION,
)

REGISTRY: Final[dict[str, GameDefinition]] = {d.key: d for d in DEFINITIONS}
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


@contextmanager
def registered(definition: GameDefinition) -> Iterator[GameDefinition]:
    """Register one more game while the block runs (a test's own game, tests/fifth_game): every lookup
    (:func:`get`, :func:`of`, ``make_rules``) finds it; ``DEFINITIONS`` and ``GAMES`` keep listing the games
    of this file. RuleError when its key is taken.

    >>> from dataclasses import replace
    >>> with registered(replace(DEFINITIONS[0], key="test-game")) as d:
    ...     get("test-game") is d
    True
    >>> "test-game" in REGISTRY
    False
    """
    from tablegames.rules.common import RuleError

    if definition.key in REGISTRY:
        raise RuleError(f"game {definition.key!r} is already registered")
    REGISTRY[definition.key] = definition
    try:
        yield definition
    finally:
        del REGISTRY[definition.key]


__all__ = [
    "DEFINITIONS",
    "GAMES",
    "REGISTRY",
    "GameDefinition",
    "UnknownGameError",
    "get",
    "of",
    "registered",
]

"""How the terminal draws each game: a :class:`TerminalFelt` per game (``GameDefinition.terminal``), the
game-specific parts of the table and of the running commentary. :mod:`tablegames.cli.render` draws the rest
the same way for every game, from ``Round.view(seat)`` and the seat's visible history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablegames.rules import registry
from tablegames.rules.definition import load

Row = tuple[str, Sequence[str | None], str]
"""A line above the seats: its name, its cards (None: face down) and a note."""


class TerminalFelt:
    """The default felt: the dealer's row above the seats, hands as the engine names them."""

    dealer_reveal = "Dealer shows: "

    def top_rows(
        self, view: Mapping[str, Any], hands: Mapping[str, str], rules: Any, settled: bool
    ) -> list[Row]:
        return [("Dealer", view["dealer"], hands.get("dealer", ""))]

    def final_hand(self, label: str) -> str:
        """A seat's final hand, as the engine's ``hand`` event names it, in words."""
        return label

    def action_words(self, action: str, stage: int) -> str | None:
        """A decision in words at decision stage ``stage`` (None: the definition's label)."""
        return None

    def seat_reveal(self, who: str) -> str | None:
        """The words for a seat's cards turned during play (None: not shown as they happen)."""
        return None

    def dealer_hand(self, label: str) -> str:
        return label

    def result_detail(
        self, event: Mapping[str, Any], events: Sequence[Mapping[str, Any]], detail: str
    ) -> str:
        """A settled wager's result text in the results table (``detail``: the engine's, in words)."""
        return detail

    def early_loss(self, event: Mapping[str, Any]) -> bool:
        """A settlement that ends a seat's round before the showdown (besides a bust)."""
        return False


DEFAULT = TerminalFelt()


def felt_of(game: str) -> TerminalFelt:
    """The terminal felt of ``game`` (the default felt when its definition names none)."""
    definition = registry.get(game)
    if definition.terminal is None:
        return DEFAULT
    found = load(definition.terminal)
    assert isinstance(found, TerminalFelt)
    return found

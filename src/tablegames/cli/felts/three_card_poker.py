"""Three Card Poker on the terminal: the dealer's three cards face down until the showdown, a fold ends the
seat's round at once (R-TCP-1, R-TCP-2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablegames.cli.felts import TerminalFelt


class ThreeCardPokerFelt(TerminalFelt):
    dealer_reveal = "Dealer shows: "

    def early_loss(self, event: Mapping[str, Any]) -> bool:
        return bool(event["outcome"] == "fold")  # R-TCP-2: the Ante is lost at once


FELT = ThreeCardPokerFelt()

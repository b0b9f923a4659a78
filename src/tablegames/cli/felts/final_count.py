"""Final Count on the terminal: totals instead of hands, every seat's up cards public, the turned third cards
shown as they happen (R-FC-1..5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablegames.cli.felts import Row, TerminalFelt


class FinalCountFelt(TerminalFelt):
    dealer_reveal = "Dealer turns the third card: "

    def top_rows(
        self, view: Mapping[str, Any], hands: Mapping[str, str], rules: Any, settled: bool
    ) -> list[Row]:
        note = str((view.get("dealer_hand") or {}).get("description", ""))
        if settled and "dealer" in hands:
            total = int(hands["dealer"])
            note = f"total {total}" + (" - odd: dealer busts" if total % 2 else " (even)")
        return [("Dealer", view["dealer"], note)]

    def final_hand(self, label: str) -> str:
        return f"final total {label}" if label.lstrip("-").isdigit() else label

    def seat_reveal(self, who: str) -> str | None:
        return f"{who}: third card turned "

    def dealer_hand(self, label: str) -> str:
        total = int(label)
        return f"total {total}" + (" - odd: the dealer busts" if total % 2 else "")

    def early_loss(self, event: Mapping[str, Any]) -> bool:
        return event["outcome"] == "lose" and "odd" in event["detail"]  # R-FC-4: an odd total loses at once


FELT = FinalCountFelt()

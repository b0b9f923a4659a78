"""Let It Ride on the terminal: the two community cards above the seats; each bet's decision by its number."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablegames.cli.felts import Row, TerminalFelt


class LetItRideFelt(TerminalFelt):
    def top_rows(
        self, view: Mapping[str, Any], hands: Mapping[str, str], rules: Any, settled: bool
    ) -> list[Row]:
        shown = list(view.get("community", []))
        return [("Community", shown + [None] * (2 - len(shown)), "")]

    def final_hand(self, label: str) -> str:
        return label.replace("-", " ")

    def action_words(self, action: str, stage: int) -> str | None:
        return {"ride": f"lets bet {stage} ride", "pull": f"pulls bet {stage}"}.get(action)


FELT = LetItRideFelt()

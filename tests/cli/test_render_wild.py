"""The terminal marks as wild exactly the cards the round's view lists (issue 15: a rule set may change them)."""

from __future__ import annotations

from rich.console import Console

from tablegames.cli.render import card_text, table_view
from tablegames.engine import Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules


def test_wild_marks_come_from_the_view() -> None:
    assert card_text("Jh", {"Jh"}).plain == "[J♥*]" and card_text("Jh").plain == "[J♥]"
    for wild, marked in ((None, {"J♥", "J♠", "K♦"}), ("2c 3d", {"2♣", "3♦"})):
        rules = make_rules("one-eyed-flush", {"wild-cards": wild} if wild else {})
        table = Table(rules, seats=1, source=SeededRandom(4))
        deck = [int(c) for c in range(52)]  # seat 1: 2c 2h 3c; dealer: 2d, 2s (up), 3d
        rnd = table.new_round(deck)
        rnd.place_wager(1, "main", 500)
        rnd.deal()
        console = Console(width=120, record=True)
        console.print(table_view(rnd.view(1), rnd.visible_history(1), {1: 10_000}, rules))
        text = console.export_text()
        shown = {c for c in ("J♥", "J♠", "K♦", "2♣", "3♦") if f"[{c}*]" in text}
        assert shown == marked & {c for c in ("J♥", "J♠", "K♦", "2♣", "3♦") if f"[{c}" in text}, text

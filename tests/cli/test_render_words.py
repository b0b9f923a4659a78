"""Issue 24: the terminal's words. "You bust" (not "You busts"), a result's detail not repeating it
("lose: lose", "fold: folded"), a multi-bet wager's bets in words ("Bet 1", "Bets 2 and $"), and the engine's money errors
in dollars."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

from tablegames.cli.render import bets_words, event_lines, results_view
from tablegames.engine import InsufficientFunds, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules


def settled(seat: int, outcome: str, detail: str, wager: str = "main", part: str = "") -> dict[str, Any]:
    return {
        "type": "settled",
        "seat": seat,
        "wager": wager,
        "part": part,
        "staked": 500,
        "returned": 0,
        "outcome": outcome,
        "detail": detail,
        "meter": None,
    }


def text_of(renderable: Any) -> str:
    console = Console(width=100, record=True)
    console.print(renderable)
    return console.export_text()


def test_you_bust_and_a_bot_busts() -> None:
    """R-OEF-6: a bust told in the right person."""
    lines = [
        str(t) for t in event_lines("one-eyed-flush", [settled(1, "bust", "19"), settled(2, "bust", "17")])
    ]
    assert lines == ["You bust: 19", "Seat 2 (bot) busts: 17"]


def test_a_result_does_not_repeat_itself_and_bets_are_words() -> None:
    events = [
        settled(1, "lose", "lose", wager="bets", part="2 $"),
        {"type": "round_ended", "net_by_seat": {"1": -500}},
    ]
    out = text_of(results_view("let-it-ride", events, {1: 1000}))
    assert "lose: lose" not in out and "Bets 2 and $" in out
    assert [bets_words("bets", p) for p in (["1"], ["1", "2", "$"])] == ["Bet 1", "Bets 1, 2 and $"]


def test_a_fold_is_folded_and_a_wager_the_game_does_not_list_is_a_title() -> None:
    """Three Card Poker: "folded", not "fold: folded"; the Play (settled as a wager of its own) is "Play"."""
    events = [
        settled(1, "fold", "folded", wager="ante"),
        settled(1, "returned", "not played", wager="play"),
        {"type": "round_ended", "net_by_seat": {"1": -500}},
    ]
    out = text_of(results_view("three-card-poker", events, {1: 1000}))
    rows = [ln.split() for ln in out.splitlines() if ln.strip().startswith("1 (you)") and "round" not in ln]
    assert [r[2] for r in rows] == ["Ante", "Play"], out
    assert "fold: folded" not in out and "folded" in out and "returned: not played" in out


def test_the_engines_money_errors_are_in_dollars() -> None:
    table = Table(make_rules("let-it-ride"), seats=1, source=SeededRandom(1), bankrolls={1: 96_800})
    rnd = table.new_round()
    with pytest.raises(InsufficientFunds, match=r"seat 1 has \$968; the bets wager needs \$15,000$"):
        rnd.place_wager(1, "bets", 500_000)


def test_the_totals_columns_stay_put_when_a_balance_reaches_1000_dollars() -> None:
    events = [{"type": "round_ended", "net_by_seat": {"1": -1500, "2": 100_000}}]
    out = text_of(results_view("final-count", events, {1: 98_500, 2: 101_000}))
    lines = [ln for ln in out.splitlines() if "balance" in ln]
    assert len(lines) == 2
    assert [ln.index("balance") for ln in lines] == [lines[0].index("balance")] * 2, lines
    assert [ln.index("round") for ln in lines] == [lines[0].index("round")] * 2, lines

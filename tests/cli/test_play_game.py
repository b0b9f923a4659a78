"""In-process tests of the terminal game loop (scripted input, recorded console): money parsing, what the
person may see, quitting, running out of money, hints."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from rich.console import Console

from tablegames.cards import parse_card
from tablegames.cli.play import AmountError, TerminalGame, parse_dollars, parse_seed
from tablegames.engine import Round, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules, registry

CARD_TOKEN = re.compile(r"\[([2-9TJQKA][♣♦♥♠])")


@pytest.mark.parametrize(
    ("text", "cents"),
    [("5", 500), ("5.5", 550), ("$5", 500), ("1,000.50", 100_050), (".07", 7), ("0", 0), ("-5", -500)],
)
def test_play_parse_dollars(text: str, cents: int) -> None:
    assert parse_dollars(text) == cents


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.234", "1.234 is not a whole number of cents"),
        ("0.001", "0.001 is not a whole number of cents"),
        ("1e3", "not an amount of dollars"),
        ("nan", "not an amount of dollars"),
        ("", "not an amount of dollars"),
        ("five", "not an amount of dollars"),
    ],
)
def test_play_parse_dollars_refuses(text: str, message: str) -> None:
    with pytest.raises(AmountError, match=re.escape(message)):
        parse_dollars(text)


def test_play_parse_seed() -> None:
    assert parse_seed("7") == 7 and parse_seed("-3") == -3 and parse_seed("table-1") == "table-1"


Answer = Callable[[str, Round, str], str]
"""(prompt, the round, the output so far) -> the person's answer."""


def run_game(
    game: str,
    answer: Answer,
    seats: int = 3,
    seed: int = 5,
    bankroll: int = 100_000,
    bet: int = 500,
    max_reads: int = 40,
) -> tuple[TerminalGame, str]:
    """Play with scripted answers; after ``max_reads`` prompts the input ends (like Ctrl-D)."""
    out = io.StringIO()
    console = Console(file=out, width=120, no_color=True, color_system=None, highlight=False)
    table = Table(
        make_rules(game),
        seats=seats,
        source=SeededRandom(seed),
        bankrolls={s: bankroll for s in range(1, seats + 1)},
    )
    reads = 0

    def read(prompt: str) -> str:
        nonlocal reads
        reads += 1
        if reads > max_reads:
            raise EOFError
        assert table.current is not None
        return answer(prompt, table.current, out.getvalue())

    game_loop = TerminalGame(table, console, bet, read=read)
    game_loop.run()
    return game_loop, out.getvalue()


def _seen_by_seat_1(rnd: Round) -> set[str]:
    """Cards (as ``A♥``) that seat 1 has been shown this round, from the history as seat 1 may see it."""
    seen: set[str] = set()
    for e in rnd.visible_history(1):
        for key in ("card", "cards"):
            value = e.get(key)
            for c in value if isinstance(value, list) else [value]:
                if c is not None:
                    seen.add(parse_card(c).pretty)
    return seen


@pytest.mark.parametrize(
    ("game", "decision"), [("let-it-ride", "r"), ("one-eyed-flush", "2"), ("final-count", "t")]
)
def test_play_shows_only_what_seat_1_may_see(game: str, decision: str) -> None:
    """At every decision prompt, the output of the round so far names only cards seat 1 has seen."""
    checked = 0

    def answer(prompt: str, rnd: Round, so_far: str) -> str:
        nonlocal checked
        if "(h hint" not in prompt:
            return ""  # wagers: the defaults (main $5, no side bets)
        this_round = so_far.split(f"Round {rnd.round_no}")[-1]
        shown = set(CARD_TOKEN.findall(this_round))
        assert shown, "the person's own cards are shown"
        assert shown <= _seen_by_seat_1(rnd), shown - _seen_by_seat_1(rnd)
        checked += 1
        return decision

    _, out = run_game(game, answer)
    assert checked >= 5
    assert "Summary" in out


def test_play_quit_while_betting_returns_the_wager() -> None:
    """q after the main wager, before the deal: nothing was dealt, the wager goes back, no round is counted."""
    answers = iter(["7.50", "q"])
    game, out = run_game("let-it-ride", lambda p, r, s: next(answers), seats=2)
    assert game.bankrolls == {1: 100_000, 2: 100_000}
    assert "Rounds played: 0" in out and "Your net result: $0.00" in out
    assert "Final balance seat 1: $1,000.00" in out


def test_play_quit_mid_round_finishes_the_round_by_the_bot_strategy() -> None:
    """q at a decision: the wagers are on the table, so the round is played out (rule of thumb) and settled."""
    answers = iter(["5", "n", "n", "q"])
    game, out = run_game("one-eyed-flush", lambda p, r, s: next(answers), seats=2)
    assert game.rounds_played == 1
    assert "Quitting: the bot strategy finishes your wagers" in out
    assert re.search(r"^You (stand|discard card [1-3] and draw)$", out, re.M), out  # said to you
    assert "Results" in out and "Rounds played: 1" in out
    assert game.table.current is not None and game.table.current.is_over
    net = game.bankrolls[1] - 100_000
    assert f"Final balance seat 1: ${game.bankrolls[1] // 100:,}.{game.bankrolls[1] % 100:02d}" in out
    assert net in (-500, 0, 500)


def test_play_out_of_money_ends_the_game() -> None:
    """Final Count, seed 0, one seat, $5 bankroll, $5 wager, stand: 16 loses to the dealer's 20 (R-FC-5)."""
    game, out = run_game(
        "final-count", lambda p, r, s: "s" if "(h hint" in p else "", seats=1, seed=0, bankroll=500
    )
    assert game.bankrolls == {1: 0}
    assert "You cannot afford another wager." in out
    assert "Rounds played: 1" in out and "Final balance seat 1: $0.00" in out


def test_play_wager_beyond_balance_is_refused() -> None:
    answers = iter(["400", "333.34", "333.33", "n", "n", "q"])
    game, out = run_game("let-it-ride", lambda p, r, s: next(answers), seats=1)
    assert "seat 1 has $1,000; the bets wager needs $1,200" in out  # dollars (issue 24)
    assert "seat 1 has $1,000; the bets wager needs $1,000.02" in out
    assert game.rounds_played == 1


@pytest.mark.parametrize(
    ("game", "decision", "expect"),
    [
        (
            "let-it-ride",
            "p",
            r"Hint: (ride|pull) \(best by exact expected value.*\n\s+(ride|pull)\s+EV [+-]\d",
        ),
        ("final-count", "s", r"Hint: (stand|turn) \(best by exact expected value"),
        (
            "one-eyed-flush",
            "s",
            r"Hint: (stand|discard [1-3]) \(best by exact expected value.*\n(\s+(stand|discard [1-3])\s+EV [+-]\d.*\n){4}",
        ),
    ],
)
def test_play_hint(game: str, decision: str, expect: str) -> None:
    """Hints carry the exact EV of every action (the analysis layer's optimal strategy)."""
    asked: set[int] = set()

    def answer(prompt: str, rnd: Round, so_far: str) -> str:
        if "(h hint" not in prompt:
            return ""
        if rnd.round_no not in asked:
            asked.add(rnd.round_no)
            return "h"
        return decision

    _, out = run_game(game, answer, seats=1, max_reads=12)
    assert re.search(expect, out), out


def test_play_results_show_jackpot_hit_and_envy() -> None:
    """A stacked deck: seat 1 makes a Royal Flush (A♠ K♠ Q♠ + J♠ T♠) with a Progressive wager; the results
    show the Mega meter hit (R-LIR-7), seat 2's $1,000 Envy Bonus (R-LIR-8) and the 1000-to-1 bets (R-LIR-4)."""
    from tablegames.cards import parse_cards

    top = parse_cards("As 2c 9d Ks 3c Js Qs 4d Ts")  # seat 1, seat 2, dealer (x3): burn 9d, community Js Ts
    rest = [c for c in range(52) if c not in top]
    out = io.StringIO()
    console = Console(file=out, width=120, no_color=True, color_system=None, highlight=False)
    table = Table(
        make_rules("let-it-ride"), seats=2, source=SeededRandom(0), bankrolls={1: 100_000, 2: 100_000}
    )
    mega = table.meters["mega"]
    plain_new_round = table.new_round
    table.new_round = lambda deck=None: plain_new_round([*top, *rest])  # type: ignore[method-assign]
    answers = iter(["5", "n", "y", "r", "r", "q"])
    TerminalGame(table, console, 500, read=lambda prompt: next(answers)).run()
    text = out.getvalue()
    paid = mega + 2 * 10  # both seats' 10% of $1 went into the meter before the deal
    assert re.search(r"1 \(you\)\s+Bets 1, 2 and \$\s+\$15\.00\s+\$15,015\.00\s+\+\$15,000\.00\s+win", text)
    assert re.search(
        rf"1 \(you\)\s+Progressive\s+\$1\.00\s+\${paid // 100:,}\.{paid % 100:02d}\s+.*royal flush - hits the Mega meter",
        text,
    )
    assert re.search(
        r"2\s+Envy Bonus\s+\$0\.00\s+\$1,000\.00\s+\+\$1,000\.00\s+seat 1 made a royal flush", text
    )
    assert table.bankrolls == {
        1: 100_000 - 1_600 + 1_501_500 + paid,
        2: 100_000 - 1_600 + 1_000 + 100_000,
    }  # bot pulls bets 1 and 2
    assert table.meters["mega"] == mega  # reset after the hit


@pytest.mark.parametrize("game", [d.key for d in registry.DEFINITIONS])
def test_pays_at_any_prompt_shows_the_tables_pay_tables_and_asks_again(game: str) -> None:
    """Issue 24: the pay tables and rules one word away at every prompt (``pays``), in a player's words (the
    rule card), and the prompt comes back; nothing is wagered by it."""
    from tablegames.rules.rulecard import rule_card

    out = io.StringIO()
    console = Console(file=out, width=120, no_color=True, color_system=None, highlight=False)
    table = Table(make_rules(game), seats=1, source=SeededRandom(1), bankrolls={1: 100_000})
    answers = iter(["pays", "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    TerminalGame(table, console, 500, read=read).run()
    text = out.getvalue()
    card = rule_card(table.definition, table.rules)
    assert "pays at any prompt" in text and f"{card.title}: pay tables and rules" in text
    for section in card.sections:
        assert section.title in text
        for row in section.rows:
            assert re.search(rf"{re.escape(row.label[:40])}.*{re.escape(row.value)}", text), row
    assert prompts[0] == prompts[1]  # asked again after the card
    assert table.bankrolls == {1: 100_000}

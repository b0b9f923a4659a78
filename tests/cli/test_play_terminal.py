"""End-to-end tests of ``tablegames play`` through a pseudo-terminal (pexpect).

Each test plays one seeded round of a game as a person would (typing at the prompts), quits, and checks the
printed cards and final balance against the same seeded round run through the engine directly.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pexpect
import pytest

from tablegames.cards import CARDS
from tablegames.cli.play import exact_advisor
from tablegames.cli.render import meters_text, money
from tablegames.engine import Bot, Round, Table
from tablegames.engine.events import CardDealt
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules

_SCRIPT = Path(sys.executable).parent / "tablegames"  # the console script of the venv running the tests
TABLEGAMES = str(_SCRIPT) if _SCRIPT.exists() else (shutil.which("tablegames") or "tablegames")
ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
ENV.update({"NO_COLOR": "1", "TERM": "dumb"})
BANKROLL = 100_000  # cents: the CLI default of $1,000
BET = 500  # cents: the CLI default of $5


def _prefix() -> list[str]:
    """``play`` as the sub-command, unless it is (still) the app's only command and Typer runs it directly."""
    from tablegames.cli import app

    is_group = (
        app.registered_callback is not None or len(app.registered_commands) + len(app.registered_groups) > 1
    )
    return ["play"] if is_group else []


# Prompts (regexes)
LIR_MAIN = re.escape("Wager on each of bets 1, 2 and $ (costs 3×)") + r" \[[^\]]*\]: "
LIR_BONUS = re.escape("3-Card Bonus wager (0 for none)") + r" \[[^\]]*\]: "
LIR_PROG = re.escape("Progressive wager of $1.00? (y/n)") + r" \[[yn]\]: "
LIR_DECIDE = r"Bet [12]: \[r\]ide / \[p\]ull .*> "
MAIN = r"Main wager \[[^\]]*\]: "
OEF_JACKPOT = re.escape("Jackpot wager of $1.00? (y/n)") + r" \[[yn]\]: "
OEF_FLIP = re.escape("Flip Card wager (0 for none)") + r" \[[^\]]*\]: "
OEF_OUTCOME = re.escape("Flip Card outcome: 1-9, t = ten-value, o = one-eyed") + r"[^:]*: "
OEF_DECIDE = r"\[s\]tand / discard \[1-3\] .*> "
FC_DECIDE = r"\[s\]tand / \[t\]urn the third card .*> "
FINAL = r"Final balance seat 1: (-?\$[\d,]+\.\d\d)"

Step = tuple[str, str]


def spawn(args: Sequence[str]) -> pexpect.spawn:
    return pexpect.spawn(
        TABLEGAMES,
        [*_prefix(), *args],
        env=ENV,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 120),
    )


def drive(args: Sequence[str], steps: Sequence[Step], quit_at: str, eof: bool = False) -> tuple[str, str]:
    """Answer each prompt in turn, then quit at prompt ``quit_at`` (``q``, or Ctrl-D with ``eof``); returns
    (transcript, final balance)."""
    child = spawn(args)
    log = io.StringIO()
    child.logfile_read = log
    for pattern, reply in steps:
        child.expect(pattern)
        child.sendline(reply)
    child.expect(quit_at)
    if eof:
        child.sendeof()
    else:
        child.sendline("q")
    child.expect(FINAL)
    balance = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, log.getvalue()
    return log.getvalue().replace("\r\n", "\n"), balance


def engine_round(
    game: str,
    seed: int,
    seats: int,
    wagers: Sequence[tuple[str, int, str | None]],
    person: Callable[[Round], str],
) -> tuple[Table, Round, int]:
    """The same seeded round through the engine: the person's wagers and decisions, bots as the CLI plays them
    (``--bet`` on the main wager plus the fixed jackpot wager, decisions by the exact optimal strategy). Returns the table, the
    round and the number of the person's decisions."""
    table = Table(
        make_rules(game),
        seats=seats,
        source=SeededRandom(seed),
        bankrolls={s: BANKROLL for s in range(1, seats + 1)},
    )
    rnd = table.new_round()
    for wager, amount, option in wagers:
        rnd.place_wager(1, wager, amount, option)
    for seat in range(2, seats + 1):
        rnd.place_wager(seat, rnd.main_wager(), BET)
        for spec in rnd.wager_specs():
            if spec.fixed_cents is not None:
                rnd.place_wager(seat, spec.name, spec.fixed_cents)
    rnd.deal()
    decisions = 0
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        if seat == 1:
            decisions += 1
            rnd.act(1, person(rnd))
        else:
            rnd.act(seat, Bot(exact_advisor(rnd, seat)).choose(rnd, seat), by="bot")
    return table, rnd, decisions


def shown(cards: Sequence[int]) -> str:
    """Cards as the terminal draws them with NO_COLOR, e.g. ``[A♥] [7♣]``."""
    return " ".join(f"[{CARDS[c].pretty}]" for c in cards)


def test_play_let_it_ride_one_round_with_side_bets() -> None:
    """R-LIR-1..7 through the terminal: bets $5, 3-Card Bonus $2, Progressive $1; ride bet 1, pull bet 2."""
    seed = 10

    def person(rnd: Round) -> str:
        return "ride" if rnd.view(1)["stage"] == 1 else "pull"

    table, rnd, decisions = engine_round(
        "let-it-ride",
        seed,
        2,
        [("bets", 500, None), ("bonus", 200, None), ("progressive", 100, None)],
        person,
    )
    assert decisions == 2
    steps = [(LIR_MAIN, "5"), (LIR_BONUS, "2"), (LIR_PROG, "y"), (LIR_DECIDE, "r"), (LIR_DECIDE, "p")]
    out, balance = drive(["let-it-ride", "--seats", "2", "--seed", str(seed)], steps, LIR_MAIN)

    you = rnd.seats[1]
    assert shown(you.cards) in out
    assert f"Community   {shown(rnd.dealer[1:])}" in out  # R-LIR-2/3: dealer cards 2 and 3 are turned
    # Before the settlement seat 2's cards are backs, and only seat 1's cards are shown.
    before = out.split("Results")[0]
    assert re.search(r"Seat 2 bot\s+\[##\] \[##\] \[##\]", before)
    assert shown(rnd.seats[2].cards) not in before.split("Community card:")[0]
    assert "You let bet 1 ride" in out and "You pull bet 2" in out
    assert balance == money(table.bankrolls[1])
    # seed 10, worked by hand: trips pays 3 to 1 on bets 1 and $ (+$30), the Bonus pair 1 to 1 (+$2), the
    # Progressive trips $9 for the $1 wager (+$8); the bot pulls twice and loses $5 + its $1 Progressive.
    assert table.bankrolls == {1: 104_000, 2: 99_400}
    assert re.search(r"1 \(you\)\s+Bets 1 and \$\s+\$10\.00\s+\$40\.00\s+\+\$30\.00\s+win", out)
    assert re.search(r"1 \(you\)\s+Bet 2\s+\$5\.00\s+\$5\.00\s+\$0\.00\s+pulled", out)
    assert "Rounds played: 1" in out
    assert f"Your net result: +{money(table.bankrolls[1] - BANKROLL)}" in out
    assert "Jackpot meters: " + meters_text(table.game, table.meters) in out
    assert re.search(r"1 \(you\)\s+3-Card Bonus\s+\$2\.00\s+\$4\.00\s+\+\$2\.00\s+win: pair", out)
    assert re.search(r"1 \(you\)\s+Progressive\s+\$1\.00\s+\$9\.00\s+\+\$8\.00\s+win: trips", out)


def test_play_one_eyed_flush_one_round_with_side_bets() -> None:
    """R-OEF-4..10 through the terminal: main $5, Jackpot $1, Flip Card $2 on ten-value; stand."""
    seed = 47
    table, rnd, decisions = engine_round(
        "one-eyed-flush",
        seed,
        2,
        [("main", 500, None), ("jackpot", 100, None), ("flip", 200, "ten-value")],
        lambda rnd: "stand",
    )
    assert decisions == 1
    steps = [(MAIN, "5"), (OEF_JACKPOT, "y"), (OEF_FLIP, "2"), (OEF_OUTCOME, "t"), (OEF_DECIDE, "s")]
    out, balance = drive(["one-eyed-flush", "--seats", "2", "--seed", str(seed)], steps, MAIN)

    # R-OEF-4: the Flip Card is the dealer's card dealt face up (the dealer may replace it later)
    flip = next(
        e.card for e in rnd.history if isinstance(e, CardDealt) and e.to == "dealer" and e.visible_to == "all"
    )
    assert re.search(r"Dealer\s+\[##\] " + re.escape(f"[{CARDS[flip].pretty}") + r"\*?\] \[##\]", out)
    assert re.search(r"Seat 2 bot\s+\[##\] \[##\] \[##\]", out.split("Results")[0])
    assert balance == money(table.bankrolls[1])
    assert table.bankrolls[1] == 100_900  # seed 47: main, Jackpot and Flip Card all win
    assert "Jackpot meters: " + meters_text(table.game, table.meters) in out
    assert re.search(r"1 \(you\)\s+Flip Card\s+\$2\.00\s+\$6\.00\s+\+\$4\.00\s+win: ten-value, flipped", out)
    assert re.search(r"1 \(you\)\s+Jackpot\s+\$1\.00\s+\$1\.00\s+\$0\.00\s+win: Pair With Wild", out)


def test_play_final_count_one_round_then_ctrl_d() -> None:
    """R-FC-2..5 through the terminal: main $5, turn the third card; Ctrl-D quits like q."""
    seed = 4
    table, rnd, decisions = engine_round("final-count", seed, 2, [("main", 500, None)], lambda rnd: "turn")
    assert decisions == 1
    steps = [(MAIN, "5"), (FC_DECIDE, "t")]
    out, balance = drive(["final-count", "--seats", "2", "--seed", str(seed)], steps, MAIN, eof=True)

    you, dealer = rnd.seats[1], rnd.dealer
    assert re.search(r"Dealer\s+" + re.escape(shown(dealer[:2])) + r" \[##\]", out)
    assert "You: third card turned " + shown(you.cards[2:]) in out
    assert "Dealer turns the third card: " + shown(dealer[2:]) in out
    assert re.search(
        r"Dealer\s+" + re.escape(shown(dealer)), out.split("Results")[0].split("Dealer turns")[1]
    )
    assert balance == money(table.bankrolls[1])
    assert table.bankrolls[1] == 100_500  # seed 4: 26 vs dealer 12
    # the wager column names wagers as titles ("Main"), and the result says its outcome once
    assert re.search(r"1 \(you\)\s+Main\s+\$5\.00\s+\$10\.00\s+\+\$5\.00\s+win: 26 vs dealer 12", out), out
    assert "Rounds played: 1" in out and "Your net result: +$5.00" in out


def test_play_bad_input_reprompts_and_changes_nothing() -> None:
    """Refused input (wager 0, 1.234, unknown action, discard 9 or 0, ...) re-prompts with the reason; the round
    then plays exactly as if only the valid answers had been typed."""
    seed = 47
    table, _rnd, _ = engine_round(
        "one-eyed-flush", seed, 2, [("main", 500, None), ("flip", 200, "ten-value")], lambda rnd: "stand"
    )
    steps = [
        (MAIN, "0"),
        (r"must be positive.*\n.*" + MAIN, "1.234"),
        (r"1\.234 is not a whole number of cents.*\n.*" + MAIN, "lots"),
        (r"'lots' is not an amount of dollars.*\n.*" + MAIN, "5"),
        (OEF_JACKPOT, "maybe"),
        (r"answer y or n.*\n.*" + OEF_JACKPOT, "n"),
        (OEF_FLIP, "2"),
        (OEF_OUTCOME, "12"),
        (r"a Flip Card value must be 1-9, got 12.*\n.*" + OEF_OUTCOME, "ten-value"),
        (OEF_DECIDE, "x"),
        (
            r"x is not a legal action now; legal: stand, discard 1, discard 2, discard 3.*\n.*" + OEF_DECIDE,
            "discard 9",
        ),
        (
            r"discard 9 is out of range; legal now: stand, discard 1, discard 2, discard 3.*\n.*"
            + OEF_DECIDE,
            "d0",
        ),
        (r"discard 0 is out of range.*\n.*" + OEF_DECIDE, "s"),
    ]
    out, balance = drive(["one-eyed-flush", "--seats", "2", "--seed", str(seed)], steps, MAIN)
    assert balance == money(table.bankrolls[1])
    assert table.bankrolls[1] == 100_900  # no Jackpot wager this time
    assert "main $5.00 · Flip Card $2.00 on ten-value" in out


def test_play_same_seed_same_game() -> None:
    """--seed S twice gives the identical transcript; another seed deals other cards."""
    steps = [(LIR_MAIN, "5"), (LIR_BONUS, "1"), (LIR_PROG, "y"), (LIR_DECIDE, "r"), (LIR_DECIDE, "r")]
    args = ["let-it-ride", "--seats", "3", "--seed", "2026"]
    first, _ = drive(args, steps, LIR_MAIN)
    second, _ = drive(args, steps, LIR_MAIN)
    assert first == second
    other, _ = drive([*args[:-1], "2027"], steps, LIR_MAIN)
    assert other != first


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["final-count", "--bankroll", "1.234"], "1.234 is not a whole number of cents"),
        (["final-count", "--bankroll", "0"], "--bankroll must be positive"),
        (["final-count", "--bet", "abc"], "'abc' is not an amount of dollars"),
        (["final-count", "--seats", "8"], "--seats must be 1-7"),
        (["poker"], "unknown game 'poker'"),
        (
            ["one-eyed-flush", "--rule", "ties=sometimes"],
            "'sometimes' is not a choice; allowed: casino | tournament",
        ),
    ],
)
def test_play_bad_options_exit_cleanly(args: list[str], message: str) -> None:
    result = subprocess.run(
        [TABLEGAMES, *_prefix(), *args],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert message in " ".join(result.stderr.split())


def test_play_without_seed_uses_the_live_source() -> None:
    """No --seed: the deck comes from LiveRandom (the OS's cryptographic source); q at once quits cleanly."""
    result = subprocess.run(
        [TABLEGAMES, *_prefix(), "final-count", "--bankroll", "1000.50"],
        env=ENV,
        input="q\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "Random source: LiveRandom()" in result.stdout
    assert "Rounds played: 0" in result.stdout and "Final balance seat 1: $1,000.50" in result.stdout

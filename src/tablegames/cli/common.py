"""Helpers shared by CLI commands: game and rule options, clean error exits."""

from __future__ import annotations

from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from tablegames.rules import RuleError
from tablegames.rules.common import parse_rule_options
from tablegames.rules.definition import Wager
from tablegames.rules.registry import DEFINITIONS, GAMES

err_console = Console(stderr=True)

GameFileOpt = Annotated[
    str | None,
    typer.Option(
        "--game-file",
        help="a game file (TOML: the game, its name and complete rule set); GAME may be left out; "
        "--rule NAME=VALUE applies on top",
    ),
]


def games_help() -> str:
    """The registered games as a help text lists them: ``a, b or c``."""
    *rest, last = GAMES
    return f"{', '.join(rest)} or {last}" if rest else last


# the options the math commands (analyze, report, tune, sweep) share
GameArg = Annotated[
    str | None, typer.Argument(help=f"{games_help()} (optional with --game-file)", show_default=False)
]
RuleOpt = Annotated[
    list[str] | None,
    typer.Option("--rule", "-r", help="a rule NAME=VALUE (repeatable; docs/games.md lists each game's)"),
]
PaytableOpt = Annotated[str | None, typer.Option("--paytable", help="pay-table preset name or TOML file")]
BetOpt = Annotated[
    int | None, typer.Option("--bet", help="cents per wager, for a game with a payout cap (R-LIR-5)")
]


def side_bets_help() -> str:
    """Each registered game's side bets as ``simulate --side-bets`` takes them."""

    def one(w: Wager) -> str:
        if w.fixed is not None:
            return w.name
        if w.option is not None:
            return f"{w.name}[={'|'.join(_short(w.option.choices))}]"
        return f"{w.name}[=DOLLARS]"

    return "; ".join(f"{d.key} {', '.join(one(w) for w in d.side_bets)}" for d in DEFINITIONS if d.side_bets)


def _short(choices: tuple[str, ...]) -> list[str]:
    """``1 2 ... 9 x y`` -> ``1-9 x y`` (a run of digits as a range)."""
    digits = [c for c in choices if c.isdigit()]
    rest = [c for c in choices if not c.isdigit()]
    return ([f"{digits[0]}-{digits[-1]}"] if len(digits) > 1 else digits) + rest


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a clear error and exit with ``code`` (nothing was changed)."""
    err_console.print(f"[bold red]error:[/] {escape(message)}")  # a message's "[main]" is text, not markup
    raise typer.Exit(code)


def rules_and_name(
    game: str | None, rule: list[str] | None, paytable: str | None = None, game_file: str | None = None
) -> tuple[Any, str | None]:
    """The rules a command runs (a ``--game-file``, if any, with ``--rule`` on top; else ``GAME`` with its
    options) and the rule set's name (the file's, or None), or exit 2 with the error (for a bad file: the
    file and the field)."""
    from tablegames.rules.gamefile import rules_with

    try:
        return rules_with(game, parse_rule_options(rule), paytable, game_file)
    except RuleError as exc:
        fail(str(exc))


def rule_set_line(game: str, name: str | None) -> str:
    """``rule set: NAME (game)`` for a command's output ("" without a game file)."""
    return f"rule set: {name} ({game})" if name else ""

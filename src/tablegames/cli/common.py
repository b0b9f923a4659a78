"""Helpers shared by CLI commands: game and rule options, clean error exits."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

from tablegames.rules import GAMES, GameRules, RuleError, make_rules
from tablegames.rules.common import parse_rule_options

err_console = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a clear error and exit with ``code`` (nothing was changed)."""
    err_console.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def rules_from_cli(game: str, rule: list[str] | None, paytable: str | None = None) -> GameRules:
    """Parse ``GAME --rule NAME=VALUE ... [--paytable P]`` or exit with a clear error."""
    if game not in GAMES:
        fail(f"unknown game {game!r}; choose {', '.join(GAMES)}")
    try:
        return make_rules(game, parse_rule_options(rule), paytable)
    except RuleError as exc:
        fail(str(exc))

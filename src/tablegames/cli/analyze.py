"""``tablegames analyze``, ``tablegames tune`` and ``tablegames report``: the exact math of each game."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import typer

from tablegames.cli.common import fail, games_help, rules_from_cli


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


GameArg = Annotated[str, typer.Argument(help=games_help())]
RuleOpt = Annotated[
    list[str] | None, typer.Option("--rule", "-r", help="rule variant NAME=VALUE (repeatable), see RULES.md")
]
PaytableOpt = Annotated[str | None, typer.Option("--paytable", help="pay-table preset name or TOML file")]
BetOpt = Annotated[
    int | None, typer.Option("--bet", help="cents per wager; applies an aggregate payout cap (R-LIR-5)")
]
MeterOpt = Annotated[
    str | None,
    typer.Option(
        "--meter",
        help="meter values, e.g. mega=$75,000,major=600000 (plain numbers are cents; names as the game's "
        "analysis knows them, see the error for a wrong one)",
    ),
]


def _command_line() -> str:
    return "tablegames " + " ".join(sys.argv[1:])


def analyze(
    game: GameArg,
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    bet: BetOpt = None,
    meter: MeterOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    full_strategy: Annotated[
        bool,
        typer.Option("--full-strategy/--no-full-strategy", help="include the full decision table in JSON"),
    ] = True,
) -> None:
    """Exact house edge, return table, optimal strategy and side bets (heads-up, full deck, no sampling)."""
    from tablegames.analysis.api import analyze_game, parse_meters
    from tablegames.rules import RuleError

    rules = rules_from_cli(game, rule, paytable)
    try:
        a = analyze_game(rules, bet, parse_meters(meter), full_strategy=fmt == Format.json and full_strategy)
    except RuleError as exc:
        fail(str(exc))
    if fmt == Format.json:
        sys.stdout.write(json.dumps(a.to_json()) + "\n")
    elif fmt == Format.markdown:
        from tablegames.analysis.render import to_markdown

        sys.stdout.write(to_markdown(a, command=_command_line()) + "\n")
    else:
        from rich.console import Console

        from tablegames.analysis.render import rich_renderables

        console = Console()
        for r in rich_renderables(a):
            console.print(r)


def tune(
    game: GameArg,
    target_house_edge: Annotated[
        str, typer.Option("--target-house-edge", help="target edge as a fraction, e.g. 0.02 (or 2%)")
    ],
    solve: Annotated[str, typer.Option("--solve", help="the hand whose payout to solve for, e.g. flush")],
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    bet: BetOpt = None,
) -> None:
    """The whole-number payout for one hand that brings the wager's house edge closest to a target."""
    from rich.console import Console

    from tablegames.analysis.api import tunable_hands, tune
    from tablegames.rules import RuleError

    rules = rules_from_cli(game, rule, paytable)
    try:
        text = target_house_edge.strip()
        target = Fraction(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except (ValueError, ZeroDivisionError):
        fail(f"--target-house-edge must be a number like 0.02 or 2%, got {target_house_edge!r}")
    if not -1 < target < 1:
        fail("--target-house-edge must be a fraction between -1 and 1 (e.g. 0.02 for 2%)")
    if not tunable_hands(rules):
        fail(f"{game} has no pay table to tune (every win pays 1 to 1)")
    try:
        result = tune(rules, target, solve, bet)
    except RuleError as exc:
        fail(str(exc))
    console = Console()
    console.print(
        f"{game} {result.wager} wager: pay [bold]{result.hand} {result.odds} to 1[/] -> house edge "
        f"[bold]{100 * float(result.house_edge):.4f}%[/] (target {100 * float(target):.4f}%)"
    )
    for odds, edge in result.neighbours:
        if odds != result.odds:
            console.print(f"  {result.hand} {odds} to 1 -> {100 * float(edge):.4f}%")


def report(
    game: GameArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="directory for report.md, report.html and PNGs")],
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    bet: BetOpt = None,
    meter: MeterOpt = None,
) -> None:
    """Write the math report (PAR sheet): report.md, report.html, analysis.json and matplotlib PNGs."""
    from rich.console import Console

    from tablegames.analysis.api import analyze_game, parse_meters
    from tablegames.analysis.report import write_report
    from tablegames.rules import RuleError

    rules = rules_from_cli(game, rule, paytable)
    try:
        a = analyze_game(rules, bet, parse_meters(meter), full_strategy=True)
    except RuleError as exc:
        fail(str(exc))
    try:
        paths = write_report(a, rules, out, bet, _command_line())
    except OSError as exc:
        fail(f"cannot write the report to {out}: {exc}")
    console = Console()
    console.print(f"house edge {100 * float(a.house_edge):.4f}%; wrote:")
    for p in paths:
        console.print(f"  {p}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("analyze")(analyze)
    app.command("tune")(tune)
    app.command("report")(report)

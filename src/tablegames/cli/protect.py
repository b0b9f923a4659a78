"""``tablegames protect``: what a player gains when hidden cards are exposed (game protection)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tablegames.cli.common import GameFileOpt, fail, games_help, rule_set_line, rules_and_name

if TYPE_CHECKING:
    from tablegames.analysis.protect import ProtectionResult, Scenario


class Format(StrEnum):
    table = "table"
    json = "json"


def _money(cents: float) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def protect(
    game: Annotated[
        str | None, typer.Argument(help=f"{games_help()} (optional with --game-file)", show_default=False)
    ] = None,
    scenario: Annotated[
        str | None,
        typer.Option("--scenario", "-s", help="the exposure, e.g. community-2 or share=3 (see --list)"),
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="list the game's scenarios (every game's without one) and exit")
    ] = False,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", "-r", help="rule variant NAME=VALUE (repeatable), see RULES.md"),
    ] = None,
    paytable: Annotated[
        str | None, typer.Option("--paytable", help="pay-table preset name or TOML file")
    ] = None,
    bet: Annotated[
        str, typer.Option("--bet", help="average initial bet for the cost per hour (cents, or $ dollars)")
    ] = "2500",
    rounds_per_hour: Annotated[
        int | None, typer.Option("--rounds-per-hour", help="rounds per hour (default: the game's pace)")
    ] = None,
    seats: Annotated[int, typer.Option("--seats", help="seats playing with the knowledge")] = 1,
    rounds: Annotated[int, typer.Option("--rounds", help="simulated deals, where not enumerated")] = 20_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of a simulated scenario")] = 1,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    game_file: GameFileOpt = None,
) -> None:
    """The player's exact EV with the optimal strategy when hidden cards are seen, against fair play."""
    from tablegames.analysis.api import parse_money
    from tablegames.analysis.protect import protect as run
    from tablegames.analysis.protect import scenarios
    from tablegames.rules import RuleError

    if list_ and game is None and game_file is None:  # every game's scenarios
        from tablegames.rules import make_rules, registry

        games = [d.key for d in registry.DEFINITIONS if d.protection is not None]
        _list_all([(g, scenarios(make_rules(g), template=True)) for g in games], fmt)
        return
    rules, name = rules_and_name(game, rule, paytable, game_file)
    try:
        known = scenarios(rules, template=True)
    except RuleError as exc:
        fail(str(exc))
    if list_:
        _list(rules.game, known, fmt)
        return
    if scenario is None:
        fail(f"name a --scenario; {rules.game} has {', '.join(s.name for s in known)} (K = 1 to 7)")
    try:
        result = run(
            rules,
            scenario,
            avg_bet_cents=parse_money(bet),
            rounds_per_hour=rounds_per_hour,
            seats=seats,
            sim_rounds=rounds,
            seed=seed,
        )
    except RuleError as exc:
        fail(str(exc))
    if fmt == Format.json:
        out = result.to_dict()
        if name is not None:
            out["rule_set"] = name
        sys.stdout.write(json.dumps(out) + "\n")
        return
    if name:
        print(rule_set_line(rules.game, name))
    _table(result)


def _rows(game: str, known: list[Scenario]) -> dict[str, Any]:
    rows = [{"name": s.name, "description": s.description, "exact": s.exact} for s in known]
    return {"game": game, "scenarios": rows}


def _list(game: str, known: list[Scenario], fmt: Format) -> None:
    if fmt == Format.json:
        sys.stdout.write(json.dumps(_rows(game, known)) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{game}: exposure scenarios")
    table.add_column("scenario")
    table.add_column("what is seen")
    table.add_column("figures")
    for s in known:
        table.add_row(s.name, s.description, "exact" if s.exact else "simulated")
    Console().print(table)


def _list_all(games: list[tuple[str, list[Scenario]]], fmt: Format) -> None:
    """``--list`` without a game: every game's scenarios (JSON: ``{"games": [...]}``, each as one game's)."""
    if fmt == Format.json:
        sys.stdout.write(json.dumps({"games": [_rows(g, known) for g, known in games]}) + "\n")
        return
    for g, known in games:
        _list(g, known, fmt)


def _table(r: ProtectionResult) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    how = "exact" if r.exact else f"simulated, {r.rounds_simulated:,} deals"
    table = Table(title=f"{r.game} - {r.scenario} ({how})", show_header=False)
    table.add_column("", style="bold")
    table.add_column("")
    table.add_row("exposed", r.description)
    ev = f"{100 * float(r.player_ev):+.4f}%"
    if r.ci is not None:
        ev += f"  (95%: {100 * r.ci[0]:+.4f}% to {100 * r.ci[1]:+.4f}%)"
    elif hasattr(r.player_ev, "denominator"):
        ev += f"  = {r.player_ev}"
    table.add_row("player EV (informed)", ev)
    table.add_row("player EV (fair)", f"{100 * float(r.fair_player_ev):+.4f}%")
    table.add_row("house edge (informed)", f"{100 * float(r.edge):+.4f}%")
    table.add_row("change", f"{100 * float(r.change):+.4f}% per initial unit")
    table.add_row(
        "rounds with a changed decision", f"{100 * float(r.change_frequency):.3f}% (ties: cautious, R-0.5)"
    )
    table.add_row(
        "cost to the house",
        f"{_money(r.cost_per_hour_cents)} per hour ({_money(r.avg_bet_cents)} bet, {r.rounds_per_hour} rounds/h, "
        f"{r.seats} seat{'s' if r.seats > 1 else ''})",
    )
    console.print(table)
    if r.decisions_changed:
        changes = Table(title="decisions that change")
        changes.add_column("situation")
        changes.add_column("fair")
        changes.add_column("informed")
        changes.add_column("of rounds", justify="right")
        for c in r.decisions_changed[:20]:
            changes.add_row(c.situation, c.fair, c.informed, f"{100 * float(c.frequency):.3f}%")
        if len(r.decisions_changed) > 20:
            changes.add_row(f"... {len(r.decisions_changed) - 20} more", "", "", "")
        console.print(changes)
    for note in r.notes:
        console.print(f"[dim]{note}[/]")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("protect")(protect)

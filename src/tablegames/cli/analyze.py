"""``tablegames analyze`` and ``tablegames report``: the exact math of each game (``tune`` and ``sweep``:
:mod:`tablegames.cli.lab`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from tablegames.cli.common import (
    BetOpt,
    GameArg,
    GameFileOpt,
    PaytableOpt,
    RuleOpt,
    err_console,
    fail,
    rule_set_line,
    rules_and_name,
)


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


def _meter_names() -> str:
    """Every game's meter names, from the registry (``--meter``'s help)."""
    from tablegames.rules import registry

    games = [(d.key, [m.name for m in d.meters(d.make_rules())]) for d in registry.DEFINITIONS]
    return "; ".join(f"{key}: {', '.join(names)}" for key, names in games if names)


MeterOpt = Annotated[
    str | None,
    typer.Option(
        "--meter",
        help="meter values as NAME=AMOUNT,... (plain numbers are cents, $ amounts dollars); the meters: "
        + _meter_names(),
    ),
]


def _command_line() -> str:
    return "tablegames " + " ".join(sys.argv[1:])


def analyze(
    game: GameArg = None,
    rule: RuleOpt = None,
    game_file: GameFileOpt = None,
    paytable: PaytableOpt = None,
    bet: BetOpt = None,
    meter: MeterOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    full_strategy: Annotated[
        bool,
        typer.Option("--full-strategy/--no-full-strategy", help="include the full decision table in JSON"),
    ] = True,
    cache: Annotated[
        bool,
        typer.Option(
            "--cache/--no-cache",
            help="JSON: read the same analysis from the disk cache, store a new one "
            "(~/.cache/tablegames/analysis; env TABLEGAMES_CACHE_DIR, empty: off)",
        ),
    ] = True,
) -> None:
    """Exact house edge, return table, optimal strategy and side bets (heads-up, full deck, no sampling)."""
    from tablegames.analysis.api import parse_meters
    from tablegames.rules import RuleError

    rules, name = rules_and_name(game, rule, paytable, game_file)
    if fmt == Format.json:  # the text itself is cached (analysis/result_cache.py, issue 28)
        _json(rules, name, bet, meter, full_strategy, cache)
        return
    from tablegames.analysis.api import analyze_game

    try:
        a = analyze_game(rules, bet, parse_meters(meter))
    except RuleError as exc:
        fail(str(exc))
    if name is not None:
        a.extra["rule_set"] = name
    if fmt == Format.markdown:
        from tablegames.analysis.render import to_markdown

        head = f"**{rule_set_line(rules.game, name)}**\n\n" if name else ""
        sys.stdout.write(head + to_markdown(a, command=_command_line()) + "\n")
    else:
        from rich.console import Console

        from tablegames.analysis.render import rich_renderables

        console = Console()
        if name:
            console.print(f"[bold]{rule_set_line(rules.game, name)}[/]")
        for r in rich_renderables(a):
            console.print(r)


def _json(rules: Any, name: str | None, bet: int | None, meter: str | None, full: bool, cache: bool) -> None:
    """Print the analysis as JSON: from the disk cache when there, else computed and stored; run by
    :func:`tablegames.cli.main`, the command line is noted as answered by it (``main`` then prints it without
    parsing it again: ``result_cache.recall``)."""
    import os

    from tablegames import cli
    from tablegames.analysis import result_cache as rc
    from tablegames.analysis.api import parse_meters
    from tablegames.rules import RuleError

    directory = rc.default_directory() if cache else None
    argv = cli.ARGV
    request = None
    if directory is not None and argv is not None:
        try:
            request = rc.request_of(argv, Path(os.getcwd()))
        except OSError:  # a named file unreadable: the command says so below, or needs no note
            request = None
    extra = {} if name is None else {"rule_set": name}
    try:
        meters = parse_meters(meter)
        text = rc.analysis_json(rules, bet, meters, full, extra, directory)
    except RuleError as exc:
        fail(str(exc))
    if directory is not None and request is not None:
        try:
            rc.remember(directory, request, rc.key_of(rules, bet, meters, full, extra))
        except OSError as exc:
            rc.log.warning("analysis cache: could not note the command line in %s (%s)", directory, exc)
    sys.stdout.write(text + "\n")


def report(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="directory for report.md/.html/.pdf, the JSON files and PNGs")
    ],
    game: GameArg = None,
    rule: RuleOpt = None,
    game_file: GameFileOpt = None,
    paytable: PaytableOpt = None,
    bet: BetOpt = None,
    meter: MeterOpt = None,
    verify_rounds: Annotated[
        int,
        typer.Option(
            "--verify-rounds",
            help="rounds of the independent verification simulation (0: none; the default 10^8 takes about 10 to "
            "40 s on one core, docs/performance.md)",
        ),
    ] = 100_000_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the verification simulation")] = 0,
    average_bet: Annotated[
        int, typer.Option("--average-bet", help="cents per initial wager for the win-per-hour table")
    ] = 1_000,
    workers: Annotated[int, typer.Option("--workers", "-w", help="local worker processes")] = 1,
    protect: Annotated[
        bool, typer.Option("--protect/--no-protect", help="include the game-protection scenarios")
    ] = True,
    detect: Annotated[
        bool,
        typer.Option(
            "--detect/--no-detect", help="include the detection table (simulated: see --detect-players)"
        ),
    ] = True,
    detect_players: Annotated[
        int,
        typer.Option("--detect-players", help="cheaters, and as many honest players, per detection scenario"),
    ] = 50,
    detect_hands: Annotated[
        int, typer.Option("--detect-hands", help="hands each player of the detection runs plays")
    ] = 400,
    detect_pair_players: Annotated[
        int,
        typer.Option(
            "--detect-pair-players",
            help="colluders (in pairs), and as many honest players, per collusion scenario; 0 leaves them out",
        ),
    ] = 10,
    detect_pair_hands: Annotated[
        int, typer.Option("--detect-pair-hands", help="hands each player of the collusion runs plays")
    ] = 2_000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    z_limit: Annotated[
        float,
        typer.Option(
            "--z-limit", help="a verification row passes when |z| is below this; exit 1 if one fails"
        ),
    ] = 4.0,
    revision: Annotated[str, typer.Option("--revision", help="the document's revision (title page)")] = "1",
    compare: Annotated[
        str | None,
        typer.Option(
            "--compare",
            help="another game file of the same game (e.g. its standard rules): every figure side by side",
        ),
    ] = None,
) -> None:
    """Write the math report for a test lab: report.md, report.html, report.pdf, analysis.json, report.json
    and PNGs (rules with engine-played examples, every wager's statistics, hold, pace, seats, meters,
    game protection and how fast `detect` flags a player who sees the cards, and a verification simulation of --verify-rounds rounds, with a PASS/FAIL verdict:
    exit status 1 when it fails)."""
    from rich.console import Console

    from tablegames.cli.extras import require

    require("report", "report")

    from tablegames.analysis.api import analyze_game, parse_meters
    from tablegames.analysis.report import write_report
    from tablegames.analysis.report_detection import DetectionPlan
    from tablegames.analysis.submission import FAIL, build
    from tablegames.rules import RuleError
    from tablegames.simulation.verify import simulate_summary

    rules, name = rules_and_name(game, rule, paytable, game_file)
    if verify_rounds < 0:
        fail(f"--verify-rounds must be >= 0, got {verify_rounds}")
    if average_bet <= 0:
        fail(f"--average-bet must be a positive number of cents, got {average_bet}")
    if seed < 0:
        fail(f"--seed must be >= 0, got {seed}")
    if workers < 1:
        fail(f"--workers must be >= 1, got {workers}")
    if not z_limit > 0:
        fail(f"--z-limit must be > 0, got {z_limit}")
    if not revision.strip():
        fail("--revision must not be empty")
    if detect_players < 1 or detect_hands < 1:
        fail(f"--detect-players and --detect-hands must be >= 1, got {detect_players} and {detect_hands}")
    if detect_pair_players < 0 or detect_pair_players % 2 or detect_pair_hands < 1:
        fail(
            "--detect-pair-players must be an even number >= 0 (colluders sit in pairs) and --detect-pair-hands "
            f">= 1, got {detect_pair_players} and {detect_pair_hands}"
        )
    other, other_name = rules_and_name(None, None, None, compare) if compare else (None, None)
    if other is not None and other.game != rules.game:
        fail(f"--compare {compare} is a {other.game} game file; the report is of {rules.game}")
    console = Console(stderr=True)
    try:
        a = analyze_game(rules, bet, parse_meters(meter), full_strategy=True)
        if name is not None:
            a.extra["rule_set"] = name
        with _progress(console, quiet) as start:
            sub = build(
                a,
                rules,
                simulate=partial(simulate_summary, workers=workers),
                verify_rounds=verify_rounds,
                seed=seed,
                average_bet_cents=average_bet,
                progress=start,
                protection=protect,
                detection=(
                    DetectionPlan(
                        cheaters=detect_players,
                        honest=detect_players,
                        hands=detect_hands,
                        seed=seed + 1,
                        pair_players=detect_pair_players,
                        pair_hands=detect_pair_hands,
                    )
                    if detect
                    else None
                ),
                z_limit=z_limit,
                game_file=game_file,
                rule_set_name=name or "",
                revision=revision.strip(),
            )
        if other is not None:
            from tablegames.analysis.compare import compare as compare_with

            other_a = analyze_game(other, bet, parse_meters(meter))
            sub.comparison = compare_with(a, rules, other_a, other, other_name or str(compare))
    except RuleError as exc:
        fail(str(exc))
    try:
        paths = write_report(a, rules, out, bet, _command_line(), sub)
    except OSError as exc:
        fail(f"cannot write the report to {out}: {exc}")
    if name:
        Console().print(rule_set_line(rules.game, name))
    Console().print(f"house edge {100 * float(a.house_edge):.4f}%; wrote:")
    for p in paths:
        Console().print(f"  {p}")
    Console().print(f"verification: {sub.verdict} (criterion: |z| < {sub.z_limit:g} on every row)")
    if sub.verdict == FAIL:
        failed = [v.label for v in sub.verification if not v.passes(sub.z_limit)]
        err_console.print(f"[bold red]verification FAIL:[/] {escape(', '.join(failed))}")
        raise typer.Exit(1)


@contextmanager
def _progress(console: Any, quiet: bool) -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    """Rich progress bars for the report's long parts (the simulations), on a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet,
    ) as bar:

        def start(label: str, total: int) -> Callable[[int], None]:
            task = bar.add_task(label, total=total)
            return lambda n: bar.advance(task, n)

        yield start


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("analyze")(analyze)
    app.command("report")(report)

"""``tablegames detect``: catching advantage play (issue 27) over the stored rounds, and its simulation harness
``tablegames detect simulate`` (docs/detection.md)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from tablegames.cli.common import GameArg, GameFileOpt, PaytableOpt, RuleOpt, fail, rules_and_name


class Format(StrEnum):
    table = "table"
    json = "json"


detect_app = typer.Typer(
    name="detect",
    help="Catch advantage play: every decision scored against the hidden cards (docs/detection.md).",
)

AlphaOpt = Annotated[
    float,
    typer.Option("--alpha", help="false-positive rate per player-test (Bonferroni over the scenarios)"),
]


def _since(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        fail(f"--since takes an ISO date or date-time (2026-12-01 or 2026-12-01T08:00), got {text!r}")
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


@detect_app.callback(invoke_without_command=True)
def detect(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Option("--database", help="the server's database URL (read only); $TABLEGAMES_DATABASE_URL"),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="only rounds settled from this date (ISO, UTC)")
    ] = None,
    alpha: AlphaOpt = 1e-6,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    workers: Annotated[
        int,
        typer.Option("--workers", help="processes scoring the rounds (0: one per core from 100,000 rounds)"),
    ] = 0,
    pairs_too: Annotated[
        bool,
        typer.Option(
            "--pairs/--no-pairs",
            help="also test every pair of players at a table for collusion (share=2)",
        ),
    ] = True,
) -> None:
    """Score every stored decision against the hidden cards and report the flagged players."""
    if ctx.invoked_subcommand is not None:
        return
    import os

    from tablegames.analysis.detect_db import count_rounds, detect_database
    from tablegames.analysis.detect_pairs_db import detect_both
    from tablegames.rules import RuleError

    url = database or os.environ.get("TABLEGAMES_DATABASE_URL")
    if not url:
        fail("name the server's database: --database URL (or set TABLEGAMES_DATABASE_URL)")
    if not 0.0 < alpha < 1.0:
        fail("--alpha must be between 0 and 1")
    if workers < 0:
        fail("--workers must be 0 (one per core) or more")
    from tablegames.cli.extras import require_database

    require_database("detect", url)
    when = _since(since)
    try:
        total = count_rounds(url, when)
        report, pair_report = (
            _with_progress(  # the pair tests from the same scan (analysis/detect_pairs_scan.py)
                lambda progress: (
                    detect_both(
                        url, since=when, alpha=alpha, progress=lambda n: progress(n, total), workers=workers
                    )
                    if pairs_too
                    else (
                        detect_database(
                            url,
                            since=when,
                            alpha=alpha,
                            progress=lambda n: progress(n, total),
                            workers=workers,
                        ),
                        None,
                    )
                ),
                quiet=fmt == Format.json or total < 20_000,
                label="rounds",
                advance=True,
            )
        )
        pairs = pair_report.pairs if pair_report is not None else []
    except RuleError as exc:
        fail(str(exc))
    if fmt == Format.json:
        sys.stdout.write(json.dumps(report.to_dict() | {"pairs": [f.to_dict() for f in pairs]}) + "\n")
        return
    from rich.console import Console

    console = Console()
    console.print(
        f"{report.rounds:,} rounds, {report.decisions:,} decisions, {report.players:,} players, "
        f"{report.tests:,} tests at alpha {alpha:g} ({report.seconds:.1f} s)"
    )
    for c in pairs:
        console.print(
            f"[bold red]COLLUSION[/] {c.player or '?'} (player #{c.player_id}) with {c.partner or '?'} (player "
            f"#{c.partner_id}), {c.game} {c.scenario}: at hand {c.flagged_at_hand} of {c.hands}; {c.supported} of "
            f"{c.mistakes} mistakes agree with the partner's cards; evidence rounds "
            + ", ".join(str(r) for r in c.evidence_rounds[:10])
        )
    if not report.flagged:
        console.print("No player flagged." if not pairs else "No player flagged alone.")
        return
    for f in report.flagged:
        rounds = ", ".join(str(r) for r in f.evidence_rounds[:10])
        console.print(
            f"[bold red]FLAGGED[/] {f.name or '?'} (player #{f.player_id}), {f.game} {f.scenario}: at hand "
            f"{f.flagged_at_hand} of {f.hands}; {f.supported} of {f.mistakes} mistakes agree with the hidden "
            f"cards (log10 evidence {f.log10_evidence:.1f}); evidence rounds {rounds}"
            + (" ..." if len(f.evidence_rounds) > 10 else "")
        )


@detect_app.command("simulate")
def simulate(
    game: GameArg = None,
    scenario: Annotated[
        str, typer.Option("--scenario", "-s", help="the exposure the cheaters use")
    ] = "dealer-1",
    cheaters: Annotated[int, typer.Option("--cheaters", help="players who see the hidden cards")] = 100,
    honest: Annotated[int, typer.Option("--honest", help="honest players")] = 100,
    hands: Annotated[int, typer.Option("--hands", help="hands each player plays")] = 400,
    read_rate: Annotated[
        float, typer.Option("--read-rate", help="fraction of hands a cheater sees the cards")
    ] = 1.0,
    honest_noise: Annotated[
        float, typer.Option("--honest-noise", help="an honest player's rate of random mistakes")
    ] = 0.0,
    cheater_noise: Annotated[
        float,
        typer.Option(
            "--cheater-noise", help="a cheater's rate of random mistakes (besides the informed play)"
        ),
    ] = 0.0,
    honest_strategy: Annotated[
        str,
        typer.Option(
            "--honest-strategy",
            help="how honest players play: optimal, or rule-of-thumb (the table bot's rule)",
        ),
    ] = "optimal",
    seed: Annotated[int, typer.Option("--seed", help="the simulation's seed")] = 1,
    alpha: AlphaOpt = 1e-6,
    method: Annotated[
        str, typer.Option("--method", help="auto, kernel (arrays, where a game has one) or engine")
    ] = "auto",
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    game_file: GameFileOpt = None,
) -> None:
    """Synthetic cheaters and honest players: how many are flagged, and in how many hands."""
    from tablegames.analysis.detect_simulate import simulate as run
    from tablegames.rules import RuleError

    rules, _name = rules_and_name(game, rule, paytable, game_file)
    try:
        result = _with_progress(
            lambda progress: run(
                rules,
                scenario,
                cheaters=cheaters,
                honest=honest,
                hands=hands,
                read_rate=read_rate,
                honest_noise=honest_noise,
                seed=seed,
                alpha=alpha,
                method=method,
                progress=progress,
                honest_strategy=honest_strategy,
                cheater_noise=cheater_noise,
            ),
            quiet=fmt == Format.json or (cheaters + honest) * hands < 20_000,
        )
    except RuleError as exc:
        fail(str(exc))
    out = result.to_dict()
    if fmt == Format.json:
        sys.stdout.write(json.dumps(out) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{out['game']} - {out['scenario']}: detection ({out['method']})", show_header=False)
    table.add_column("", style="bold")
    table.add_column("")
    for key, value in out.items():
        if key not in ("game", "scenario", "method"):
            table.add_row(
                key.replace("_", " "),
                "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value),
            )
    Console().print(table)


def _with_progress(work: Any, quiet: bool, label: str = "player-hands", advance: bool = False) -> Any:
    """``work(progress)`` under a progress bar on stderr; ``progress(done, total)``: ``done`` so far, or (with
    ``advance``) ``done`` more."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=quiet,
    ) as bar:
        task = bar.add_task("detect", total=None)

        def progress(done: int, total: int) -> None:
            if advance:
                bar.update(task, advance=done, total=total)
            else:
                bar.update(task, completed=done, total=total)

        return work(progress)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.add_typer(detect_app)

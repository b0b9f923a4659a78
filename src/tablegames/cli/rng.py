"""``tablegames rng-test`` (the RNG statistical test suite) and ``tablegames verify`` (provably fair rounds).

Exit codes: 0 = all tests pass / the round verifies; 1 = a test fails / the round does not match its seeds;
2 = bad usage or a malformed file (the message names the problem).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import typer

SOURCE_HELP = (
    "live: OS cryptographic source; seeded: NumPy PCG64 from --seed; fair: provably fair rounds (fresh secret "
    "server seed each round, plain path); broken-naive / broken-modulo: deliberately biased shuffles that must fail"
)


def _parse_seed(text: str | None) -> int | str | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def rng_test(
    shuffles: int = typer.Option(250_000, "--shuffles", "-n", help="number of decks to deal and test", min=1),
    source: str = typer.Option("live", "--source", "-s", help=SOURCE_HELP),
    seed: str | None = typer.Option(
        None,
        "--seed",
        help="seed of the seeded and broken sources (default 0); the live and fair sources take none",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="write a Markdown + JSON report and a heatmap PNG here"
    ),
    plain: bool = typer.Option(
        False,
        "--plain",
        help="deal one deck at a time with shuffle_deck (the table's code path) instead of NumPy",
    ),
    alpha: float = typer.Option(
        0.01, "--alpha", help="significance level of each test (0.01 = 99% confidence)"
    ),
) -> None:
    """Statistical tests of dealt decks at 99% confidence (GLI-19 §3.2.2): chi-square of the card × position
    table, the first card and the first three cards as a hand; runs; serial correlation within decks and between
    rounds; adjacent pairs and successions; repeated decks and a birthday test. Exit code 1 if any test fails."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from tablegames.cli.common import fail
    from tablegames.randomness.batch import SOURCES, make_batcher
    from tablegames.randomness.report import write_reports
    from tablegames.randomness.stats import run_suite

    if source not in SOURCES:
        fail(f"unknown source {source!r}; choose {', '.join(SOURCES)}")
    if shuffles < 1000:
        fail(
            f"--shuffles must be at least 1000 (got {shuffles}): the chi-square tests need expected counts >= 5"
        )
    if not 0 < alpha < 1:
        fail(f"--alpha must be between 0 and 1, got {alpha}")
    seed_value = _parse_seed(seed)
    if seed_value is None and source not in ("live", "fair"):
        seed_value = 0
    try:
        batcher = make_batcher(source, seed_value, plain=plain)
    except ValueError as exc:
        fail(str(exc))

    console = Console()
    progress = Progress(
        TextColumn(f"dealing {source} decks"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    batch = 2_000 if plain or source == "fair" else 50_000
    with progress:
        task = progress.add_task("deal", total=shuffles)
        result = run_suite(
            batcher,
            shuffles,
            source=source,
            alpha=alpha,
            batch=batch,
            on_progress=lambda k: progress.advance(task, k),
        )
    if seed_value is not None:
        result.params["seed"] = seed_value
    result.params["plain"] = plain

    table = Table(title=f"RNG tests: {source}, {shuffles:,} decks, α = {alpha} ({result.seconds:.1f} s)")
    table.add_column("test")
    table.add_column("statistic", justify="right")
    table.add_column("p-value", justify="right")
    table.add_column(f"{1 - alpha:.0%}", justify="center")
    table.add_column("method", style="dim")
    for t in result.tests:
        p = f"{t.p_value:.4f}" if t.p_value >= 1e-4 else f"{t.p_value:.2e}"
        verdict = "[green]pass[/]" if t.passed else "[bold red]FAIL[/]"
        table.add_row(t.name, f"{t.statistic:.3f}", p, verdict, t.method)
    console.print(table)
    console.print(
        f"dealt by {result.description}" + (f", seed {seed_value!r}" if seed_value is not None else "")
    )
    if result.passed:
        console.print(f"[bold green]PASS[/]: all {len(result.tests)} tests pass at {1 - alpha:.0%}")
    else:
        names = ", ".join(t.name for t in result.failed)
        console.print(f"[bold red]FAIL[/]: {len(result.failed)} of {len(result.tests)} tests fail: {names}")
    if out is not None:
        command = "tablegames " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        for path in write_reports(result, out, command):
            console.print(f"wrote {path}")
    if not result.passed:
        raise typer.Exit(1)


def verify(
    file: Path | None = typer.Argument(None, help="round record JSON (as given by game recall)"),
    schema: bool = typer.Option(False, "--schema", help="print the JSON schema of a round record and exit"),
) -> None:
    """Prove that a provably fair round's cards are exactly what its seeds produce, or say where they differ.

    Checks that SHA-256(server seed) is the published commitment, that the players' seeds (when the record
    lists them) were all committed before any was revealed and match their commitments, that the client seed
    combines the revealed ones, that HMAC-SHA256(server seed, client seed, nonce) deals exactly the
    recorded deck, and that every dealt card sits at its position."""
    from rich.console import Console
    from rich.markup import escape

    from tablegames.cli.common import fail
    from tablegames.randomness.fairness import (
        ROUND_RECORD_SCHEMA,
        RecordFormatError,
        load_record,
        verify_record,
    )

    console = Console(soft_wrap=True)
    if schema:
        typer.echo(json.dumps(ROUND_RECORD_SCHEMA, indent=2))
        return
    if file is None:
        fail("give the round record FILE to verify (or --schema)")
    try:
        record = load_record(file)
    except RecordFormatError as exc:
        fail(f"malformed round record {file}: {exc}")
    report = verify_record(record)
    fair = record.fairness
    console.print(
        f"round {record.round_id!r} of {record.game}: nonce {fair.nonce}, client seed {fair.client_seed!r}"
    )
    seeds = record.client_seeds
    if seeds is not None:
        listing = ", ".join(
            f"seat {e.seat} {e.seed!r}" if e.seed is not None else f"seat {e.seat} (not revealed: dropped)"
            for e in seeds
        )
        console.print(f"players' seeds: {listing}", markup=False)
    if report.ok:
        console.print(f"[green]✓[/] commitment {fair.commitment} = SHA-256(server seed)")
        if seeds is not None:
            console.print(
                "[green]✓[/] every seat committed (SHA-256 of its seed) before any seed was revealed, and each "
                "revealed seed matches its commitment"
            )
            console.print("[green]✓[/] the client seed is SHA-256 of the revealed seeds, in seat order")
        console.print("[green]✓[/] the seeds deal exactly the recorded 52-card deck")
        console.print(f"[green]✓[/] all {len(record.dealt)} dealt cards sit at their positions")
        console.print("[bold green]VERIFIED[/]: this round's cards are exactly what its seeds produce")
        return
    for problem in report.problems:
        console.print(f"[red]✗[/] {escape(problem)}")  # a problem's text is text ([[seat, seed], ...])
    console.print("[bold red]NOT VERIFIED[/]: the record does not match its seeds")
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("rng-test")(rng_test)
    app.command("verify")(verify)

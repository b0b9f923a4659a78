"""``tablegames tune`` and ``tablegames sweep``: a game designer's lab over a game's parameters (issue 15).

``tune`` changes several parameters at once (payouts, amounts, whole numbers, choices) to bring a wager's
house edge to a target (:mod:`tablegames.analysis.tune`); with one hand name instead (``--solve flush``) it
solves that hand's payout alone, as before. ``sweep`` tabulates and plots the figures over one or two
parameters (:mod:`tablegames.analysis.sweep`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer

from tablegames.cli.common import (
    BetOpt,
    GameArg,
    GameFileOpt,
    PaytableOpt,
    RuleOpt,
    fail,
    rule_set_line,
    rules_and_name,
)


class Format(StrEnum):
    table = "table"
    json = "json"


WagerOpt = Annotated[
    str | None,
    typer.Option(
        "--wager", help="the side bet whose figures to use (its name as analyze lists it; default: main)"
    ),
]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="output format")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")]


def parse_target(text: str, option: str = "--target-house-edge") -> Fraction:
    """``0.02`` or ``2%`` -> 1/50, or exit 2."""
    t = text.strip()
    try:
        target = Fraction(t.rstrip("%")) / (100 if t.endswith("%") else 1)
    except (ValueError, ZeroDivisionError):
        fail(f"{option} must be a number like 0.02 or 2%, got {text!r}")
    if not -1 < target < 1:
        fail(f"{option} must be a fraction between -1 and 1 (e.g. 0.02 for 2%)")
    return target


def pct(x: Fraction | float, digits: int = 4) -> str:
    return f"{100 * float(x):.{digits}f}%"


@contextmanager
def progress_bar(label: str, quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A Rich bar on a terminal's stderr (``(done, estimated total)``), or nothing."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=max(done, total))


def tune(
    target_house_edge: Annotated[
        str, typer.Option("--target-house-edge", help="target edge as a fraction, e.g. 0.02 (or 2%)")
    ],
    solve: Annotated[
        str,
        typer.Option(
            "--solve",
            help="the parameters to change, comma-separated (payouts, whole numbers, choices), e.g. "
            "main.flush,main.straight,bust-limit; or one hand name whose payout alone to solve for (flush)",
        ),
    ],
    game: GameArg = None,
    constraint: Annotated[
        list[str] | None,
        typer.Option("--constraint", "-c", help="NAME<=N, NAME>=N, NAME=N, NAME!=N or A<=B (repeatable)"),
    ] = None,
    top: Annotated[int, typer.Option("--top", "-n", help="how many candidates to print")] = 5,
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    game_file: GameFileOpt = None,
    bet: BetOpt = None,
    wager: WagerOpt = None,
    fmt: FormatOpt = Format.table,
    save: Annotated[
        Path | None, typer.Option("--save", help="write the best candidate as a game file (TOML)")
    ] = None,
    beam: Annotated[
        int, typer.Option("--beam", help="structural combinations whose payouts are searched")
    ] = 3,
    tolerance: Annotated[
        str,
        typer.Option(
            "--tolerance", help="candidates this near the target come first, the smallest change first"
        ),
    ] = "0.05%",
    quiet: QuietOpt = False,
) -> None:
    """Bring a wager's house edge to a target by changing several parameters at once: the best candidates
    with their house edge, element of risk, hit frequency and changed values (every one solved exactly)."""
    from tablegames.rules import RuleError, registry

    rules, name = rules_and_name(game, rule, paytable, game_file)
    target = parse_target(target_house_edge)
    near = parse_target(tolerance, "--tolerance")
    definition = registry.of(rules)
    items = [s.strip() for s in solve.split(",") if s.strip()]
    known = {p.name for p in definition.parameters}
    if len(items) == 1 and items[0] not in known:
        _tune_one_hand(rules, target, items[0], bet)
        return
    from tablegames.analysis.tune import tune_parameters

    try:
        with progress_bar("solving", quiet) as bar:
            report = tune_parameters(
                rules,
                target,
                items,
                constraint or (),
                top=top,
                beam=beam,
                tolerance=abs(near),
                wager=wager,
                bet_cents=bet,
                progress=bar,
            )
        best = report.best
    except RuleError as exc:
        fail(str(exc))
    if save is not None:
        _save(save, rules, name, report.target, best)
    if fmt == Format.json:
        out = {
            "game": rules.game,
            "rule_set": name,
            "target": float(target),
            "target_exact": str(target),
            "solve": list(report.solve),
            "constraints": list(report.constraints),
            "base": report.base.to_json(),
            "candidates": [
                {
                    **c.figures.to_json(),
                    "distance": float(c.distance(target)),
                    "changes": {k: {"from": a, "to": b} for k, a, b in _rows(c.changes)},
                    "rules": definition.rule_set(c.rules),
                }
                for c in report.candidates
            ],
            "evaluations": report.evaluations,
            "notes": report.notes,
            "saved": None if save is None else str(save),
        }
        sys.stdout.write(json.dumps(out) + "\n")
        return
    _print_candidates(rules, name, report, save)


def _rows(changes: dict[str, tuple[str, str]]) -> list[tuple[str, str, str]]:
    return [(k, a, b) for k, (a, b) in changes.items()]


def _print_candidates(rules: Any, name: str | None, report: Any, save: Path | None) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    if name:
        console.print(rule_set_line(rules.game, name))
    wager = report.base.wager or "main"
    console.print(
        f"{rules.game} {wager} wager: house edge {pct(report.base.house_edge)} now, target "
        f"[bold]{pct(report.target)}[/]; solving {', '.join(report.solve)}"
        + (f" with {', '.join(report.constraints)}" if report.constraints else "")
    )
    table = Table(
        title=f"best {len(report.candidates)} candidates (each solved exactly)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    for col in ("#", "edge", "off", "EoR", "hit", "σ"):
        table.add_column(col, justify="right", no_wrap=True)
    # one change a line, "name = value" wrapping at its spaces: a narrow column never folds a number (issue 24:
    # 101 was split into "10" and "1")
    table.add_column("changes", justify="left", overflow="fold", min_width=20)
    for i, c in enumerate(report.candidates, 1):
        f = c.figures
        changes = "\n".join(f"{k} = {b} (was {a})" for k, a, b in _rows(c.changes)) or "(none)"
        table.add_row(
            str(i),
            pct(f.house_edge),
            f"{100 * float(f.house_edge - report.target):+.4f}",
            pct(f.element_of_risk),
            pct(f.hit_frequency),
            f"{f.std_dev:.4f}",
            changes,
        )
    console.print(table)
    console.print("edge = house edge, off = points from the target, EoR = element of risk,")
    console.print("hit = hit frequency (P(win)), σ = standard deviation")
    for note in report.notes:
        console.print(f"note: {note}")
    console.print(f"{report.evaluations} exact solves")
    if save is not None:
        console.print(f"wrote the best candidate to {save}")


def _save(path: Path, rules: Any, name: str | None, target: Fraction, best: Any) -> None:
    from tablegames.rules.gamefile import GameFile, save

    changed = ", ".join(f"{k}={b}" for k, _, b in _rows(best.changes)) or "nothing"
    title = f"{name or rules.game} tuned to {pct(target, 2)}"
    description = f"tablegames tune: house edge {pct(best.figures.house_edge)} (target {pct(target)}); changed {changed}"
    try:
        save(path, GameFile(rules.game, title, best.rules, description))
    except OSError as exc:
        fail(f"cannot write the game file {path}: {exc}")


def _tune_one_hand(rules: Any, target: Fraction, hand: str, bet: int | None) -> None:
    """The single-payout solver (``--solve flush``): one hand's whole-number payout."""
    from rich.console import Console

    from tablegames.analysis.api import tunable_hands
    from tablegames.analysis.api import tune as tune_one
    from tablegames.rules import RuleError, registry

    params = [p.name for p in registry.of(rules).parameters if p.listed and p.kind != "text"]
    hint = f"; --solve also takes its parameters: {', '.join(params)}" if params else ""
    if not tunable_hands(rules):
        fail(f"{rules.game} has no pay table to tune by hand name (every win pays 1 to 1){hint}")
    try:
        result = tune_one(rules, target, hand, bet)
    except RuleError as exc:
        fail(f"{exc}{hint}")
    console = Console()
    console.print(
        f"{rules.game} {result.wager} wager: pay [bold]{result.hand} {result.odds} to 1[/] -> house edge "
        f"[bold]{pct(result.house_edge)}[/] (target {pct(target)})"
    )
    for odds, edge in result.neighbours:
        if odds != result.odds:
            console.print(f"  {result.hand} {odds} to 1 -> {pct(edge)}")


def sweep(
    vary: Annotated[
        list[str],
        typer.Option(
            "--vary",
            help="NAME=LO..HI[:STEP], NAME=A,B,C or a choice's NAME (once or twice)",
            show_default=False,
        ),
    ],
    game: GameArg = None,
    rule: RuleOpt = None,
    paytable: PaytableOpt = None,
    game_file: GameFileOpt = None,
    bet: BetOpt = None,
    wager: WagerOpt = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="a PNG: a line per figure (one parameter), the edge's heat map (two)"),
    ] = None,
    fmt: FormatOpt = Format.table,
    quiet: QuietOpt = False,
) -> None:
    """House edge, element of risk, hit frequency and standard deviation over one or two parameters (each
    point solved exactly), as a table, JSON and a plot."""
    from tablegames.analysis.sweep import plot as draw
    from tablegames.analysis.sweep import sweep as run
    from tablegames.rules import RuleError

    rules, name = rules_and_name(game, rule, paytable, game_file)
    if plot is not None and plot.suffix.lower() != ".png":
        fail(f"--plot writes a PNG: give a file name ending in .png, got {str(plot)!r}")
    try:
        with progress_bar("sweeping", quiet) as bar:
            result = run(rules, vary, wager=wager, bet_cents=bet, progress=bar)
    except RuleError as exc:
        fail(str(exc))
    if plot is not None:
        title = f"{name or rules.game}: {' x '.join(result.names)}"
        try:
            draw(result, plot, title)
        except OSError as exc:
            fail(f"cannot write the plot {plot}: {exc}")
    if fmt == Format.json:
        out = {
            "game": rules.game,
            "rule_set": name,
            **result.to_json(),
            "plot": None if plot is None else str(plot),
        }
        sys.stdout.write(json.dumps(out) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    if name:
        console.print(rule_set_line(rules.game, name))
    table = Table(title=f"{rules.game}: figures by {' and '.join(result.names)} (exact)")
    for col in (*result.names, "house edge", "element of risk", "hit frequency", "std dev"):
        table.add_column(col, justify="right")
    for pt in result.points:
        f = pt.figures
        if f is None:
            table.add_row(*pt.labels, f"not allowed: {pt.error}", "", "", "")
        else:
            table.add_row(
                *pt.labels,
                pct(f.house_edge),
                pct(f.element_of_risk),
                pct(f.hit_frequency),
                f"{f.std_dev:.4f}",
            )
    console.print(table)
    if plot is not None:
        console.print(f"wrote {plot}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("tune")(tune)
    app.command("sweep")(sweep)

"""``tablegames simulate``: fast Monte Carlo of whole tables (every seat and wager, meters, neighbour bonuses).

Amounts a person types (``--bet``, ``--bankroll``, a bonus amount) are in dollars, as in ``tablegames play``;
reports give cents.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import typer

from tablegames.cli.common import GameFileOpt, fail, games_help, rule_set_line, rules_and_name, side_bets_help

GAME_HELP = games_help()


def _dollars(text: str) -> int:
    from tablegames.cli.play import AmountError, parse_dollars

    try:
        return parse_dollars(text)
    except AmountError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""

    @app.command()
    def simulate(
        game: str | None = typer.Argument(
            None, help=f"{GAME_HELP} (optional with --game-file)", show_default=False
        ),
        rounds: int = typer.Option(1_000_000, "--rounds", "-n", help="Rounds to play."),
        seats: int = typer.Option(1, "--seats", "-k", help="Seats at the table (1-7), all playing."),
        side_bets: list[str] = typer.Option(
            [],
            "--side-bets",
            help=f"Side bets every seat makes, comma list or repeated: {side_bets_help()}.",
        ),
        bet: str = typer.Option(
            "5", "--bet", help="Main wager in dollars (of a main wager of several equal bets: each bet)."
        ),
        strategy: str = typer.Option(
            "optimal",
            "--strategy",
            help="optimal (exact analysis), basic (rule of thumb) or a JSON strategy file.",
        ),
        rule: list[str] = typer.Option([], "--rule", help="Rule variant NAME=VALUE (repeatable)."),
        paytable: str | None = typer.Option(None, "--paytable", help="Pay table preset or TOML file."),
        seed: int = typer.Option(
            0, "--seed", help="Seed: the same seed gives the same result for any --workers."
        ),
        workers: int = typer.Option(1, "--workers", "-w", help="Local worker processes."),
        cluster: str | None = typer.Option(
            None, "--cluster", help="Dask scheduler address, e.g. tcp://host:8786."
        ),
        device: str = typer.Option(
            "cpu",
            "--device",
            help="cpu, gpu (a CUDA device through Numba: the same result for a seed, bit for bit; needs an "
            "NVIDIA GPU, its driver and the CUDA toolkit) or auto (gpu when a CUDA device is found, else cpu).",
        ),
        fmt: str = typer.Option("table", "--format", help="table or json."),
        bankroll: str | None = typer.Option(
            None, "--bankroll", help="Seat 1's bankroll per session, in dollars."
        ),
        session: int | None = typer.Option(None, "--session", help="Rounds per session (with --bankroll)."),
        plot: str | None = typer.Option(None, "--plot", help="Write percentile bankroll paths to this PNG."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
        game_file: GameFileOpt = None,
    ) -> None:
        """Simulate whole rounds at a table: return and house edge per wager with 95% CIs, outcome frequencies,
        jackpot hits, per-seat results, and (with --bankroll/--session) risk of ruin."""
        if cluster is not None:
            from tablegames.cli.extras import require

            require("simulate --cluster", "cluster")
        from tablegames.rules import RuleError
        from tablegames.simulation import make_job, parse_side_bets

        rules, name = rules_and_name(game, rule, paytable, game_file)
        if fmt not in ("table", "json"):
            fail(f"unknown --format {fmt!r}; choose table or json")
        if rounds <= 0:
            fail(f"--rounds must be positive, got {rounds}")
        if (bankroll is None) != (session is None):
            fail("--bankroll and --session go together")
        if plot is not None and bankroll is None:
            fail("--plot needs --bankroll and --session")
        if plot is not None and not plot.lower().endswith(".png"):
            fail(f"--plot writes a PNG: give a file name ending in .png, got {plot!r}")
        if device not in ("cpu", "gpu", "auto"):
            fail(f"unknown --device {device!r}; choose cpu, gpu or auto")
        if device == "gpu" and (workers != 1 or cluster is not None):
            fail("--device gpu runs in this process: no --workers or --cluster with it")
        bet_cents = _dollars(bet)
        try:
            wagers = parse_side_bets(rules.game, side_bets, rules, bet_cents, amount=_dollars)
            job = make_job(rules, rounds, seats=seats, wagers=wagers, strategy=strategy, seed=seed)
        except RuleError as exc:
            fail(str(exc))
        device = _device(device, job, workers == 1 and cluster is None)

        bank = None if bankroll is None or session is None else (_dollars(bankroll), session)
        started = time.perf_counter()
        try:
            tally = _run_with_progress(
                job, workers, cluster, bank, quiet or (fmt == "json" and not sys.stderr.isatty()), device
            )
        except RuleError as exc:
            fail(str(exc))
        elapsed = time.perf_counter() - started
        report = tally.summary()
        report["elapsed_seconds"] = round(elapsed, 3)
        report["rounds_per_second"] = round(rounds / elapsed) if elapsed > 0 else None
        report["workers"] = workers if cluster is None else None
        report["cluster"] = cluster
        report["device"] = device
        if name is not None:
            report["rule_set"] = name
        if plot is not None and tally.bankroll is not None:
            try:
                tally.bankroll.plot(
                    plot, f"{name or rules.game}: seat 1, {seats} seat(s), strategy {strategy}"
                )
            except (OSError, ValueError) as exc:
                fail(f"cannot write the plot {plot}: {exc}")
            report["bankroll"]["plot"] = plot
        if fmt == "json":
            typer.echo(json.dumps(report, indent=2))
        else:
            render_report(report)


def _device(asked: str, job: Any, one_process: bool) -> str:
    """The device the job runs on: ``cpu``, or ``gpu`` when asked (a clean exit, nothing run, when there is
    no CUDA device or the game's kernel has no GPU path) or when ``auto`` finds a device and the kernel has a
    GPU path (and no --workers or --cluster is given)."""
    if asked == "cpu":
        return "cpu"
    from tablegames.simulation import gpu

    if asked == "auto":
        usable = one_process and gpu.unsupported(job.game) is None and gpu.available()
        return "gpu" if usable else "cpu"
    try:
        gpu.require(job)
    except gpu.GpuError as exc:
        fail(str(exc))
    return "gpu"


def _run_with_progress(
    job: Any,
    workers: int,
    cluster: str | None,
    bank: tuple[int, int] | None,
    quiet: bool,
    device: str = "cpu",
) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
    from rich.text import Text

    from tablegames.simulation import run_job

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed / 1e6:,.2f}M rounds/s", style="cyan")

    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
        RateColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet,
    ) as bar:
        task = bar.add_task(f"simulating {job.game}", total=job.rounds)
        return run_job(job, workers, cluster, lambda n: bar.advance(task, n), bank, device=device)


def _pct(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def _money(cents: float | None) -> str:
    return "-" if cents is None else f"${cents / 100:,.2f}"


def render_report(report: dict[str, Any]) -> None:
    """The report as Rich tables on the terminal."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if report.get("rule_set"):
        console.print(rule_set_line(report["game"], report["rule_set"]))
    rules = ", ".join(f"{k}={v}" for k, v in report["rules"].items())
    wagers = ", ".join(
        f"{k} {_money(v) if isinstance(v, int) else v}" for k, v in report["wagers_cents"].items()
    )
    console.print(
        f"[bold]{report['game']}[/]: {report['rounds']:,} rounds, {report['seats']} seat(s), strategy "
        f"{report['strategy']}, seed {report['seed']}  [dim]({rules}; wagers {wagers})[/]"
    )
    t = Table(title="Return per wager type, per unit of initial wager (± half-width of the 95% CI)")
    for col in ("wager", "wagers", "return", "house edge", "element of risk"):
        t.add_column(col, justify="left" if col == "wager" else "right")
    for name, r in report["results"].items():
        half = 1.959963984540054 * r["std_error"]
        edge = r.get("house_edge")
        t.add_row(
            name,
            f"{r['wagers']:,}",
            f"{_pct(r['return'])} ± {100 * half:.3f}",
            "-" if edge is None else f"{_pct(edge)} ± {100 * half:.3f}",
            _pct(r.get("element_of_risk")),
        )
    console.print(t)
    for block, rows in report["outcomes"].items():
        ot = Table(title=f"Outcomes: {block}")
        ot.add_column("outcome")
        ot.add_column("count", justify="right")
        ot.add_column("frequency", justify="right")
        ot.add_column("1 in", justify="right")
        for name, v in rows.items():
            if v["count"]:
                ot.add_row(name, f"{v['count']:,}", _pct(v["frequency"], 4), f"{1 / v['frequency']:,.1f}")
        console.print(ot)
    if report["jackpots"]:
        jt = Table(title="Jackpot meters")
        for col in ("meter", "hits", "rounds per hit", "average at hit", "largest hit", "final value"):
            jt.add_column(col, justify="left" if col == "meter" else "right")
        for j in report["jackpots"]:
            rph = j["rounds_per_hit"]
            jt.add_row(
                j["meter"],
                f"{j['hits']:,}",
                "-" if rph is None else f"{rph:,.0f}",
                _money(j["average_at_hit_cents"]),
                _money(j["largest_hit_cents"]),
                _money(j["final_value_cents"]),
            )
        console.print(jt)
    st = Table(title="Per seat (all wagers)")
    for col in ("seat", "wagered", "net", "net per round", "edge", "95% CI"):
        st.add_column(col, justify="right")
    for s in report["per_seat"]:
        ci = s["edge_ci95"]
        st.add_row(
            str(s["seat"]),
            _money(s["wagered_cents"]),
            _money(s["net_cents"]),
            _money(s["net_per_round_cents"]),
            _pct(s["edge"]),
            "-" if ci is None else f"{_pct(ci[0])} .. {_pct(ci[1])}",
        )
    console.print(st)
    b = report.get("bankroll")
    if b and b.get("sessions"):
        bt = Table(title=f"Bankroll: {b['sessions']:,} sessions of {b['session_rounds']:,} rounds, seat 1")
        bt.add_column("figure")
        bt.add_column("value", justify="right")
        lo, hi = b["risk_of_ruin_ci95"]
        bt.add_row("starting bankroll", _money(b["bankroll_cents"]))
        bt.add_row("risk of ruin", f"{_pct(b['risk_of_ruin'], 2)} (95% CI {_pct(lo, 2)} .. {_pct(hi, 2)})")
        bt.add_row("mean session result", _money(b["mean_result_cents"]))
        bt.add_row("sessions ahead", _pct(b["p_ahead"], 2))
        for q, v in b["result_percentiles_cents"].items():
            suffix = (
                {"1": "st", "2": "nd", "3": "rd"}.get(q[-1], "th") if q not in ("11", "12", "13") else "th"
            )
            bt.add_row(f"{q}{suffix} percentile result", _money(v))
        if "plot" in b:
            bt.add_row("plot", b["plot"])
        console.print(bt)
    rate = report.get("rounds_per_second")
    console.print(f"[dim]{report['elapsed_seconds']:.2f} s, {rate or 0:,} rounds/s[/]")

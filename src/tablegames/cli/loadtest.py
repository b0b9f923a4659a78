"""``tablegames loadtest``: many players over WebSocket against a table server on this machine."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from tablegames.cli.common import fail
from tablegames.cli.extras import require


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def register(app: typer.Typer) -> None:
    """Add ``loadtest`` to ``app``."""

    @app.command()
    def loadtest(
        clients: Annotated[int, typer.Option(help="simulated players (1-1000), one WebSocket each")] = 20,
        tables: Annotated[
            int, typer.Option(help="tables (1-200); players are spread evenly, at most 7 a table")
        ] = 4,
        duration: Annotated[
            float, typer.Option(help="seconds of play (at most 600); then open rounds finish")
        ] = 10.0,
        url: Annotated[
            str | None, typer.Option(help="a running server (loopback only), e.g. http://127.0.0.1:8000")
        ] = None,
        database: Annotated[
            str | None,
            typer.Option(
                help="database of the server started for the test (default: a temporary SQLite file); with --url, "
                "the running server's database, for the ledger check"
            ),
        ] = None,
        game: Annotated[
            list[str] | None,
            typer.Option("--game", help="game(s) of the tables, in turn (default: all three)"),
        ] = None,
        think: Annotated[
            float, typer.Option(help="mean thinking time of a player before each wager/decision (s)")
        ] = 0.0,
        admin_token: Annotated[
            str | None, typer.Option(envvar="TABLEGAMES_ADMIN_TOKEN", help="admin token of the --url server")
        ] = None,
        seed: Annotated[int, typer.Option(help="seed of the players' choices")] = 0,
        output_format: Annotated[str, typer.Option("--format", help="table or json")] = "table",
        server_log: Annotated[
            Path | None, typer.Option(help="directory for the started server's log (default: discarded)")
        ] = None,
        servers: Annotated[
            int,
            typer.Option(
                help="start N `tablegames serve` processes (1-8; N > 1 on one --database PostgreSQL) and spread "
                "the tables over them (0: one server, as before)"
            ),
        ] = 0,
        proxy: Annotated[bool, typer.Option(help="put HAProxy in front of the --servers processes")] = False,
        kill_one_at: Annotated[
            float | None,
            typer.Option(help="SIGKILL one of the --servers processes this many seconds into the play"),
        ] = None,
        chaos: Annotated[
            bool,
            typer.Option(
                help="the chaos soak: random SIGKILLs (restarted after 1-4 s) and SIGSTOP pauses (1-6 s) of the "
                "--servers processes during the play, none in its last 8 s; then the books checked per wallet and "
                "per round"
            ),
        ] = False,
        chaos_every: Annotated[
            float, typer.Option(help="--chaos: mean seconds between two faults (0.5-600)")
        ] = 6.0,
        reconnect: Annotated[
            bool,
            typer.Option(
                help="players follow redirects and reconnect after a dropped connection (also with --url: faults "
                "the test did not cause); --no-reconnect: a drop fails the player"
            ),
        ] = True,
        server_cpus: Annotated[
            str | None,
            typer.Option(
                help="pin the server the test starts to these CPUs, like 1 or 0,2-3 (serve --cpus): the players' "
                "own CPU stays out of the server's figures"
            ),
        ] = None,
    ) -> None:
        """Play real rounds through the WebSocket API, report rounds/s, latency and errors, then check the ledger.

        Loopback only, bounded in clients, tables and time; it stops by itself. Exit code 1 when there were
        errors or the money check failed.
        """
        require("loadtest", "server")
        from tablegames.loadtest import LoadConfig, LoadTestError, run_load_test
        from tablegames.rules import GAMES

        if output_format not in ("table", "json"):
            fail("--format is table or json")
        pinned = None
        if server_cpus is not None:
            from tablegames.server.affinity import parse_cpus

            try:
                pinned = parse_cpus(server_cpus)
            except ValueError as exc:
                fail(f"--server-cpus: {exc}")
        cfg = LoadConfig(
            clients=clients,
            tables=tables,
            duration=duration,
            url=url,
            database=database,
            games=tuple(game) if game else tuple(GAMES),
            admin_token=admin_token,
            seed=seed,
            think=think,
            servers=servers,
            proxy=proxy,
            kill_one_at=kill_one_at,
            chaos=chaos,
            chaos_every=chaos_every,
            reconnect=reconnect,
            server_cpus=pinned,
        )
        try:
            cfg.validate()
        except LoadTestError as exc:
            fail(str(exc))
        from rich.console import Console

        console = Console(stderr=output_format == "json")
        try:
            with console.status(f"{clients} players at {tables} tables for {duration:g} s ..."):
                report = run_load_test(cfg, log_dir=server_log)
        except LoadTestError as exc:
            fail(str(exc), 1)
        if output_format == "json":
            typer.echo(json.dumps(report.to_dict(), indent=2))
        else:
            _print_report(console, report.to_dict())
        if not report.ok:
            raise typer.Exit(1)


def _print_report(console: object, data: dict[str, object]) -> None:
    from rich.console import Console
    from rich.table import Table

    from tablegames.server.affinity import cpu_list

    assert isinstance(console, Console)
    head = Table(title="load test", show_header=False)
    head.add_row("players / tables", f"{data['clients']} / {data['tables']}  ({', '.join(data['games'])})")  # type: ignore[arg-type]
    head.add_row("database", str(data["database"]))
    if data.get("server_cpus") is not None:
        head.add_row("server pinned to CPU", cpu_list(data["server_cpus"]))  # type: ignore[arg-type]
    if data.get("servers"):
        cl = data["cluster"]
        assert isinstance(cl, dict)
        killed = f"; {cl['killed']} killed at {cl['killed_at_s']} s" if cl["killed"] else ""
        if cl.get("chaos"):
            faults = cl["faults"]
            assert isinstance(faults, list)
            counts = Counter(str(f["kind"]) for f in faults)
            killed = f"; chaos: {len(faults)} faults" + (
                " (" + ", ".join(f"{k} x{n}" for k, n in sorted(counts.items())) + ")" if counts else ""
            )
        head.add_row(
            "server processes",
            f"{data['servers']}{' behind haproxy' if data['proxy'] else ''}{killed}; reconnects "
            f"{cl['reconnects']}/{cl['expected_reconnects']}, redirects {cl['redirects']}, rounds from history "
            f"{cl['results_from_history']}",
        )
    head.add_row("duration / thinking", f"{data['duration_s']} s / {data['think_s']} s")
    head.add_row("rounds settled", f"{data['rounds']}  ({data['rounds_per_s']} rounds/s)")
    head.add_row("requests / messages received", f"{data['requests']} / {data['messages_received']}")
    console.print(head)
    lat = Table(title="latency: request sent -> ack (ms)")
    for col in ("", "count", "p50", "p95", "p99", "max"):
        lat.add_column(col, justify="right")
    for label, key in (("all", "latency"), ("wager", "latency_wager"), ("act", "latency_act")):
        row = data[key]
        assert isinstance(row, dict)
        lat.add_row(
            label,
            str(int(row["count"])),
            _ms(row["p50_ms"]),
            _ms(row["p95_ms"]),
            _ms(row["p99_ms"]),
            _ms(row["max_ms"]),
        )
    console.print(lat)
    errors = data["errors"]
    assert isinstance(errors, dict)
    problems = {**errors}
    for key in ("disconnects", "timeouts"):
        if data[key]:
            problems[key] = data[key]
    console.print(
        "errors: " + (", ".join(f"{k} x{v}" for k, v in problems.items()) if problems else "[green]none[/]")
    )
    money = data["money"]
    assert isinstance(money, dict)
    mt = Table(title="money after the run (cents)", show_header=False)
    if money["checked"]:
        for label, key in (
            ("player wallets", "wallets"),
            ("house", "house"),
            ("jackpot meters", "jackpot_meters"),
            ("cashier", "cashier"),
            ("in play", "in_play"),
            ("sum of all accounts", "sum_of_all_accounts"),
        ):
            mt.add_row(label, f"{money[key]:,}")
        mt.add_row("accounts / transactions", f"{money['accounts']} / {money['transactions']}")
        mt.add_row("balances != sum of entries", str(len(money["mismatched_balances"])))
        mt.add_row("unbalanced transactions", str(len(money["unbalanced_transactions"])))
        mt.add_row("unsettled rounds", str(money["unsettled_rounds"]))
        mt.add_row("rounds settled twice / players paid twice", f"{len(money['rounds_settled_twice'])} / "
                   f"{len(money['players_paid_twice'])}")  # fmt: skip
        mt.add_row("rounds whose money in play did not all come out", str(len(money["rounds_open_in_play"])))
    else:
        mt.add_row("ledger", "not checked (no --database for the --url server)")
    mt.add_row("players whose balance != buy-in + nets", str(len(money["player_mismatches"])))
    console.print(mt)
    verdict = "[bold green]OK[/]" if data["ok"] else "[bold red]FAILED[/]"
    console.print(f"verdict: {verdict}")

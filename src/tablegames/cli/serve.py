"""``tablegames serve`` and ``tablegames tables create|list`` (the table server)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Annotated

import typer

from tablegames.cli.common import fail, games_help
from tablegames.cli.extras import require_database
from tablegames.server.connections import ConnectionLimits

DEFAULT_DATA_DIR = "data"
DB_FILE = "tablegames.sqlite3"

DatabaseOpt = Annotated[
    str | None,
    typer.Option(
        "--database",
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db (default: SQLite in the data directory; "
        "env TABLEGAMES_DATABASE_URL)",
    ),
]
DataDirOpt = Annotated[Path, typer.Option("--data-dir", help="directory of the default SQLite database")]


def database_url(database: str | None, data_dir: Path) -> str:
    """``--database`` > ``$TABLEGAMES_DATABASE_URL`` > ``sqlite:///<data-dir>/tablegames.sqlite3``."""
    url = database or os.environ.get("TABLEGAMES_DATABASE_URL")
    if url:
        return url
    return f"sqlite:///{(data_dir / DB_FILE).resolve()}"


def _money(cents: int | None) -> str:
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def register(app: typer.Typer) -> None:
    """Add the table-server commands to ``app``."""

    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = 8000,
        database: DatabaseOpt = None,
        data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
        betting_seconds: Annotated[float, typer.Option(help="betting window after the first wager")] = 15.0,
        turn_seconds: Annotated[
            float, typer.Option(help="time to act before the server takes the default")
        ] = 30.0,
        admin_token: Annotated[
            str | None,
            typer.Option(envvar="TABLEGAMES_ADMIN_TOKEN", help="operator credential (default: random)"),
        ] = None,
        demo_tables: Annotated[
            bool, typer.Option(help="create one table of each game on an empty database")
        ] = True,
        table_threads: Annotated[
            int | None,
            typer.Option(
                help="worker threads for the tables' steps (1-64; default 1 on SQLite, its only writer, and 2 on"
                " PostgreSQL: measured best, docs/performance.md)"
            ),
        ] = None,
        request_timeout: Annotated[
            float,
            typer.Option(
                help="seconds a client has to send a whole request (headers and body) before it is disconnected"
            ),
        ] = ConnectionLimits.request_timeout,
        keep_alive_timeout: Annotated[
            float, typer.Option(help="seconds an idle HTTP connection stays open between requests")
        ] = ConnectionLimits.keep_alive_timeout,
        max_connections_per_address: Annotated[
            int, typer.Option(help="open connections (HTTP and WebSocket) one client address may hold")
        ] = ConnectionLimits.max_connections_per_address,
        max_connections: Annotated[
            int, typer.Option(help="open connections in all (0: 4096, or fewer if the file limit is lower)")
        ] = 0,
        node: Annotated[
            str | None,
            typer.Option(
                help="this process's name among several on one PostgreSQL database, unique among them "
                "(default: HOSTNAME:PORT)"
            ),
        ] = None,
        advertise: Annotated[
            str | None,
            typer.Option(
                help="the URL clients reach this process at, sent in redirects to its tables, e.g. "
                "http://proxy/n/NAME (default: http://HOST:PORT)"
            ),
        ] = None,
        min_house_edge: Annotated[
            str,
            typer.Option(
                help="POST /tables refuses rules whose exact house edge (any wager's) is below this, like 0 or 1%, "
                "unless the request names who confirms it (confirm_negative_edge)"
            ),
        ] = "0",
        practice_bots: Annotated[
            bool,
            typer.Option(
                help="a practice server (play money): a seated player may seat practice bots at their table too "
                "(the operator always may: POST /tables/{id}/bots)"
            ),
        ] = False,
        strategy_cache: Annotated[
            Path | None,
            typer.Option(
                help="directory of the solved strategies kept across restarts, so the first hint is exact at once "
                "(default: DATA_DIR/strategies; the server's own: never one others can write)"
            ),
        ] = None,
        dual_control_cents: Annotated[
            int,
            typer.Option(
                help="an adjustment of a balance above this (cents, either way) waits for a second staff member"
            ),
        ] = 200_000,
        no_strategy_cache: Annotated[
            bool, typer.Option("--no-strategy-cache", help="solve the strategies at every start")
        ] = False,
        detect: Annotated[
            bool,
            typer.Option(
                help="live detection (issue 27): score settled rounds on a thread of its own and alert the "
                "supervisors of flagged players (docs/detection.md)"
            ),
        ] = True,
        detect_seconds: Annotated[
            float, typer.Option(help="seconds between the live detector's passes over newly settled rounds")
        ] = 2.0,
        cpus: Annotated[
            str | None,
            typer.Option(
                help="pin the server process to these CPUs, like 2 or 0,2-3 (Linux), its threads scheduled as a"
                " batch (SCHED_BATCH): they hand the interpreter to each other on one core without preempting each"
                " other, about 28% less CPU an action (docs/performance.md); one server process per CPU when"
                " several share a machine"
            ),
        ] = None,
    ) -> None:
        """Run the table server (web page, REST and WebSocket play)."""
        require_database("serve", database_url(database, data_dir))
        from tablegames.server.app import create_app, run
        from tablegames.server.core import MAX_TABLE_THREADS

        if not 0 < port < 65536:
            fail(f"bad port {port}")
        if betting_seconds <= 0 or turn_seconds <= 0:
            fail("--betting-seconds and --turn-seconds must be positive")
        if not 0 < detect_seconds <= 3600:
            fail(f"--detect-seconds must be more than 0 and at most 3600, got {detect_seconds}")
        if dual_control_cents < 0:
            fail(f"--dual-control-cents must be 0 or more, got {dual_control_cents}")
        if table_threads is not None and not 1 <= table_threads <= MAX_TABLE_THREADS:
            fail(f"--table-threads must be 1-{MAX_TABLE_THREADS}, got {table_threads}")
        pinned = None
        if cpus is not None:
            from tablegames.server.affinity import check_cpus, cpu_list, parse_cpus

            try:
                pinned = check_cpus(parse_cpus(cpus))
            except ValueError as exc:
                fail(f"--cpus: {exc}")
        try:
            bounds = ConnectionLimits(
                request_timeout, keep_alive_timeout, max_connections_per_address, max_connections
            ).resolved()
        except ValueError as exc:
            fail("--" + str(exc).replace("_", "-"))
        from tablegames.rules.parameters import read_fraction

        floor = read_fraction(min_house_edge.strip())
        if floor is None or not -1 <= floor <= 1:
            fail(
                f"--min-house-edge must be a fraction from -1 to 1 like 0, 2% or 1/50, got {min_house_edge!r}"
            )
        url = database_url(database, data_dir)
        name = node or f"{socket.gethostname()}:{port}"
        if not 1 <= len(name) <= 120:
            fail("--node must be 1-120 characters")
        shown_host = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
        reach = (advertise or f"http://{shown_host}:{port}").rstrip("/")
        if not reach.startswith(("http://", "https://")) or len(reach) > 300:
            fail(f"--advertise must be an http:// or https:// URL (at most 300 characters), got {reach!r}")
        app = create_app(
            url,
            betting_seconds=betting_seconds,
            turn_seconds=turn_seconds,
            admin_token=admin_token,
            demo_tables=demo_tables,
            table_threads=table_threads,
            node=name,
            advertise=reach,
            min_house_edge=floor,
            prepare_hints=True,
            practice_bots=practice_bots,
            strategy_cache=None if no_strategy_cache else strategy_cache or data_dir / "strategies",
            seal_seconds=60.0,  # the ledger sealed into the audit chain (server/ledger_seal.py)
            dual_control_cents=dual_control_cents,
            detect_seconds=detect_seconds if detect else None,
        )
        shown = url.split("@")[-1] if "@" in url else url
        print(f"tablegames table server: http://{host}:{port}/  (database {shown})", flush=True)
        print(f"admin token: {app.state.server.admin_token}", flush=True)
        if pinned is not None:
            print(f"pinned to CPU {cpu_list(pinned)}", flush=True)
        run(app, host=host, port=port, connections=bounds, cpus=pinned)

    tables_app = typer.Typer(help="Operator commands for tables.", no_args_is_help=True)
    app.add_typer(tables_app, name="tables")

    @tables_app.command("create")
    def tables_create(
        game: Annotated[
            str | None, typer.Argument(help=games_help() + " (may be omitted with --game-file)")
        ] = None,
        name: Annotated[str | None, typer.Option(help="table name")] = None,
        seats: Annotated[int, typer.Option(help="1-7 seats")] = 5,
        min_bet: Annotated[int, typer.Option(help="minimum main wager, cents")] = 100,
        max_bet: Annotated[int, typer.Option(help="maximum wager, cents")] = 10_000,
        rule: Annotated[list[str] | None, typer.Option("--rule", help="rule option NAME=VALUE")] = None,
        paytable: Annotated[str | None, typer.Option(help="pay table preset")] = None,
        game_file: Annotated[
            Path | None, typer.Option("--game-file", help="a game file (TOML): the table's complete rule set")
        ] = None,
        database: DatabaseOpt = None,
        data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
    ) -> None:
        """Create a table (a running server opens it on the next request; or use POST /tables). The table
        stores its complete rule set: a game file's (with --rule options on top) or the game's."""
        from tablegames.rules import RuleError
        from tablegames.rules.common import parse_rule_options

        require_database("tables create", database_url(database, data_dir))
        from tablegames.cli.staff import console_actor
        from tablegames.server.db import create_schema
        from tablegames.server.errors import ApiError
        from tablegames.server.tables import new_table_row, opened, table_info
        from tablegames.server.transactions import Transactions

        text = None
        if game_file is not None:
            try:
                text = game_file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                fail(f"game file {game_file} cannot be read: {exc}")
        elif game is None:
            fail("name a game or a --game-file")
        try:
            options = parse_rule_options(rule)
            title = name or (game or (game_file.stem if game_file else "table")).replace("-", " ").title()
            row = new_table_row(game, title, seats, min_bet, max_bet, options, paytable, text)
        except (ApiError, RuleError) as exc:
            fail(f"{game_file}: {exc}" if game_file is not None else str(exc))
        db = Transactions(database_url(database, data_dir))
        try:
            create_schema(db.engine)
            with db.tx() as s:
                s.add(row)
                s.flush()
                opened(s, time.time, console_actor(), row)  # in the audit trail (issue 25)
            info = table_info(row)
        finally:
            db.dispose()
        named = f" '{info['rule_set']}'" if info["rule_set"] else ""
        print(f"created table {info['table_id']}: {info['name']} ({info['game']}, {info['seats']} seats, "
              f"{_money(info['min_bet'])}-{_money(info['max_bet'])}, rules{named} {info['rules']})")  # fmt: skip

    @tables_app.command("list")
    def tables_list(database: DatabaseOpt = None, data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR)) -> None:
        """List the tables."""
        require_database("tables list", database_url(database, data_dir))
        from sqlalchemy import select

        from tablegames.server.db import GameTable, create_schema
        from tablegames.server.transactions import Transactions

        db = Transactions(database_url(database, data_dir))
        try:
            create_schema(db.engine)
            with db.sessions() as s:
                for row in s.scalars(select(GameTable).order_by(GameTable.id)):
                    print(
                        f"{row.id}\t{row.name}\t{row.game}\t{row.seats} seats\t{row.min_bet}-{row.max_bet}\t{row.rules}"
                    )
        finally:
            db.dispose()

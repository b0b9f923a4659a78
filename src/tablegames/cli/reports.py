"""``tablegames reports NAME --day YYYY-MM-DD`` (issue 26): a daily report read from the server's database, as
CSV, JSON or PDF (:mod:`tablegames.server.reports`). Every report offered is one of ``server.reports.REPORTS``:
a report added there (``player-sessions``) gets its subcommand here from :func:`_command` (see ``register``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tablegames.cli.common import fail
from tablegames.cli.history import read_database
from tablegames.cli.serve import DEFAULT_DATA_DIR, DatabaseOpt, DataDirOpt

NAMES = ("patron-summary", "table-win", "meters")
"""The subcommands (the names of ``server.reports.REPORTS``; listed here so that ``--help`` needs no server
import). A new report: its name here and its function in ``REPORTS``."""

reports_app = typer.Typer(
    name="reports",
    help="Daily reports (CSV, JSON, PDF), reconciled to the ledger: " + ", ".join(NAMES) + ".",
    no_args_is_help=True,
)


def write_report(
    name: str,
    day: str,
    database: str | None,
    data_dir: Path,
    fmt: str,
    out: Path | None,
    tz: str,
    player: str | None = None,
) -> None:
    """Make the report and write it to ``out`` (or print it); a clear error (exit 2, nothing written) for a bad
    day, time zone, format or database."""
    from tablegames.server.reports import FORMATS, ReportError, render, run

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "pdf" and out is None:
        fail("a PDF needs --out FILE")
    from tablegames.server.errors import ApiError

    def make(s: Any) -> bytes:
        try:
            return render(run(s, name, day, tz, player), fmt)
        except ReportError as exc:  # (a bad day, time zone or player: said as such, exit 2)
            raise ApiError("bad_request", str(exc)) from None

    data: bytes = read_database(database, data_dir, f"reports {name}", make)
    if out is None:
        typer.echo(data.decode(), nl=False)
        return
    out.write_bytes(data)
    typer.echo(f"wrote {out}")


def _command(name: str) -> None:
    def command(
        day: Annotated[str, typer.Option("--day", help="the day, YYYY-MM-DD")],
        fmt: Annotated[str, typer.Option("--format", help="csv, json or pdf")] = "csv",
        out: Annotated[Path | None, typer.Option("--out", help="the file to write (default: print)")] = None,
        tz: Annotated[str, typer.Option("--tz", help="time zone of the day's bounds (IANA name)")] = "UTC",
        player: Annotated[
            str | None, typer.Option("--player", help="patron-summary: this player only")
        ] = None,
        database: DatabaseOpt = None,
        data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
    ) -> None:
        write_report(name, day, database, data_dir, fmt, out, tz, player)

    command.__doc__ = f"The {name} report of one day (UTC days unless --tz)."
    reports_app.command(name)(command)


for _name in NAMES:
    _command(_name)


def register(app: typer.Typer) -> None:
    from tablegames.cli.reports_sessions import player_sessions  # (issue 26: GLI-19 2.13's sessions)

    reports_app.command("player-sessions")(player_sessions)
    app.add_typer(reports_app)

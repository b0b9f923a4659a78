"""``tablegames reports player-sessions --day YYYY-MM-DD [--format csv|json]`` (issue 26; GLI-19 2.13): the
players' sessions that began on a day (UTC) with their start, end, duration, wagered, won, net, games played and
the reason each ended, read from the server's database; "No Activity" for a day without any.

:func:`player_sessions` is the command; :func:`register` adds it under a ``reports`` command group of its own
(when ``cli/reports.py`` provides the group, it registers :func:`player_sessions` there instead)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from tablegames.cli.common import fail
from tablegames.cli.history import read_database
from tablegames.cli.serve import DEFAULT_DATA_DIR, DatabaseOpt, DataDirOpt

NO_ACTIVITY = "No Activity"
FIELDS = (
    "player",
    "session_start",
    "session_end",
    "duration_seconds",
    "wagered",
    "won",
    "net",
    "games_played",
    "reason_ended",
)


class Format(StrEnum):
    csv = "csv"
    json = "json"


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render(rows: list[dict[str, Any]], fmt: Format) -> str:
    """The report's text (times in ISO 8601 UTC, money in integer cents)."""
    if not rows:
        return NO_ACTIVITY
    shown = [
        {**r, "session_start": _iso(r["session_start"]), "session_end": _iso(r["session_end"])} for r in rows
    ]
    if fmt == Format.json:
        return json.dumps(shown, indent=2)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(shown)
    return buf.getvalue().rstrip("\n")


def player_sessions(
    day: Annotated[str, typer.Option("--day", help="the day (UTC), YYYY-MM-DD", show_default=False)],
    fmt: Annotated[Format, typer.Option("--format", help="csv or json")] = Format.csv,
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Players' sessions that began on a day (GLI-19 2.13): player, start, end, duration, wagered, won, net,
    games played, reason ended."""
    try:
        start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        fail(f"--day must be a date YYYY-MM-DD, got {day!r}")
    from tablegames.server.sessions import session_report

    since, until = start.timestamp(), (start + timedelta(days=1)).timestamp()
    rows = read_database(
        database, data_dir, "reports player-sessions", lambda s: session_report(s, since, until)
    )
    typer.echo(render(rows, fmt))

"""The daily reports (issue 26): pure functions of the database session and a day, each a
:class:`~tablegames.server.reports.common.Report` reconciled to the ledger; rendered by ``render``.

:data:`REPORTS` is the one list the CLI (``tablegames reports NAME``) and the REST routes (``GET /reports/NAME``)
read. A new daily report (``player-sessions``, player protection) adds its function here: ``name -> fn(session,
day, tz)``, and is then offered by both.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from sqlalchemy.orm import Session

from tablegames.server.reports.common import NO_ACTIVITY, Report, ReportError, parse_day
from tablegames.server.reports.meters import MeterRow, meters_report
from tablegames.server.reports.patron import PatronRow, patron_summary
from tablegames.server.reports.render import FORMATS, MEDIA_TYPES, render
from tablegames.server.reports.table_win import TableWinRow, table_win

ReportFn = Callable[[Session, dt.date, str], Report]

REPORTS: dict[str, ReportFn] = {
    "patron-summary": lambda s, day, tz: patron_summary(s, day, tz),
    "table-win": lambda s, day, tz: table_win(s, day, tz),
    "meters": lambda s, day, tz: meters_report(s, day, tz),
}


def run(session: Session, name: str, day: str, tz: str = "UTC", player: str | None = None) -> Report:
    """The report ``name`` of ``day`` (``YYYY-MM-DD``) in ``tz`` (the patron summary: of ``player`` alone, when
    given); a :class:`ReportError` for a bad name or day."""
    fn = REPORTS.get(name)
    if fn is None:
        raise ReportError(f"unknown report {name[:40]!r}; one of {', '.join(REPORTS)}")
    if player is not None:
        if name != "patron-summary":
            raise ReportError(f"--player filters the patron summary, not {name}")
        return patron_summary(session, parse_day(day), tz, player)
    return fn(session, parse_day(day), tz)


__all__ = [
    "FORMATS",
    "MEDIA_TYPES",
    "NO_ACTIVITY",
    "REPORTS",
    "MeterRow",
    "PatronRow",
    "Report",
    "ReportError",
    "TableWinRow",
    "meters_report",
    "parse_day",
    "patron_summary",
    "render",
    "run",
    "table_win",
]

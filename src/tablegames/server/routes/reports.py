"""The daily reports over REST (issue 26): ``GET /reports/patron-summary``, ``/reports/table-win`` and
``/reports/meters``, ``?day=YYYY-MM-DD&tz=UTC&format=json|csv|pdf`` (``day`` defaults to today in ``tz``). For
a staff member whose role may read reports (``reports.read``: supervisor, operator, auditor; server/permissions.py)
or the admin token; reading changes nothing, so nothing is written to the audit trail. "Today" is the server's
clock's. JSON is the
report's model; CSV and PDF are downloads."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from tablegames.server.errors import ApiError
from tablegames.server.permissions import REPORTS_READ, Actor
from tablegames.server.reports import MEDIA_TYPES, Report, ReportError, render, run
from tablegames.server.reports.common import zone
from tablegames.server.routes.deps import COMMON_ERRORS, Out, ServerDep, errors, off_loop, staff_may

router = APIRouter(tags=["reports"], responses=COMMON_ERRORS)


class PatronRowOut(Out):
    player: str
    beginning_balance: int
    deposits: int
    withdrawals: int
    transfers_to_games: int
    transfers_from_games: int
    funds_on_game_start: int
    funds_on_game_end: int
    win_loss: int
    adjustments: int
    ending_balance: int
    bonus_beginning: int
    bonus_issued: int
    bonus_used: int
    bonus_ending: int


class TableWinRowOut(Out):
    period: str
    table: str
    game: str
    rule_set: str
    wager: str
    placed: int
    handle: int
    paid: int
    win: int
    hold_pct: float | None
    theoretical_hold_pct: float | None
    low_95_pct: float | None
    high_95_pct: float | None
    flag: str


class MeterRowOut(Out):
    game: str
    meter: str
    reset: int
    start: int
    contributions: int
    hits: int
    hit_count: int
    resets: int
    other: int
    end: int
    liability_above_reset: int


class ReportOut(Out):
    report: str
    title: str
    day: str
    tz: str
    generated_at: str
    filters: dict[str, str]
    status: str  # "ok" or "No Activity"
    columns: list[str]
    totals: dict[str, int]
    reconciles: bool
    checks: list[str]
    notes: list[str]


class PatronSummaryOut(ReportOut):
    rows: list[PatronRowOut]


class TableWinOut(ReportOut):
    rows: list[TableWinRowOut]


class MetersOut(ReportOut):
    rows: list[MeterRowOut]


async def _report(
    request: Request,
    server: ServerDep,
    name: str,
    day: str | None,
    tz: str,
    fmt: str,
) -> Report | Response:
    def make() -> Report | bytes:
        try:
            when = day or dt.datetime.fromtimestamp(server.config.clock(), zone(tz)).date().isoformat()
            with server.sessions() as s:
                got = run(s, name, when, tz)
        except ReportError as exc:
            raise ApiError("bad_request", str(exc), 400) from None
        return got if fmt == "json" else render(got, fmt)

    got = await off_loop(request, make)
    if isinstance(got, Report):
        return got
    disposition = f'attachment; filename="{name}-{day or "today"}.{fmt}"'
    return Response(got, media_type=MEDIA_TYPES[fmt], headers={"Content-Disposition": disposition})


_FILES = {
    200: {
        "description": "the report (JSON), or its CSV or PDF file",
        "content": {
            "text/csv": {"schema": {"type": "string"}},
            "application/pdf": {"schema": {"type": "string", "format": "binary"}},
        },
    },
    **errors(400, 401, 403),
}
Day = Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD; default: today in tz")]
Tz = Annotated[str, Query(max_length=60, description="IANA time zone of the day's bounds")]
Fmt = Literal["json", "csv", "pdf"]


@router.get("/reports/patron-summary", response_model=PatronSummaryOut, responses=_FILES)
async def patron_summary(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(REPORTS_READ)],
    day: Day = None,
    tz: Tz = "UTC",
    format: Fmt = "json",
) -> PatronSummaryOut | Response:
    """Per player: beginning balance, deposits, withdrawals, transfers to and from games, funds on game, win/loss,
    adjustments, ending balance (N.J.A.C. 13:69O-1.9)."""
    got = await _report(request, server, "patron-summary", day, tz, format)
    return got if isinstance(got, Response) else PatronSummaryOut.model_validate(got.to_json())


@router.get("/reports/table-win", response_model=TableWinOut, responses=_FILES)
async def table_win(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(REPORTS_READ)],
    day: Day = None,
    tz: Tz = "UTC",
    format: Fmt = "json",
) -> TableWinOut | Response:
    """Per table and wager: handle, win, hold against the theoretical hold and its 95% interval; day, month and
    year to date (COMAR 36.05.03.25)."""
    got = await _report(request, server, "table-win", day, tz, format)
    return got if isinstance(got, Response) else TableWinOut.model_validate(got.to_json())


@router.get("/reports/meters", response_model=MetersOut, responses=_FILES)
async def meters(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(REPORTS_READ)],
    day: Day = None,
    tz: Tz = "UTC",
    format: Fmt = "json",
) -> MetersOut | Response:
    """Per linked meter: start, contributions, hits, resets, end, reconciled to the ledger; liability above
    reset (GLI-19)."""
    got = await _report(request, server, "meters", day, tz, format)
    return got if isinstance(got, Response) else MetersOut.model_validate(got.to_json())

"""The daily reports over REST (issue 26): ``GET /reports/patron-summary``, ``/reports/table-win`` and
``/reports/meters``, ``?day=YYYY-MM-DD&tz=UTC&format=json|csv|pdf`` (``day`` defaults to today in ``tz``). For
a staff member whose role may read reports (``reports.read``: supervisor, operator, auditor; server/permissions.py)
or the admin token; reading changes nothing, so nothing is written to the audit trail. "Today" is the server's
clock's. JSON is the report's model (its rows' fields those of the report's row dataclasses); CSV and PDF are
downloads."""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing
from typing import Annotated, Any, Literal

import pydantic
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from tablegames.server.errors import ApiError
from tablegames.server.permissions import REPORTS_READ, Actor
from tablegames.server.reports import MEDIA_TYPES, Report, ReportError, render, run
from tablegames.server.reports.common import zone
from tablegames.server.reports.meters import MeterRow
from tablegames.server.reports.patron import PatronRow
from tablegames.server.reports.table_win import TableWinRow
from tablegames.server.routes.deps import COMMON_ERRORS, Out, ServerDep, errors, off_loop, staff_may

router = APIRouter(tags=["reports"], responses=COMMON_ERRORS)


def row_model(row: type) -> type[Out]:
    """The closed response model of a report's row, made from its dataclass: every field named and typed as
    there (written once)."""
    hints = typing.get_type_hints(row)
    fields: dict[str, Any] = {f.name: (hints[f.name], ...) for f in dataclasses.fields(row)}
    return pydantic.create_model(f"{row.__name__}Out", __base__=Out, __module__=__name__, **fields)


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


def report_model(name: str, row: type) -> type[ReportOut]:
    rows = row_model(row)
    return pydantic.create_model(name, __base__=ReportOut, __module__=__name__, rows=(list[rows], ...))  # type: ignore[valid-type]


PatronSummaryOut = report_model("PatronSummaryOut", PatronRow)
TableWinOut = report_model("TableWinOut", TableWinRow)
MetersOut = report_model("MetersOut", MeterRow)


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


def _route(name: str, model: type[ReportOut], doc: str) -> None:
    """``GET /reports/<name>``: the report of a day as ``model`` (JSON), or its CSV or PDF file."""

    async def report(
        request: Request,
        server: ServerDep,
        _reader: Annotated[Actor, staff_may(REPORTS_READ)],
        day: Day = None,
        tz: Tz = "UTC",
        format: Fmt = "json",
    ) -> Any:
        got = await _report(request, server, name, day, tz, format)
        return got if isinstance(got, Response) else model.model_validate(got.to_json())

    report.__doc__ = doc
    report.__name__ = name.replace("-", "_")
    router.get(f"/reports/{name}", response_model=model, responses=_FILES)(report)


_route(
    "patron-summary",
    PatronSummaryOut,
    "Per player: beginning balance, deposits, withdrawals, transfers to and from games, funds on game, win/loss, "
    "adjustments, ending balance (N.J.A.C. 13:69O-1.9).",
)
_route(
    "table-win",
    TableWinOut,
    "Per table and wager: handle, win, hold against the theoretical hold and its 95% interval; day, month and "
    "year to date (COMAR 36.05.03.25).",
)
_route(
    "meters",
    MetersOut,
    "Per linked meter: start, contributions, hits, resets, end, reconciled to the ledger; liability above reset "
    "(GLI-19).",
)

"""What the daily reports share (issue 26): the day's window, the report's typed shape, the ledger sums.

A day is a calendar day in a time zone (``tz``, default UTC): from its midnight up to the next one,
``[start, end)`` in epoch seconds. Money is placed in a day by its ledger transaction's ``created_at`` (every
transaction has one; a round's settlement is one ``post_all``, so all its transactions share one stamp). A
round belongs to the day in which its settlement was posted (its first transaction that is not a ``wager``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tablegames.server.db import Account, Entry, LedgerTransaction

NO_ACTIVITY = "No Activity"
WAGER = "wager"  # the ledger kind of a wager's cost (wallet -> the table's in-play account)


class ReportError(ValueError):
    """A report asked for with a bad day, time zone, or name: nothing is read, nothing written."""


@dataclass(frozen=True)
class Window:
    """``[start, end)`` in epoch seconds, and how it is called."""

    label: str
    start: float
    end: float


def parse_day(text: str) -> dt.date:
    """``YYYY-MM-DD`` -> the date; a :class:`ReportError` naming the problem otherwise."""
    try:
        if len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ReportError(f"--day must be a date like 2026-03-01, got {text[:40]!r}") from None


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ReportError(
            f"unknown time zone {name[:60]!r} (an IANA name like UTC or America/New_York)"
        ) from None


def _midnight(day: dt.date, tz: ZoneInfo) -> float:
    return dt.datetime(day.year, day.month, day.day, tzinfo=tz).timestamp()


def day_window(day: dt.date, tz: str = "UTC") -> Window:
    z = zone(tz)
    return Window("day", _midnight(day, z), _midnight(day + dt.timedelta(days=1), z))


def periods(day: dt.date, tz: str = "UTC") -> list[Window]:
    """The day, the month to date and the year to date (each ending with the day), as Maryland reports them."""
    z = zone(tz)
    end = _midnight(day + dt.timedelta(days=1), z)
    return [
        Window("day", _midnight(day, z), end),
        Window("month to date", _midnight(day.replace(day=1), z), end),
        Window("year to date", _midnight(day.replace(month=1, day=1), z), end),
    ]


@dataclass(frozen=True)
class Report:
    """One report: its rows (frozen dataclasses of one type), totals, the ledger checks and what it covers.

    ``reconciles``: every check against the ledger held (``checks`` says which, and any difference)."""

    name: str
    title: str
    day: str
    tz: str
    generated_at: float
    filters: Mapping[str, str]
    columns: tuple[str, ...]
    rows: tuple[Any, ...]
    totals: Mapping[str, int]
    checks: tuple[str, ...]
    reconciles: bool
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def empty(self) -> bool:
        return not self.rows

    def row_dicts(self) -> list[dict[str, Any]]:
        return [dataclasses.asdict(r) for r in self.rows]

    def to_json(self) -> dict[str, Any]:
        return {
            "report": self.name,
            "title": self.title,
            "day": self.day,
            "tz": self.tz,
            "generated_at": iso_time(self.generated_at),
            "filters": dict(self.filters),
            "status": NO_ACTIVITY if self.empty else "ok",
            "columns": list(self.columns),
            "rows": self.row_dicts(),
            "totals": dict(self.totals),
            "reconciles": self.reconciles,
            "checks": list(self.checks),
            "notes": list(self.notes),
        }


def iso_time(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check(name: str, got: int, want: int) -> tuple[str, bool]:
    """One reconciliation line and whether it held."""
    ok = got == want
    return (f"{name}: {got} = {want}" if ok else f"{name}: {got} != ledger {want} (off by {got - want})"), ok


def settlement_times(session: Session, before: float | None = None) -> dict[int, float]:
    """Each round's settlement time: its first ledger transaction that is not a wager (optionally only those
    before ``before``)."""
    q = (
        select(LedgerTransaction.round_id, func.min(LedgerTransaction.created_at))
        .where(LedgerTransaction.round_id.is_not(None), LedgerTransaction.kind != WAGER)
        .group_by(LedgerTransaction.round_id)
    )
    out: dict[int, float] = {}
    for r, t in session.execute(q).all():
        if r is not None and (before is None or float(t) < before):
            out[int(r)] = float(t)
    return out


def build(
    name: str,
    title: str,
    day: dt.date,
    tz: str,
    filters: Mapping[str, str | None],
    row_type: type,
    rows: Sequence[Any],
    totals: Mapping[str, int],
    checks: Sequence[tuple[str, bool]],
    notes: Sequence[str] = (),
    clock: Callable[[], float] = time.time,
) -> Report:
    return Report(
        name=name,
        title=title,
        day=day.isoformat(),
        tz=tz,
        generated_at=clock(),
        filters={"day": day.isoformat(), "tz": tz, **{k: v for k, v in filters.items() if v is not None}},
        columns=tuple(f.name for f in dataclasses.fields(row_type)),
        rows=tuple(rows),
        totals=dict(totals),
        checks=tuple(c for c, _ in checks),
        reconciles=all(ok for _, ok in checks),
        notes=tuple(notes),
    )


def round_money(session: Session, kinds: tuple[str, ...], round_ids: list[int]) -> int:
    """What the accounts of ``kinds`` gained (negative: lost) over the rounds ``round_ids``, from their ledger
    entries."""
    if not round_ids:
        return 0
    got = session.scalar(
        select(func.sum(Entry.amount))
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .join(Account, Account.id == Entry.account_id)
        .where(Account.kind.in_(kinds), LedgerTransaction.round_id.in_(round_ids))
    )
    return int(got or 0)

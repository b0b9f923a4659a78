"""The meters report (GLI-19 progressive records, N.J.A.C. 13:69O): per linked meter, its value at the start of
the day, the contributions, the hits paid and the resets (seeded from the house), its value at the end, reconciled
to its jackpot account's ledger entries, and the liability above its reset value.

start + contributions - hits + resets + other = end, and end is the sum of the meter account's entries before the
day's end (for today, also its balance now, when nothing was posted after the day).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tablegames.server.db import Account, Entry, LedgerTransaction, Meter
from tablegames.server.reports.common import Report, build, check, day_window

CONTRIBUTION, HIT, SEED = "contribution", "hit", "seed"


@dataclass(frozen=True)
class MeterRow:
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


def meters_report(session: Session, day: dt.date, tz: str = "UTC") -> Report:
    w = day_window(day, tz)
    meters = session.execute(
        select(Meter.game, Meter.name, Meter.reset_cents, Meter.account_id, Account.balance, Account.name)
        .join(Account, Account.id == Meter.account_id)
        .order_by(Meter.id)
    ).all()
    accounts = [int(m.account_id) for m in meters]
    joined = select(Entry.account_id, func.sum(Entry.amount)).join(
        LedgerTransaction, LedgerTransaction.id == Entry.transaction_id
    )

    def sums(before: float) -> dict[int, int]:
        q = joined.where(Entry.account_id.in_(accounts), LedgerTransaction.created_at < before)
        return {int(a): int(s) for a, s in session.execute(q.group_by(Entry.account_id)).all()}

    start, end = sums(w.start), sums(w.end)
    flows: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    counts: dict[int, int] = defaultdict(int)
    q = (
        select(Entry.account_id, Entry.kind, func.sum(Entry.amount), func.count(Entry.id))
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .where(
            Entry.account_id.in_(accounts),
            LedgerTransaction.created_at >= w.start,
            LedgerTransaction.created_at < w.end,
        )
        .group_by(Entry.account_id, Entry.kind)
    )
    for acc, kind, amount, n in session.execute(q).all():
        flows[int(acc)][str(kind)] += int(amount)
        if kind == HIT:
            counts[int(acc)] += int(n)
    after = {
        int(a): int(s)
        for a, s in session.execute(
            joined.where(Entry.account_id.in_(accounts), LedgerTransaction.created_at >= w.end).group_by(
                Entry.account_id
            )
        ).all()
    }
    rows: list[MeterRow] = []
    checks: list[tuple[str, bool]] = []
    for game, name, reset, acc, balance, _ in meters:
        f = flows.get(int(acc), {})
        other = sum(v for k, v in f.items() if k not in (CONTRIBUTION, HIT, SEED))
        begin = start.get(int(acc), 0)
        value = begin + f.get(CONTRIBUTION, 0) + f.get(HIT, 0) + f.get(SEED, 0) + other
        if not f and not begin:
            continue  # a meter that did not exist yet
        rows.append(
            MeterRow(
                game,
                name,
                int(reset),
                begin,
                f.get(CONTRIBUTION, 0),
                -f.get(HIT, 0),
                counts.get(int(acc), 0),
                f.get(SEED, 0),
                other,
                value,
                value - int(reset),
            )
        )
        checks.append(check(f"{game} {name}: end = ledger entries", value, end.get(int(acc), 0)))
        checks.append(check(f"{game} {name}: balance now", value + after.get(int(acc), 0), int(balance)))
    totals = {
        k: sum(getattr(r, k) for r in rows)
        for k in ("start", "contributions", "hits", "resets", "other", "end", "liability_above_reset")
    }
    if not any(r.contributions or r.hits or r.resets or r.other for r in rows):
        rows = []  # nothing moved: No Activity
    return build("meters", "Linked meters (GLI-19)", day, tz, {}, MeterRow, rows, totals, checks)

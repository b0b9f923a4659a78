"""The table win report (COMAR 36.05.03.25, GLI-19): per table and per wager, the drop (handle), what was paid
back, the win and the hold, against the theoretical hold of the table's rule set from the exact analysis, with
its 95% interval; for the day, the month to date and the year to date.

Per wager: handle = the cost of every placement (a multi-bet wager's every bet, a companion stake set aside
with it included: Three-Card style Play beside its Ante is the Ante's); paid = every return to the wallet (a
meter's hit included); win = handle - paid. A table's win is what its players lost, so the patrons' win/loss sums
to minus the tables' win; it reconciles to the wallets' ledger entries of the table's rounds, and to the house's
plus the meters' entries of those rounds (the meters keep their share of it).

Theoretical hold: the analysis gives the house edge e and the standard deviation s of one wager's net result per
unit of its initial amount a (heads-up, full deck, optimal strategy, meters at reset, no payout cap). Over the
placements, the expected win is e * sum(a), its standard deviation s * sqrt(sum(a^2)); the theoretical hold is
the expected win / handle and its 95% interval (normal approximation, z = 1.96) is (e * sum(a) -+ 1.96 s
sqrt(sum(a^2))) / handle, at most 100%. With equal amounts that is e -+ 1.96 s / sqrt(n) per unit. A wager the
analysis does not cover gets no theoretical figures and no flag.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tablegames.rules import registry
from tablegames.rules.common import RuleError
from tablegames.server.db import JACKPOT, WALLET, GameTable, RoundRow
from tablegames.server.reports.common import Report, build, check, periods, round_money, settlement_times

Z95 = 1.96
NEIGHBOUR = "neighbour bonus"  # the row of neighbour bonuses (paid with no wager of the seat's own)
ALL = "all wagers"


@dataclass(frozen=True)
class Theory:
    edge: Fraction  # house edge per unit of the initial amount
    sd: float  # standard deviation of the net per unit


@functools.lru_cache(maxsize=64)
def _analysis(game: str, options: tuple[tuple[str, str], ...], paytable: str | None) -> Any:
    from tablegames.analysis.api import analyze_game

    definition = registry.get(game)
    try:
        return analyze_game(definition.make_rules(dict(options), paytable))
    except RuleError:
        return None


def _tokens(name: str) -> set[str]:
    return {t for t in re.split(r"[\s()\-]+", name.lower()) if t}


def theory(
    game: str, options: dict[str, str], paytable: str | None, wager: str, option: str | None
) -> Theory | None:
    """The exact edge and standard deviation of ``wager`` (placed with ``option``) under a table's rule set,
    cached per rule set; None when the analysis has no figures for it."""
    from tablegames.analysis.figures import side_figures

    a = _analysis(game, tuple(sorted(options.items())), paytable)
    if a is None:
        return None
    definition = registry.get(game)
    if wager == definition.main_wager.name:
        return Theory(a.house_edge, a.std_dev)
    names = [n for n in a.side_bets if n == wager or wager.lower() in _tokens(n)]
    if len(names) > 1 and option:
        names = [n for n in names if n.lower().endswith(" " + option.lower())] or names
    if len(names) > 1:
        values = {v.lower() for v in definition.make_rules(options, paytable).describe().values()}
        names = [n for n in names if _tokens(n) & values or n.lower().split(" ", 1)[-1] in values] or names
    if not names:
        return None
    f = side_figures(names[0], a.side_bets[names[0]])
    return Theory(f.house_edge, f.std_dev)


@dataclass
class _Acc:
    placed: int = 0
    units: int = 0  # sum of initial amounts
    units_sq: int = 0
    handle: int = 0
    paid: int = 0
    options: set[str | None] = field(default_factory=set)


@dataclass(frozen=True)
class TableWinRow:
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


def _pct(x: Fraction | float | None) -> float | None:
    return None if x is None else round(float(x) * 100, 4)


def _row(period: str, t: GameTable, wager: str, acc: _Acc, th: Theory | None) -> TableWinRow:
    win = acc.handle - acc.paid
    hold = Fraction(win, acc.handle) if acc.handle else None
    theo = low = high = None
    flag = ""
    if th is not None and acc.handle and acc.units:
        expected = th.edge * acc.units
        spread = Z95 * th.sd * math.sqrt(acc.units_sq)
        theo = expected / acc.handle
        low, high = (float(expected) - spread) / acc.handle, min(1.0, (float(expected) + spread) / acc.handle)
        assert hold is not None
        if float(hold) < low or float(hold) > high:
            flag = "OUTSIDE"
    return TableWinRow(
        period,
        t.name,
        t.game,
        t.rule_set or "",
        wager,
        acc.placed,
        acc.handle,
        acc.paid,
        win,
        _pct(hold),
        _pct(theo),
        _pct(low),
        _pct(high),
        flag,
    )


def table_win(session: Session, day: dt.date, tz: str = "UTC", table_id: int | None = None) -> Report:
    """The table win report of ``day`` (in ``tz``): every table with a round settled in the period."""
    windows = periods(day, tz)
    settled = settlement_times(session, windows[-1].end)
    tables = {t.id: t for t in session.scalars(select(GameTable))}
    rows: list[TableWinRow] = []
    checks: list[tuple[str, bool]] = []
    totals: dict[str, int] = {}
    for w in windows:
        ids = sorted(r for r, at in settled.items() if w.start <= at < w.end)
        per: dict[int, dict[tuple[str, str | None], _Acc]] = defaultdict(lambda: defaultdict(_Acc))
        rounds_of: dict[int, list[int]] = defaultdict(list)
        for chunk in range(0, len(ids), 500):
            q = select(RoundRow.id, RoundRow.table_id, RoundRow.game, RoundRow.events).where(
                RoundRow.id.in_(ids[chunk : chunk + 500])
            )
            if table_id is not None:
                q = q.where(RoundRow.table_id == table_id)
            for rid, tid, game, events in session.execute(q).all():
                rounds_of[int(tid)].append(int(rid))
                _add_round(per[int(tid)], game, events or [])
        for tid in sorted(per):
            t = tables[tid]
            total = _Acc()
            for (wager, option), acc in sorted(per[tid].items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
                th = None
                if wager != NEIGHBOUR and len(acc.options) == 1:
                    th = theory(t.game, dict(t.rules or {}), t.paytable, wager, option)
                label = wager if option is None else f"{wager} ({option})"
                rows.append(_row(w.label, t, label, acc, th))
                total.placed += acc.placed
                total.handle += acc.handle
                total.paid += acc.paid
            rows.append(_row(w.label, t, ALL, total, None))
            if w.label == "day":
                wallets = round_money(session, (WALLET,), rounds_of[tid])
                house_meters = round_money(session, ("house", JACKPOT), rounds_of[tid])
                checks.append(
                    check(f"{t.name}: win = -(wallet entries)", total.handle - total.paid, -wallets)
                )
                checks.append(
                    check(f"{t.name}: win = house + meter entries", total.handle - total.paid, house_meters)
                )
        all_rows = [r for r in rows if r.period == w.label and r.wager == ALL]
        totals[f"{w.label} handle"] = sum(r.handle for r in all_rows)
        totals[f"{w.label} win"] = sum(r.win for r in all_rows)
    return build(
        "table-win",
        "Table win and hold (COMAR 36.05.03.25)",
        day,
        tz,
        {"table": None if table_id is None else str(table_id)},
        TableWinRow,
        rows,
        totals,
        checks,
        (
            "Hold = win / handle. Theoretical hold and its 95% interval: exact house edge and standard deviation "
            "of the table's rule set (normal approximation, z = 1.96); a hold outside is flagged.",
        ),
    )


def _add_round(per: dict[tuple[str, str | None], _Acc], game: str, events: list[dict[str, Any]]) -> None:
    """One round's wagers into ``per`` (wager, option) -> sums."""
    definition = registry.get(game)
    parent = {c: w.name for w in definition.wagers for c, _ in w.companions}
    option_of: dict[tuple[int, str], str | None] = {}
    for e in events:
        kind = e.get("type")
        if kind == "wager_placed":
            name = parent.get(e["wager"], e["wager"])
            spec = definition.wager(e["wager"])
            cost = int(e["amount"]) if spec is None else spec.cost(int(e["amount"]))
            option = e.get("option") if name == e["wager"] else option_of.get((e["seat"], name))
            acc = per[(name, option)]
            acc.handle += cost
            if name == e["wager"]:
                option_of[(e["seat"], name)] = option
                acc.placed += 1
                acc.units += int(e["amount"])
                acc.units_sq += int(e["amount"]) ** 2
                acc.options.add(option)
        elif kind == "settled":
            name = parent.get(e["wager"], e["wager"])
            per[(name, option_of.get((e["seat"], name)))].paid += int(e["returned"])
        elif kind == "envy_paid":
            per[(NEIGHBOUR, None)].paid += int(e["amount"])

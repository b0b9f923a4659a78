"""A report as a file: CSV, JSON or PDF, each with the title, the time generated, the filters, and "No Activity"
for a day without any; the PDF's every page ends with "page x of y" (``analysis.pdf``'s typesetting)."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any, Final

from tablegames.server.reports.common import NO_ACTIVITY, Report, ReportError, iso_time

FORMATS: Final = ("csv", "json", "pdf")
MEDIA_TYPES: Final = {"csv": "text/csv", "json": "application/json", "pdf": "application/pdf"}
NOT_MONEY: Final = frozenset({"placed", "hit_count"})
SHORT: Final = {  # a PDF column's header where the name is long
    "hold_pct": "hold %",
    "theoretical_hold_pct": "theo. %",
    "low_95_pct": "95% low",
    "high_95_pct": "95% high",
    "liability_above_reset": "above reset",
    "funds_on_game_start": "on game (start)",
    "funds_on_game_end": "on game (end)",
    "transfers_to_games": "to games",
    "transfers_from_games": "from games",
    "beginning_balance": "beginning",
    "ending_balance": "ending",
}


def _head(report: Report) -> list[tuple[str, str]]:
    return [
        ("report", report.title),
        ("generated", iso_time(report.generated_at)),
        ("filters", ", ".join(f"{k}={v}" for k, v in report.filters.items())),
        ("reconciles to the ledger", "yes" if report.reconciles else "NO"),
    ]


def to_csv(report: Report) -> str:
    """``#`` lines (title, time, filters), then the columns, the rows (cents) and a totals line; or the
    columns and one line "No Activity"."""
    out = io.StringIO()
    for k, v in _head(report):
        out.write(f"# {k}: {v}\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(report.columns)
    if report.empty:
        w.writerow([NO_ACTIVITY])
    for r in report.row_dicts():
        w.writerow(["" if r[c] is None else r[c] for c in report.columns])
    for name, cents in report.totals.items():
        out.write(f"# total {name}: {cents}\n")
    for c in report.checks:
        out.write(f"# check {c}\n")
    return out.getvalue()


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, int) and column not in NOT_MONEY:
        return money(value)
    if isinstance(value, float):
        return f"{value:.2f}%"
    return str(value).replace("|", "/")


def to_markdown(report: Report) -> str:
    lines = [f"# {report.title}", ""]
    lines += [f"**{k}:** {v}" for k, v in _head(report)] + [""]
    if report.empty:
        lines += [f"## {NO_ACTIVITY}", ""]
    else:
        rows = report.row_dicts()
        # a column empty in every row (no rule set named, no flag raised) is left out of the page
        columns = [c for c in report.columns if any(r[c] not in (None, "") for r in rows)]
        lines.append("| " + " | ".join(SHORT.get(c, c.replace("_", " ")) for c in columns) + " |")
        lines.append("|" + "---|" * len(columns))
        for r in rows:
            lines.append("| " + " | ".join(_cell(c, r[c]) or " " for c in columns) + " |")
        lines.append("")
    if report.totals:
        lines += ["## Totals", ""] + [
            f"- {k.replace('_', ' ')}: {money(v)}" for k, v in report.totals.items()
        ]
        lines.append("")
    if report.checks:
        lines += ["## Reconciliation to the ledger", ""] + [f"- {c}" for c in report.checks] + [""]
    lines += [f"- {n}" for n in report.notes]
    return "\n".join(lines) + "\n"


def to_pdf(report: Report) -> bytes:
    from tablegames.analysis.pdf import markdown_to_pdf

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.pdf"
        footer = [f"{report.title} · {report.day} ({report.tz}) · generated {iso_time(report.generated_at)}"]
        markdown_to_pdf(to_markdown(report), path, Path(tmp), report.title, footer, landscape=True)
        return path.read_bytes()


def render(report: Report, fmt: str) -> bytes:
    if fmt == "csv":
        return to_csv(report).encode()
    if fmt == "json":
        return (json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n").encode()
    if fmt == "pdf":
        return to_pdf(report)
    raise ReportError(f"unknown format {fmt[:20]!r}; one of {', '.join(FORMATS)}")

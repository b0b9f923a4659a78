"""Text forms of an :class:`~tablegames.analysis.common.Analysis`: Rich tables, Markdown and HTML."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from tablegames.analysis.charts import order_columns
from tablegames.analysis.common import ASSUMPTIONS, Analysis, SideBet
from tablegames.rules import registry


def _pct(x: Any, digits: int = 4) -> str:
    return f"{100 * float(x):.{digits}f}%"


def headline(a: Analysis) -> list[tuple[str, str]]:
    """The main wager's figures as (name, value) rows."""
    return [
        ("house edge", f"{_pct(a.house_edge)}  ({float(a.house_edge):.6f} of the initial wager)"),
        ("element of risk", _pct(a.element_of_risk)),
        ("average total wager", f"{float(a.average_wager):.6f} units"),
        ("standard deviation", f"{a.std_dev:.4f} units per initial unit"),
        ("P(win)", f"{float(a.p_win):.6f}"),
        ("P(push)", f"{float(a.p_push):.6f}"),
        ("P(loss)", f"{float(a.p_loss):.6f}"),
        ("deals enumerated", f"{a.total:,}"),
        ("exact house edge", str(a.house_edge)),
    ]


def outcome_rows(a: Analysis | SideBet, keep_zero: bool = False) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for o in a.outcomes:
        if o.combinations == 0 and not keep_zero:
            continue
        rows.append(
            (
                o.name,
                f"{o.combinations:,}",
                f"{float(o.probability(a.total)):.8f}",
                f"{float(o.payout):+g}",
                f"{float(o.contribution(a.total)):+.8f}",
            )
        )
    return rows


def side_bet_rows(a: Analysis) -> list[tuple[str, str, str]]:
    return [(name, _pct(b.return_), _pct(b.house_edge)) for name, b in a.side_bets.items()]


def rich_renderables(a: Analysis) -> list[Any]:
    """Rich tables for ``--format table``."""
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = []
    stake = "" if a.unit_cents is None else f", ${a.unit_cents / 100:,.2f} per wager"
    rules = registry.get(a.game).short_rules(a.rules)
    head = Table(title=f"{a.game} — main wager ({rules}{stake})")
    head.add_column("figure")
    head.add_column("value", justify="right")
    for name, value in headline(a):
        head.add_row(name, value)
    out.append(head)
    table = Table(title="Return table (payout = net result per initial unit)")
    for col, just in (("outcome", "left"), ("combinations", "right"), ("probability", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    table.add_column("payout", justify="right")
    table.add_column("contribution", justify="right")
    for row in outcome_rows(a):
        table.add_row(*row)
    table.add_row("total", f"{a.total:,}", "1", "", f"{float(a.expected_value):+.8f}", style="bold")
    out.append(table)
    out.append(Text("Strategy", style="bold"))
    out.append(Text("\n".join(a.strategy_summary)))
    side_rows = side_bet_rows(a)
    if side_rows:  # (a game without side bets gets no empty table)
        sides = Table(title="Side bets")
        sides.add_column("wager")
        sides.add_column("return", justify="right")
        sides.add_column("house edge", justify="right")
        for srow in side_rows:
            sides.add_row(*srow)
        out.append(sides)
    notes = list(dict.fromkeys([n for b in a.side_bets.values() for n in b.notes] + list(a.notes)))
    if notes:
        out.append(Text("\n".join(notes)))
    return out


def _md_table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    h = list(header)
    lines = ["| " + " | ".join(h) + " |", "|" + "|".join("---" for _ in h) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def to_markdown(a: Analysis, images: dict[str, str] | None = None, command: str | None = None) -> str:
    parts = [f"# {a.game}: exact analysis", ""]
    if command:
        parts += [f"Produced by `{command}`.", ""]
    parts += ["## Rules and assumptions", ""]
    parts += [f"- rule `{k}` = `{v}`" for k, v in a.rules.items()]
    if a.unit_cents is not None:
        parts += [f"- wager size: {a.unit_cents} cents per wager (figures per wager)"]
    parts += [f"- {s}" for s in ASSUMPTIONS]
    parts += [f"- {n}" for n in a.notes]
    parts += ["", "## Main wager", "", _md_table(("figure", "value"), headline(a)), ""]
    parts += ["## Return table", "", "Payout is the net result in units of the initial main wager.", ""]
    rows = [*outcome_rows(a), ("**total**", f"{a.total:,}", "1", "", f"{float(a.expected_value):+.8f}")]
    parts += [_md_table(("outcome", "combinations", "probability", "payout", "contribution"), rows), ""]
    if images and "contributions" in images:
        parts += [f"![return contributions]({images['contributions']})", ""]
    if images and "distribution" in images:
        parts += [f"![net result distribution]({images['distribution']})", ""]
    parts += ["## Strategy", "", "```", *a.strategy_summary, "```", ""]
    chart = a.strategy.get("chart")
    if isinstance(chart, dict) and chart:
        cols = order_columns({c for row in chart.values() for c in row})
        parts += [
            _md_table(["hand", *cols], [[k, *(row.get(c, "") for c in cols)] for k, row in chart.items()]),
            "",
        ]
    if images and "strategy" in images:
        parts += [f"![strategy chart]({images['strategy']})", ""]
    if a.side_bets:
        parts += ["## Side bets", "", _md_table(("wager", "return", "house edge"), side_bet_rows(a)), ""]
    for name, bet in a.side_bets.items():
        parts += [f"### {name}", ""]
        parts += [
            _md_table(("outcome", "combinations", "probability", "payout", "contribution"), outcome_rows(bet))
        ]
        parts += ["", *[f"- {n}" for n in bet.notes], ""]
    return "\n".join(parts)


def to_html(markdown_text: str, title: str) -> str:
    """A small self-contained HTML page from the report's Markdown (tables, headings, lists, images)."""
    body: list[str] = []
    lines = markdown_text.splitlines()
    i = 0
    in_code = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            body.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
        elif in_code:
            body.append(html.escape(line))
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            i -= 1
            cells = [[c.strip().replace("\\|", "|") for c in r.strip("|").split(" | ")] for r in rows]
            body.append("<table>")
            body.append("<tr>" + "".join(f"<th>{_inline(c)}</th>" for c in cells[0]) + "</tr>")
            for r in cells[2:]:
                body.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>")
            body.append("</table>")
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{_inline(line[level:].strip())}</h{level}>")
        elif line.startswith("!["):
            alt, _, src = line[2:].partition("](")
            body.append(f'<p><img src="{html.escape(src.rstrip(")"))}" alt="{html.escape(alt)}"></p>')
        elif line.startswith("- "):
            body.append(f"<li>{_inline(line[2:])}</li>")
        elif line.startswith("> "):
            body.append(f"<blockquote>{_inline(line[2:])}</blockquote>")
        elif line.strip() == "<!-- pagebreak -->":
            body.append('<div class="page-break"></div>')
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
        i += 1
    style = (
        "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;color:#222;"
        "max-width:62em;margin:2em auto;padding:0 1.5em}"
        "h1{font-size:1.9em;border-bottom:3px solid #2e86c1;padding-bottom:.3em}"
        "h2{font-size:1.4em;color:#1b4f72;border-bottom:1px solid #d5dde5;margin-top:2em}"
        "h3{font-size:1.1em;color:#1b4f72}"
        "table{border-collapse:collapse;margin:1em 0;font-size:.88em}"
        "td,th{border:1px solid #c8d1da;padding:3px 8px;text-align:right;vertical-align:top}"
        "th{background:#e8eef4}tr:nth-child(even) td{background:#f7f9fb}td:first-child{text-align:left}"
        "li{margin:.25em 0}blockquote{margin:.2em 0 .6em 2em;padding:.3em .8em;background:#f3f6f9;"
        "border-left:3px solid #aab7c4;color:#34495e;font-size:.92em}"
        "code{font-family:'DejaVu Sans Mono',monospace;font-size:.9em;background:#f4f6f8;padding:0 .2em}"
        "pre{background:#f4f6f8;padding:1em;overflow-x:auto;font-size:.85em}img{max-width:100%}"
        ".page-break{border-top:1px dashed #ccc;margin:2em 0}"
        "@media print{body{max-width:none;font-size:11pt}.page-break{page-break-after:always;border:0}"
        "h2,h3{page-break-after:avoid}tr{page-break-inside:avoid}}"
    )
    return (
        f"<!doctype html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _inline(text: str) -> str:
    out = html.escape(text)
    while "**" in out:
        out = out.replace("**", "<b>", 1).replace("**", "</b>", 1)
    parts = out.split("`")
    return "".join(f"<code>{p}</code>" if k % 2 else p for k, p in enumerate(parts))

"""The math report (PAR sheet): report.md, report.html and matplotlib PNGs in one directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tablegames.analysis.api import analyzer
from tablegames.analysis.common import Analysis
from tablegames.analysis.render import order_columns, to_html, to_markdown
from tablegames.rules import GameRules


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_distribution(a: Analysis, path: Path) -> None:
    plt = _plt()
    dist = a.net_distribution()
    xs = [float(x) for x in dist]
    ps = [float(p) for p in dist.values()]
    fig, ax = plt.subplots(figsize=(9, 4))
    labels = [f"{x:+g}" for x in xs]
    ax.bar(range(len(xs)), ps, color=["#c0392b" if x < 0 else "#7f8c8d" if x == 0 else "#27ae60" for x in xs])
    ax.set_xticks(range(len(xs)), labels, rotation=60, fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel("net result per round (units of the initial wager)")
    ax.set_ylabel("probability (log scale)")
    ax.set_title(f"{a.game}: distribution of the net result per round")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_contributions(a: Analysis, path: Path) -> None:
    plt = _plt()
    rows = [(o.name, float(o.contribution(a.total))) for o in a.outcomes if o.combinations]
    fig, ax = plt.subplots(figsize=(9, max(3.0, 0.22 * len(rows) + 1)))
    ax.barh(
        range(len(rows)), [v for _, v in rows], color=["#c0392b" if v < 0 else "#27ae60" for _, v in rows]
    )
    ax.set_yticks(range(len(rows)), [n for n, _ in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel(f"contribution to return (units); total {float(a.expected_value):+.6f}")
    ax.set_title(f"{a.game}: return contributions by outcome")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_chart(a: Analysis, path: Path, row_label: str, col_label: str) -> None:
    """Heatmap of a decision chart (rows x columns of short action codes)."""
    plt = _plt()
    chart = a.strategy["chart"]
    rows = list(chart)
    cols = order_columns({c for r in chart.values() for c in r})
    codes = sorted({v.rstrip("*") for r in chart.values() for v in r.values()})
    grid = np.full((len(rows), len(cols)), np.nan)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            v = chart[r].get(c)
            if v is not None:
                grid[i, j] = codes.index(v.rstrip("*"))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(cols) + 3), max(4.0, 0.28 * len(rows) + 1.5)))
    ax.imshow(grid, cmap="tab20", aspect="auto", vmin=0, vmax=max(1, 19))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            v = chart[r].get(c)
            if v is not None:
                short = v.replace("discard ", "d:").replace("stand", "S")
                ax.text(j, i, short, ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(cols)), cols, fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    ax.set_title(f"{a.game}: optimal decision (* = depends on the exact cards)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(
    a: Analysis, rules: GameRules, out: Path, bet_cents: int | None = None, command: str | None = None
) -> list[Path]:
    """Write report.md, report.html, analysis.json and the PNGs; returns the written paths."""
    out.mkdir(parents=True, exist_ok=True)
    images = {
        "distribution": "net_distribution.png",
        "contributions": "return_contributions.png",
        "strategy": "strategy_chart.png",
    }
    plot_distribution(a, out / images["distribution"])
    plot_contributions(a, out / images["contributions"])
    analyzer(rules).plot_strategy(a, rules, bet_cents, out / images["strategy"])
    md = to_markdown(a, images, command)
    (out / "report.md").write_text(md, encoding="utf-8")
    (out / "report.html").write_text(to_html(md, f"{a.game} exact analysis"), encoding="utf-8")
    (out / "analysis.json").write_text(json.dumps(a.to_json(), indent=1), encoding="utf-8")
    return [out / n for n in ("report.md", "report.html", "analysis.json", *images.values())]

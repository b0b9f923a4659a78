"""The analysis' images that need nothing but an :class:`~tablegames.analysis.common.Analysis`: the net
distribution, the return contributions and a decision chart (a game's analyzer draws its strategy with
:func:`plot_chart`; the report draws the rest). Nothing of the analysis is imported here at run time, so the
analyzer base class can draw without importing the report."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tablegames.analysis.common import Analysis


_CLASS_ORDER = "A23456789TJQKW"  # card classes (rules.indexing.CardClasses; W = wild), ace first


def order_columns(cols: Iterable[str]) -> list[str]:
    """Card classes as A 2 .. 9 T J Q K W; otherwise numbers in numeric order, then the rest.

    >>> order_columns("KA2W"), order_columns(["10", "2", "4"])
    (['A', '2', 'K', 'W'], ['2', '4', '10'])
    """
    cs = list(cols)
    if all(len(c) == 1 and c in _CLASS_ORDER for c in cs):
        return sorted(cs, key=_CLASS_ORDER.index)
    return sorted(cs, key=lambda c: (0, int(c), "") if c.lstrip("-").isdigit() else (1, 0, c))


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_distribution(a: Analysis, path: Path) -> None:
    plt = pyplot()
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
    plt = pyplot()
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
    plt = pyplot()
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

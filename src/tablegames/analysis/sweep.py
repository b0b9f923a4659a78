"""The figures of a rule set over one or two of its parameters (issue 15): ``tablegames sweep``.

Each point is solved exactly (the optimal strategy re-solved at every point): house edge, element of risk,
hit frequency and standard deviation, from :mod:`tablegames.analysis.figures`. A range is ``LO..HI`` or
``LO..HI:STEP`` (each end read by the parameter, so money takes ``$5``, a fraction ``10%``), a list is
``A,B,C``, and a choice alone (``NAME``) stands for all its choices.

>>> from dataclasses import dataclass
>>> from tablegames.rules.parameters import integer
>>> @dataclass(frozen=True)
... class Toy:
...     limit: int = 14
>>> params = (integer("limit", "limit", 3, 27, "the bust limit"),)
>>> parse_vary("limit=10..16:3", params).labels
('10', '13', '16')
>>> parse_vary("limit=12,15", params).values
(12, 15)
>>> parse_vary("limit=20..30", params)
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: rule 'limit' (the bust limit): 30 is out of range; allowed: a whole number from 3 to 27
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablegames.analysis.figures import Evaluate, Figures, evaluator
from tablegames.rules import registry
from tablegames.rules.common import RuleError
from tablegames.rules.parameters import LOSES, Parameter, find

MAX_POINTS = 400


@dataclass(frozen=True)
class Axis:
    """One varied parameter and its values (as the parameter holds them) with their labels."""

    parameter: Parameter
    values: tuple[Any, ...]
    labels: tuple[str, ...]

    @property
    def numeric(self) -> bool:
        return self.parameter.kind in ("int", "money", "odds", "fraction") and None not in self.values


def _label(p: Parameter, v: Any) -> str:
    if v is None and p.kind == "odds":
        return LOSES
    return v if isinstance(v, str) else p.show(v)


def parse_vary(text: str, parameters: Sequence[Parameter]) -> Axis:
    """``NAME=LO..HI[:STEP]``, ``NAME=A,B,...`` or a choice's ``NAME``: a RuleError naming the problem."""
    name, sep, spec = text.partition("=")
    p = find(parameters, name.strip())
    spec = spec.strip()
    if not sep or not spec:
        if p.kind not in ("choice", "preset"):
            raise RuleError(f"--vary {text!r}: give values, NAME=LO..HI[:STEP] or NAME=A,B,...")
        values: list[Any] = list(p.choices)
    elif ".." in spec:
        if p.kind not in ("int", "money", "odds", "fraction"):
            raise RuleError(f"--vary {text!r}: {p.name} is a {p.kind}; list its values: NAME=A,B,...")
        lo_text, _, rest = spec.partition("..")
        hi_text, _, step_text = rest.partition(":")
        lo, hi = p.parse(lo_text), p.parse(hi_text)
        if lo is None or hi is None:
            raise RuleError(f"--vary {text!r}: a range runs between two numbers")
        step: Any = 1
        if step_text:
            step = p.parse(step_text) if p.kind in ("money", "fraction") else _step(step_text, text)
        if step <= 0 or (p.kind != "fraction" and Fraction(step).denominator != 1):
            raise RuleError(f"--vary {text!r}: the step must be a positive whole number (or fraction)")
        if hi < lo:
            raise RuleError(f"--vary {text!r}: the range is empty ({hi_text} < {lo_text})")
        count = int((hi - lo) / step) + 1
        if count > MAX_POINTS:
            raise RuleError(f"--vary {text!r}: {count} values; at most {MAX_POINTS} (use a larger :STEP)")
        values = [lo + k * step for k in range(count)]
    else:
        values = [p.parse(v) for v in spec.split(",") if v.strip()]
    if not values:
        raise RuleError(f"--vary {text!r}: no values")
    return Axis(p, tuple(values), tuple(_label(p, v) for v in values))


def _step(text: str, whole: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RuleError(f"--vary {whole!r}: the step {text!r} is not a whole number") from None


@dataclass(frozen=True)
class Point:
    labels: tuple[str, ...]
    figures: Figures | None
    error: str = ""


@dataclass(frozen=True)
class Sweep:
    axes: tuple[Axis, ...]
    points: tuple[Point, ...]

    def to_json(self) -> dict[str, Any]:
        rows = []
        for pt in self.points:
            row: dict[str, Any] = {"values": dict(zip(self.names, pt.labels, strict=True))}
            row.update(pt.figures.to_json() if pt.figures is not None else {"error": pt.error})
            rows.append(row)
        return {"vary": list(self.names), "points": rows}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.parameter.name for a in self.axes)


def sweep(
    rules: Any,
    vary: Sequence[str],
    *,
    wager: str | None = None,
    bet_cents: int | None = None,
    parameters: Sequence[Parameter] | None = None,
    evaluate: Evaluate | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Sweep:
    """The figures at every point of the grid of one or two ``--vary`` specifications."""
    params = tuple(registry.of(rules).parameters if parameters is None else parameters)
    if not 1 <= len(vary) <= 2:
        raise RuleError("sweep one or two parameters (--vary NAME=RANGE, once or twice)")
    axes = tuple(parse_vary(v, params) for v in vary)
    if len(axes) == 2 and axes[0].parameter is axes[1].parameter:
        raise RuleError(f"--vary names {axes[0].parameter.name} twice")
    total = 1
    for a in axes:
        total *= len(a.values)
    if total > MAX_POINTS:
        raise RuleError(f"{total} points; at most {MAX_POINTS} (use a larger :STEP)")
    figure_of = evaluate or evaluator(wager, bet_cents)
    if wager is not None:
        figure_of(rules)  # an unknown wager is the request's error, not every point's
    points = []
    grid = itertools.product(*(zip(a.values, a.labels, strict=True) for a in axes))
    for done, combo in enumerate(grid, 1):
        labels = tuple(label for _, label in combo)
        try:
            r = rules
            for a, (v, _) in zip(axes, combo, strict=True):
                r = a.parameter.put(r, v)
            points.append(Point(labels, figure_of(r)))
        except RuleError as exc:
            points.append(Point(labels, None, str(exc)))
        if progress is not None:
            progress(done, total)
    return Sweep(axes, tuple(points))


def plot(result: Sweep, path: str | Path, title: str = "") -> None:
    """A PNG of :func:`figure`."""
    from tablegames.analysis.charts import pyplot

    fig = figure(result, title)
    fig.savefig(path, dpi=110)
    pyplot().close(fig)


_STYLES: dict[
    str, dict[str, Any]
] = {  # lines that coincide (One Eyed Flush's edge and risk) stay both visible
    "house_edge": {"marker": "o", "linewidth": 2.5},
    "element_of_risk": {"marker": "D", "markersize": 9, "markerfacecolor": "none", "linestyle": "--"},
    "hit_frequency": {"marker": "^"},
}


def figure(result: Sweep, title: str = "") -> Any:
    """The plot as a matplotlib figure: one parameter, a line per figure (percent; the standard deviation on its
    own axis, from 0, so a flat one looks flat; a line equal to the house edge's says so in the legend); two, a
    heat map of the house edge."""
    from tablegames.analysis.charts import pyplot

    fig, ax = pyplot().subplots(figsize=(8, 5))
    if len(result.axes) == 1:
        axis = result.axes[0]
        xs: list[Any] = [float(v) for v in axis.values] if axis.numeric else list(range(len(axis.values)))
        ok = [(x, pt.figures) for x, pt in zip(xs, result.points, strict=True) if pt.figures is not None]
        px = [x for x, _ in ok]
        series = {attr: [getattr(f, attr) for _, f in ok] for attr in _STYLES}
        for label, attr in (
            ("house edge", "house_edge"),
            ("element of risk", "element_of_risk"),
            ("hit frequency", "hit_frequency"),
        ):
            same = attr != "house_edge" and series[attr] == series["house_edge"]
            shown = f"{label} (= house edge)" if same else label
            ax.plot(px, [100 * float(v) for v in series[attr]], label=shown, **_STYLES[attr])
        ax.set_ylabel("percent")
        right = ax.twinx()
        sd = [f.std_dev for _, f in ok]
        right.plot(px, sd, marker="s", color="grey", linestyle=":", label="std dev")
        right.set_ylim(0, 1.15 * max(sd, default=1.0) or 1.0)
        right.set_ylabel("standard deviation (units)")
        if not axis.numeric:
            ax.set_xticks(xs, list(axis.labels))
        elif all(float(x).is_integer() for x in xs):  # a whole-number parameter: no 12.5 on its axis
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(axis.parameter.name)
        ax.axhline(0, color="black", linewidth=0.5)
        lines = ax.get_legend_handles_labels()
        more = right.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], loc="best")
    else:
        rows, cols = result.axes
        grid = [[float("nan")] * len(cols.values) for _ in rows.values]
        for k, pt in enumerate(result.points):
            if pt.figures is not None:
                grid[k // len(cols.values)][k % len(cols.values)] = 100 * float(pt.figures.house_edge)
        image = ax.imshow(grid, cmap="RdYlGn_r", aspect="auto", origin="lower")
        fig.colorbar(image, ax=ax, label="house edge (%)")
        ax.set_xticks(range(len(cols.labels)), list(cols.labels))
        ax.set_yticks(range(len(rows.labels)), list(rows.labels))
        ax.set_xlabel(cols.parameter.name)
        ax.set_ylabel(rows.parameter.name)
        if len(rows.values) * len(cols.values) <= 150:
            for i, line in enumerate(grid):
                for j, v in enumerate(line):
                    ax.text(j, i, "-" if v != v else f"{v:.2f}", ha="center", va="center", fontsize=7)
    ax.set_title(title)
    fig.tight_layout()
    return fig

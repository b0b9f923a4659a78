"""The report's comparison (``tablegames report --compare OTHER_GAME_FILE``, issue 22): the submitted rule set
beside another of the same game (the standard one, as a lab asks), every figure of both side by side, exact.

Generic: the figures are the submission's (:func:`~tablegames.analysis.submission.wager_stats`, the exact
analysis and the analyzer's meter sweeps); wagers are matched by their titles.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablegames.analysis.api import analyzer
from tablegames.analysis.common import Analysis
from tablegames.analysis.submission import WagerStats, wager_stats
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError


@dataclass(frozen=True)
class Figure:
    """One figure of both rule sets: ``this`` (the submitted) and ``other``; None where a rule set has no such
    wager."""

    wager: str
    figure: str
    this: Fraction | float | None
    other: Fraction | float | None
    kind: str = "percent"  # percent, number, money (cents)

    def to_dict(self) -> dict[str, Any]:
        def exact(v: Fraction | float | None) -> str | None:
            return str(v) if isinstance(v, Fraction) else None

        return {
            "wager": self.wager,
            "figure": self.figure,
            "this": None if self.this is None else float(self.this),
            "this_exact": exact(self.this),
            "other": None if self.other is None else float(self.other),
            "other_exact": exact(self.other),
        }


@dataclass(frozen=True)
class Comparison:
    """The other rule set's name, the rules that differ (name, this, other) and every figure of both."""

    name: str
    differences: list[tuple[str, str, str]]
    figures: list[Figure]

    def to_dict(self) -> dict[str, Any]:
        return {
            "other": self.name,
            "rule_differences": [{"rule": r, "this": t, "other": o} for r, t, o in self.differences],
            "figures": [f.to_dict() for f in self.figures],
        }


def _stats_figures(wager: str, this: WagerStats | None, other: WagerStats | None) -> list[Figure]:
    def get(s: WagerStats | None, attr: str) -> Any:
        return None if s is None else getattr(s, attr)

    return [
        Figure(wager, "house edge", get(this, "house_edge"), get(other, "house_edge")),
        Figure(wager, "element of risk", get(this, "element_of_risk"), get(other, "element_of_risk")),
        Figure(wager, "hit frequency", get(this, "hit_frequency"), get(other, "hit_frequency"), "number"),
        Figure(wager, "standard deviation", get(this, "std_dev"), get(other, "std_dev"), "number"),
        Figure(
            wager,
            "volatility index (90%)",
            get(this, "volatility_index"),
            get(other, "volatility_index"),
            "number",
        ),
    ]


def _head(title: str) -> str:
    return title.partition(" (")[0].partition(":")[0]


def _main_figures(main: str, a: Analysis, b: Analysis) -> list[Figure]:
    return [
        Figure(main, "P(win)", a.p_win, b.p_win, "number"),
        Figure(main, "P(push)", a.p_push, b.p_push, "number"),
        Figure(main, "P(loss)", a.p_loss, b.p_loss, "number"),
        Figure(main, "average total wager", a.average_wager, b.average_wager, "number"),
    ]


def compare(
    a: Analysis, rules: GameRules, other_analysis: Analysis, other: GameRules, other_name: str
) -> Comparison:
    """Every figure of ``rules`` (analysis ``a``) beside those of ``other`` (``other_analysis``), same game."""
    if rules.game != other.game:
        raise RuleError(f"--compare needs a rule set of {rules.game}, got one of {other.game}")
    definition = registry.of(rules)
    mine, theirs = definition.rule_set(rules), definition.rule_set(other)
    differences = [(k, v, theirs.get(k, "")) for k, v in mine.items() if theirs.get(k) != v]
    this_stats, other_stats = wager_stats(a, rules), wager_stats(other_analysis, other)
    left = list(other_stats)
    figures = _main_figures(this_stats[0].wager, a, other_analysis)
    for s in this_stats:
        match = next((o for o in left if o.wager == s.wager), None)
        if match is None:  # the same wager under another title (another pay table's name in it)
            match = next((o for o in left if _head(o.wager) == _head(s.wager)), None)
        if match is not None:
            left.remove(match)
        title = s.wager if match is None or match.wager == s.wager else f"{s.wager} / {match.wager}"
        figures += _stats_figures(title, s, match)
    for s in left:
        figures += _stats_figures(s.wager, None, s)
    found = analyzer(rules)
    theirs_sweeps = {s.wager: s for s in found.meter_sweeps(other)}
    for sweep in found.meter_sweeps(rules):
        twin = theirs_sweeps.get(sweep.wager)
        figures.append(
            Figure(
                sweep.wager,
                "break-even meter",
                sweep.break_even,
                None if twin is None else twin.break_even,
                "money",
            )
        )
    return Comparison(other_name, differences, figures)


def _show(v: Fraction | float | None, kind: str) -> str:
    if v is None:
        return "-"
    if kind == "percent":
        return f"{100 * float(v):.4f}%"
    if kind == "money":
        return f"${float(v) / 100:,.2f}"
    return f"{float(v):.6f}"


def _change(f: Figure) -> str:
    if f.this is None or f.other is None:
        return "-"
    d = float(f.this) - float(f.other)
    if f.kind == "percent":
        return f"{100 * d:+.4f} pp"
    if f.kind == "money":
        return f"{'+' if d >= 0 else '-'}${abs(d) / 100:,.2f}"
    return f"{d:+.6f}"


def comparison_markdown(c: Comparison, this_name: str, table: Any, value: Any) -> list[str]:
    """The comparison section (``table``: the report's Markdown table maker; ``value(rule, text)``: a rule's
    value as a reader reads it)."""
    p = [
        f"## 14. Comparison with {c.name}",
        "",
        f"This rule set ({this_name}) beside {c.name}: every figure of both, exact, from the same analysis "
        "(heads-up, full deck, optimal strategy); change = this − other.",
        "",
    ]
    if c.differences:
        p += [
            table(
                ("rule", "this rule set", c.name),
                [(f"`{r}`", value(r, t), value(r, o)) for r, t, o in c.differences],
            ),
            "",
        ]
    else:
        p += ["The two rule sets are the same rules.", ""]
    rows = [(f.wager, f.figure, _show(f.this, f.kind), _show(f.other, f.kind), _change(f)) for f in c.figures]
    p += [table(("wager", "figure", "this rule set", c.name, "change"), rows), ""]
    return p

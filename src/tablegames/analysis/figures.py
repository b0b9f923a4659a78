"""The four figures a designer tunes and sweeps a rule set by (issue 15), from the exact analysis.

House edge (expected loss per initial wager), element of risk (per average total wager), hit frequency and
standard deviation of the net result, of the main wager or of one side bet. The main wager's hit frequency
is its P(win); a side bet's, the probability that it returns anything.

>>> from tablegames.analysis.common import Outcome, SideBet
>>> bet = SideBet("demo", 4, [Outcome("pays 2", 1, Fraction(2)), Outcome("loses", 3, Fraction(-1))])
>>> f = side_figures("demo", bet)
>>> f.house_edge, f.hit_frequency, round(f.std_dev, 4)
(Fraction(1, 4), Fraction(1, 4), 1.299)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablegames.analysis.common import Analysis, SideBet
from tablegames.rules import registry
from tablegames.rules.common import RuleError

Evaluate = Callable[[Any], "Figures"]
"""rules -> its figures: the exact analysis by default; tests pass toy functions."""


@dataclass(frozen=True)
class Figures:
    """One rule set's figures for one wager (exact fractions but the standard deviation)."""

    house_edge: Fraction
    element_of_risk: Fraction
    hit_frequency: Fraction
    std_dev: float
    wager: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "house_edge": float(self.house_edge),
            "house_edge_exact": str(self.house_edge),
            "element_of_risk": float(self.element_of_risk),
            "element_of_risk_exact": str(self.element_of_risk),
            "hit_frequency": float(self.hit_frequency),
            "hit_frequency_exact": str(self.hit_frequency),
            "std_dev": self.std_dev,
        }


def main_figures(a: Analysis, wager: str = "") -> Figures:
    return Figures(a.house_edge, a.element_of_risk, a.p_win, a.std_dev, wager)


def side_figures(name: str, bet: SideBet) -> Figures:
    hit = sum((o.probability(bet.total) for o in bet.outcomes if o.payout > -1), Fraction(0))
    second = sum((o.payout * o.payout * o.probability(bet.total) for o in bet.outcomes), Fraction(0))
    ev = bet.expected_value
    return Figures(bet.house_edge, bet.house_edge, hit, math.sqrt(max(0.0, float(second - ev * ev))), name)


def find_side_bet(a: Analysis, wager: str, rules: Any = None) -> str:
    """The side bet of ``a`` called ``wager``: its exact name, or one whose name starts with it; of several
    (an analysis listing the bet under every pay table), the one named after a value of ``rules``."""
    if wager in a.side_bets:
        return wager
    found = [name for name in a.side_bets if name.startswith(wager)]
    if found:
        values = set(rules.describe().values()) if rules is not None else set()
        return next((n for n in found if n[len(wager) :].strip() in values), found[0])
    known = ", ".join(a.side_bets) or "none"
    raise RuleError(f"unknown wager {wager!r}; the main wager or a side bet: {known}")


def evaluator(wager: str | None = None, bet_cents: int | None = None) -> Evaluate:
    """The exact figures of the main wager (``wager`` None or the main wager's name) or of a side bet."""
    from tablegames.analysis.api import analyze_game

    def evaluate(rules: Any) -> Figures:
        a = analyze_game(rules, bet_cents)
        main = registry.of(rules).main_wager.name
        if wager is None or wager == main:
            return main_figures(a, main)
        name = find_side_bet(a, wager, rules)
        return side_figures(name, a.side_bets[name])

    return evaluate

"""One entry point for every game's exact analysis (its definition's analyzer), the pay-table solver and option parsing shared by the CLI.

>>> parse_meters("mega=$75,000.50, major=600000")
{'mega': 7500050, 'major': 600000}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError
from tablegames.rules.parameters import MONEY_MAX, quoted, read_cents

if TYPE_CHECKING:  # (analysis.common imports NumPy: not needed to parse options, issue 28)
    from tablegames.analysis.common import Analysis, Analyzer


def parse_money(text: str) -> int:
    """Cents from ``12345`` (cents) or ``$123.45`` / ``$1,234`` (dollars), read as a rule's amount is
    (``rules.parameters.read_cents``: bounded as text before it is built, issue 20)."""
    cents = read_cents(text.strip())
    if cents is None:
        raise RuleError(
            f"not an amount: {quoted(text)} (cents like 7500000, or dollars like $75,000; whole cents)"
        )
    return cents


def parse_meters(text: str | None) -> dict[str, int]:
    """``mega=7500000,major=$6,000`` -> cents by meter name (a plain number is cents, ``$`` means dollars)."""
    out: dict[str, int] = {}
    if not text:
        return out
    parts: list[str] = []
    for piece in text.split(","):
        if "=" in piece or not parts:
            parts.append(piece)
        else:  # a thousands separator inside a dollar amount
            parts[-1] += piece
    for part in parts:
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise RuleError(f"meter {part!r} must look like NAME=AMOUNT")
        cents = parse_money(value)
        if cents < 0:
            raise RuleError(f"meter {name.strip()} must be >= 0")
        out[name.strip().lower()] = cents
    return out


def analyzer(rules: GameRules | str) -> Analyzer:
    """The exact analyzer of a game (by rules or key), from its definition; RuleError when it has none."""
    from tablegames.analysis.common import Analyzer

    definition = registry.of(rules)
    found = definition.load_analyzer()
    if found is None:
        raise RuleError(f"{definition.key} has no exact analysis yet")
    assert isinstance(found, Analyzer)
    return found


def check_meters(rules: GameRules, meters: Mapping[str, int]) -> None:
    """Every meter named is one of the game's, its value whole cents from 0 to ``MONEY_MAX`` (the CLI's
    ``--meter``, the Math lab's ``meters``: one check, issue 20); a RuleError otherwise."""
    if not meters:
        return
    known = analyzer(rules).meter_names(rules)
    if not known:
        raise RuleError(f"{rules.game} has no meters")
    for name, cents in meters.items():
        if name not in known:
            raise RuleError(f"unknown meter {quoted(name)}; known: {', '.join(known)}")
        if isinstance(cents, bool) or not isinstance(cents, int) or not 0 <= cents <= MONEY_MAX:
            raise RuleError(f"meter {name}: {quoted(cents)} is not whole cents from 0 to {MONEY_MAX}")


def check_bet(rules: GameRules, bet_cents: int | None) -> None:
    """The wager size an analysis applies the payout cap at: whole cents from 1 to ``MONEY_MAX``, for a game
    with a cap (the kernels' products stay in 64 bits, issue 20); a RuleError otherwise."""
    if bet_cents is None:
        return
    if isinstance(bet_cents, bool) or not isinstance(bet_cents, int) or not 1 <= bet_cents <= MONEY_MAX:
        raise RuleError(
            f"--bet must be a positive number of cents up to {MONEY_MAX}, got {quoted(bet_cents)}"
        )
    if not analyzer(rules).bet_sized:
        raise RuleError(f"--bet applies the aggregate payout cap; {rules.game} has none")


def analyze_game(
    rules: GameRules,
    bet_cents: int | None = None,
    meters: Mapping[str, int] | None = None,
    full_strategy: bool = False,
) -> Analysis:
    """The exact analysis of ``rules`` (heads-up, full deck, optimal strategy, cautious ties)."""
    meters = dict(meters or {})
    check_meters(rules, meters)
    check_bet(rules, bet_cents)
    return analyzer(rules).analyze(rules, bet_cents, meters, full_strategy)


# --- pay-table solver ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TuneResult:
    hand: str
    odds: int
    house_edge: Fraction
    target: Fraction
    neighbours: tuple[tuple[int, Fraction], ...]  # (odds, house edge) around the answer
    wager: str


def tunable_hands(rules: GameRules) -> list[str]:
    return analyzer(rules).tunable_hands(rules)


def tune(
    rules: GameRules, target: Fraction, hand: str, bet_cents: int | None = None, max_odds: int = 1_000_000
) -> TuneResult:
    """The whole-number "X to 1" payout for ``hand`` that brings the house edge closest to ``target``.

    The edge falls as the payout rises (the optimal strategy is re-solved for every candidate), so a
    bisection over whole numbers finds the two payouts around the target.
    """
    found = analyzer(rules)
    edge, wager = found.edge_function(rules, hand, bet_cents)
    cache: dict[int, Fraction] = {}

    def e(odds: int) -> Fraction:
        if odds not in cache:
            cache[odds] = edge(odds)
        return cache[odds]

    lo = found.min_odds  # e.g. R-OEF-8: a win pays at least 1 to 1
    if e(lo) <= target:
        best = lo
    else:
        hi = max(1, lo * 2)
        while e(hi) > target:
            if hi >= max_odds:
                break
            lo, hi = hi, min(hi * 2, max_odds)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if e(mid) > target:
                lo = mid
            else:
                hi = mid
        best = min((lo, hi), key=lambda o: (abs(e(o) - target), o))
    neighbours = tuple((o, cache[o]) for o in sorted(cache) if abs(o - best) <= 1)
    return TuneResult(hand, best, e(best), target, neighbours, wager)

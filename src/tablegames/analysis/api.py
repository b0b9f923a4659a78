"""One entry point for the three exact analyses, the pay-table solver and option parsing shared by the CLI.

>>> parse_meters("mega=$75,000.50, major=600000")
{'mega': 7500050, 'major': 600000}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from tablegames.analysis.common import Analysis
from tablegames.rules import GameRules
from tablegames.rules.common import PayTable, RuleError, enum_key
from tablegames.rules.let_it_ride import BonusHand, LetItRideRules, LirHand
from tablegames.rules.one_eyed_flush import Category, OneEyedFlushRules


def parse_money(text: str) -> int:
    """Cents from ``12345`` (cents) or ``$123.45`` / ``$1,234`` (dollars)."""
    t = text.strip().replace(",", "").replace("_", "")
    try:
        if t.startswith("$"):
            return round(Fraction(t[1:]) * 100)
        return int(t)
    except (ValueError, ZeroDivisionError):
        raise RuleError(f"not an amount: {text!r} (cents like 7500000, or dollars like $75,000)") from None


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


def check_meters(rules: GameRules, meters: Mapping[str, int]) -> None:
    if not meters:
        return
    if isinstance(rules, LetItRideRules):
        known = [m.name for m in rules.progressive.meters]
    elif isinstance(rules, OneEyedFlushRules):
        known = ["jackpot"]
    else:
        raise RuleError("final-count has no meters")
    for name in meters:
        if name not in known:
            raise RuleError(f"unknown meter {name!r}; known: {', '.join(known)}")


def analyze_game(
    rules: GameRules,
    bet_cents: int | None = None,
    meters: Mapping[str, int] | None = None,
    full_strategy: bool = False,
) -> Analysis:
    """The exact analysis of ``rules`` (heads-up, full deck, optimal strategy, cautious ties)."""
    meters = dict(meters or {})
    check_meters(rules, meters)
    if bet_cents is not None and bet_cents <= 0:
        raise RuleError("--bet must be a positive number of cents")
    if isinstance(rules, LetItRideRules):
        from tablegames.analysis import let_it_ride

        return let_it_ride.analyze(rules, bet_cents, meters, full_strategy, bet_table=full_strategy)
    if bet_cents is not None:
        raise RuleError(f"--bet applies Let It Ride's aggregate cap; {rules.game} has none")
    if isinstance(rules, OneEyedFlushRules):
        from tablegames.analysis import one_eyed_flush

        return one_eyed_flush.analyze(rules, meters.get("jackpot"), full_strategy)
    from tablegames.analysis import final_count

    return final_count.analyze(rules, full_strategy)


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
    if isinstance(rules, LetItRideRules):
        return [enum_key(h) for h in LirHand] + [f"bonus:{enum_key(h)}" for h in BonusHand]
    if isinstance(rules, OneEyedFlushRules):
        return [enum_key(c) for c in Category]
    return []


def _edge_function(
    rules: GameRules, hand: str, bet_cents: int | None
) -> tuple[Callable[[int], Fraction], str]:
    key = hand.strip().lower().replace("_", "-")
    if isinstance(rules, LetItRideRules):
        if key.startswith("bonus:"):
            from tablegames.analysis.let_it_ride import bonus_side_bet

            bonus = {enum_key(h): h for h in BonusHand}.get(key[6:])
            if bonus is None:
                raise RuleError(
                    f"unknown 3-Card Bonus hand {key[6:]!r}; choose {', '.join(map(enum_key, BonusHand))}"
                )
            table = rules.bonus_paytable

            def bonus_edge(odds: int) -> Fraction:
                return bonus_side_bet(table.with_pay(bonus, odds)).house_edge

            return bonus_edge, "3-card bonus"
        lir = {enum_key(h): h for h in LirHand}.get(key)
        if lir is None:
            raise RuleError(f"unknown hand {hand!r}; choose {', '.join(tunable_hands(rules))}")
        from tablegames.analysis import let_it_ride

        main: PayTable[LirHand] = rules.main_paytable

        def lir_edge(odds: int) -> Fraction:
            return let_it_ride.analyze(
                replace(rules, main_paytable=main.with_pay(lir, odds)), bet_cents
            ).house_edge

        return lir_edge, "main"
    if isinstance(rules, OneEyedFlushRules):
        cat = {enum_key(c): c for c in Category}.get(key)
        if cat is None:
            raise RuleError(f"unknown category {hand!r}; choose {', '.join(tunable_hands(rules))}")
        from tablegames.analysis import one_eyed_flush

        base: PayTable[Category] = rules.main_paytable

        def oef_edge(odds: int) -> Fraction:
            new = replace(rules, main_paytable=base.with_pay(cat, odds))
            return one_eyed_flush.analyze(new).house_edge

        return oef_edge, "main (win odds by the player's category, R-OEF-8)"
    raise RuleError("final-count has no pay table to tune (every win pays 1 to 1, R-FC-5)")


def tune(
    rules: GameRules, target: Fraction, hand: str, bet_cents: int | None = None, max_odds: int = 1_000_000
) -> TuneResult:
    """The whole-number "X to 1" payout for ``hand`` that brings the house edge closest to ``target``.

    The edge falls as the payout rises (the optimal strategy is re-solved for every candidate), so a
    bisection over whole numbers finds the two payouts around the target.
    """
    edge, wager = _edge_function(rules, hand, bet_cents)
    cache: dict[int, Fraction] = {}

    def e(odds: int) -> Fraction:
        if odds not in cache:
            cache[odds] = edge(odds)
        return cache[odds]

    lo = 1 if isinstance(rules, OneEyedFlushRules) else 0  # R-OEF-8: a win pays at least 1 to 1
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

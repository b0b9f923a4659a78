"""Exact analysis of Final Count (RULES.md §3): when to turn the third card, and the return table.

Cards matter only through their value (R-FC-1), so deals are enumerated by value classes with exact card
multiplicities: the player's two up cards, the dealer's two up cards, the player's third card and the dealer's
third card (1,326 x 1,225 x 48 x 47 equally likely deals). Outcomes come from the rule functions
:func:`~tablegames.rules.final_count.player_final_total` and :func:`~tablegames.rules.final_count.showdown`,
tabulated once over every total.

>>> from tablegames.cards import parse_cards
>>> s = optimal_strategy(FinalCountRules())
>>> s.best(parse_cards("2c Td"), parse_cards("4c 6d")), s.best(parse_cards("Kc Qd"), parse_cards("2c 4d"))
(Action(name='turn', index=None), Action(name='stand', index=None))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis.common import (
    Analysis,
    Analyzer,
    ExampleSpec,
    Outcome,
    PaySchedule,
    VerifyTarget,
    stacked_deck,
)
from tablegames.cards import CARDS, parse_cards
from tablegames.engine.actions import STAND, TURN, Action
from tablegames.rules.common import RuleError
from tablegames.rules.final_count import FcDecision, FinalCountRules, must_turn, player_final_total, showdown

if TYPE_CHECKING:
    from tablegames.analysis.protect import GameProtection

IntArray = npt.NDArray[np.int64]
DEALS = comb(52, 2) * comb(50, 2) * 48 * 47
PER_DECISION = 48 * 47  # player's third card x dealer's third card
NV = 11  # values 0..10
MAXT = 31  # totals 0..30
BUSTED = MAXT  # index for "player lost at once" (odd final total)
RESULTS = ("win, dealer odd", "win, higher total", "push", "loss, lower total", "loss, player odd")


@dataclass(frozen=True, eq=False)
class _Tables:
    sd: IntArray  # [MAXT + 1, MAXT]: showdown(player index, dealer total)
    res: IntArray  # [MAXT + 1, MAXT]: index into RESULTS
    final: IntArray  # [MAXT, NV]: player index after turning a card of that value (BUSTED if odd)


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    sd = np.zeros((MAXT + 1, MAXT), dtype=np.int64)
    res = np.zeros((MAXT + 1, MAXT), dtype=np.int64)
    for p in range(MAXT + 1):
        for d in range(MAXT):
            pt = None if p == BUSTED else p
            r = showdown(pt, d)
            sd[p, d] = r
            if pt is None:
                res[p, d] = 4
            elif r > 0:
                res[p, d] = 0 if d % 2 else 1
            else:
                res[p, d] = 2 if r == 0 else 3
    final = np.full((MAXT, NV), BUSTED, dtype=np.int64)
    for t in range(MAXT):
        for v in range(NV):
            f = player_final_total(t, v, True)
            final[t, v] = BUSTED if f is None or f >= MAXT else f
    return _Tables(sd, res, final)


@dataclass(frozen=True)
class Situation:
    """Value classes of the four up cards (sorted pairs)."""

    player: tuple[int, int]
    dealer: tuple[int, int]


@dataclass(frozen=True, eq=False)
class _Solution:
    counts: IntArray  # cards per value
    # situation -> (combinations of up cards, stand sum or None, turn sum, turns?)
    table: dict[Situation, tuple[int, int | None, int, bool]]
    # outcome tallies [decision (0 stand, 1 turn, 2 forced turn), result] weighted by deals
    tallies: IntArray


def _pair_weight(counts: IntArray, a: int, b: int) -> int:
    if a == b:
        return comb(int(counts[a]), 2)
    return int(counts[a]) * int(counts[b])


@lru_cache(maxsize=8)
def _solve(rules: FinalCountRules) -> _Solution:
    t = _tables()
    counts = np.zeros(NV, dtype=np.int64)
    for c in CARDS:
        counts[rules.value(c)] += 1
    values = [v for v in range(NV) if counts[v]]
    pairs = [(a, b) for i, a in enumerate(values) for b in values[i:]]
    table: dict[Situation, tuple[int, int | None, int, bool]] = {}
    tallies = np.zeros((3, len(RESULTS)), dtype=np.int64)
    ar = np.arange(NV)
    for p in pairs:
        wp = _pair_weight(counts, *p)
        if wp == 0:
            continue
        after_p = counts.copy()
        after_p[p[0]] -= 1
        after_p[p[1]] -= 1
        t2 = p[0] + p[1]
        for d in pairs:
            wd = _pair_weight(after_p, *d)
            if wd == 0:
                continue
            r = after_p.copy()
            r[d[0]] -= 1
            r[d[1]] -= 1
            d2 = d[0] + d[1]
            dealer_tot = d2 + ar  # by the dealer's third card value
            # Turn: player's third card p3, then the dealer's d3 from the 47 left.
            pidx = t.final[t2]  # [NV] player's index after turning p3
            joint = np.outer(r, r) - np.diag(r)  # ordered (p3, d3) card pairs
            turn_res = t.res[pidx][:, dealer_tot]  # [NV, NV]
            turn_sd = t.sd[pidx][:, dealer_tot]
            turn = int((joint * turn_sd).sum())
            stand: int | None = None
            if not must_turn(t2):
                stand_sd = t.sd[t2][dealer_tot]
                stand = int((r * stand_sd).sum()) * 47  # the player's unseen third card: any of the other 47
            turns = stand is None or turn > stand  # cautious: stand on an exact tie (R-FC-4)
            table[Situation(p, d)] = (wp * wd, stand, turn, turns)
            w = wp * wd
            if turns:
                row = 2 if stand is None else 1
                np.add.at(tallies[row], turn_res.ravel(), (joint * w).ravel())
            else:
                np.add.at(tallies[0], t.res[t2][dealer_tot], r * 47 * w)
    return _Solution(counts, table, tallies)


@dataclass(frozen=True, eq=False)
class FinalCountStrategy:
    """The optimal turn/stand decision with the exact EV of each option (units of the wager)."""

    rules: FinalCountRules
    _sol: _Solution = field(repr=False)

    def _situation(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> Situation:
        cards = [int(c) for c in (*player_up2, *dealer_up2)]
        if len(player_up2) != 2 or len(dealer_up2) != 2 or len(set(cards)) != 4:
            raise ValueError("need the player's two up cards and the dealer's two up cards, all distinct")
        pv = sorted(self.rules.value(c) for c in player_up2)
        dv = sorted(self.rules.value(c) for c in dealer_up2)
        return Situation((pv[0], pv[1]), (dv[0], dv[1]))

    def options(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> dict[Action, Fraction]:
        """EV of standing and of turning the third card; only TURN when the two-card total is odd (R-FC-3)."""
        _, stand, turn, _ = self._sol.table[self._situation(player_up2, dealer_up2)]
        out = {TURN: Fraction(turn, PER_DECISION)}
        if stand is not None:
            out[STAND] = Fraction(stand, PER_DECISION)
        return out

    def best(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> Action:
        return TURN if self._sol.table[self._situation(player_up2, dealer_up2)][3] else STAND


@lru_cache(maxsize=8)
def optimal_strategy(rules: FinalCountRules) -> FinalCountStrategy:
    return FinalCountStrategy(rules, _solve(rules))


def _chart(sol: _Solution) -> dict[int, dict[int, str]]:
    """Own even two-card total -> dealer up total -> "T" (turn), "S" (stand), or "T*"/"S*" when the choice
    depends on the cards making up the totals (the mark gives the majority by combinations)."""
    votes: dict[tuple[int, int], list[int]] = {}
    for sit, (w, stand, _turn, turns) in sol.table.items():
        if stand is None:
            continue
        key = (sum(sit.player), sum(sit.dealer))
        v = votes.setdefault(key, [0, 0])
        v[int(turns)] += w
    chart: dict[int, dict[int, str]] = {}
    for (pt, dt), (n_stand, n_turn) in sorted(votes.items()):
        mark = "T" if n_turn > n_stand else "S"
        if n_stand and n_turn:
            mark += "*"
        chart.setdefault(pt, {})[dt] = mark
    return chart


def _summary(chart: dict[int, dict[int, str]]) -> list[str]:
    lines = [
        "An odd two-card total is always turned by the dealer (R-FC-3). With an even total (R-FC-4):",
    ]
    dealer_totals = sorted({d for row in chart.values() for d in row})
    for d in dealer_totals:
        turn = [p for p in chart if chart[p].get(d, "").startswith("T")]
        stand = [p for p in chart if chart[p].get(d, "").startswith("S")]
        mixed = [p for p in chart if chart[p].get(d, "").endswith("*")]
        if not stand:
            text = "always turn"
        elif not turn:
            text = "always stand"
        elif max(turn) < min(stand):
            text = f"turn on {max(turn)} or less, stand on {min(stand)} or more"
        else:
            text = f"turn on {', '.join(map(str, turn))}; stand on {', '.join(map(str, stand))}"
        if mixed:
            text += f" (totals {', '.join(map(str, mixed))} depend on the cards)"
        lines.append(f"  dealer shows {d}: {text}")
    return lines


def analyze(rules: FinalCountRules, full_strategy: bool = False) -> Analysis:
    sol = _solve(rules)
    names = ("stand", "turn", "turned by dealer (odd)")
    outcomes = []
    payouts = (1, 1, 0, -1, -1)
    for row, name in enumerate(names):
        for res, label in enumerate(RESULTS):
            n = int(sol.tallies[row, res])
            if row == 0 and res == 4:
                continue  # standing never makes an odd total
            outcomes.append(Outcome(f"{name}: {label}", n, Fraction(payouts[res])))
    analysis = Analysis(
        game="final-count",
        rules=dict(rules.describe()),
        total=DEALS,
        outcomes=outcomes,
        average_wager=Fraction(1),
    )
    ev = Fraction(sum(w * (t if s is None else max(s, t)) for w, s, t, _ in sol.table.values()), DEALS)
    if ev != analysis.expected_value:
        raise AssertionError("return table does not sum to the strategy's expected value")
    chart = _chart(sol)
    analysis.strategy_summary = _summary(chart)
    strategy: dict[str, Any] = {
        "chart": {str(p): {str(d): m for d, m in row.items()} for p, row in chart.items()},
        "p_turn_by_choice": float(Fraction(int(sol.tallies[1].sum()), DEALS)),
    }
    if full_strategy:
        strategy["table"] = [
            {
                "player_values": list(sit.player),
                "dealer_values": list(sit.dealer),
                "combinations": w,
                "stand": None if s is None else round(s / PER_DECISION, 6),
                "turn": round(t / PER_DECISION, 6),
                "best": "turn" if turns else "stand",
            }
            for sit, (w, s, t, turns) in sol.table.items()
        ]
    analysis.strategy = strategy
    return analysis


# --- the analyzer, as generic callers use it ------------------------------------------------------------


class FinalCountAnalyzer(Analyzer):
    chart_axes = ("own even two-card total", "dealer's up total")

    def analyze(
        self, rules: FinalCountRules, bet_cents: int | None, meters: Mapping[str, int], full_strategy: bool
    ) -> Analysis:
        return analyze(rules, full_strategy)

    def optimal_strategy(self, rules: FinalCountRules, bet_cents: int | None = None) -> FinalCountStrategy:
        return optimal_strategy(rules)

    def advise(self, strategy: FinalCountStrategy, context: FcDecision) -> dict[Action, Fraction]:
        return strategy.options(list(context.player_up), list(context.dealer_up))

    def edge_function(self, rules: FinalCountRules, hand: str, bet_cents: int | None) -> tuple[Any, str]:
        raise RuleError(f"{rules.game} has no pay table to tune (every win pays 1 to 1, R-FC-5)")

    # --- the math report --------------------------------------------------------------------------------

    pace = (20.0, 6.0)
    pace_source = (
        "assumed: 20 s a round for the dealer (shuffle, deal, turn the dealer's card, collect) plus 6 s a "
        "player (one stand-or-turn decision, an even-money settlement): 58 rounds an hour at seven players, "
        "138 heads-up (a lab should substitute its own timed pace)"
    )

    def rules_summary(self, rules: FinalCountRules) -> list[str]:
        return [
            "One 52-card deck, shuffled before every round (R-0.1); one to seven players (R-0.2).",
            f"Values: A = 1, 2-10 pip value, J Q K = {rules.value(parse_cards('Kc')[0])}; a total is odd or "
            "even (R-FC-1).",
            "The player makes the game wager; each player and the dealer get three cards, two face up and the "
            "third face down, unseen by everyone (R-FC-2).",
            "Two up cards totalling odd: the dealer turns the player's third card; an odd three-card total "
            "loses at once, an even one stays (R-FC-3). Two up cards totalling even: the player stands on the "
            "two-card total or has the third card turned, with the same odd/even consequence (R-FC-4).",
            "The dealer turns the dealer's third card: an odd dealer total busts the dealer and every player "
            "still in wins 1 to 1; an even one is compared, the higher total wins 1 to 1, a tie pushes (R-FC-5).",
        ]

    def pay_schedules(self, rules: FinalCountRules) -> list[PaySchedule]:
        return [
            PaySchedule(
                "Game wager (R-FC-5)",
                (
                    ("dealer busts (odd dealer total)", "1 to 1"),
                    ("higher even total than the dealer", "1 to 1"),
                    ("equal totals", "push"),
                    ("lower total, or an odd three-card total", "loses"),
                ),
            )
        ]

    def verify_targets(self, a: Analysis, rules: FinalCountRules) -> list[VerifyTarget]:
        return [
            VerifyTarget("main wager house edge", "main", a.house_edge),
            VerifyTarget(
                "P(main wager wins)",
                "main",
                a.p_win,
                figure="frequency",
                outcomes=("win (dealer odd)", "win (higher)"),
            ),
            VerifyTarget("P(push)", "main", a.p_push, figure="frequency", outcomes=("push",)),
        ]

    def worked_examples(self, rules: FinalCountRules) -> list[ExampleSpec]:
        def deck(seat: str, dealer: str) -> tuple[int, ...]:
            return stacked_deck(parse_cards(seat), parse_cards(dealer))

        wagers = (("main", 500, None),)
        return [
            ExampleSpec(
                "A win: the dealer's three cards total odd and bust the dealer",
                deck("9c 3d 2d", "5s 4h 2c"),
                wagers,
                {"main": "win"},
            ),
            ExampleSpec(
                "A loss: the player's two up cards are odd, the dealer turns the third and the total stays odd",
                deck("3c 4d 2h", "5s 5h 2c"),
                wagers,
                {"main": "lose"},
            ),
            ExampleSpec(
                "A push: the player's odd up cards are turned to an even 12; the dealer makes 12",
                deck("3c 4d 5h", "5s 5d 2c"),
                wagers,
                {"main": "push"},
            ),
        ]

    def protection(self) -> GameProtection:
        from tablegames.analysis.protect_final_count import PROTECTION

        return PROTECTION


ANALYZER = FinalCountAnalyzer()

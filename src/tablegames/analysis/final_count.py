"""Exact analysis of Final Count (RULES.md §3): when to turn the third card, and the return table.

Cards matter only through their value (R-FC-1, the table's ``value.RANK`` parameters), so deals are
enumerated by value classes with exact card multiplicities: the player's two up cards, the dealer's two up
cards, the player's third card and the dealer's third card (1,326 x 1,225 x 48 x 47 equally likely deals).
Outcomes come from the rule functions :func:`~tablegames.rules.final_count.player_final_total` and
:meth:`~tablegames.rules.final_count.FinalCountRules.category`, tabulated once over every total.

Two stages (issue 15): what depends only on the card values (:func:`_structure`: for every situation of up
cards, how many ordered third-card pairs end in each of the five categories of R-FC-5, standing and
turning) is cached by the values; the pays and the tie rule (``win-pays``, ``dealer-bust-pays``, ``tie``)
are then a matrix product over those counts (:func:`_solve`), so a payout change re-solves in milliseconds.

>>> from tablegames.cards import parse_cards
>>> s = optimal_strategy(FinalCountRules())
>>> s.best(parse_cards("2c Td"), parse_cards("4c 6d")), s.best(parse_cards("Kc Qd"), parse_cards("2c 4d"))
(Action(name='turn', index=None), Action(name='stand', index=None))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb
from typing import Any

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
from tablegames.cards import parse_cards
from tablegames.engine.actions import STAND, TURN, Action
from tablegames.rules.common import RuleError, outcome_of
from tablegames.rules.final_count import (
    CATEGORIES,
    DEALER_ODD,
    DEFINITION,
    PLAYER_ODD,
    RANK_NAMES,
    TIE,
    FcDecision,
    FinalCountRules,
    Tie,
    player_final_total,
)

IntArray = npt.NDArray[np.int64]
DEALS = comb(52, 2) * comb(50, 2) * 48 * 47
PER_DECISION = 48 * 47  # player's third card x dealer's third card
NCAT = len(CATEGORIES)


@dataclass(frozen=True, eq=False)
class _Tables:
    """Totals' tables for card values up to ``max_value``: ``nv`` values, totals ``0 .. maxt - 1``; player
    index ``maxt`` ("busted") is an odd final total, lost at once."""

    nv: int
    maxt: int
    cat: IntArray  # [maxt + 1, maxt]: category (R-FC-5) by player index and dealer total
    final: IntArray  # [maxt, nv]: player index after turning a card of that value (busted if odd)

    @property
    def busted(self) -> int:
        return self.maxt


@lru_cache(maxsize=16)
def _tables(max_value: int) -> _Tables:
    probe = FinalCountRules()  # the category does not depend on values or pays
    nv = max_value + 1
    maxt = 3 * max_value + 1
    cat = np.zeros((maxt + 1, maxt), dtype=np.int64)
    for p in range(maxt + 1):
        for d in range(maxt):
            cat[p, d] = probe.category(None if p == maxt else p, d)
    final = np.full((maxt, nv), maxt, dtype=np.int64)
    for t in range(maxt):
        for v in range(nv):
            f = player_final_total(t, v, True)
            if f is not None and f < maxt:
                final[t, v] = f
    return _Tables(nv, maxt, cat, final)


def tables(rules: FinalCountRules) -> _Tables:
    return _tables(rules.max_value)


def net_table(rules: FinalCountRules) -> IntArray:
    """``[maxt + 1, maxt]``: the net of one unit by player index and dealer total (this table's pays)."""
    return np.asarray(rules.pays, dtype=np.int64)[tables(rules).cat]


@dataclass(frozen=True)
class Situation:
    """Value classes of the four up cards (sorted pairs)."""

    player: tuple[int, int]
    dealer: tuple[int, int]


def value_counts(rules: FinalCountRules) -> IntArray:
    """Cards per value in the 52-card deck (R-FC-1, this table's values)."""
    counts = np.zeros(rules.max_value + 1, dtype=np.int64)
    for v in rules.values:
        counts[v] += 4
    return counts


def _pair_weight(counts: IntArray, a: int, b: int) -> int:
    if a == b:
        return comb(int(counts[a]), 2)
    return int(counts[a]) * int(counts[b])


@dataclass(frozen=True, eq=False)
class _Structure:
    """What depends only on the card values: every situation of up cards with its weight (combinations of
    the four up cards) and the counts of ordered (player's third, dealer's third) card pairs by category,
    standing (``stand``) and turning (``turn``); ``forced``: an odd two-card total (R-FC-3)."""

    counts: IntArray
    player: IntArray  # [n, 2]: the player's up values (sorted)
    dealer: IntArray  # [n, 2]: the dealer's up values (sorted)
    weight: IntArray  # [n]
    forced: npt.NDArray[np.bool_]  # [n]
    stand: IntArray  # [n, NCAT]
    turn: IntArray  # [n, NCAT]
    lookup: IntArray  # [nv, nv, nv, nv]: the row of (player's, dealer's) sorted up values, -1 if none

    @cached_property
    def situations(self) -> tuple[Situation, ...]:
        return tuple(
            Situation((a, b), (c, d))
            for (a, b), (c, d) in zip(self.player.tolist(), self.dealer.tolist(), strict=True)
        )

    def row(self, player: Sequence[int], dealer: Sequence[int]) -> int:
        """The row of the situation (sorted up values of the player and of the dealer)."""
        i = int(self.lookup[player[0], player[1], dealer[0], dealer[1]])
        if i < 0:
            raise KeyError((tuple(player), tuple(dealer)))
        return i


@lru_cache(maxsize=32)
def _structure(values: tuple[int, ...]) -> _Structure:
    """Every situation at once (vectorized over the value pairs of the player's and the dealer's up cards):
    a structural change costs tens of milliseconds."""
    rules = FinalCountRules(values=values)
    t = tables(rules)
    counts = value_counts(rules)
    nv = t.nv
    present = [v for v in range(nv) if counts[v]]
    pairs = np.array([(a, b) for i, a in enumerate(present) for b in present[i:]], dtype=np.int64)
    unit = np.zeros((len(pairs), nv), dtype=np.int64)
    np.add.at(unit, (np.arange(len(pairs))[:, None], pairs), 1)
    wp = pair_weights(counts[None, :], pairs)[0]  # [P]
    after_p = counts - unit  # [P, nv]
    wd = pair_weights(after_p, pairs)  # [P(player), P(dealer)]
    ip, id_ = np.nonzero(wd * wp[:, None] > 0)
    weight = wp[ip] * wd[ip, id_]
    r = after_p[ip] - unit[id_]  # [n, nv] cards left by value
    t2 = pairs[ip].sum(axis=1)
    dealer_tot = pairs[id_].sum(axis=1)[:, None] + np.arange(nv)  # [n, d3]
    joint = r[:, :, None] * r[:, None, :] - r[:, :, None] * np.eye(nv, dtype=np.int64)  # [n, p3, d3]
    turn_cat = t.cat[t.final[t2][:, :, None], dealer_tot[:, None, :]]  # [n, p3, d3]
    stand_cat = t.cat[t2[:, None], dealer_tot]  # [n, d3]
    forced = t2 % 2 == 1  # R-FC-3
    n = len(ip)
    row = np.arange(n)[:, None] * NCAT
    turn = _tally(row[:, :, None] + turn_cat, joint, n)
    stand = _tally(row + stand_cat, r * 47, n)  # the unseen third card: any of the other 47
    stand[forced] = 0
    player, dealer = pairs[ip], pairs[id_]
    lookup = np.full((nv,) * 4, -1, dtype=np.int64)
    lookup[player[:, 0], player[:, 1], dealer[:, 0], dealer[:, 1]] = np.arange(n)
    return _Structure(counts, player, dealer, weight, forced, stand, turn, lookup)


def _tally(index: IntArray, weights: IntArray, n: int) -> IntArray:
    """``[n, NCAT]``: the weights summed by (row, category) index (``row * NCAT + category``); exact, the
    sums stay far below 2**53."""
    out = np.bincount(index.ravel(), weights=weights.ravel(), minlength=n * NCAT)
    return np.rint(out).astype(np.int64).reshape(n, NCAT)


def pair_weights(c: IntArray, pairs: IntArray) -> IntArray:
    """Ways to deal each value pair (rows of ``pairs``) from counts ``c`` (rows broadcast)."""
    na = c[..., pairs[:, 0]]
    nb = c[..., pairs[:, 1]]
    return np.where(pairs[:, 0] == pairs[:, 1], na * (na - 1) // 2, na * nb)


@dataclass(frozen=True, eq=False)
class _Solution:
    st: _Structure
    stand: IntArray  # [n] sum of nets standing over the ordered third-card pairs (0 where forced)
    turn: IntArray  # [n] the same turning
    turns: npt.NDArray[np.bool_]  # [n] the optimal decision (forced, or turning strictly better)
    # outcome tallies [decision (0 stand, 1 turn, 2 forced turn), category] weighted by deals
    tallies: IntArray

    @property
    def counts(self) -> IntArray:
        return self.st.counts

    @property
    def table(self) -> dict[Situation, tuple[int, int | None, int, bool]]:
        """situation -> (combinations of up cards, stand sum or None when forced, turn sum, turns?)."""
        st = self.st
        return {
            s: (
                int(st.weight[i]),
                None if st.forced[i] else int(self.stand[i]),
                int(self.turn[i]),
                bool(self.turns[i]),
            )
            for i, s in enumerate(st.situations)
        }

    def ev_sum(self) -> int:
        """The sum over all deals of the optimal net (DEALS x the expected value)."""
        best = np.where(self.turns, self.turn, self.stand)
        return int((self.st.weight * best).sum())


@lru_cache(maxsize=64)
def _solve(rules: FinalCountRules) -> _Solution:
    st = _structure(rules.values)
    pay = np.asarray(rules.pays, dtype=np.int64)
    stand = st.stand @ pay
    turn = st.turn @ pay
    turns = st.forced | (turn > stand)  # cautious: stand on an exact tie (R-FC-4)
    w = st.weight[:, None]
    tallies = np.stack(
        [
            (w * st.stand)[~turns].sum(axis=0),
            (w * st.turn)[turns & ~st.forced].sum(axis=0),
            (w * st.turn)[st.forced].sum(axis=0),
        ]
    )
    return _Solution(st, stand, turn, turns, tallies)


@dataclass(frozen=True, eq=False)
class FinalCountStrategy:
    """The optimal turn/stand decision with the exact EV of each option (units of the wager)."""

    rules: FinalCountRules
    _sol: _Solution = field(repr=False)

    def _situation(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> int:
        cards = [int(c) for c in (*player_up2, *dealer_up2)]
        if len(player_up2) != 2 or len(dealer_up2) != 2 or len(set(cards)) != 4:
            raise ValueError("need the player's two up cards and the dealer's two up cards, all distinct")
        pv = sorted(self.rules.value(c) for c in player_up2)
        dv = sorted(self.rules.value(c) for c in dealer_up2)
        return self._sol.st.row(pv, dv)

    def options(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> dict[Action, Fraction]:
        """EV of standing and of turning the third card; only TURN when the two-card total is odd (R-FC-3)."""
        i = self._situation(player_up2, dealer_up2)
        out = {TURN: Fraction(int(self._sol.turn[i]), PER_DECISION)}
        if not self._sol.st.forced[i]:
            out[STAND] = Fraction(int(self._sol.stand[i]), PER_DECISION)
        return out

    def best(self, player_up2: Sequence[int], dealer_up2: Sequence[int]) -> Action:
        return TURN if self._sol.turns[self._situation(player_up2, dealer_up2)] else STAND


@lru_cache(maxsize=64)
def optimal_strategy(rules: FinalCountRules) -> FinalCountStrategy:
    return FinalCountStrategy(rules, _solve(rules))


def outcome_label(rules: FinalCountRules, category: int) -> str:
    """``win, dealer odd``, ``push`` (a tie that pushes), ``lose, lower``... by this table's pays (the word
    the engine settles the wager with, :func:`~tablegames.rules.common.outcome_of`)."""
    net = rules.pays[category]
    if category == TIE and net == 0:
        return "push"
    return f"{outcome_of(0, net)}, {CATEGORIES[category]}"


def _chart(sol: _Solution) -> dict[int, dict[int, str]]:
    """Own even two-card total -> dealer up total -> "T" (turn), "S" (stand), or "T*"/"S*" when the choice
    depends on the cards making up the totals (the mark gives the majority by combinations)."""
    st = sol.st
    free = ~st.forced
    pt, dt = st.player.sum(axis=1)[free], st.dealer.sum(axis=1)[free]
    keys, where = np.unique(pt * 1000 + dt, return_inverse=True)
    w, turns = st.weight[free], sol.turns[free]
    n_turns = np.bincount(where, weights=w * turns, minlength=len(keys))
    n_stands = np.bincount(where, weights=w * ~turns, minlength=len(keys))
    chart: dict[int, dict[int, str]] = {}
    for key, n_stand, n_turn in zip(keys.tolist(), n_stands.tolist(), n_turns.tolist(), strict=True):
        pt_, dt_ = divmod(key, 1000)
        mark = "T" if n_turn > n_stand else "S"
        if n_stand and n_turn:
            mark += "*"
        chart.setdefault(pt_, {})[dt_] = mark
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
            text = "turn" if mixed else "always turn"  # (not "always" when some totals depend on the cards)
        elif not turn:
            text = "stand" if mixed else "always stand"
        elif max(turn) < min(stand):
            text = f"turn on {max(turn)} or less, stand on {min(stand)} or more"
        else:
            text = f"turn on {', '.join(map(str, turn))}; stand on {', '.join(map(str, stand))}"
        if mixed:
            text += (
                f" (totals {', '.join(map(str, mixed))} depend on the cards)"
                if len(mixed) > 1
                else f" (at a total of {mixed[0]} it depends on the cards)"
            )
        lines.append(f"  dealer shows {d}: {text}")
    return lines


def analyze(rules: FinalCountRules, full_strategy: bool = False) -> Analysis:
    sol = _solve(rules)
    names = ("stand", "turn", "turned by dealer (odd)")
    outcomes = []
    for row, name in enumerate(names):
        for cat in range(NCAT):
            if row == 0 and cat == CATEGORIES.index("player odd"):
                continue  # standing never makes an odd total
            n = int(sol.tallies[row, cat])
            net = Fraction(rules.pays[cat])
            outcomes.append(
                Outcome(f"{name}: {outcome_label(rules, cat)}", n, net, category=outcome_of(1, 1 + net))
            )
    analysis = Analysis(
        game="final-count",
        rules=dict(rules.describe()),
        total=DEALS,
        outcomes=outcomes,
        average_wager=Fraction(1),
    )
    if Fraction(sol.ev_sum(), DEALS) != analysis.expected_value:
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


def deal_category(rules: FinalCountRules, deck: Sequence[int]) -> tuple[int, bool, int | None]:
    """Seat 1's category (:data:`~tablegames.rules.final_count.CATEGORIES`) heads-up from the stacked
    ``deck`` (deal order, R-0.2: seat, dealer, seat, dealer, seat, dealer), playing the analysis' optimal
    decision; whether its third card was turned by force (R-FC-3); its final total (None: odd, lost). From
    the analysis' tables (values, final totals, categories), not the engine."""
    t = tables(rules)
    seat = [rules.value(c) for c in deck[0:6:2]]
    dealer = [rules.value(c) for c in deck[1:6:2]]
    sol = _solve(rules)
    i = sol.st.row(sorted(seat[:2]), sorted(dealer[:2]))
    t2 = seat[0] + seat[1]
    index = int(t.final[t2, seat[2]]) if sol.turns[i] else t2
    return int(t.cat[index, sum(dealer)]), bool(sol.st.forced[i]), None if index == t.busted else index


def deal_value(rules: FinalCountRules, deck: Sequence[int], stake: int) -> int:
    """The net in cents of a ``stake`` on the main wager (:func:`deal_category` at this table's pays)."""
    return stake * rules.pays[deal_category(rules, deck)[0]]


def _example_deck(
    rules: FinalCountRules, category: int, first: tuple[int, ...], forced: bool = True
) -> tuple[int, ...] | None:
    """``first`` if it ends in ``category`` (by a forced turn, R-FC-3, when ``forced``) at these rules, else
    the first seeded deck that does (None: none of 5,000 does: the rules make it impossible or very rare)."""
    rng = random.Random(f"final-count example {category} {forced}")
    deck = first
    for _ in range(5_000):
        cat, was_forced, _total = deal_category(rules, deck)
        if cat == category and (was_forced or not forced):
            return deck
        shuffled = list(range(52))
        rng.shuffle(shuffled)
        deck = tuple(shuffled)
    return None


def _verdict(net: int) -> tuple[str, str]:
    return ("A win", "win") if net > 0 else ("A push", "push") if net == 0 else ("A loss", "lose")


# --- the analyzer, as generic callers use it ------------------------------------------------------------


PAYS = ("dealer-bust-pays", "win-pays")
"""The payouts ``tune`` can solve for (parameters of the rules)."""


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

    def tunable_hands(self, rules: FinalCountRules) -> list[str]:
        return list(PAYS)

    def edge_function(self, rules: FinalCountRules, hand: str, bet_cents: int | None) -> tuple[Any, str]:
        """(odds -> house edge, "main") for one of the two wins' pays (``win-pays``, ``dealer-bust-pays``)."""
        if hand not in PAYS:
            raise RuleError(
                f"{rules.game} has no pay table; no payout {hand!r} to tune: choose {' or '.join(PAYS)}"
            )
        param = DEFINITION.parameter(hand)

        def edge(odds: int) -> Fraction:
            return analyze(param.put(rules, odds)).house_edge

        return edge, "main"

    def tie_wagers(self, rules: FinalCountRules, bet_cents: int) -> tuple[tuple[str, int, str | None], ...]:
        return (("main", bet_cents, None),)

    def deal_value(
        self,
        rules: FinalCountRules,
        deck: Sequence[int],
        wagers: Sequence[tuple[str, int, str | None]],
        meters: Mapping[str, int] | None = None,
    ) -> dict[str, int] | None:
        return {name: deal_value(rules, deck, amount) for name, amount, _ in wagers if name == "main"}

    # --- the math report --------------------------------------------------------------------------------

    pace = (20.0, 6.0)
    pace_source = (
        "assumed: 20 s a round for the dealer (shuffle, deal, turn the dealer's card, collect) plus 6 s a "
        "player (one stand-or-turn decision, an even-money settlement): 58 rounds an hour at seven players, "
        "138 heads-up (a lab should substitute its own timed pace)"
    )

    def rules_summary(self, rules: FinalCountRules) -> list[str]:
        values = ", ".join(f"{RANK_NAMES[i]} = {rules.values[i]}" for i in (12, *range(12)))
        tie = {
            Tie.PUSH: "a tie pushes",
            Tie.WIN: f"a tie wins {_odds(rules.win_pays)}",
            Tie.LOSE: "a tie loses",
        }[rules.tie]
        return [
            "One 52-card deck, shuffled before every round (R-0.1); one to seven players (R-0.2).",
            f"Values: {values}; a total is odd or even (R-FC-1).",
            "The player makes the game wager; each player and the dealer get three cards, two face up and the "
            "third face down, unseen by everyone (R-FC-2).",
            "Two up cards totalling odd: the dealer turns the player's third card; an odd three-card total "
            "loses at once, an even one stays (R-FC-3). Two up cards totalling even: the player stands on the "
            "two-card total or has the third card turned, with the same odd/even consequence (R-FC-4).",
            "The dealer turns the dealer's third card: an odd dealer total busts the dealer and every player "
            f"still in wins {_odds(rules.dealer_bust_pays)}; an even one is compared, the higher total wins "
            f"{_odds(rules.win_pays)}, {tie} (R-FC-5).",
        ]

    def pay_schedules(self, rules: FinalCountRules) -> list[PaySchedule]:
        return [
            PaySchedule(
                "Game wager (R-FC-5)",
                (
                    ("dealer busts (odd dealer total)", _odds(rules.dealer_bust_pays)),
                    ("higher even total than the dealer", _odds(rules.win_pays)),
                    ("equal totals", _odds(rules.pays[TIE])),
                    ("lower total, or an odd three-card total", "loses"),
                ),
            )
        ]

    def verify_targets(self, a: Analysis, rules: FinalCountRules) -> list[VerifyTarget]:
        # win, push and lose: every category, checked by the report (common.category_targets)
        return [VerifyTarget("main wager house edge", "main", a.house_edge)]

    def worked_examples(self, rules: FinalCountRules) -> list[ExampleSpec]:
        """A dealer's bust, an odd total lost at once and a tie, each found at these rules (RULES.md's decks
        first) and titled by this table's pays and tie rule."""

        def deck(seat: str, dealer: str) -> tuple[int, ...]:
            return stacked_deck(parse_cards(seat), parse_cards(dealer))

        wagers = (("main", 500, None),)
        out = []
        bust = _example_deck(rules, DEALER_ODD, deck("9c 3d 2d", "5s 4h 2c"), forced=False)
        if bust is not None:
            title, outcome = _verdict(rules.dealer_bust_pays)
            pays = "" if rules.dealer_bust_pays == 1 else f" (dealer-bust-pays={rules.dealer_bust_pays})"
            out.append(
                ExampleSpec(
                    f"{title}: the dealer's three cards total odd and bust the dealer{pays}",
                    bust,
                    wagers,
                    {"main": outcome},
                )
            )
        odd = _example_deck(rules, PLAYER_ODD, deck("3c 4d 2h", "5s 5h 2c"))
        if odd is not None:
            out.append(
                ExampleSpec(
                    "A loss: the player's two up cards are odd, the dealer turns the third and the total stays odd",
                    odd,
                    wagers,
                    {"main": "lose"},
                )
            )
        first = deck("3c 4d 5h", "5s 5d 2c")
        tie = _example_deck(rules, TIE, first) or _example_deck(rules, TIE, first, forced=False)
        if tie is not None:
            title, outcome = _verdict(rules.pays[TIE])
            _cat, forced, total = deal_category(rules, tie)
            how = "the player's odd up cards are turned to an even" if forced else "the player ends on"
            rule = "" if rules.tie is Tie.PUSH else f" (tie={rules.tie.value})"
            out.append(
                ExampleSpec(
                    f"{title}: {how} {total}; the dealer makes {total}{rule}", tie, wagers, {"main": outcome}
                )
            )
        return out


ANALYZER = FinalCountAnalyzer()


def _odds(net: int) -> str:
    return "loses" if net < 0 else "push" if net == 0 else f"{net} to 1"

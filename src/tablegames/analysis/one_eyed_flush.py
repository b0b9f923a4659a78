"""Exact analysis of One Eyed Flush (RULES.md §2): optimal draw strategy, return table, Jackpot, Flip Card.

Heads-up, every deal is enumerated: the player's three cards, the dealer's Flip Card, the player's choice
(stand or discard one card and draw), the dealer's two hidden cards and the dealer's draw, whose policy
depends on whether the player's final hand holds a wild card (R-OEF-7).

Symmetry: a card matters only through its *class*: one of the 13 natural ranks or "wild" (the table's wild
cards, by default J♥ J♠ K♦, are interchangeable, R-OEF-2). The deck is 14 classes with multiplicities (by
default two natural jacks, three natural kings, three wilds), and every sum is weighted by exact card counts, so
the figures are those of the 52-card deck. For each player hand class and Flip Card class the dealer's
final-hand distribution is computed once per possible draw and shared by the three discard options.

Lookup tables built from the rules object's functions (``rules.evaluate``, ``rules.is_bust``,
``rules.dealer_discard``, ``compare`` with ``rules.ties``: :mod:`~tablegames.analysis.one_eyed_flush_tables`) on
representative cards feed the Numba state loop (:mod:`~tablegames.analysis.one_eyed_flush_kernel`), whose
outcome tallies are cached by the rules' structure; the pay table only weighs them (issue 15).

Every option's EV is an integer over ``D = 48 * 47 * 46 * 45`` (draw, two hidden dealer cards, dealer draw).

>>> from tablegames.cards import parse_cards
>>> s = optimal_strategy(OneEyedFlushRules())
>>> s.best(parse_cards("J♥ J♠ K♦"), parse_cards("5c")[0])
Action(name='stand', index=None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from tablegames.analysis.common import (
    Analysis,
    Analyzer,
    ExampleSpec,
    MeterSweep,
    Outcome,
    PaySchedule,
    SideBet,
    VerifyTarget,
    stacked_deck,
)
from tablegames.analysis.one_eyed_flush_kernel import NC as NC
from tablegames.analysis.one_eyed_flush_kernel import NCAT as NCAT
from tablegames.analysis.one_eyed_flush_kernel import RESULTS as RESULTS
from tablegames.analysis.one_eyed_flush_kernel import WILD as WILD
from tablegames.analysis.one_eyed_flush_kernel import D as D
from tablegames.analysis.one_eyed_flush_kernel import IntArray as IntArray
from tablegames.analysis.one_eyed_flush_kernel import OneEyedFlushStrategy as OneEyedFlushStrategy
from tablegames.analysis.one_eyed_flush_kernel import _hands as _hands
from tablegames.analysis.one_eyed_flush_kernel import _Solution as _Solution
from tablegames.analysis.one_eyed_flush_kernel import _solve as _solve
from tablegames.analysis.one_eyed_flush_kernel import _tables as _tables
from tablegames.analysis.one_eyed_flush_kernel import _ways as _ways
from tablegames.analysis.one_eyed_flush_kernel import class_name as class_name
from tablegames.analysis.one_eyed_flush_kernel import class_value as class_value
from tablegames.analysis.one_eyed_flush_kernel import optimal_strategy as optimal_strategy
from tablegames.analysis.one_eyed_flush_kernel import structure as structure
from tablegames.cards import format_cards, parse_cards
from tablegames.engine.actions import Action
from tablegames.rules.common import NO_PAY, PayTable, RuleError, cents_for_share, enum_key, returned_at_odds
from tablegames.rules.one_eyed_flush import (
    ALL_FLIP_BETS,
    CLASSES,
    METER,
    Category,
    FlipBet,
    FlipKind,
    Hand,
    OefDecision,
    OneEyedFlushRules,
)

card_class = CLASSES.card_class  # the default wild cards' classes (a rules object's: ``rules.classes``)
class_cards = CLASSES.class_cards


# --- side bets ---------------------------------------------------------------------------------------


def first_three_counts(rules: OneEyedFlushRules = OneEyedFlushRules()) -> dict[Category, int]:
    """Categories of the player's first three cards over all C(52,3) hands (``evaluate`` per class triple)."""
    return dict(_first_three_counts(rules.wild_cards))


@lru_cache(maxsize=16)
def _first_three_counts(wild: tuple[int, ...]) -> tuple[tuple[Category, int], ...]:
    rules = OneEyedFlushRules(wild_cards=wild)
    counts = [len(cards) for cards in rules.classes.class_cards()]
    out = dict.fromkeys(Category, 0)
    for classes, cards in _hands(rules.classes):
        out[rules.evaluate(cards).category] += _ways(classes, counts)
    return tuple(out.items())


def jackpot_side_bet(rules: OneEyedFlushRules, meter_cents: int | None = None) -> SideBet:
    """R-OEF-9: prizes "for 1" on the first three cards; the One Eyed Flush takes the meter."""
    cfg = rules.jackpot
    counts = first_three_counts(rules)
    meter = cfg.reset_cents if meter_cents is None else meter_cents
    outcomes = []
    for cat in sorted(Category, reverse=True):
        prize = meter if cat == cfg.meter_category else cfg.fixed_prizes_cents.get(cat, 0)
        payout = Fraction(prize - cfg.wager_cents, cfg.wager_cents) if prize else Fraction(-1)
        outcomes.append(Outcome(enum_key(cat), counts[cat], payout))
    total = comb(52, 3)
    n_oef = counts[cfg.meter_category]
    fixed = sum(counts[c] * p for c, p in cfg.fixed_prizes_cents.items())
    break_even = Fraction(total * cfg.wager_cents - fixed, n_oef) if n_oef else None
    bet = SideBet(f"jackpot (meter ${meter / 100:,.2f})", total, outcomes)
    bet.extra = {
        "meter_cents": meter,
        "wager_cents": cfg.wager_cents,
        "break_even_meter_cents": None if break_even is None else float(break_even),
        "long_run_return_at_reset": float(bet.return_ + cfg.share) if meter_cents is None else None,
    }
    bet.notes = [
        f"Break-even meter: ${float(break_even or 0) / 100:,.2f}.",
        f"The meter's share ({float(cfg.share):.0%} of every wager) also returns to players in the long run.",
    ]
    return bet


def flip_side_bets(rules: OneEyedFlushRules = OneEyedFlushRules()) -> dict[str, SideBet]:
    """R-OEF-10: each named outcome of the Flip Card, over its 52 equally likely cards (``rules.flip_odds``)."""
    out = {}
    for bet in ALL_FLIP_BETS:
        hits: dict[int | None, int] = {}
        for c in range(52):
            o = rules.flip_odds(bet, c)
            hits[o] = hits.get(o, 0) + 1
        rows = [
            Outcome("hit" if o is not None else "miss", n, Fraction(-1 if o is None else o))
            for o, n in sorted(hits.items(), key=lambda kv: kv[0] is None)
        ]
        out[f"flip-card {bet}"] = SideBet(f"flip-card {bet}", 52, rows)
    return out


# --- the analysis -----------------------------------------------------------------------------------


def _action_text(key: tuple[int, ...], opt: int) -> str:
    if opt == 0:
        return "S"
    return "D" + class_name(key[opt - 1])


def strategy_chart(sol: _Solution) -> dict[str, dict[str, str]]:
    """Hand class (evaluated first three cards) x Flip Card class -> majority action by deals:
    ``S`` stand, ``D<x>`` discard the card of class x; a ``*`` marks cells where hands of the class differ."""
    t = sol.tables
    votes: dict[tuple[Hand, int], dict[str, int]] = {}
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                hp = int(t.hand_of[a, b, c])
                if hp < 0:
                    continue
                for f in range(NC):
                    w = int(sol.weight[a, b, c, f])
                    if not w:
                        continue
                    opt = int(sol.best[a, b, c, f])
                    text = _role_text(t.hands[hp], (a, b, c), opt)
                    v = votes.setdefault((t.hands[hp], f), {})
                    v[text] = v.get(text, 0) + w
    chart: dict[str, dict[str, str]] = {}
    for (hand, f), v in sorted(votes.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        top = max(v.items(), key=lambda kv: kv[1])[0]
        chart.setdefault(str(hand), {})[class_name(f)] = top + ("*" if len(v) > 1 else "")
    return chart


def _role_text(hand: Hand, key: tuple[int, int, int], opt: int) -> str:
    """The action by the role of the discarded card, readable across hands of one class."""
    if opt == 0:
        return "stand"
    k = key[opt - 1]
    if k == WILD:
        return "discard wild"
    v = class_value(k)  # R-OEF-1: the point value of the discarded natural card
    others = [x for i, x in enumerate(key) if i != opt - 1]
    if hand.category == Category.PAIR and others[0] == others[1]:
        return "discard remaining"
    values = sorted(class_value(x) for x in key if x != WILD)
    if v == values[-1]:
        return "discard highest"
    if v == values[0]:
        return "discard lowest"
    return f"discard {v}"


def strategy_summary(chart: dict[str, dict[str, str]]) -> list[str]:
    lines = ["Draw strategy by the first three cards' class (columns: the dealer's Flip Card):"]
    for hand, row in chart.items():
        counts: dict[str, int] = {}
        for cell in row.values():
            counts[cell.rstrip("*")] = counts.get(cell.rstrip("*"), 0) + 1
        main = max(counts.items(), key=lambda kv: kv[1])[0]
        exceptions = [f"{f}: {cell}" for f, cell in row.items() if cell.rstrip("*") != main]
        mixed = [f for f, cell in row.items() if cell.endswith("*")]
        text = f"  {hand}: {main}"
        if exceptions:
            text += f" (but {', '.join(exceptions)})"
        if mixed:
            text += f" [depends on the exact cards vs {''.join(mixed)}]"
        lines.append(text)
    return lines


def analyze(
    rules: OneEyedFlushRules, jackpot_meter_cents: int | None = None, full_strategy: bool = False
) -> Analysis:
    sol = _solve(rules)
    w = sol.weight
    total_states = int(w.sum())
    if total_states != comb(52, 3) * 49:
        raise AssertionError(f"state weights sum to {total_states}")
    chosen = np.take_along_axis(sol.tallies, sol.best[..., None, None, None], axis=4)[..., 0, :, :]
    tallies = np.einsum("abcf,abcfks->ks", w, chosen)  # [category, result]
    drew = np.where(sol.best > 0, w, 0)
    stood = np.where(sol.best == 0, w, 0)
    t_draw = np.einsum("abcf,abcfks->ks", drew, chosen)
    t_stand = np.einsum("abcf,abcfks->ks", stood, chosen)
    assert (t_draw + t_stand == tallies).all()
    outcomes = []
    for label, tab in (("stand", t_stand), ("draw", t_draw)):
        for cat in sorted(Category, reverse=True):
            for s, res in enumerate(RESULTS):
                n = int(tab[cat, s])
                if n == 0:
                    continue
                payout = Fraction(int(sol.pay[cat, s]))
                outcomes.append(Outcome(f"{label}, {enum_key(cat)}: {res}", n, payout, category=res))
    total = comb(52, 3) * 49 * D
    analysis = Analysis(
        game="one-eyed-flush",
        rules=dict(rules.describe()),
        total=total,
        outcomes=outcomes,
        average_wager=Fraction(1),
    )
    best_ev = np.take_along_axis(sol.ev, sol.best[..., None], axis=4)[..., 0]
    ev = Fraction(int((np.where(w > 0, best_ev, 0) * w).sum()), total)
    if ev != analysis.expected_value:
        raise AssertionError("return table does not sum to the strategy's expected value")
    chart = strategy_chart(sol)
    analysis.strategy_summary = strategy_summary(chart)
    p_draw = Fraction(int(drew.sum()), int(w.sum()))
    strategy: dict[str, Any] = {"chart": chart, "p_draw": float(p_draw)}
    if full_strategy:
        strategy["table"] = full_table(sol)
    analysis.strategy = strategy
    analysis.side_bets[f"jackpot (meter ${rules.jackpot.reset_cents / 100:,.2f})"] = jackpot_side_bet(rules)
    if jackpot_meter_cents is not None:
        bet = jackpot_side_bet(rules, jackpot_meter_cents)
        analysis.side_bets[bet.name] = bet
    analysis.side_bets.update(flip_side_bets(rules))
    return analysis


def full_table(sol: _Solution) -> list[dict[str, Any]]:
    """Every decision by card classes (natural rank or W for a wild): EV of each option."""
    rows = []
    for a in range(NC):
        for b in range(a, NC):
            for c in range(b, NC):
                for f in range(NC):
                    w = int(sol.weight[a, b, c, f])
                    if not w:
                        continue
                    ev = sol.ev[a, b, c, f]
                    key = (a, b, c)
                    options = {"stand": round(int(ev[0]) / D, 6)}
                    for pos in range(3):
                        if pos == 0 or key[pos] != key[pos - 1]:
                            options[f"discard {class_name(key[pos])}"] = round(int(ev[1 + pos]) / D, 6)
                    rows.append(
                        {
                            "cards": "".join(class_name(k) for k in key),
                            "flip": class_name(f),
                            "deals": w,
                            "options": options,
                            "best": _action_text(key, int(sol.best[a, b, c, f])),
                        }
                    )
    return rows


# --- the analyzer, as generic callers use it ------------------------------------------------------------


class OneEyedFlushAnalyzer(Analyzer):
    min_odds = 1  # R-OEF-8: a win pays at least 1 to 1
    slow = True  # the first strategy takes seconds to solve
    chart_axes = ("first three cards", "dealer's Flip Card")

    def analyze(
        self, rules: OneEyedFlushRules, bet_cents: int | None, meters: Mapping[str, int], full_strategy: bool
    ) -> Analysis:
        return analyze(rules, meters.get("jackpot"), full_strategy)

    def optimal_strategy(
        self, rules: OneEyedFlushRules, bet_cents: int | None = None
    ) -> OneEyedFlushStrategy:
        return optimal_strategy(rules)

    def advise(self, strategy: OneEyedFlushStrategy, context: OefDecision) -> dict[Action, Fraction]:
        return strategy.options(list(context.cards), context.flip_card)

    def meter_names(self, rules: OneEyedFlushRules) -> list[str]:
        return ["jackpot"]

    def tunable_hands(self, rules: OneEyedFlushRules) -> list[str]:
        return [enum_key(c) for c in Category]

    def edge_function(
        self, rules: OneEyedFlushRules, hand: str, bet_cents: int | None
    ) -> tuple[Callable[[int], Fraction], str]:
        cat = {enum_key(c): c for c in Category}.get(hand.strip().lower().replace("_", "-"))
        if cat is None:
            raise RuleError(f"unknown category {hand!r}; choose {', '.join(self.tunable_hands(rules))}")
        base: PayTable[Category] = rules.main_paytable

        def oef_edge(odds: int) -> Fraction:
            return analyze(replace(rules, main_paytable=base.with_pay(cat, odds))).house_edge

        return oef_edge, "main (win odds by the player's category, R-OEF-8)"

    # --- the math report --------------------------------------------------------------------------------

    pace = (25.0, 9.0)
    pace_source = (
        "assumed: 25 s a round for the dealer (shuffle, deal, reveal, the dealer's draw, collect) plus 9 s a "
        "player (the stand-or-draw decision, a draw, settlement of up to three wagers): 41 rounds an hour at "
        "seven players, 106 heads-up (a lab should substitute its own timed pace)"
    )

    def rules_summary(self, rules: OneEyedFlushRules) -> list[str]:
        wild, limit = format_cards(rules.wild_cards) or "no card", rules.bust_limit
        pair, no_pair = rules.dealer_pair_draws_from, rules.dealer_no_pair_draws_from
        return [
            "One 52-card deck, shuffled before every round (R-0.1); one to seven players (R-0.2).",
            f"The wild cards: {wild} (RULES.md: the one-eyed J♥ J♠ K♦). Natural cards count A = 1, 2-10 pip "
            "value, J Q K = 10; pairs and trips are by rank (R-OEF-1).",
            "Hands, best first: One Eyed Flush (the three wilds), Three of a Kind with a Wild Card, Pair with a "
            "Wild Card, Three of a Kind, Pair, No Pair (valued by the sum of its points) (R-OEF-2). The better "
            "category wins; within Pair with a Wild Card and Pair the lower remaining card wins, within No Pair "
            "the lower value wins; trips and the One Eyed Flush push; equal remaining cards or values: the "
            f"dealer wins (ties rule: {rules.ties.value}) (R-OEF-3).",
            "Wagers: the main wager, and optionally the One Eyed Flush Jackpot and the Flip Card wager. Players "
            "and the dealer get three cards face down, the dealer's second face up: the Flip Card (R-OEF-4).",
            f"Each player stands or discards one card and draws one (R-OEF-5). A No Pair hand over {limit} after a "
            f"draw busts and loses at once (bust rule: {rules.bust.value}) (R-OEF-6).",
            f"The dealer draws at most once: a natural Pair with a remaining card of {pair} or more discards it; a "
            f"No Pair with a card of {no_pair} or more discards the highest; a Pair with a Wild Card draws only when a live "
            "player holds a wild (discarding the higher natural card); anything else stands (dealer-wild-draw: "
            f"{rules.dealer_wild_draw.value}) (R-OEF-7).",
            "The main wager pays by the pay table on a win, pushes on a standoff (R-OEF-8). The Jackpot pays on "
            "the player's first three cards (R-OEF-9); the Flip Card wager on the dealer's Flip Card (R-OEF-10).",
        ]

    def pay_schedules(self, rules: OneEyedFlushRules) -> list[PaySchedule]:
        cfg = rules.jackpot
        jackpot: list[tuple[str, str]] = []
        for cat in sorted(Category, reverse=True):
            if cat == cfg.meter_category:
                jackpot.append(
                    (
                        enum_key(cat),
                        f"100% of the meter (reset ${cfg.reset_cents / 100:,.0f}, +{float(cfg.share):.0%})",
                    )
                )
            elif cat in cfg.fixed_prizes_cents:
                jackpot.append((enum_key(cat), f"${cfg.fixed_prizes_cents[cat] / 100:,.2f} for 1"))
        return [
            PaySchedule(
                f"Main wager, pay table {rules.main_paytable.name} (R-OEF-8)",
                tuple((h, f"{o} to 1 on a win") for h, o in rules.main_paytable.describe()),
                "A standoff pushes; a loss or a bust loses.",
            ),
            PaySchedule(f"One Eyed Flush Jackpot, ${cfg.wager_cents / 100:,.2f} (R-OEF-9)", tuple(jackpot)),
            PaySchedule(
                "Flip Card wager (R-OEF-10)",
                (
                    ("a point value 1-9", f"{rules.flip.of(FlipKind.VALUE)} to 1"),
                    ("ten-value (10, J, Q, K)", f"{rules.flip.of(FlipKind.TEN_VALUE)} to 1"),
                    (
                        f"one-eyed ({format_cards(rules.wild_cards)})",
                        f"{rules.flip.of(FlipKind.ONE_EYED)} to 1",
                    ),
                ),
            ),
        ]

    def worked_examples(self, rules: OneEyedFlushRules) -> list[ExampleSpec]:
        def deck(seat: str, dealer: str, then: str = "") -> tuple[int, ...]:
            return stacked_deck(parse_cards(seat), parse_cards(dealer), parse_cards(then) if then else ())

        jp = rules.jackpot.wager_cents
        wagers = (("main", 500, None), ("jackpot", jp, None), ("flip", 500, "ten-value"))
        examples = [
            ExampleSpec(
                "A win: the player stands on 2-3-4 (9 points); the dealer draws to a higher No Pair",
                deck("2c 3d 4h", "Ks Qh 9c", "Td"),
                wagers,
                {"main": "win", "flip": "win", "jackpot": "lose"},
            ),
            ExampleSpec(
                "A bust: the player draws to K-Q-9 and goes over 14",
                deck("Kc Qd 9h", "5s 8d 6c", "8s"),
                wagers,
                {"main": "bust", "flip": "lose"},
            ),
            ExampleSpec(
                "A push: Three of a Kind against Three of a Kind is a standoff; the Jackpot pays trips",
                deck("6c 6d 6h", "9s 9c 9h"),
                wagers,
                {"main": "push", "jackpot": "win", "flip": "lose"},
            ),
            ExampleSpec(
                "The jackpot: the One Eyed Flush takes the meter; the Flip Card wager hits ten-value",
                deck("Jh Js Kd", "2c Qc 5d", "3h"),
                wagers,
                {"main": "win", "jackpot": "win", "flip": "win"},
                meters={METER: 812_345},
            ),
        ]
        if (
            structure(rules) == structure(OneEyedFlushRules())
            and rules.jackpot.meter_category == Category.ONE_EYED_FLUSH
        ):
            return examples
        # other rules (issue 15): the same deals, titled by their cards, each settled as the engine does
        return [
            replace(e, title=f"Example {i}: the player holds {format_cards(e.deck[0:6:2])}", expect={})
            for i, e in enumerate(examples, 1)
        ]

    def side_bet_stats(self, a: Analysis, rules: OneEyedFlushRules) -> list[tuple[str, SideBet]]:
        out = [(f"Jackpot (meter at reset ${rules.jackpot.reset_cents / 100:,.0f})", jackpot_side_bet(rules))]
        for bet in ALL_FLIP_BETS:
            out.append((f"Flip Card: {bet}", a.side_bets[f"flip-card {bet}"]))
        return out

    def seats_interact(self, rules: OneEyedFlushRules) -> str:
        return (
            "The dealer's Pair with a Wild Card draws when any live player holds a wild (R-OEF-7), so one "
            "seat's hand changes the dealer's play against the others. It does not change any seat's result: "
            "against a seat without a wild the dealer's Pair with a Wild Card wins already and its draw (wild, "
            "the lower natural card and a new card) is still at least a Pair with a Wild Card; against a seat "
            "with a wild the dealer draws whatever the others hold; a busted seat has lost already. And a "
            "seat's own cards, the dealer's cards and the draws are a uniformly random set of distinct cards "
            "whatever the other seats hold. So every seat's house edge equals the heads-up edge exactly at "
            "every table size; the seeded simulation below checks it at 1-7 players."
        )

    def meter_sweeps(self, rules: OneEyedFlushRules) -> list[MeterSweep]:
        cfg = rules.jackpot
        counts = first_three_counts(rules)
        total = comb(52, 3) * cfg.wager_cents
        fixed = sum(counts[c] * p for c, p in cfg.fixed_prizes_cents.items())
        n_hit = counts[cfg.meter_category]
        if n_hit == 0:  # too few wild cards for the meter's hand: the meter is never won
            return []

        def edge(meter_cents: Fraction) -> Fraction:
            return 1 - (fixed + n_hit * Fraction(meter_cents)) / total

        return [
            MeterSweep("One Eyed Flush Jackpot", METER, cfg.reset_cents, Fraction(total - fixed, n_hit), edge)
        ]

    def verify_targets(self, a: Analysis, rules: OneEyedFlushRules) -> list[VerifyTarget]:
        cfg = rules.jackpot
        counts = first_three_counts(rules)
        fixed = Fraction(
            sum(counts[c] * p for c, p in cfg.fixed_prizes_cents.items()), comb(52, 3) * cfg.wager_cents
        )
        return [
            # win, push, lose and bust: every category, checked by the report (common.category_targets)
            VerifyTarget("main wager house edge", "main", a.house_edge),
            VerifyTarget(
                "P(the player draws)",
                "draws",
                _p(a, lambda n: n.startswith("draw,")),
                figure="frequency",
                outcomes=("players who drew",),
            ),
            VerifyTarget(
                "Jackpot: return of the fixed prizes", "jackpot fixed prizes", fixed, ("jackpot",), "return"
            ),
            VerifyTarget(
                "Flip Card (ten-value) house edge",
                "flip",
                a.side_bets["flip-card ten-value"].house_edge,
                ("flip",),
            ),
        ]

    # --- one stacked deal, settled by the analysis' own tables (issue 12) ----------------------------------

    def tie_wagers(self, rules: OneEyedFlushRules, bet_cents: int) -> tuple[tuple[str, int, str | None], ...]:
        return (
            ("main", bet_cents, None),
            ("jackpot", rules.jackpot.wager_cents, None),
            ("flip", 500, "ten-value"),
        )

    def deal_value(
        self,
        rules: OneEyedFlushRules,
        deck: Sequence[int],
        wagers: Sequence[tuple[str, int, str | None]],
        meters: Mapping[str, int] | None = None,
    ) -> dict[str, int]:
        """Heads-up deal order (R-0.2, R-OEF-4): seat, dealer, seat, dealer (the Flip Card), seat, dealer; the
        seat's draw then the dealer's take the next cards. Decided by the optimal strategy's EVs, settled by
        the solution's class tables (hand, bust, the dealer's discard, the result and the pay matrix)."""
        sol = _solve(rules)
        t = sol.tables
        cls = t.classes.card_class
        seat, dealer, nxt, flip = [deck[0], deck[2], deck[4]], [deck[1], deck[3], deck[5]], 6, deck[3]
        first = t.hands[int(t.hand_of[tuple(cls(c) for c in seat)])]
        action = optimal_strategy(rules).best(seat, flip)  # the solution's own choice (cautious, R-0.5)
        if action.index is not None:  # R-OEF-5: discard one card, draw the next
            seat[action.index], nxt = deck[nxt], nxt + 1
        hp = int(t.hand_of[tuple(cls(c) for c in seat)])
        out: dict[str, int] = {}
        for name, stake, option in wagers:
            if name == "main":
                if (t.bust_draw if action.index is not None else t.bust_stand)[hp]:  # R-OEF-6
                    out[name] = -stake
                    continue
                wild = int(t.live[hp, int(action.index is not None)])  # R-OEF-7, the rules' live_wild
                pos = int(t.ddisc[(*(cls(c) for c in dealer), wild)])
                if pos >= 0:
                    dealer[pos] = deck[nxt]
                hd = int(t.hand_of[tuple(cls(c) for c in dealer)])
                out[name] = stake * int(sol.pay[t.hand_cat[hp], t.result[hp, hd]])  # R-OEF-3, R-OEF-8
            elif name == "jackpot":  # R-OEF-9 on the first three cards, the meter fed by this wager
                cfg = rules.jackpot
                meter = (cfg.reset_cents if meters is None else meters[METER]) + cents_for_share(
                    stake, cfg.share
                )
                out[name] = (
                    meter if first.category == cfg.meter_category else cfg.prize(first.category)
                ) - stake
            elif name == "flip":  # R-OEF-10
                odds = rules.flip_odds(FlipBet.parse(option or ""), flip)
                out[name] = returned_at_odds(stake, NO_PAY if odds is None else odds) - stake
        return out


def _p(a: Analysis, named: Callable[[str], bool]) -> Fraction:
    """The probability of the return table's outcomes whose names pass ``named``."""
    return Fraction(sum(o.combinations for o in a.outcomes if named(o.name)), a.total)


ANALYZER = OneEyedFlushAnalyzer()

"""Exact analysis of Let It Ride (RULES.md §1): optimal strategy, return table, 3-Card Bonus, Progressive.

Every hand class comes from the rule functions: the base-game class of each sorted rank pattern (with and
without a flush) is computed once by :func:`~tablegames.rules.let_it_ride.lir_hand_of`, the 3-Card Bonus class
by :func:`~tablegames.rules.poker.three_card_category_of`, and NumPy looks them up for all 2,598,960 five-card
hands. From these:

* ``hist4[q, h]``: for each 4-card set ``q`` (player's three + first community card, colex index), how many
  of the 48 possible last cards make base hand ``h``;
* the second decision (R-LIR-3) for each 4-card set and each state of wager 1, then the first decision
  (R-LIR-2) for each 3-card hand by summing over its 49 possible first community cards.

All sums are integers (cents when ``--bet`` applies the aggregate cap of R-LIR-5), so every figure is an exact
fraction of the 22,100 x 49 x 48 = 51,979,200 equally likely ordered deals. The dealer's burn card is unseen,
so it does not change the distribution of the community cards.

>>> from tablegames.cards import parse_cards
>>> from tablegames.engine.actions import PULL, RIDE
>>> s = optimal_strategy(LetItRideRules())
>>> s.best(parse_cards("Ts Js Qs")), s.best(parse_cards("9h 9c 2d"))
(Action(name='ride', index=None), Action(name='pull', index=None))
>>> s.second(parse_cards("4c 5d 6h 7s"))[RIDE]  - s.second(parse_cards("4c 5d 6h 7s"))[PULL]
Fraction(0, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
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
    colex_of,
    stacked_deck,
)
from tablegames.analysis.let_it_ride_kernel import BET_SIZES as BET_SIZES
from tablegames.analysis.let_it_ride_kernel import N3 as N3
from tablegames.analysis.let_it_ride_kernel import N4 as N4
from tablegames.analysis.let_it_ride_kernel import NH as NH
from tablegames.analysis.let_it_ride_kernel import PER_HAND as PER_HAND
from tablegames.analysis.let_it_ride_kernel import TOTAL_DEALS as TOTAL_DEALS
from tablegames.analysis.let_it_ride_kernel import IntArray as IntArray
from tablegames.analysis.let_it_ride_kernel import LetItRideStrategy as LetItRideStrategy
from tablegames.analysis.let_it_ride_kernel import _bonus_table as _bonus_table
from tablegames.analysis.let_it_ride_kernel import _drop_index as _drop_index
from tablegames.analysis.let_it_ride_kernel import _ranks_suits as _ranks_suits
from tablegames.analysis.let_it_ride_kernel import _Solution as _Solution
from tablegames.analysis.let_it_ride_kernel import _solve as _solve
from tablegames.analysis.let_it_ride_kernel import combos as combos
from tablegames.analysis.let_it_ride_kernel import five_card_tables as five_card_tables
from tablegames.analysis.let_it_ride_kernel import hist4 as hist4
from tablegames.analysis.let_it_ride_kernel import largest_base_win as largest_base_win
from tablegames.analysis.let_it_ride_kernel import optimal_strategy as optimal_strategy
from tablegames.analysis.let_it_ride_kernel import outcome_counts as outcome_counts
from tablegames.analysis.let_it_ride_kernel import pattern_hist as pattern_hist
from tablegames.analysis.let_it_ride_kernel import strategy_bet as strategy_bet
from tablegames.analysis.let_it_ride_kernel import three_of_four as three_of_four
from tablegames.analysis.let_it_ride_kernel import win_table as win_table
from tablegames.analysis.let_it_ride_report import bet1_figures as bet1_figures
from tablegames.analysis.let_it_ride_report import bet2_figures as bet2_figures
from tablegames.analysis.let_it_ride_report import canonical_keys as canonical_keys
from tablegames.analysis.let_it_ride_report import full_table as full_table
from tablegames.analysis.let_it_ride_report import plot_strategy as plot_strategy
from tablegames.analysis.let_it_ride_report import strategy_description as strategy_description
from tablegames.cards import parse_cards
from tablegames.engine.actions import Action
from tablegames.rules.common import PayTable, RuleError, enum_key
from tablegames.rules.indexing import rank_index
from tablegames.rules.let_it_ride import (
    BONUS_PAYTABLES,
    MAIN,
    BonusHand,
    LetItRideRules,
    LirDecision,
    LirHand,
)
from tablegames.rules.poker import three_card_category_of


def _hand_name(h: LirHand) -> str:
    return enum_key(h)


def bonus_side_bet(paytable: PayTable[BonusHand]) -> SideBet:
    """3-Card Bonus (R-LIR-6) on the player's first three cards, from ``three_card_category_of``."""
    counts = bonus_counts()
    outcomes = []
    for h in sorted(BonusHand, reverse=True):
        odds = paytable.odds(h)
        outcomes.append(Outcome(enum_key(h), counts[h], Fraction(-1 if odds is None else odds)))
    return SideBet(f"3-card-bonus {paytable.name}", N3, outcomes)


@lru_cache(maxsize=1)
def bonus_counts() -> dict[BonusHand, int]:
    table: dict[tuple[int, bool], BonusHand] = {}
    for pattern in combinations_with_replacement(range(13), 3):
        ranks = [r + 2 for r in pattern]
        table[(rank_index(pattern), False)] = three_card_category_of(ranks, False)
        if len(set(pattern)) == 3:
            table[(rank_index(pattern), True)] = three_card_category_of(ranks, True)
    keys, is_flush = _ranks_suits(combos(52, 3))
    out = dict.fromkeys(BonusHand, 0)
    uniq, n = np.unique(keys * 2 + is_flush, return_counts=True)
    for u, c in zip(uniq.tolist(), n.tolist(), strict=True):
        out[table[(u // 2, bool(u % 2))]] += c
    return out


@lru_cache(maxsize=4)
def five_card_counts(qualifier: int = 10) -> dict[LirHand, int]:
    """Base hands over all C(52,5) five-card hands (each is a completion of five 4-card sets), the lowest
    paying pair ``qualifier`` (R-LIR-4)."""
    counts = hist4(qualifier).sum(axis=0) // 5
    return {h: int(counts[h]) for h in LirHand}


def progressive_side_bet(rules: LetItRideRules, meters_cents: Mapping[str, int] | None = None) -> SideBet:
    """Progressive (R-LIR-7) and Envy Bonus (R-LIR-8) on the final five-card hand (all C(52,5) equally likely).

    Fixed prizes and meter prizes pay "for 1" (R-0.3): the net result is prize - wager.
    """
    cfg = rules.progressive
    wager = cfg.wager_cents
    counts = five_card_counts(rules.qualifier_rank)
    total = comb(52, 5)
    resets = {m.name: m.reset_cents for m in cfg.meters}
    meters = dict(resets)
    meters.update(meters_cents or {})

    def prize(h: LirHand, meter_values: Mapping[str, int]) -> int:
        if h in cfg.meter_prizes:
            return meter_values[cfg.meter_prizes[h]]
        return cfg.fixed_prizes_cents.get(h, 0)

    def ret(meter_values: Mapping[str, int], fixed_only: bool = False) -> Fraction:
        paid = 0
        for h in LirHand:
            if fixed_only and h in cfg.meter_prizes:
                continue
            paid += counts[h] * prize(h, meter_values)
        return Fraction(paid, total * wager)

    outcomes = []
    for h in sorted(LirHand, reverse=True):
        p = prize(h, meters)
        outcomes.append(Outcome(_hand_name(h), counts[h], Fraction(p - wager, wager) if p else Fraction(-1)))
    mega_hand = next((h for h, m in cfg.meter_prizes.items() if m == "mega"), None)
    break_even: Fraction | None = None
    if mega_hand is not None and counts[mega_hand]:
        others = ret({**meters, "mega": 0})
        break_even = (1 - others) * total * wager / counts[mega_hand]
    envy = Fraction(sum(counts[h] * c for h, c in cfg.envy_cents.items()), total * wager)
    shares = sum((m.share for m in cfg.meters), Fraction(0))
    extra: dict[str, Any] = {
        "wager_cents": wager,
        "meters_cents": meters,
        "return_fixed_prizes": float(ret(meters, fixed_only=True)),
        "return_at_reset": float(ret(resets)),
        "return_at_meters": float(ret(meters)),
        "break_even_mega_cents": None if break_even is None else float(break_even),
        "envy_value_per_extra_player": float(envy),
        "meter_shares": float(shares),
        "long_run_return_at_reset": float(ret(resets) + shares),
    }
    notes = [
        f"Return of the fixed prizes alone: {float(ret(meters, fixed_only=True)):.6f} per unit.",
        f"Return at the meters {', '.join(f'{k}=${v / 100:,.2f}' for k, v in meters.items())}: "
        f"{float(ret(meters)):.6f} (house edge {float(1 - ret(meters)):.6f}).",
        "Break-even Mega meter (other meters as given): "
        + ("n/a" if break_even is None else f"${float(break_even) / 100:,.2f}"),
        f"Envy Bonus (R-LIR-8) adds {float(envy):.6f} per unit wagered for every other Progressive player.",
        f"Long run, the meter shares ({float(shares):.0%} of every wager) also return to players: "
        f"{float(ret(resets) + shares):.6f} at reset values.",
    ]
    return SideBet("progressive", total, outcomes, notes, extra)


def analyze(
    rules: LetItRideRules,
    bet_cents: int | None = None,
    meters_cents: Mapping[str, int] | None = None,
    full_strategy: bool = False,
    bet_table: bool = False,
) -> Analysis:
    """Exact figures of Let It Ride under the optimal strategy (optionally at a wager size, for the cap).

    ``bet_table``: also the house edge at common wager sizes (the cap makes it grow with the wager).
    """
    sol = _solve(rules, bet_cents)
    counts = outcome_counts(sol)
    outcomes: list[Outcome] = []
    wagered = 0
    for k in (3, 2, 1):
        for h in sorted(LirHand, reverse=True):
            n = int(counts[k, h])
            wagered += n * k
            # the category: the engine's outcome of the bets up at the showdown (R-LIR-4): the hand pays or not
            won = "win" if rules.main_paytable.odds(h) is not None else "lose"
            net = Fraction(int(sol.win[k, h]), sol.unit)
            outcomes.append(Outcome(f"{_hand_name(h)}, {k} up", n, net, Fraction(k), category=won))
    ev = Fraction(int(np.maximum(sol.value3[0], sol.value3[1]).sum()), TOTAL_DEALS * sol.unit)
    analysis = Analysis(
        game="let-it-ride",
        rules=dict(rules.describe()),
        total=TOTAL_DEALS,
        outcomes=outcomes,
        average_wager=Fraction(wagered, TOTAL_DEALS),
        unit_cents=bet_cents,
    )
    if analysis.expected_value != ev:
        raise AssertionError("return table does not sum to the strategy's expected value")
    strategy, summary = strategy_description(rules, sol, full_strategy)
    analysis.strategy = strategy
    analysis.strategy_summary = summary
    names = dict(BONUS_PAYTABLES)
    names[rules.bonus_paytable.name] = rules.bonus_paytable
    for table in names.values():
        bet = bonus_side_bet(table)
        analysis.side_bets[bet.name] = bet
    analysis.side_bets["progressive"] = progressive_side_bet(rules, meters_cents)
    by_bet = {}
    for cents in BET_SIZES if bet_table else ():
        sized = _solve(rules, cents)
        value = int(np.maximum(sized.value3[0], sized.value3[1]).sum())
        by_bet[cents] = -Fraction(value, TOTAL_DEALS * sized.unit)  # (unit 1: a bet the cap cannot reach)
    if by_bet:
        analysis.extra["house_edge_by_bet"] = {str(c): float(e) for c, e in by_bet.items()}
        analysis.notes.append(
            "House edge by wager size (the $"
            + f"{rules.cap_cents / 100:,.0f} aggregate cap, R-LIR-5): "
            + ", ".join(f"${c / 100:,.0f}: {100 * float(e):.4f}%" for c, e in by_bet.items())
        )
    if bet_cents is None:
        analysis.notes.append(
            "Figures per unit wager; the aggregate cap (R-LIR-5) is not applied (use --bet)."
        )
    else:
        analysis.notes.append(
            f"Wagers of {bet_cents} cents each; the base-game win is capped at {rules.cap_cents} cents (R-LIR-5)."
        )
    return analysis


class LetItRideAnalyzer(Analyzer):
    bet_sized = True  # the aggregate cap (R-LIR-5) makes the strategy depend on the wager

    def analyze(
        self, rules: LetItRideRules, bet_cents: int | None, meters: Mapping[str, int], full_strategy: bool
    ) -> Analysis:
        return analyze(rules, bet_cents, meters, full_strategy, bet_table=full_strategy)

    def optimal_strategy(self, rules: LetItRideRules, bet_cents: int | None = None) -> LetItRideStrategy:
        return optimal_strategy(rules, bet_cents)

    def strategy_bet(self, rules: LetItRideRules, bet_cents: int | None) -> int | None:
        return strategy_bet(rules, bet_cents)

    def advise(self, strategy: LetItRideStrategy, context: LirDecision) -> dict[Action, Fraction]:
        cards = list(context.cards)
        if context.stage == 1:
            return strategy.first(cards[:3])
        return strategy.second(cards[:4], bet1_up=context.bet1_up)

    def meter_names(self, rules: LetItRideRules) -> list[str]:
        return [m.name for m in rules.progressive.meters]

    def tunable_hands(self, rules: LetItRideRules) -> list[str]:
        return [enum_key(h) for h in LirHand] + [f"bonus:{enum_key(h)}" for h in BonusHand]

    def edge_function(
        self, rules: LetItRideRules, hand: str, bet_cents: int | None
    ) -> tuple[Callable[[int], Fraction], str]:
        key = hand.strip().lower().replace("_", "-")
        if key.startswith("bonus:"):
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
            raise RuleError(f"unknown hand {hand!r}; choose {', '.join(self.tunable_hands(rules))}")
        main: PayTable[LirHand] = rules.main_paytable

        def lir_edge(odds: int) -> Fraction:
            return analyze(replace(rules, main_paytable=main.with_pay(lir, odds)), bet_cents).house_edge

        return lir_edge, "main"

    def tie_wagers(self, rules: LetItRideRules, bet_cents: int) -> tuple[tuple[str, int, str | None], ...]:
        return (
            (MAIN, bet_cents, None),
            ("bonus", bet_cents, None),
            ("progressive", rules.progressive.wager_cents, None),
        )

    def deal_value(
        self,
        rules: LetItRideRules,
        deck: Sequence[int],
        wagers: Sequence[tuple[str, int, str | None]],
        meters: Mapping[str, int] | None = None,
    ) -> dict[str, int]:
        return deal_value(rules, deck, {w: a for w, a, _ in wagers}, meters)

    def plot_strategy(self, a: Analysis, rules: LetItRideRules, bet_cents: int | None, path: Any) -> None:
        plot_strategy(rules, bet_cents, path)

    # --- the math report --------------------------------------------------------------------------------

    pace = (24.0, 7.5)
    pace_source = (
        "assumed: 24 s a round for the dealer (shuffle, deal, two community cards, collect) plus 7.5 s a "
        "player (two decisions, settlement of up to five wagers): 47 rounds an hour at seven players, 114 "
        "heads-up (a lab should substitute its own timed pace)"
    )

    def rules_summary(self, rules: LetItRideRules) -> list[str]:
        return [
            "One 52-card deck, shuffled before every round (R-0.1); one to seven players against the dealer "
            "(R-0.2).",
            "Each player makes three equal wagers, 1, 2 and $, and may add a 3-Card Bonus and a $"
            f"{rules.progressive.wager_cents / 100:,.2f} Progressive wager; each player and the dealer get "
            "three cards (R-LIR-1).",
            "Having seen the three cards, the player withdraws wager 1 or lets it ride. The dealer burns one of "
            "the dealer's cards and turns the next: the first community card (R-LIR-2). The player withdraws "
            "wager 2 or lets it ride; the dealer turns the last card: the second community card. Wager $ "
            "always stays (R-LIR-3).",
            "The player's three cards and the two community cards make a five-card poker hand; every wager "
            "still up is paid by the pay table, else lost (R-LIR-4). The base-game win of one hand is capped at "
            f"${rules.cap_cents / 100:,.0f} (R-LIR-5).",
            "3-Card Bonus: on the player's first three cards, whatever happens in the base game (R-LIR-6).",
            "Progressive: on the final five-card hand; the top hands take 100% of a meter, which then resets "
            "(R-LIR-7). Envy Bonus: when a Progressive player makes a Royal or Straight Flush, every other "
            "Progressive player at the table is paid a fixed amount (R-LIR-8).",
        ]

    def pay_schedules(self, rules: LetItRideRules) -> list[PaySchedule]:
        cfg = rules.progressive
        prog: list[tuple[str, str]] = []
        for h in sorted(LirHand, reverse=True):
            if h in cfg.meter_prizes:
                m = cfg.meter(cfg.meter_prizes[h])
                prog.append(
                    (
                        enum_key(h),
                        f"100% of the {m.title or m.name} meter (reset ${m.reset_cents / 100:,.0f}"
                        f", +{float(m.share):.0%} of each wager)",
                    )
                )
            elif h in cfg.fixed_prizes_cents:
                prog.append((enum_key(h), f"${cfg.fixed_prizes_cents[h] / 100:,.2f} for 1"))
        envy = tuple(
            (enum_key(h), f"${c / 100:,.2f} to every other Progressive player")
            for h, c in sorted(cfg.envy_cents.items(), reverse=True)
        )
        return [
            PaySchedule(
                "Base game: each wager still up (R-LIR-4)",
                tuple((h, f"{o} to 1") for h, o in rules.main_paytable.describe()),
                f"Aggregate cap: the base-game win of a hand is at most ${rules.cap_cents / 100:,.0f} (R-LIR-5).",
            ),
            PaySchedule(
                f"3-Card Bonus, pay table {rules.bonus_paytable.name} (R-LIR-6)",
                tuple((h, f"{o} to 1") for h, o in rules.bonus_paytable.describe()),
            ),
            PaySchedule(
                f"Progressive, ${cfg.wager_cents / 100:,.2f} (R-LIR-7; prizes for 1: the wager is not returned)",
                tuple(prog),
            ),
            PaySchedule(
                "Envy Bonus (R-LIR-8)", envy, "The hitting player gets no Envy Bonus for their own hand."
            ),
        ]

    def worked_examples(self, rules: LetItRideRules) -> list[ExampleSpec]:
        def deck(seat: str, burn_and_community: str) -> tuple[int, ...]:
            return stacked_deck(parse_cards(seat), parse_cards(burn_and_community))

        prog = rules.progressive.wager_cents
        small = (("bets", 500, None), ("bonus", 500, None), ("progressive", prog, None))
        big = (("bets", 2_500, None), ("bonus", 2_500, None), ("progressive", prog, None))
        return [
            ExampleSpec(
                "A win: a pair of kings rides both wagers; the 3-Card Bonus pays the pair",
                deck("Kc Kd 5h", "2d 9s 2c"),
                small,
                {"bets 1": "win", "bets $": "win", "bonus": "win", "progressive": "lose"},
            ),
            ExampleSpec(
                "A loss: nothing to ride; wagers 1 and 2 are withdrawn, the $ wager loses",
                deck("2c 5d 9h", "3d Js 3s"),
                small,
                {"bets 1": "pulled", "bets 2": "pulled", "bets $": "lose", "bonus": "lose"},
            ),
            ExampleSpec(
                "Side bets hit: trips pay 3 to 1 on three wagers, 40 to 1 on the 3-Card Bonus, $9 on the "
                "Progressive",
                deck("7c 7d 7h", "2d 2s 9c"),
                small,
                {"bets $": "win", "bonus": "win", "progressive": "win"},
            ),
            ExampleSpec(
                "The Envy Bonus at a table of two: seat 1 makes a Straight Flush and takes the Major meter; "
                "seat 2, with a Progressive wager, is paid the Envy Bonus",
                stacked_deck(
                    parse_cards("5s 6s 7s"), parse_cards("2d 8s 9s"), others=[parse_cards("Kc Qd 4h")]
                ),
                small,
                {"bets $": "win", "progressive": "win"},
                seats=2,
            ),
            ExampleSpec(
                f"The cap and the Mega meter: a Royal Flush with three $25 wagers up is capped at "
                f"${rules.cap_cents / 100:,.0f}; the Progressive takes the Mega meter",
                deck("Ts Js Qs", "2d Ks As"),
                big,
                {"bets 1": "win", "bets $": "win", "bonus": "win"},
            ),
        ]

    def side_bet_stats(self, a: Analysis, rules: LetItRideRules) -> list[tuple[str, SideBet]]:
        bonus = a.side_bets[f"3-card-bonus {rules.bonus_paytable.name}"]
        return [
            (f"3-Card Bonus ({rules.bonus_paytable.name})", bonus),
            ("Progressive (meters at reset)", a.side_bets["progressive"]),
        ]

    def table_size_effects(
        self, a: Analysis, rules: LetItRideRules, players: int
    ) -> list[tuple[str, Fraction]]:
        envy = envy_value(rules)
        ret = 1 + progressive_side_bet(rules).expected_value
        return [
            ("Envy Bonus value per Progressive wager", envy * (players - 1)),
            ("Progressive edge at reset, Envy included", 1 - ret - envy * (players - 1)),
        ]

    def meter_sweeps(self, rules: LetItRideRules) -> list[MeterSweep]:
        return [progressive_sweep(rules, m.name) for m in rules.progressive.meters]

    def verify_targets(self, a: Analysis, rules: LetItRideRules) -> list[VerifyTarget]:
        cfg = rules.progressive
        counts = five_card_counts(rules.qualifier_rank)
        fixed = Fraction(
            sum(counts[h] * c for h, c in cfg.fixed_prizes_cents.items()), comb(52, 5) * cfg.wager_cents
        )
        bonus = a.side_bets[f"3-card-bonus {rules.bonus_paytable.name}"]
        return [
            VerifyTarget("base game house edge (per wager)", "bets", a.house_edge),
            VerifyTarget("3-Card Bonus house edge", "bonus", bonus.house_edge, ("bonus",)),
            VerifyTarget(
                "P(the final hand pays)",
                "final hand",
                a.p_win,
                figure="frequency",
                outcomes=tuple(enum_key(h) for h in LirHand if rules.main_paytable.odds(h) is not None),
            ),
            VerifyTarget(
                "P(all three wagers ride)", "bets riding", _p_up(a, 3), figure="frequency", outcomes=("3",)
            ),
            VerifyTarget(
                "P(wagers 1 and 2 both pulled)",
                "bets riding",
                _p_up(a, 1),
                figure="frequency",
                outcomes=("1 ($ only)",),
            ),
            VerifyTarget(
                "3-Card Bonus hit frequency",
                "bonus",
                Fraction(sum(o.combinations for o in bonus.outcomes if o.payout > -1), bonus.total),
                ("bonus",),
                "frequency",
                tuple(enum_key(h) for h in BonusHand if rules.bonus_paytable.odds(h) is not None),
            ),
            VerifyTarget(
                "Progressive: return of the fixed prizes",
                "progressive fixed prizes",
                fixed,
                ("progressive",),
                "return",
            ),
        ]


def deal_value(
    rules: LetItRideRules,
    deck: Sequence[int],
    wagers: Mapping[str, int],
    meters: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """The analysis' own settlement of one heads-up round dealt from ``deck`` (R-0.2: player, dealer, player,
    dealer, ...; the dealer's first card burnt, R-LIR-2), the seat playing the optimal strategy: net cents of
    each wager in ``wagers``, from the solution's decisions and win table (the cap included), the 3-Card Bonus
    and the Progressive return tables (the ``meters`` before the round, None: at reset, plus this seat's own
    contributions, R-LIR-7)."""
    player = [int(c) for c in deck[0:6:2]]
    c1, c2 = int(deck[3]), int(deck[5])
    bet = wagers[MAIN]
    sol = _solve(rules, strategy_bet(rules, bet))
    ride1 = bool(sol.ride1[colex_of(player)])
    ride2 = bool(sol.ride2[int(ride1), colex_of([*player, c1])])
    plain, flush = five_card_tables(rules.qualifier_rank)
    key, suited = _ranks_suits(np.array([sorted([*player, c1, c2])], dtype=np.int8))
    hand = LirHand(int((flush if suited[0] else plain)[key[0]]))
    out = {MAIN: int(sol.win[1 + ride1 + ride2, hand]) * bet // sol.unit}
    if wagers.get("bonus"):
        cat = enum_key(BonusHand(int(_bonus_table()[colex_of(player)])))
        bonus = bonus_side_bet(rules.bonus_paytable)
        out["bonus"] = int(next(o.payout for o in bonus.outcomes if o.name == cat) * wagers["bonus"])
    if wagers.get("progressive"):
        stake = wagers["progressive"]
        before = {m.name: m.reset_cents for m in rules.progressive.meters} if meters is None else meters
        contributed = {m.name: before[m.name] + m.contribution(stake) for m in rules.progressive.meters}
        prog = progressive_side_bet(rules, contributed)
        payout = next(o.payout for o in prog.outcomes if o.name == _hand_name(hand))
        out["progressive"] = int(payout * stake)
    return out


def _p_up(a: Analysis, k: int) -> Fraction:
    """The probability that ``k`` wagers are up at the showdown, from the return table ("<hand>, k up")."""
    return Fraction(sum(o.combinations for o in a.outcomes if o.name.endswith(f", {k} up")), a.total)


def envy_value(rules: LetItRideRules) -> Fraction:
    """R-LIR-8: the Envy Bonus one Progressive wager collects per other Progressive player, in units of the
    wager (exact, over all C(52,5) final hands of the other player)."""
    cfg = rules.progressive
    counts = five_card_counts(rules.qualifier_rank)
    return Fraction(sum(counts[h] * c for h, c in cfg.envy_cents.items()), comb(52, 5) * cfg.wager_cents)


def progressive_sweep(rules: LetItRideRules, meter: str) -> MeterSweep:
    """The Progressive's exact edge as a function of meter ``meter`` (the others at reset) and the meter
    value where it is 0 (R-LIR-7)."""
    cfg = rules.progressive
    counts = five_card_counts(rules.qualifier_rank)
    total = comb(52, 5) * cfg.wager_cents
    resets = {m.name: m.reset_cents for m in cfg.meters}
    hands = [h for h, name in cfg.meter_prizes.items() if name == meter]
    n_hit = sum(counts[h] for h in hands)
    others = sum(
        counts[h]
        * (resets[cfg.meter_prizes[h]] if h in cfg.meter_prizes else cfg.fixed_prizes_cents.get(h, 0))
        for h in LirHand
        if h not in hands
    )

    def edge(meter_cents: Fraction) -> Fraction:
        return 1 - (others + n_hit * Fraction(meter_cents)) / total

    m = cfg.meter(meter)
    return MeterSweep(
        f"Progressive ({m.title or m.name} meter)",
        m.name,
        m.reset_cents,
        Fraction(total - others, n_hit),
        edge,
    )


ANALYZER = LetItRideAnalyzer()

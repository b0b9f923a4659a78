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
>>> s = optimal_strategy(LetItRideRules())
>>> s.best(parse_cards("Ts Js Qs")), s.best(parse_cards("9h 9c 2d"))
(Action(name='ride', index=None), Action(name='pull', index=None))
>>> s.second(parse_cards("4c 5d 6h 7s"))[RIDE]  - s.second(parse_cards("4c 5d 6h 7s"))[PULL]
Fraction(0, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

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
    combinations_array,
    stacked_deck,
)
from tablegames.cards import format_cards, parse_cards
from tablegames.engine.actions import PULL, RIDE, Action
from tablegames.rules.common import PayTable, RuleError, enum_key
from tablegames.rules.indexing import build_pattern_tables, rank_index, rank_weights
from tablegames.rules.let_it_ride import (
    BONUS_PAYTABLES,
    BonusHand,
    LetItRideRules,
    LirDecision,
    LirHand,
    lir_hand_of,
    ride_first,
    ride_second,
)
from tablegames.rules.poker import three_card_category_of

if TYPE_CHECKING:
    from tablegames.analysis.protect import GameProtection

IntArray = npt.NDArray[np.int64]

N3 = comb(52, 3)  # 22,100 player hands
N4 = comb(52, 4)  # 270,725 player hand + first community card sets
PER_HAND = 49 * 48  # ordered community cards per player hand
TOTAL_DEALS = N3 * PER_HAND
NH = len(LirHand)
BET_SIZES = (100, 500, 1_000, 2_500, 5_000, 10_000, 50_000)  # cents per wager, for the cap table


# --- lookup tables built from the rule functions -------------------------------------------------


@lru_cache(maxsize=1)
def five_card_tables() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """``LirHand`` by the rank index of the sorted ranks (``rules.indexing``), without and with a flush, from
    ``lir_hand_of``: the pattern tables the simulation expands too."""
    return build_pattern_tables(5, lir_hand_of)


_RANK = (np.arange(52) // 4).astype(np.int32)
_SUIT_BIT = (1 << (np.arange(52) % 4)).astype(np.uint8)


def _ranks_suits(hands: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """Rank indices (``rules.indexing.rank_index``) and flush flags of rows of increasing cards (rank order =
    card order)."""
    keys = np.zeros(len(hands), dtype=np.int32)
    bits = np.full(len(hands), 15, dtype=np.uint8)
    for i, weight in enumerate(rank_weights(hands.shape[1]).tolist()):
        col = hands[:, i]
        keys += _RANK[col] * weight
        bits &= _SUIT_BIT[col]
    return keys, bits != 0


@lru_cache(maxsize=8)
def combos(n: int, k: int) -> npt.NDArray[np.int8]:
    """Cached :func:`combinations_array` (read-only)."""
    out = combinations_array(n, k)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=1)
def pattern_hist() -> npt.NDArray[np.int64]:
    """``[13**4 * 2, 10]``: for a 4-card set with sorted ranks of base-13 key ``k`` and suited flag ``f`` (row
    ``2k + f``), how many of its 48 completions make each base hand.

    A completion of rank ``r`` is one of the ``4 - count(r)`` cards of that rank left; when the four cards are
    suited, exactly one card of each rank not among them shares their suit and makes a flush-type hand.
    """
    plain, flush = five_card_tables()
    out = np.zeros((13**4 * 2, NH), dtype=np.int64)
    pats = np.array(list(combinations_with_replacement(range(13), 4)), dtype=np.int64)  # sorted rows
    key4 = pats @ rank_weights(4)
    distinct = (np.diff(pats, axis=1) > 0).all(axis=1)
    for r in range(13):
        left = 4 - (pats == r).sum(axis=1)
        ok = left > 0
        key5 = np.sort(np.concatenate([pats, np.full((len(pats), 1), r)], axis=1), axis=1) @ rank_weights(5)
        cat_plain = plain[key5[ok]].astype(np.int64)
        np.add.at(out, (2 * key4[ok], cat_plain), left[ok])
        # suited four cards: the one completion of their suit is a flush-type hand (ranks not among them)
        suited = ok & distinct
        in_pattern = (pats == r).any(axis=1)
        fl = suited & ~in_pattern
        same = suited & in_pattern
        np.add.at(out, (2 * key4[same] + 1, plain[key5[same]].astype(np.int64)), left[same])
        np.add.at(out, (2 * key4[fl] + 1, plain[key5[fl]].astype(np.int64)), left[fl] - 1)
        np.add.at(out, (2 * key4[fl] + 1, flush[key5[fl]].astype(np.int64)), 1)
    return out


@lru_cache(maxsize=1)
def hist4() -> npt.NDArray[np.int64]:
    """``[270725, 10]``: for each 4-card set (colex index), the base-hand classes over its 48 completions."""
    keys, suited = _ranks_suits(combos(52, 4))
    return pattern_hist()[keys.astype(np.int64) * 2 + suited]


_COMB = [np.array([comb(c, i + 1) for c in range(52)], dtype=np.int32) for i in range(5)]


def _drop_index(hands: npt.NDArray[np.int8], drop: int) -> npt.NDArray[np.int32]:
    """Colex index of each row with column ``drop`` removed."""
    cols = [j for j in range(hands.shape[1]) if j != drop]
    out = np.zeros(len(hands), dtype=np.int32)
    for i, j in enumerate(cols):
        out += _COMB[i][hands[:, j]]
    return out


@lru_cache(maxsize=1)
def three_of_four() -> IntArray:
    """``[4, 270725]``: colex index of each 4-card set's 3-card subsets (dropping card j)."""
    fours = combos(52, 4)
    return np.stack([_drop_index(fours, d) for d in range(4)]).astype(np.int64)


# --- the solution ----------------------------------------------------------------------------------


def win_table(paytable: PayTable[LirHand], bet_cents: int, cap_cents: int | None) -> IntArray:
    """``W[k, h]``: the base game's net result in cents with ``k`` wagers of ``bet_cents`` up and final hand
    ``h`` (R-LIR-4), the win capped at ``cap_cents`` (R-LIR-5)."""
    w = np.zeros((4, NH), dtype=np.int64)
    for h in LirHand:
        odds = paytable.odds(h)
        for k in (1, 2, 3):
            if odds is None:
                w[k, h] = -k * bet_cents
            else:
                win = odds * k * bet_cents
                w[k, h] = win if cap_cents is None else min(win, cap_cents)
    return w


def largest_base_win(rules: LetItRideRules, bet_cents: int) -> int:
    """The largest base-game win of a hand at ``bet_cents`` a wager, before the cap: all three wagers up on the
    best-paying hand (R-LIR-4)."""
    return 3 * bet_cents * max(rules.main_paytable.pays.values(), default=0)


def strategy_bet(rules: LetItRideRules, bet_cents: int | None) -> int | None:
    """The bet size the optimal strategy at ``bet_cents`` depends on: ``bet_cents`` when the cap (R-LIR-5) can
    reach it, else None.

    The strategy depends on the bet only through the cap: when not even the largest win at that bet reaches the
    cap, every win is ``bet_cents`` times the win of a unit wager, so the decisions and the EVs per unit are
    those of the uncapped strategy, one strategy shared by all such bets. Above that (standard pay table: the
    Royal Flush's 1000 to 1 on three wagers, so bets of $16.67 and more against the $50,000 cap) a three-up
    Royal Flush is capped and the EVs change.

    >>> rules = LetItRideRules()
    >>> strategy_bet(rules, 1_666), strategy_bet(rules, 1_667), strategy_bet(rules, None)
    (None, 1667, None)
    """
    if bet_cents is None or largest_base_win(rules, bet_cents) <= rules.cap_cents:
        return None
    return bet_cents


@dataclass(frozen=True, eq=False)
class _Solution:
    unit: int  # cents of one wager (1 when the cap does not apply)
    win: IntArray  # [4, NH]
    sums4: IntArray  # [N4, 4]: sum over the 48 completions of W[k]
    ride2: npt.NDArray[np.bool_]  # [2, N4]: ride wager 2, given wager 1 pulled (0) / up (1)
    value3: IntArray  # [2, N3]: sum over the 49*48 community cards, wager 1 pulled (0) / ridden (1)
    ride1: npt.NDArray[np.bool_]  # [N3]


@lru_cache(maxsize=4)  # ~10 MB each: a few bet sizes the cap reaches (strategy_bet); the rest share one
def _solve(rules: LetItRideRules, bet_cents: int | None) -> _Solution:
    if strategy_bet(rules, bet_cents) != bet_cents:
        # the cap cannot reach this bet: the uncapped solution (in units of one wager) is the same
        return _solve(rules, None)
    unit = 1 if bet_cents is None else bet_cents
    cap = None if bet_cents is None else rules.cap_cents
    w = win_table(rules.main_paytable, unit, cap)
    sums4 = hist4() @ w.T  # [N4, 4]
    ride2 = np.stack([sums4[:, s + 2] > sums4[:, s + 1] for s in (0, 1)])  # cautious: ride only if better
    v4 = np.stack([np.where(ride2[s], sums4[:, s + 2], sums4[:, s + 1]) for s in (0, 1)])
    idx3 = three_of_four()
    value3 = np.zeros((2, N3), dtype=np.int64)
    for s in (0, 1):
        # float64 bincount is exact here: every partial sum is far below 2**53 (checked).
        if np.abs(v4[s]).max() * PER_HAND >= 2**53:
            raise OverflowError("bet too large for exact float64 accumulation")
        value3[s] = np.rint(np.bincount(idx3.ravel(), weights=np.tile(v4[s], 4), minlength=N3)).astype(
            np.int64
        )
    ride1 = value3[1] > value3[0]
    return _Solution(unit, w, sums4, ride2, value3, ride1)


@dataclass(frozen=True, eq=False)
class LetItRideStrategy:
    """The optimal strategy with the exact EV of both options at both decisions.

    EVs are in units of one base wager and cover the whole remaining hand (all wagers still up, the ``$``
    wager included). Cautious tie-break: on exactly equal EVs the wager is pulled. ``bet_cents`` is None for
    the strategy without the cap, shared by every bet the cap cannot reach (:func:`strategy_bet`).
    """

    rules: LetItRideRules
    bet_cents: int | None
    _sol: _Solution = field(repr=False)

    def first(self, cards3: Sequence[int]) -> dict[Action, Fraction]:
        """EVs of pulling / riding wager 1 on the player's three cards (R-LIR-2)."""
        idx = _index(cards3, 3)
        d = PER_HAND * self._sol.unit
        return {
            PULL: Fraction(int(self._sol.value3[0, idx]), d),
            RIDE: Fraction(int(self._sol.value3[1, idx]), d),
        }

    def second(self, cards4: Sequence[int], bet1_up: bool | None = None) -> dict[Action, Fraction]:
        """EVs of pulling / riding wager 2 on the three cards plus the first community card (R-LIR-3).

        ``bet1_up``: whether wager 1 rides; by default, what the optimal first decision on ``cards4[:3]`` did.
        """
        idx = _index(cards4, 4)
        s = int(self.rides_first(cards4[:3]) if bet1_up is None else bet1_up)
        d = 48 * self._sol.unit
        sums = self._sol.sums4[idx]
        return {PULL: Fraction(int(sums[s + 1]), d), RIDE: Fraction(int(sums[s + 2]), d)}

    def rides_first(self, cards3: Sequence[int]) -> bool:
        return bool(self._sol.ride1[_index(cards3, 3)])

    def best(self, cards: Sequence[int], bet1_up: bool | None = None) -> Action:
        """The optimal action for three cards (wager 1) or four cards (wager 2)."""
        if len(cards) == 3:
            return RIDE if self.rides_first(cards) else PULL
        idx = _index(cards, 4)
        s = int(self.rides_first(cards[:3]) if bet1_up is None else bet1_up)
        return RIDE if self._sol.ride2[s, idx] else PULL


def _index(cards: Sequence[int], n: int) -> int:
    cs = [int(c) for c in cards]
    if len(cs) != n or len(set(cs)) != n or not all(0 <= c < 52 for c in cs):
        raise ValueError(f"need {n} distinct cards, got {cards!r}")
    return colex_of(cs)


def optimal_strategy(rules: LetItRideRules, bet_cents: int | None = None) -> LetItRideStrategy:
    """The cached optimal strategy for ``rules`` (and, when given, the wager size that applies the cap): one
    object for every bet the cap cannot reach (:func:`strategy_bet`), a few capped bet sizes kept (LRU)."""
    return _strategy(rules, strategy_bet(rules, bet_cents))


@lru_cache(maxsize=4)
def _strategy(rules: LetItRideRules, bet_cents: int | None) -> LetItRideStrategy:
    return LetItRideStrategy(rules, bet_cents, _solve(rules, bet_cents))


# --- the analysis ------------------------------------------------------------------------------------


def outcome_counts(sol: _Solution) -> IntArray:
    """``[4, NH]``: ordered deals ending with ``k`` wagers up and base hand ``h`` under the strategy."""
    h4 = hist4()
    idx3 = three_of_four()
    counts = np.zeros((4, NH), dtype=np.int64)
    for j in range(4):
        s = sol.ride1[idx3[j]].astype(np.int64)
        r2 = np.where(s == 1, sol.ride2[1], sol.ride2[0]).astype(np.int64)
        k = 1 + s + r2
        for kk in (1, 2, 3):
            counts[kk] += h4[k == kk].sum(axis=0)
    return counts


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


@lru_cache(maxsize=1)
def five_card_counts() -> dict[LirHand, int]:
    """Base hands over all C(52,5) five-card hands (each is a completion of five 4-card sets)."""
    counts = hist4().sum(axis=0) // 5
    return {h: int(counts[h]) for h in LirHand}


def progressive_side_bet(rules: LetItRideRules, meters_cents: Mapping[str, int] | None = None) -> SideBet:
    """Progressive (R-LIR-7) and Envy Bonus (R-LIR-8) on the final five-card hand (all C(52,5) equally likely).

    Fixed prizes and meter prizes pay "for 1" (R-0.3): the net result is prize - wager.
    """
    cfg = rules.progressive
    wager = cfg.wager_cents
    counts = five_card_counts()
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
            outcomes.append(
                Outcome(f"{_hand_name(h)}, {k} up", n, Fraction(int(sol.win[k, h]), sol.unit), Fraction(k))
            )
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


def bet1_figures(sol: _Solution) -> dict[str, Fraction]:
    """Figures of the first decision: probability of riding and the EV of wager 1."""
    ride = sol.ride1
    # EV of wager 1 alone when it rides: value3[1] - value3[0] is exactly wager 1's contribution when the
    # second decision does not depend on wager 1 (always true without the cap).
    gain = (sol.value3[1] - sol.value3[0]).astype(object)
    ridden = int(ride.sum())
    ev_ride_total = sum(gain[ride].tolist(), 0)
    return {
        "p_ride_bet1": Fraction(ridden, N3),
        "ev_bet1": Fraction(ev_ride_total, TOTAL_DEALS * sol.unit),
        "ev_bet1_when_ridden": Fraction(ev_ride_total, ridden * PER_HAND * sol.unit)
        if ridden
        else Fraction(0),
    }


def bet2_figures(sol: _Solution) -> dict[str, Fraction]:
    """Probability of riding wager 2 and its EV, over all ordered deals under the strategy."""
    idx3 = three_of_four()
    n_ride = 0
    ev = 0
    for j in range(4):
        s = sol.ride1[idx3[j]]
        r2 = np.where(s, sol.ride2[1], sol.ride2[0])
        n_ride += int(r2.sum()) * 48
        gain = np.where(s, sol.sums4[:, 3] - sol.sums4[:, 2], sol.sums4[:, 2] - sol.sums4[:, 1])
        ev += int(gain[r2].sum())
    return {"p_ride_bet2": Fraction(n_ride, TOTAL_DEALS), "ev_bet2": Fraction(ev, TOTAL_DEALS * sol.unit)}


@lru_cache(maxsize=1)
def _published_tables() -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The published strategy (``ride_first``/``ride_second`` of the rules module) for every 3- and 4-card
    set, by calling the rule functions once per rank pattern and flush flag."""
    out = []
    for n, fn in ((3, ride_first), (4, ride_second)):
        hands = combos(52, n)
        keys, is_flush = _ranks_suits(hands)
        code = keys * 2 + is_flush
        uniq, inverse = np.unique(code, return_inverse=True)
        first = np.zeros(len(uniq), dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(hands))[::-1]
        decisions = np.array([fn([int(c) for c in hands[i]]) for i in first.tolist()], dtype=bool)
        out.append(decisions[inverse])
    return out[0], out[1]


def _group(hands: npt.NDArray[np.int8], limit: int = 12) -> list[str]:
    from tablegames.analysis.common import canonical_key

    groups: dict[tuple[int, ...], int] = {}
    for row in hands.tolist():
        key = canonical_key(row)
        groups[key] = groups.get(key, 0) + 1
    items = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    text = [f"{format_cards(k)} (and {n - 1} suit variants)" if n > 1 else format_cards(k) for k, n in items]
    return text[:limit] + ([f"... {len(text) - limit} more classes"] if len(text) > limit else [])


def strategy_description(
    rules: LetItRideRules, sol: _Solution, full: bool
) -> tuple[dict[str, Any], list[str]]:
    pub1, pub2 = _published_tables()
    b1, b2 = bet1_figures(sol), bet2_figures(sol)
    summary = [
        "Wager 1 (three cards): ride with a paying pair (tens or better) or trips, three to a royal flush, three "
        "suited in a row except 2-3-4 and A-2-3, three to a straight flush with one gap and at least one high "
        "card (ten or better), or with two gaps and at least two high cards; otherwise pull.",
        "Wager 2 (four cards): ride with a paying hand (tens or better, two pair, trips, ...), four to a flush, "
        "or four to an outside straight with at least one high card; otherwise pull.",
    ]
    d1 = np.nonzero(pub1 != sol.ride1)[0]
    d2 = np.nonzero(pub2 != sol.ride2[0])[0]
    zero2 = sol.sums4[:, 2] == sol.sums4[:, 1]
    if len(d1) == 0:
        summary.append("The exact first decision equals this published rule on all 22,100 three-card hands.")
    else:
        summary.append(f"The exact first decision differs from the published rule on {len(d1)} hands:")
        summary.extend("  " + s for s in _group(combos(52, 3)[d1]))
    if len(d2) == 0:
        summary.append("The exact second decision equals this published rule on all 270,725 four-card sets.")
    else:
        tied = int(zero2[d2].sum())
        summary.append(
            f"The exact second decision differs from the published rule on {len(d2)} four-card sets "
            f"({tied} of them have riding worth exactly 0 and are pulled by the cautious tie-break):"
        )
        summary.extend("  " + s for s in _group(combos(52, 4)[d2]))
    if bool((sol.ride2[0] != sol.ride2[1]).any()):
        summary.append("With the cap, the second decision also depends on whether wager 1 rides.")
    summary.append(
        f"P(ride wager 1) = {float(b1['p_ride_bet1']):.5f}, P(ride wager 2) = {float(b2['p_ride_bet2']):.5f}; "
        f"EV of wager 1 when ridden = {float(b1['ev_bet1_when_ridden']):+.5f}."
    )
    data: dict[str, Any] = {
        "p_ride_bet1": float(b1["p_ride_bet1"]),
        "p_ride_bet2": float(b2["p_ride_bet2"]),
        "ev_bet1": float(b1["ev_bet1"]),
        "ev_bet1_when_ridden": float(b1["ev_bet1_when_ridden"]),
        "ev_bet2": float(b2["ev_bet2"]),
        "differences_from_published": {"bet1": len(d1), "bet2": len(d2)},
    }
    if full:
        data["table"] = full_table(sol)
    return data, summary


def full_table(sol: _Solution) -> dict[str, list[dict[str, Any]]]:
    """Every decision, one entry per suit-isomorphism class: the EVs of pull and ride (remaining hand)."""
    threes = combos(52, 3)
    keys3 = canonical_keys(threes)
    _, first3, count3 = np.unique(keys3, return_index=True, return_counts=True)
    first_rows = []
    for i, n in zip(first3.tolist(), count3.tolist(), strict=True):
        pull, ride = (int(sol.value3[s, i]) / (PER_HAND * sol.unit) for s in (0, 1))
        first_rows.append(
            {
                "cards": format_cards([int(c) for c in threes[i]]),
                "hands": n,
                "pull": round(pull, 6),
                "ride": round(ride, 6),
                "best": "ride" if sol.ride1[i] else "pull",
            }
        )
    fours = combos(52, 4)
    keys4 = canonical_keys(fours)
    _, first4, count4 = np.unique(keys4, return_index=True, return_counts=True)
    second_rows = []
    d = 48 * sol.unit
    for i, n in zip(first4.tolist(), count4.tolist(), strict=True):
        row = sol.sums4[i] / d
        second_rows.append(
            {
                "cards": format_cards([int(c) for c in fours[i]]),
                "sets": n,
                "bet1_pulled": {"pull": round(float(row[1]), 6), "ride": round(float(row[2]), 6)},
                "bet1_up": {"pull": round(float(row[2]), 6), "ride": round(float(row[3]), 6)},
                "best": "ride" if sol.ride2[0, i] else "pull",
                "best_bet1_up": "ride" if sol.ride2[1, i] else "pull",
            }
        )
    return {"bet1": first_rows, "bet2": second_rows}


def canonical_keys(hands: npt.NDArray[np.int8]) -> IntArray:
    """One key per suit-isomorphism class: the smallest base-52 code over the 24 suit relabellings."""
    from itertools import permutations

    ranks = (hands // 4).astype(np.int64)
    suits = (hands % 4).astype(np.int64)
    best = np.full(len(hands), np.iinfo(np.int64).max, dtype=np.int64)
    n = hands.shape[1]
    for perm in permutations(range(4)):
        cards = np.sort(ranks * 4 + np.array(perm)[suits], axis=1)
        code = np.zeros(len(hands), dtype=np.int64)
        for i in range(n):
            code = code * 52 + cards[:, i]
        np.minimum(best, code, out=best)
    return best


def plot_strategy(rules: LetItRideRules, bet_cents: int | None, path: Path) -> None:
    """The EV gain of riding each wager, over all hands sorted, split at zero."""
    from tablegames.analysis.report import _plt

    sol = _solve(rules, bet_cents)
    g1 = np.sort((sol.value3[1] - sol.value3[0]) / (PER_HAND * sol.unit))[::-1]
    g2 = np.sort((sol.sums4[:, 2] - sol.sums4[:, 1]) / (48 * sol.unit))[::-1]
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, g, title, n in (
        (axes[0], g1, "wager 1: three cards", "three-card hands"),
        (axes[1], g2, "wager 2: four cards", "four-card sets"),
    ):
        x = np.arange(len(g))
        ax.plot(x[g > 0], g[g > 0], ".", ms=2, color="#27ae60", label=f"ride ({int((g > 0).sum()):,})")
        ax.plot(x[g <= 0], g[g <= 0], ".", ms=1, color="#c0392b", label=f"pull ({int((g <= 0).sum()):,})")
        ax.axhline(0, color="black", lw=0.8)
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_title(title)
        ax.set_xlabel(f"{n}, best first")
        ax.set_ylabel("EV(ride) - EV(pull), units")
        ax.legend()
    fig.suptitle("Let It Ride: value of letting each wager ride (cautious: pull at exactly 0)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the analyzer, as generic callers use it ------------------------------------------------------------


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
                {"base": "win", "bonus": "win", "progressive": "lose"},
            ),
            ExampleSpec(
                "A loss: nothing to ride; wagers 1 and 2 are withdrawn, the $ wager loses",
                deck("2c 5d 9h", "3d Js 3s"),
                small,
                {"bet 1": "pulled", "bet 2": "pulled", "base": "lose", "bonus": "lose"},
            ),
            ExampleSpec(
                "Side bets hit: trips pay 3 to 1 on three wagers, 40 to 1 on the 3-Card Bonus, $9 on the "
                "Progressive",
                deck("7c 7d 7h", "2d 2s 9c"),
                small,
                {"base": "win", "bonus": "win", "progressive": "win"},
            ),
            ExampleSpec(
                "The Envy Bonus at a table of two: seat 1 makes a Straight Flush and takes the Major meter; "
                "seat 2, with a Progressive wager, is paid the Envy Bonus",
                stacked_deck(
                    parse_cards("5s 6s 7s"), parse_cards("2d 8s 9s"), others=[parse_cards("Kc Qd 4h")]
                ),
                small,
                {"base": "win", "progressive": "win"},
                seats=2,
            ),
            ExampleSpec(
                f"The cap and the Mega meter: a Royal Flush with three $25 wagers up is capped at "
                f"${rules.cap_cents / 100:,.0f}; the Progressive takes the Mega meter",
                deck("Ts Js Qs", "2d Ks As"),
                big,
                {"base": "win", "bonus": "win"},
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
        counts = five_card_counts()
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

    def protection(self) -> GameProtection:
        from tablegames.analysis.protect_let_it_ride import PROTECTION

        return PROTECTION


def _p_up(a: Analysis, k: int) -> Fraction:
    """The probability that ``k`` wagers are up at the showdown, from the return table ("<hand>, k up")."""
    return Fraction(sum(o.combinations for o in a.outcomes if o.name.endswith(f", {k} up")), a.total)


def envy_value(rules: LetItRideRules) -> Fraction:
    """R-LIR-8: the Envy Bonus one Progressive wager collects per other Progressive player, in units of the
    wager (exact, over all C(52,5) final hands of the other player)."""
    cfg = rules.progressive
    counts = five_card_counts()
    return Fraction(sum(counts[h] * c for h, c in cfg.envy_cents.items()), comb(52, 5) * cfg.wager_cents)


def progressive_sweep(rules: LetItRideRules, meter: str) -> MeterSweep:
    """The Progressive's exact edge as a function of meter ``meter`` (the others at reset) and the meter
    value where it is 0 (R-LIR-7)."""
    cfg = rules.progressive
    counts = five_card_counts()
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

"""Game protection for Three Card Poker (RULES.md §4): dealer cards flashed before the play-or-fold
decision, and players pooling their cards.

The dealer's three cards are dealt face down (R-TCP-1) and the player decides on their own three only
(R-TCP-2). ``dealer-K`` (K = 1, 2, 3): K of the dealer's cards are seen first; the player then plays exactly
when playing is worth more than the lost Ante given what is seen (folding on an exact tie). Every deal is
enumerated: each player hand (up to suits, weighted by its count) against every dealer hand of the 49 cards
left, the seen cards of a dealer hand being any K of its three (each K-subset of the 49 equally likely), so each
figure is an exact fraction. ``none`` (K = 0) is the fair game through the same enumeration: a check.

``share=K``: the player also knows the other K-1 players' hands, so only the card removal changes; it is
simulated (seeded deals, each decided exactly over the dealer hands left, the mean gain over the fair strategy
on the same deals added to the exact fair EV).

>>> from tablegames.rules import make_rules
>>> solve(make_rules("three-card-poker"), "dealer-1").player_ev
Fraction(443162, 12724075)
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.common import colex_of
from tablegames.analysis.protect import (
    Exposure,
    GameProtection,
    Scenario,
    changes_from_counts,
    simulate_share,
)
from tablegames.rules.common import RuleError, enum_key
from tablegames.rules.flow import Action
from tablegames.rules.three_card_poker import (
    FOLD,
    LOSE,
    NO_QUALIFY,
    PLAY,
    TIE,
    WIN,
    TcpHand,
    ThreeCardPokerRules,
)

IntArray = npt.NDArray[np.int64]

SCENARIOS = (
    Scenario(
        "dealer-1", "one of the dealer's face-down cards flashed before the play-or-fold decision", True
    ),
    Scenario("dealer-2", "two of the dealer's cards seen before the decision", True),
    Scenario("dealer-3", "all three dealer cards seen before the decision (the dealer's hand known)", True),
)
SEEN = {"none": 0, "dealer-1": 1, "dealer-2": 2, "dealer-3": 3}


def _deck() -> tuple[IntArray, IntArray, IntArray, npt.NDArray[np.uint64]]:
    """Every three-card hand in colex order: its cards, strength, hand, and card mask (the analysis' tables)."""
    t = tcpa._hands()
    return t.cards, t.strength, t.hand, t.masks


def _classes() -> list[tuple[int, int]]:
    """(colex index of a representative, number of hands it stands for): every player hand up to suit
    relabelling, once (the analysis' classes)."""
    t = tcpa._hands()
    return list(zip(t.rep.tolist(), t.weight.tolist(), strict=True))


def play_values(rules: ThreeCardPokerRules, i: int, dealer: IntArray) -> IntArray:
    """What playing player hand ``i`` (colex) returns net against each dealer hand of rows ``dealer``: Ante and
    Play (R-TCP-4) plus the Ante Bonus (R-TCP-5), in units of the Ante, by the rules' qualifier and payouts."""
    _hands, st, hand, _masks = _deck()
    d, me = st[dealer], st[i]
    res = np.where(
        d < rules.qualifying_strength, NO_QUALIFY, np.where(d < me, WIN, np.where(d == me, TIE, LOSE))
    )
    return tcpa._result_values(rules)[res] + (rules.ante_bonus.odds(TcpHand(int(hand[i]))) or 0)


@lru_cache(maxsize=8)
def _values(rules: ThreeCardPokerRules, i: int) -> tuple[IntArray, IntArray]:
    """For player hand ``i`` (colex): the dealer hands of the 49 cards left (their rows) and the value of
    playing against each (read-only: kept for the next tables of the same hand, detection builds four)."""
    masks = _deck()[3]
    free = np.flatnonzero((masks & masks[i]) == 0)
    values = play_values(rules, i, free)
    free.setflags(write=False)
    values.setflags(write=False)
    return free, values


@lru_cache(maxsize=8)
def _solve(rules: ThreeCardPokerRules, k: int) -> tuple[Fraction, dict[tuple[str, str, str], int], int]:
    """(player EV, changed decisions counted per (hand, fair, informed) over ``units`` equally likely
    (player hand, seen cards) situations, units)."""
    hands, _st, hand, _masks = _deck()
    fair = tcpa.optimal_strategy(rules).plays
    per = comb(49, k)  # seen sets per player hand
    n = comb(49 - k, 3 - k)  # dealer completions per seen set
    num = 0
    changed: dict[tuple[str, str, str], int] = {}
    for i, w in _classes():
        rows, v = _values(rules, i)
        if k == 0:
            sums = np.array([int(v.sum())])
        elif k == 3:
            sums = v  # the dealer's hand is seen whole
        else:
            # every k-subset of each dealer hand is a seen set; sum the values of its completions
            sub = list(combinations(range(3), k))
            cards = hands[rows]
            keys = np.zeros((len(rows), len(sub)), dtype=np.int64)
            for j, s in enumerate(sub):
                for t, col in enumerate(s):
                    keys[:, j] += cards[:, col] * 52**t
            flat = keys.ravel()
            seen = np.bincount(flat, minlength=52**k) > 0
            sums = np.bincount(flat, weights=np.repeat(v, len(sub)), minlength=52**k)[seen].astype(np.int64)
        assert len(sums) == (per if k else 1)
        best = np.maximum(sums, -n)  # fold: -1 per completion; an exact tie folds (the same value)
        num += w * int(best.sum())
        plays = sums > -n
        f = bool(fair[i])
        label = enum_key(TcpHand(int(hand[i])))
        switched = int(np.count_nonzero(plays != f))
        if switched:
            key = (label, "play" if f else "fold", "fold" if f else "play")
            changed[key] = changed.get(key, 0) + w * switched
    units = tcpa.HANDS * per
    return Fraction(num, units * n), changed, units


def solve(rules: ThreeCardPokerRules, scenario: str) -> Exposure:
    if scenario not in SEEN:
        raise RuleError(f"unknown scenario {scenario!r}; choose {', '.join(s.name for s in SCENARIOS)}")
    ev, changed, units = _solve(rules, SEEN[scenario])
    return Exposure(ev, changes_from_counts(changed, units), True)


def share(rules: ThreeCardPokerRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
    """``share=k`` (k >= 2), simulated (see the module)."""
    _hands, _st, hand, masks = _deck()
    fair = tcpa.optimal_strategy(rules).plays

    def batch(decks: IntArray) -> tuple[npt.NDArray[np.float64], list[tuple[str, str, str]]]:
        gains = np.empty(len(decks))
        changed: list[tuple[str, str, str]] = []
        for r, deck in enumerate(decks):
            dealt = deck[: 3 * k]
            mine = colex_of(dealt[:3].tolist())
            known = np.uint64(sum(1 << int(c) for c in dealt))
            play = float(play_values(rules, mine, np.flatnonzero((masks & known) == 0)).mean())
            informed, f = play > -1, bool(fair[mine])
            gains[r] = max(play, -1.0) - (play if f else -1.0)
            if informed != f:
                label = enum_key(TcpHand(int(hand[mine])))
                changed.append((label, "play" if f else "fold", "play" if informed else "fold"))
        return gains, changed

    fair_ev = float(tcpa.analyze(rules).expected_value)
    return simulate_share(
        sim_rounds, seed, fair_ev, batch, how="decided exactly over the dealer hands left", batch_size=5_000
    )


def informed_action(rules: ThreeCardPokerRules, scenario: str) -> Callable[[Any, int], Action]:
    """The scenario's optimal play at a live round: the seat's cards and the first K dealer cards seen
    (``dealer-K``), or the other seats' cards (``share=K``)."""
    k = SEEN.get(scenario, 0)

    def act(rnd: Any, seat: int) -> Action:
        mine = [int(c) for c in rnd.seats[seat].cards]
        seen = [int(c) for c in rnd.dealer[:k]]
        gone = set(mine) | set(seen)
        if scenario.startswith("share="):
            for other in rnd.active_seats:
                if other.seat != seat:
                    gone |= {int(c) for c in other.cards}
        rest = [c for c in range(52) if c not in gone]
        idx = np.array([colex_of([*seen, *more]) for more in combinations(rest, 3 - k)], dtype=np.int64)
        return PLAY if int(play_values(rules, colex_of(mine), idx).sum()) > -len(idx) else FOLD

    return act


class ThreeCardPokerProtection(GameProtection):
    rounds_per_hour = 60

    def scenarios(self, rules: ThreeCardPokerRules) -> list[Scenario]:
        return list(SCENARIOS)

    def solve(self, rules: ThreeCardPokerRules, scenario: str, *, sim_rounds: int, seed: int) -> Exposure:
        return solve(rules, scenario)

    def share(self, rules: ThreeCardPokerRules, k: int, *, sim_rounds: int, seed: int) -> Exposure:
        return share(rules, k, sim_rounds=sim_rounds, seed=seed)

    def informed_action(self, rules: ThreeCardPokerRules, scenario: str) -> Callable[[Any, int], Action]:
        return informed_action(rules, scenario)


PROTECTION = ThreeCardPokerProtection()

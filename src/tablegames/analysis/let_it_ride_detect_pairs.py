"""Collusion in Let It Ride (RULES.md §1): ``share=2``, a player who sees a tablemate's three cards.

The informed player knows the partner's cards are not among the community cards. Decision 1 (wager 1, R-LIR-2)
is ``protect``'s ``share=2`` informed decision (``protect_let_it_ride._share_batch``: every ordered pair of
community cards of the 46 left, decision 2 taken informed on the four known cards); decision 2 (wager 2,
R-LIR-3) rides when riding is worth more over the second community card's 45 possible cards. Riding only when
strictly better (the cautious tie-break). Values per unit, the aggregate cap (R-LIR-5) not applied, as
``protect`` computes them; the legal values are the exact advisor's.

``p``: over the partner's possible hands given the player's information (C(49, 3) = 18,424 at decision 1,
C(48, 3) at decision 2), each equally likely (R-0.1), the fraction for which the chosen action is the informed
choice (exact counts). At decision 1 every partner hand is decided at once (:func:`ride_table`, the same
arithmetic as ``_share_batch`` over arrays of the player's 49 x 49 five-card completions, tested equal to it),
once per hand class (suits relabelled: the count is a class's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import let_it_ride as lir
from tablegames.analysis.detect import DecisionScore, Lazy, LegalMistakes, scorer
from tablegames.analysis.protect_let_it_ride import _colex, hand5
from tablegames.engine import Action, Round
from tablegames.engine.actions import PULL, RIDE
from tablegames.rules.let_it_ride import LetItRideRules

PAIR_SCENARIOS = ("share=2",)
PERMS = list(permutations(range(4)))


def canonical(mine: Sequence[int]) -> tuple[int, ...]:
    """The least relabelling of a hand's suits (a class representative: ``p`` at decision 1 is a class's)."""
    return min(tuple(sorted((int(c) >> 2) * 4 + perm[int(c) & 3] for c in mine)) for perm in PERMS)


@lru_cache(maxsize=2_000)
def ride_table(rules: LetItRideRules, mine: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """Whether the informed player rides wager 1 for each partner hand (the C(49, 3) hands of the cards left,
    in ``combinations`` order): the player's four-card sums over the 48 completions less the partner's
    three, decision 2 informed, summed over the first community card (``_share_batch``'s arithmetic)."""
    sol = lir._solve(rules, None)
    win, h5 = np.asarray(sol.win, dtype=np.int64), hand5(rules.qualifier_rank)
    rest = np.array([c for c in range(52) if c not in mine], dtype=np.int64)
    n = len(rest)
    four = np.sort(np.column_stack([np.tile(np.array(mine, dtype=np.int64), (n, 1)), rest]), axis=1)
    base = np.asarray(sol.sums4, dtype=np.int64)[_colex_rows(four)]  # [c1, k]
    fives = np.concatenate([np.repeat(four[:, None, :], n, axis=1), np.tile(rest, (n, 1))[..., None]], axis=2)
    fives[np.arange(n), np.arange(n), 4] = rest[(np.arange(n) + 1) % n]  # the diagonal: any valid hand
    w = win.T[h5[_colex_rows(fives.reshape(-1, 5))].astype(np.int64)].reshape(n, n, 4)  # [c1, x, k]
    trip = np.array(list(combinations(range(n), 3)), dtype=np.int64)
    out = np.empty(len(trip), dtype=np.bool_)
    for lo in range(0, len(trip), 3_000):
        b = trip[lo : lo + 3_000]
        t = base[None] - w[:, b[:, 0]].transpose(1, 0, 2) - w[:, b[:, 1]].transpose(1, 0, 2)
        t -= w[:, b[:, 2]].transpose(1, 0, 2)  # [b, c1, k]
        valid = np.ones((len(b), n), dtype=np.bool_)
        np.put_along_axis(valid, b, False, axis=1)
        value = [np.where(valid, np.maximum(t[..., s + 2], t[..., s + 1]), 0).sum(axis=1) for s in (0, 1)]
        out[lo : lo + len(b)] = value[1] > value[0]
    return out


def _colex_rows(rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    s = np.sort(rows, axis=1)
    return _colex([s[:, j] for j in range(s.shape[1])])


class LetItRidePairScorer(LegalMistakes):
    """Scores ride-or-pull decisions under ``share=2`` (the partner's three cards seen)."""

    def __init__(self, rules: LetItRideRules, scenario: str) -> None:
        self.rules = rules
        self.scenario = scenario
        # the legal values and the mistake check: the game's scorer (its module imports this one)
        self.legal: Any = scorer(rules, "community-2")
        self.sol = lir._solve(rules, None)
        self.h5 = hand5(rules.qualifier_rank)
        self._supports: dict[tuple[int, ...], dict[Action, Fraction]] = {}

    def score(self, rnd: Round, seat: int, action: Action, *, partner: int) -> DecisionScore:
        flow: Any = rnd.flow
        mine = [int(c) for c in rnd.seats[seat].cards]
        theirs = [int(c) for c in rnd.seats[partner].cards]
        up1 = "1" in flow.up[seat]
        return self.score_cards(mine, theirs, int(rnd.dealer[1]), int(flow.stage), up1, action)

    def score_dealt(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> DecisionScore:
        """A recorded decision from the dealt cards by owner: the same score as :meth:`score` (tested)."""
        stage, up1 = self.legal._stage(prior)
        c1 = int(dealt["dealer"][1])
        return self.score_cards(dealt[f"seat {seat}"], dealt[f"seat {partner}"], c1, stage, up1, action)

    def score_key(
        self,
        dealt: Mapping[str, Sequence[int]],
        seat: int,
        action: Action,
        prior: Sequence[Action] = (),
        *,
        partner: int,
    ) -> Hashable:
        """The player's and the partner's cards (sets), the stage and wager 1's state, the first community card
        at decision 2, the action: all :meth:`score_dealt` reads."""
        stage, up1 = self.legal._stage(prior)
        c1 = int(dealt["dealer"][1]) if stage == 2 else -1
        mine, theirs = tuple(sorted(dealt[f"seat {seat}"])), tuple(sorted(dealt[f"seat {partner}"]))
        return (mine, theirs, c1, stage, up1, action)

    def support1(self, mine: Sequence[int]) -> dict[Action, Fraction]:
        """P(each action is the informed choice at decision 1) over the partner's hands (a class's)."""
        key = canonical(mine)
        found = self._supports.get(key)
        if found is None:
            rides = ride_table(self.rules, key)
            n = int(np.count_nonzero(rides))
            found = self._supports[key] = {
                RIDE: Fraction(n, len(rides)),
                PULL: Fraction(len(rides) - n, len(rides)),
            }
        return found

    def score_cards(
        self, mine: Sequence[int], theirs: Sequence[int], c1: int, stage: int, up1: bool, action: Action
    ) -> DecisionScore:
        """The score from the cards alone (the player's three, the partner's three, the first community card)."""
        mine, theirs = sorted(int(c) for c in mine), sorted(int(c) for c in theirs)
        legal: dict[Action, Fraction | float] = dict(self.legal._legal(mine, c1, stage, up1))
        legal_best = RIDE if legal[RIDE] > legal[PULL] else PULL
        support: Mapping[Action, Fraction]
        if stage == 1:
            pull, ride = self._values1(mine, theirs)
            exposed: dict[Action, Fraction | float] = {PULL: pull, RIDE: ride}
            support = Lazy(lambda: self.support1(mine))
        else:  # the second community card hidden, over the 45 left
            k = 1 + int(up1)
            win = self.sol.win
            rest = [c for c in range(52) if c not in (*mine, c1)]
            h = self.h5[_colex_rows(np.array([sorted([*mine, c1, x]) for x in rest], dtype=np.int64))]
            pull_w, ride_w = win[k, h].astype(np.int64), win[k + 1, h].astype(np.int64)
            out = [rest.index(x) for x in theirs]
            exposed = {
                PULL: Fraction(int(pull_w.sum() - pull_w[out].sum()), 45),
                RIDE: Fraction(int(ride_w.sum() - ride_w[out].sum()), 45),
            }
            support = Lazy(lambda: _support2(ride_w - pull_w))
        informed = RIDE if exposed[RIDE] > exposed[PULL] else PULL
        return DecisionScore(action, legal, exposed, legal_best, informed, support)

    def _values1(self, mine: list[int], theirs: list[int]) -> tuple[Fraction, Fraction]:
        """Decision 1's values (pull, ride) per unit with the partner's cards out (``_share_batch``'s sums)."""
        win = np.asarray(self.sol.win, dtype=np.int64)
        rest = [c for c in range(52) if c not in (*mine, *theirs)]
        four = np.array([sorted([*mine, c]) for c in rest], dtype=np.int64)
        sums = np.asarray(self.sol.sums4, dtype=np.int64)[_colex_rows(four)].copy()
        for x in theirs:
            five = np.sort(np.column_stack([four, np.full(len(rest), x)]), axis=1)
            sums -= win.T[self.h5[_colex_rows(five)].astype(np.int64)]
        value = [int(np.maximum(sums[:, s + 2], sums[:, s + 1]).sum()) for s in (0, 1)]
        n = len(rest) * (len(rest) - 1)
        return Fraction(value[0], n), Fraction(value[1], n)


def _support2(diff: npt.NDArray[np.int64]) -> dict[Action, Fraction]:
    """Decision 2: the informed player rides when the 45 cards left favour riding, over every partner hand
    (three of the 48 cards left: ``diff`` is what riding gains on each as the second community card)."""
    rides = int(np.count_nonzero(int(diff.sum()) - diff[_trips(len(diff))].sum(axis=1) > 0))
    n = len(_trips(len(diff)))
    return {RIDE: Fraction(rides, n), PULL: Fraction(n - rides, n)}


@lru_cache(maxsize=4)
def _trips(n: int) -> npt.NDArray[np.int64]:
    return np.array(list(combinations(range(n), 3)), dtype=np.int64)


def pair_scorer(rules: LetItRideRules, scenario: str) -> LetItRidePairScorer:
    return LetItRidePairScorer(rules, scenario)

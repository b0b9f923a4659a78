"""Let It Ride's decisions checked in arrays for ``tablegames detect --database`` (issue 27): which are mistakes
under the legal information, by the exact solution's tables (wager 1 on the three cards, R-LIR-2: each option's
value summed over the community cards; wager 2 with the first community card, R-LIR-3, by wager 1's state), as
:meth:`~tablegames.analysis.let_it_ride_detect.LetItRideScorer.mistake_dealt` reads them through the exact
advisor (tested equal). The mistakes are scored by the scorers, one by one (cached)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tablegames.analysis.detect_chunk import Decisions
from tablegames.analysis.let_it_ride_detect import LetItRideScorer
from tablegames.engine.actions import PULL, RIDE

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def _colex(sorted_cards: IntArray) -> IntArray:
    """The colex index of each row of ascending cards (``colex_of``)."""
    out = np.zeros(len(sorted_cards), dtype=np.int64)
    for i in range(sorted_cards.shape[1]):
        c = sorted_cards[:, i]
        term = np.ones(len(c), dtype=np.int64)
        for j in range(i + 1):  # comb(c, i + 1), exactly
            term = term * (c - j) // (j + 1)
        out += np.where(c > i, term, 0)
    return out


def mistakes(scorer: LetItRideScorer, d: Decisions) -> tuple[BoolArray, BoolArray]:
    """Which decisions are read here (three cards dealt to the seat and two to the dealer, all distinct;
    ride or pull), and which of them are mistakes; the others go to the scorer one by one."""
    ride = np.asarray([a == RIDE for a in d.actions] or [False], dtype=np.bool_)[d.action]
    pull = np.asarray([a == PULL for a in d.actions] or [False], dtype=np.bool_)[d.action]
    n = len(d.seat)
    mine = d.cards[:, :3] if d.cards.shape[1] >= 3 else np.full((n, 3), -1)
    c1 = d.dealer[:, 1] if d.dealer.shape[1] >= 2 else np.full(n, -1)
    four = np.sort(np.column_stack([mine, c1]), axis=1)
    three = np.sort(mine, axis=1)
    ok = (d.count == 3) & (d.dealer_count >= 2) & (ride | pull)
    ok &= (four[:, 0] >= 0) & (four[:, 3] < 52) & (np.diff(four, axis=1) > 0).all(axis=1)
    sol = scorer.strategy._sol
    first = d.prior == 0
    up1 = np.asarray([a == RIDE for a in d.actions] or [False], dtype=np.bool_)[np.maximum(d.prior_first, 0)]
    up1 &= d.prior > 0
    i3 = np.where(ok, _colex(np.maximum(three, 0)), 0)
    i4 = np.where(ok, _colex(np.maximum(four, 0)), 0)
    s = up1.astype(np.int64)
    pull_v = np.where(first, sol.value3[0, i3], sol.sums4[i4, s + 1])
    ride_v = np.where(first, sol.value3[1, i3], sol.sums4[i4, s + 2])
    mistake = np.where(ride, ride_v < pull_v, pull_v < ride_v)
    return ok, ok & mistake

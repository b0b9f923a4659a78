"""The calibration loop of the simulation benchmark (issue 28): a Numba loop doing only what a round of a
five-card game must do, so that a kernel's speed is reported as a fraction of this core's limit rather than in
rounds per second (which depend on the machine and on what else it runs).

One calibration "round": five cards drawn from 52 by a partial Fisher–Yates shuffle driven by a 64-bit
xorshift generator (one word per card, Lemire's multiply-shift into the remaining range, no rejection), then
three table lookups indexed by the packed ranks (and a flush flag) of the cards, the sizes of a five-card
game's tables: three cards (``2 * 13**3`` int8), four cards (``2 * 13**4``) and five cards (``2 * 13**5``,
742 kB: the hand-class table of Let It Ride). The looked-up values are summed so that nothing is optimized
away. No money, no accumulators, no strategy: a floor under what a kernel must spend.

>>> rate = calibration_rate(rounds=200_000, repeats=1)
>>> rate > 0
True
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt
from numba import njit

I8 = npt.NDArray[np.int8]


@njit(cache=True, nogil=True, boundscheck=False)
def calibration_loop(rounds: int, seed: int, t3: I8, t4: I8, t5: I8) -> int:  # pragma: no cover - compiled
    """``rounds`` calibration rounds (see the module); returns the sum of the looked-up values."""
    x = np.uint64(seed) | np.uint64(1)
    deck = np.arange(52, dtype=np.int64)
    total = 0
    for _ in range(rounds):
        for i in range(5):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            j = i + np.int64(((x >> np.uint64(32)) * np.uint64(52 - i)) >> np.uint64(32))
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        a, b, c, d, e = deck[0], deck[1], deck[2], deck[3], deck[4]
        s = a & 3
        f3 = 1 if ((b & 3) == s and (c & 3) == s) else 0
        f4 = 1 if (f3 == 1 and (d & 3) == s) else 0
        f5 = 1 if (f4 == 1 and (e & 3) == s) else 0
        i3 = ((a >> 2) * 13 + (b >> 2)) * 13 + (c >> 2)
        i4 = i3 * 13 + (d >> 2)
        i5 = i4 * 13 + (e >> 2)
        total += t3[f3 * 2197 + i3] + t4[f4 * 28561 + i4] + t5[f5 * 371293 + i5]
    return total


def calibration_tables(seed: int = 1) -> tuple[I8, I8, I8]:
    """Random int8 tables of the three sizes (their contents do not matter, only their size)."""
    rng = np.random.default_rng(seed)
    return tuple(rng.integers(0, 10, 2 * 13**k, dtype=np.int8) for k in (3, 4, 5))  # type: ignore[return-value]


def calibration_rate(rounds: int = 20_000_000, repeats: int = 3) -> float:
    """Calibration rounds per CPU second of this process (``time.process_time``; best of ``repeats``)."""
    t3, t4, t5 = calibration_tables()
    calibration_loop(1000, 1, t3, t4, t5)  # compile / load
    best = float("inf")
    for r in range(repeats):
        start = time.process_time()
        calibration_loop(rounds, r + 2, t3, t4, t5)
        best = min(best, time.process_time() - start)
    return rounds / best


if __name__ == "__main__":
    print(f"calibration loop: {calibration_rate():,.0f} rounds per CPU second")

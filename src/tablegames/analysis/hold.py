"""The casino's hold after n rounds, from the exact distribution of one round's net (issue 22).

Hold = house win ÷ handle, handle = n × W (W: the wager's average total stake per initial wager). The house
win of n rounds is minus the sum of n independent draws of the round's net result, whose exact distribution
the analysis gives (``Analysis.net_distribution`` for the main wager, a side bet's return table). Its range
at a confidence level c is the interval between the (1 − c)/2 and (1 + c)/2 quantiles of that sum, found by

* **convolution**: the n-fold convolution of the round's distribution on its lattice (payouts are rationals:
  a common denominator puts them on whole numbers), computed by FFT to floating-point precision, when the
  lattice of the n-round total has at most :data:`EXACT_POINTS` points;
* **simulation**: otherwise (a meter wager's $5,000 prize at 1,000 rounds already spans millions of lattice
  points), the sum is drawn :data:`SIMULATED_DRAWS` times from the exact distribution (the counts of each
  outcome in n rounds are one multinomial draw, so a draw costs the same at 10^3 and 10^7 rounds), seeded.

A hold can never exceed 100% of the handle (the house wins at most what was staked) and the quantiles
respect that; there is no lower bound (−∞: the house can lose more than the handle).

The normal approximation (exact mean ± z·σ/(W·√n)) is fair when the n-round total is nearly symmetric: the
report states it from the rounds where the total's skewness γ/√n falls below :data:`SKEW_LIMIT`.

>>> dist = {Fraction(-1): Fraction(1, 2), Fraction(1): Fraction(1, 2)}   # a fair coin at even money
>>> r = hold_range(dist, Fraction(1), 100, (90,))
>>> r.method, [round(x, 2) for x in r.ranges[90]]
('convolution', [-0.16, 0.16])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

EXACT_POINTS = 1 << 21
"""The largest lattice of an n-round total that is convolved (FFT length); beyond it, simulation."""
SIMULATED_DRAWS = 200_000
SKEW_LIMIT = 0.1
CONVOLUTION = "convolution"
SIMULATION = "simulation"


@dataclass(frozen=True)
class HoldRange:
    """The hold's range after ``rounds`` rounds at each confidence (percent): (low, high) fractions of the
    handle; ``method``: convolution or simulation."""

    rounds: int
    ranges: dict[int, tuple[float, float]]
    method: str


def _lattice(dist: Mapping[Fraction, Fraction]) -> tuple[int, list[int], list[float]]:
    """(denominator d, payouts × d as whole numbers, probabilities) with the payouts merged."""
    d = math.lcm(*(Fraction(x).denominator for x in dist))
    merged: dict[int, Fraction] = {}
    for x, p in dist.items():
        if p:
            k = int(Fraction(x) * d)
            merged[k] = merged.get(k, Fraction(0)) + Fraction(p)
    keys = sorted(merged)
    return d, keys, [float(merged[k]) for k in keys]


def _quantile_indices(cdf: npt.NDArray[np.float64], qs: Sequence[float]) -> list[int]:
    """The smallest index with cdf >= q, for each q."""
    return [min(int(np.searchsorted(cdf, q - 1e-12, side="left")), len(cdf) - 1) for q in qs]


def skewness(dist: Mapping[Fraction, Fraction]) -> float:
    """The exact skewness γ = μ3 / σ³ of one round's net (0 for a degenerate distribution)."""
    mean = sum((x * p for x, p in dist.items()), Fraction(0))
    m2 = sum(((x - mean) ** 2 * p for x, p in dist.items()), Fraction(0))
    m3 = sum(((x - mean) ** 3 * p for x, p in dist.items()), Fraction(0))
    return float(m3) / float(m2) ** 1.5 if m2 else 0.0


def normal_from(dist: Mapping[Fraction, Fraction]) -> int:
    """The rounds from which the normal approximation is fair: the n-round total's skewness |γ|/√n is below
    :data:`SKEW_LIMIT` (a power of ten at least)."""
    need = (skewness(dist) / SKEW_LIMIT) ** 2
    return 10 ** max(0, math.ceil(math.log10(need))) if need > 1 else 1


def net_sum_quantiles(
    dist: Mapping[Fraction, Fraction], rounds: int, qs: Sequence[float], seed: int = 0
) -> tuple[list[Fraction], str]:
    """The ``qs`` quantiles of the sum of ``rounds`` independent draws of ``dist`` (net -> probability) and
    the method (convolution or simulation)."""
    d, keys, probs = _lattice(dist)
    lo, hi = keys[0], keys[-1]
    g = math.gcd(*(k - lo for k in keys)) or 1  # the lattice's step
    span = (hi - lo) // g
    points = rounds * span + 1
    if points <= EXACT_POINTS:
        size = 1 << max(1, (points - 1).bit_length())
        pmf = np.zeros(size)
        for k, p in zip(keys, probs, strict=True):
            pmf[(k - lo) // g] += p
        spectrum = np.fft.rfft(pmf) ** rounds
        total = np.clip(np.fft.irfft(spectrum, size)[:points], 0.0, None)
        cdf = np.cumsum(total)
        cdf /= cdf[-1]
        idx = _quantile_indices(cdf, qs)
        return [Fraction(rounds * lo + g * i, d) for i in idx], CONVOLUTION
    rng = np.random.default_rng(seed)
    weights = np.asarray(probs, dtype=np.float64)
    weights /= weights.sum()
    sums = np.empty(SIMULATED_DRAWS, dtype=np.float64)
    values = np.asarray(keys, dtype=np.float64)
    step = 20_000
    for start in range(0, SIMULATED_DRAWS, step):
        counts = rng.multinomial(rounds, weights, size=min(step, SIMULATED_DRAWS - start))
        sums[start : start + len(counts)] = counts @ values
    sums.sort()
    out = []
    for q in qs:
        i = min(max(math.ceil(q * SIMULATED_DRAWS) - 1, 0), SIMULATED_DRAWS - 1)
        out.append(Fraction(round(float(sums[i])), d))
    return out, SIMULATION


def hold_range(
    dist: Mapping[Fraction, Fraction],
    average_wager: Fraction,
    rounds: int,
    confidences: Iterable[int],
    seed: int = 0,
) -> HoldRange:
    """The hold's range after ``rounds`` rounds: hold = −(sum of the nets) / (rounds × W), never above 1."""
    levels = sorted(confidences)
    qs: list[float] = []
    for c in levels:
        tail = (1 - c / 100) / 2
        qs += [tail, 1 - tail]
    values, method = net_sum_quantiles(dist, rounds, qs, seed)
    handle = rounds * average_wager
    ranges = {}
    for k, c in enumerate(levels):
        net_low, net_high = values[2 * k], values[2 * k + 1]
        # the house wins what the player loses: a low net of the player is a high hold
        ranges[c] = (float(-net_high / handle), min(1.0, float(-net_low / handle)))
    return HoldRange(rounds, ranges, method)

"""The RNG test suite on the final output — dealt decks — at 99% confidence (GLI-19 §3.2.2).

:class:`RngTestSuite` accumulates counts batch by batch (so millions of decks need little memory) and
:meth:`RngTestSuite.results` runs ten tests, each giving a p-value; a test passes when ``p >= alpha``.
The null hypothesis is always "every deck is a uniformly random permutation, independent of every other".

1. **Card × position** — the 52×52 table of how often each card lands at each position. For random
   permutations the usual statistic X² = Σ(O-E)²/E is not χ² with (n-1)² dof: each deck adds one permutation
   matrix, whose covariance on the (n-1)²-dimensional space of zero-margin matrices is a scalar (Schur's lemma:
   the law is invariant under permuting rows and columns) with total variance n-1, so X²·(n-1)/n ~ χ²((n-1)²).
   (So E[X²] = n·(n-1) = 2,652, not (n-1)² = 2,601; without the factor the test would reject too often.)
2. **First card** — χ² over the 52 cards, 51 dof.
3. **First three cards as a hand** — χ² over the C(52,3) = 22,100 unordered hands. With fewer than 110,500
   decks the expected count per hand would be below 5, so hands are grouped, in colex order, into G equal
   blocks (G the largest divisor of 22,100 with N/G >= 5); G-1 dof. At N >= 110,500 every hand is its own cell.
4. **Runs** (Wald–Wolfowitz) — each deck as a high/low sequence (card index >= 26 or not: exactly 26 of each,
   so a random deck is a random arrangement of 26 H and 26 L): total runs vs its exact mean 27 and variance
   1,300·1,352/(52²·51) per deck, normal approximation, two-sided.
5. **Serial correlation within decks** — circular lag-1 sum Σ zᵢ·zᵢ₊₁ (z = 2·card − 51) per deck, against the
   exact permutation mean and variance of Wald & Wolfowitz (1943); normal, two-sided.
6. **Serial correlation between rounds** — the lag-1 autocorrelation r of the first cards of consecutive decks
   (rounds must be independent), centred on their own mean; (r + 1/N)·√N is ≈ N(0,1); two-sided.
7. **Adjacent pairs** — which card follows which: the ordered pair at positions (p, p+1) with p = k mod 51 for
   deck k (one pair per deck keeps the counts multinomial), χ² over the 52·51 = 2,652 ordered pairs (grouped
   as in 3 when N < 13,260).
8. **Successions** — per deck, how many times a card is followed by the next card of the fresh deck (2c→2d …):
   χ² against the exact distribution (inclusion–exclusion: P(K ≥ set S of j successions) = (n-j)!/n!).
9. **Repeats: full decks** — duplicate decks (by a 128-bit hash; a false alarm has probability < N²/2¹²⁷).
   Under H0 a duplicate among N decks has probability ≈ N²/(2·52!) ≈ 0: p = P(Poisson(λ) >= duplicates).
10. **Repeats: first L cards** (a birthday test) — collisions among the ordered first-L-card prefixes, L the
   largest length with at least 10 expected collisions; exact mean (and variance) of the occupancy problem,
   Poisson (or normal when N is not small against the number of prefixes), two-sided.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from itertools import permutations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tablegames.randomness.batch import DeckBatcher

ALPHA = 0.01
MIN_EXPECTED = 5.0
PREFIX_MAX = 8
MIN_PREFIX_COLLISIONS = 10.0


@dataclass(frozen=True)
class TestResult:
    """One test: its statistic, p-value and verdict at ``alpha``."""

    __test__ = False  # not a pytest class

    key: str
    name: str
    statistic: float
    p_value: float
    passed: bool
    method: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "passed": self.passed,
            "method": self.method,
            "detail": self.detail,
        }


def _chi2_sf(stat: float, dof: float) -> float:
    from scipy import stats

    return float(stats.chi2.sf(stat, dof))


def _normal_two_sided(z: float) -> float:
    from scipy import stats

    return float(2.0 * stats.norm.sf(abs(z)))


def _largest_divisor_at_most(n: int, limit: float) -> int:
    return max(d for d in range(1, n + 1) if n % d == 0 and d <= limit)


def position_statistic(position: NDArray[np.int64], decks: int) -> tuple[float, int]:
    """The card × position statistic X²·(n-1)/n and its (n-1)² degrees of freedom (see test 1 above)."""
    n = position.shape[0]
    expected = decks / n
    x2 = float(((position - expected) ** 2).sum() / expected)
    return x2 * (n - 1) / n, (n - 1) ** 2


def runs_moments(n1: int, n2: int) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the number of runs in a random arrangement of n1 H and n2 L (Wald–Wolfowitz).

    >>> runs_moments(26, 26)
    (Fraction(27, 1), Fraction(650, 51))
    """
    n = n1 + n2
    mean = 1 + Fraction(2 * n1 * n2, n)
    var = Fraction(2 * n1 * n2 * (2 * n1 * n2 - n), n * n * (n - 1))
    return mean, var


def grouped_uniform_chi2(
    counts: NDArray[np.int64], min_expected: float = MIN_EXPECTED
) -> tuple[float, int, int]:
    """χ² of equiprobable cells, grouping contiguous blocks so each expects >= ``min_expected``.

    Returns (statistic, degrees of freedom, number of groups). The groups are the G equal blocks of consecutive
    cells, G the largest divisor of the number of cells with N/G >= ``min_expected``.
    """
    cells = counts.size
    total = int(counts.sum())
    groups = _largest_divisor_at_most(cells, total / min_expected)
    if groups < 2:
        raise ValueError(f"too few observations ({total}) for a chi-square over {cells} cells")
    grouped = counts.reshape(groups, cells // groups).sum(axis=1).astype(np.float64)
    expected = total / groups
    stat = float(((grouped - expected) ** 2).sum() / expected)
    return stat, groups - 1, groups


def serial_moments(values: list[int]) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of the circular serial sum Σ xᵢ·xᵢ₊₁ over random orders of ``values``.

    Wald & Wolfowitz (1943), with S_k = Σ xᵢᵏ and n = len(values):
    E = (S1² - S2)/(n-1);
    Var = (S2² - S4)/(n-1) + (S1⁴ - 4S1²S2 + 4S1S3 + S2² - 2S4)/((n-1)(n-2)) - (S1² - S2)²/(n-1)².

    >>> serial_moments([0, 1, 2, 3])
    (Fraction(22, 3), Fraction(26, 9))
    """
    n = len(values)
    s1, s2, s3, s4 = (sum((Fraction(v**k) for v in values), Fraction(0)) for k in (1, 2, 3, 4))
    mean = (s1**2 - s2) / (n - 1)
    var = (
        (s2**2 - s4) / (n - 1)
        + (s1**4 - 4 * s1**2 * s2 + 4 * s1 * s3 + s2**2 - 2 * s4) / ((n - 1) * (n - 2))
        - (s1**2 - s2) ** 2 / (n - 1) ** 2
    )
    return mean, var


def succession_pmf(n: int) -> list[Fraction]:
    """Exact distribution of the number of successions (i followed by i+1) in a random permutation of n.

    P(K = k) = Σ_{j>=k} (-1)^{j-k} C(j,k) C(n-1,j) (n-j)!/n!.

    >>> succession_pmf(3)  # 123: 2; 231, 312: 1; 132, 213, 321: 0
    [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    """
    nfact = math.factorial(n)
    return [
        sum(
            (
                Fraction(
                    (-1) ** (j - k) * math.comb(j, k) * math.comb(n - 1, j) * math.factorial(n - j), nfact
                )
                for j in range(k, n)
            ),
            Fraction(0),
        )
        for k in range(n)
    ]


def occupancy_collisions(balls: int, boxes: int) -> tuple[float, float]:
    """Exact mean and variance of collisions (balls − occupied boxes) when ``balls`` fall uniformly in ``boxes``."""
    with localcontext() as ctx:
        ctx.prec = 80
        n, m = Decimal(balls), Decimal(boxes)
        a = ((m - 1) / m) ** balls
        b = ((m - 2) / m) ** balls
        mean_empty = m * a
        var_empty = m * a + m * (m - 1) * b - m * m * a * a
        return float(n - m + mean_empty), float(var_empty)


def _hand_index(decks: NDArray[np.uint8]) -> NDArray[np.int64]:
    """Colex index of the unordered first three cards: a + C(b,2) + C(c,3) for a < b < c."""
    h = np.sort(decks[:, :3].astype(np.int64), axis=1)
    a, b, c = h[:, 0], h[:, 1], h[:, 2]
    return np.asarray(a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6, dtype=np.int64)


_HASH_COEF = np.random.Generator(np.random.PCG64(20261130)).integers(
    0, 2**63, size=(2, 256), dtype=np.uint64
) * np.uint64(2) + np.uint64(1)


@dataclass
class SuiteResult:
    """A finished run: the tests, the card × position counts and how the decks were made."""

    source: str
    description: str
    shuffles: int
    size: int
    alpha: float
    seconds: float
    tests: list[TestResult]
    position_counts: NDArray[np.int64]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    @property
    def failed(self) -> list[TestResult]:
        return [t for t in self.tests if not t.passed]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "description": self.description,
            "shuffles": self.shuffles,
            "deck_size": self.size,
            "alpha": self.alpha,
            "confidence": 1 - self.alpha,
            "seconds": round(self.seconds, 3),
            "passed": self.passed,
            "params": self.params,
            "tests": [t.to_json() for t in self.tests],
        }


class RngTestSuite:
    """Accumulates the statistics of dealt decks batch by batch; :meth:`results` runs the tests."""

    def __init__(self, size: int = 52) -> None:
        if size < 4 or size % 2:
            raise ValueError("the suite needs an even deck size >= 4")
        n = size
        self.size = n
        self.count = 0
        self.position = np.zeros((n, n), dtype=np.int64)
        self.first = np.zeros(n, dtype=np.int64)
        self.hands = np.zeros(math.comb(n, 3), dtype=np.int64)
        self.runs_total = 0
        self.serial_total = 0
        self.between_total = 0
        self._last_first: int | None = None
        self._first_first = 0
        self.first_sum = 0
        self.first_sumsq = 0
        self.pairs = np.zeros(n * (n - 1), dtype=np.int64)
        self.successions = np.zeros(n, dtype=np.int64)
        self._prefixes: list[NDArray[np.uint8]] = []
        self._hashes: list[NDArray[np.uint64]] = []

    def update(self, decks: NDArray[np.uint8]) -> None:
        """Add a batch of decks (shape ``(k, size)``, each row a permutation in deal order)."""
        n = self.size
        k = decks.shape[0]
        if k == 0:
            return
        if decks.shape[1] != n:
            raise ValueError(f"expected decks of {n} cards, got {decks.shape[1]}")
        d = decks.astype(np.int64)
        self.position += np.bincount((np.arange(n) * n + d).ravel(), minlength=n * n).reshape(n, n)
        self.first += np.bincount(d[:, 0], minlength=n)
        self.hands += np.bincount(_hand_index(decks), minlength=self.hands.size)
        high = d >= n // 2
        self.runs_total += int(k + (high[:, 1:] != high[:, :-1]).sum())
        z = 2 * d - (n - 1)
        self.serial_total += int((z * np.roll(z, -1, axis=1)).sum())
        firsts = z[:, 0]
        self.between_total += int((firsts[1:] * firsts[:-1]).sum())
        if self._last_first is not None:
            self.between_total += self._last_first * int(firsts[0])
        else:
            self._first_first = int(firsts[0])
        self._last_first = int(firsts[-1])
        self.first_sum += int(firsts.sum())
        self.first_sumsq += int((firsts * firsts).sum())
        pos = (self.count + np.arange(k)) % (n - 1)
        a = d[np.arange(k), pos]
        b = d[np.arange(k), pos + 1]
        self.pairs += np.bincount(a * (n - 1) + np.where(b < a, b, b - 1), minlength=self.pairs.size)
        self.successions += np.bincount((d[:, 1:] == d[:, :-1] + 1).sum(axis=1), minlength=n)
        self._prefixes.append(decks[:, : min(PREFIX_MAX, n)].copy())
        coef = _HASH_COEF[:, :n]
        du = decks.astype(np.uint64)
        self._hashes.append(np.stack([(du * coef[0]).sum(axis=1), (du * coef[1]).sum(axis=1)], axis=1))
        self.count += k

    # ----------------------------------------------------------------------------------------- the tests

    def results(self, alpha: float = ALPHA) -> list[TestResult]:
        """Run the ten tests on what has been accumulated."""
        n, big_n = self.size, self.count
        if big_n < 1000:
            raise ValueError(f"the suite needs at least 1000 decks, got {big_n}")
        out: list[TestResult] = []

        def add(key: str, name: str, stat: float, p: float, method: str, detail: str = "") -> None:
            out.append(TestResult(key, name, stat, p, p >= alpha, method, detail))

        # 1. card × position
        expected = big_n / n
        adj, dof = position_statistic(self.position, big_n)
        worst = np.unravel_index(np.argmax(np.abs(self.position - expected)), self.position.shape)
        add(
            "position",
            f"Card × position {n}×{n}",
            adj,
            _chi2_sf(adj, dof),
            f"chi-square, X²·{n - 1}/{n}, {dof} dof",
            f"largest deviation: card {int(worst[1])} at position {int(worst[0])}: "
            f"{int(self.position[worst])} vs {expected:.1f} expected",
        )
        # 2. first card
        stat, dof, groups = grouped_uniform_chi2(self.first)
        add("first-card", "First card", stat, _chi2_sf(stat, dof), f"chi-square, {dof} dof")
        # 3. first three cards as a hand
        stat, dof, groups = grouped_uniform_chi2(self.hands)
        cells = self.hands.size
        how = (
            "every hand its own cell"
            if groups == cells
            else f"{groups} colex blocks of {cells // groups} hands"
        )
        add("hand3", "First 3 cards as a hand", stat, _chi2_sf(stat, dof), f"chi-square, {dof} dof", how)
        # 4. runs
        mu, var = (float(v) for v in runs_moments(n // 2, n // 2))
        z = (self.runs_total - big_n * mu) / math.sqrt(big_n * var)
        add(
            "runs",
            "Runs (high/low)",
            z,
            _normal_two_sided(z),
            "Wald–Wolfowitz, normal z",
            f"mean runs per deck {self.runs_total / big_n:.4f} (exact {mu:g})",
        )
        # 5. serial correlation within decks
        smean, svar = serial_moments([2 * c - (n - 1) for c in range(n)])
        z = (self.serial_total - big_n * float(smean)) / math.sqrt(big_n * float(svar))
        corr = (self.serial_total / big_n) / ((n * n - 1) / 3 * n)
        add(
            "serial",
            "Serial correlation in deck",
            z,
            _normal_two_sided(z),
            "circular lag 1, exact moments, normal z",
            f"mean lag-1 correlation {corr:+.5f} (exact {float(smean) / ((n * n - 1) / 3 * n):+.5f})",
        )
        # 6. serial correlation between rounds: lag-1 autocorrelation of the first cards, centred on their own
        # mean so that it tests independence alone (the first-card test covers the marginal distribution)
        zbar = self.first_sum / big_n
        last = self._last_first if self._last_first is not None else 0
        lagged = (
            self.between_total
            - zbar * (2 * self.first_sum - self._first_first - last)
            + (big_n - 1) * zbar**2
        )
        r = lagged / (self.first_sumsq - big_n * zbar**2)
        z = (r + 1 / big_n) * math.sqrt(big_n)
        add(
            "between-rounds",
            "Serial correlation, rounds",
            z,
            _normal_two_sided(z),
            "first cards, lag 1, normal z",
            f"correlation {r:+.5f}",
        )
        # 7. adjacent pairs
        stat, dof, groups = grouped_uniform_chi2(self.pairs)
        cells = self.pairs.size
        how = (
            "every ordered pair its own cell"
            if groups == cells
            else f"{groups} blocks of {cells // groups} pairs"
        )
        add("pairs", "Adjacent pairs", stat, _chi2_sf(stat, dof), f"chi-square, {dof} dof", how)
        # 8. successions
        expected_k = [big_n * float(p) for p in succession_pmf(n)]
        cut = max(1, next((k_ for k_ in range(n) if expected_k[k_] < MIN_EXPECTED), n))
        obs = [float(v) for v in self.successions[:cut]] + [float(self.successions[cut:].sum())]
        exp = [*expected_k[:cut], sum(expected_k[cut:])]
        if exp[-1] < MIN_EXPECTED:  # merge the thin tail into the last full bin
            obs[-2] += obs.pop()
            exp[-2] += exp.pop()
        stat = sum((o - e) ** 2 / e for o, e in zip(obs, exp, strict=True))
        add(
            "successions",
            "Successions",
            stat,
            _chi2_sf(stat, len(obs) - 1),
            f"chi-square vs exact law, {len(obs) - 1} dof",
            f"mean per deck {float((np.arange(n) * self.successions).sum()) / big_n:.4f} (exact {(n - 1) / n:.4f})",
        )
        # 9. full-deck repeats
        from scipy import stats

        hashes = np.concatenate(self._hashes)
        distinct = np.unique(hashes, axis=0).shape[0]
        dups = big_n - distinct
        lam = big_n * (big_n - 1) / 2 / float(math.factorial(n))
        p = 1.0 if dups == 0 else float(stats.poisson.sf(dups - 1, lam))
        add("repeats", "Repeated decks", float(dups), p, "duplicates, Poisson", f"{dups} duplicates")
        # 10. prefix collisions (birthday test)
        prefixes = np.concatenate(self._prefixes).astype(np.int64)
        length, boxes = 1, n
        for ell in range(1, prefixes.shape[1] + 1):
            m = math.perm(n, ell)
            if big_n * (big_n - 1) / 2 / m >= MIN_PREFIX_COLLISIONS:
                length, boxes = ell, m
        codes = np.zeros(big_n, dtype=np.int64)
        for col in range(length):
            codes = codes * n + prefixes[:, col]
        collisions = big_n - np.unique(codes).size
        mean, var = occupancy_collisions(big_n, boxes)
        if big_n / boxes <= 0.05:
            p = float(
                min(1.0, 2 * min(stats.poisson.cdf(collisions, mean), stats.poisson.sf(collisions - 1, mean)))
            )
            method = "birthday test, Poisson"
        else:
            zc = (abs(collisions - mean) - 0.5) / math.sqrt(var)
            p = float(min(1.0, 2 * stats.norm.sf(max(zc, 0.0))))
            method = "birthday test, normal"
        add(
            "prefix-repeats",
            f"Repeated {length}-card prefixes",
            float(collisions),
            p,
            method,
            f"{collisions} collisions among {boxes:,} ordered {length}-card prefixes, {mean:.1f} expected",
        )
        return out


def run_suite(
    batcher: DeckBatcher,
    shuffles: int,
    *,
    source: str = "",
    alpha: float = ALPHA,
    batch: int = 50_000,
    on_progress: Callable[[int], None] | None = None,
) -> SuiteResult:
    """Deal ``shuffles`` decks from ``batcher`` in batches and run the suite."""
    start = time.perf_counter()
    suite = RngTestSuite(batcher.size)
    done = 0
    while done < shuffles:
        k = min(batch, shuffles - done)
        suite.update(batcher.decks(k))
        done += k
        if on_progress is not None:
            on_progress(k)
    tests = suite.results(alpha)
    return SuiteResult(
        source=source or batcher.kind,
        description=batcher.description,
        shuffles=shuffles,
        size=batcher.size,
        alpha=alpha,
        seconds=time.perf_counter() - start,
        tests=tests,
        position_counts=suite.position,
    )


def permutation_test(decks: NDArray[np.uint8]) -> TestResult:
    """χ² of the full permutation counts of a small deck (e.g. 4 cards: 24 orders, 23 dof)."""
    n = decks.shape[1]
    if n > 8:
        raise ValueError("the permutation test is for decks of at most 8 cards")
    index = {p: i for i, p in enumerate(permutations(range(n)))}
    codes = np.zeros(decks.shape[0], dtype=np.int64)
    for col in range(n):
        codes = codes * n + decks[:, col].astype(np.int64)
    lookup = np.zeros(n**n, dtype=np.int64)
    for order, i in index.items():
        lookup[sum(v * n ** (n - 1 - c) for c, v in enumerate(order))] = i
    counts = np.bincount(lookup[codes], minlength=len(index))
    expected = decks.shape[0] / len(index)
    stat = float(((counts - expected) ** 2).sum() / expected)
    dof = len(index) - 1
    p = _chi2_sf(stat, dof)
    return TestResult(
        "permutations",
        f"All {len(index)} orders of {n} cards",
        stat,
        p,
        p >= ALPHA,
        f"chi-square, {dof} dof",
        f"counts min {counts.min()} max {counts.max()}, expected {expected:.1f}",
    )

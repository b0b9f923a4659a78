"""The kernels' deal: an unbiased partial Fisher–Yates shuffle (R-0.1) from 32-bit words (Lemire's method)."""

from __future__ import annotations

import numpy as np

from tablegames.simulation.kernels import deal_prefix


def test_prefix_is_distinct_cards_and_stops_when_words_run_out() -> None:
    rng = np.random.default_rng(1)
    deck = np.arange(52, dtype=np.int64)
    buf = rng.integers(0, 2**32, size=100, dtype=np.uint64).astype(np.uint32)
    pos = deal_prefix(deck, 10, buf, 0)
    assert pos == 10  # no rejection is expected among 10 draws
    assert sorted(deck.tolist()) == list(range(52))
    # Word 0 is always rejected for n = 52 (its low product 0 is below 2^32 mod 52 = 48): nothing to draw.
    assert deal_prefix(np.arange(52, dtype=np.int64), 1, np.zeros(5, dtype=np.uint32), 0) == -1


def test_first_card_is_uniform() -> None:
    rng = np.random.default_rng(7)
    firsts = np.zeros(52, dtype=np.int64)
    buf = rng.integers(0, 2**32, size=60_000, dtype=np.uint64).astype(np.uint32)
    deck = np.arange(52, dtype=np.int64)
    pos = 0
    for _ in range(52_000):
        pos = deal_prefix(deck, 1, buf, pos)
        firsts[deck[0]] += 1
    chi2 = float(((firsts - 1000) ** 2 / 1000).sum())
    assert chi2 < 110  # 51 degrees of freedom: p < 1e-5 above this

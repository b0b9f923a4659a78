"""The kernels' deal: NumPy's PCG64 stepped inside the kernels (bit for bit), and an unbiased partial
Fisher–Yates shuffle (R-0.1) from its 32-bit words (Lemire's method)."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.simulation.kernels import RNG_FIELDS, deal_prefix, draws, rng_state


@pytest.mark.parametrize("seed", [0, 1, 2**63 + 5])
def test_the_kernels_generator_is_numpys_pcg64(seed: int) -> None:
    bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(3,)))
    rng = rng_state(bitgen)
    assert rng.shape == (RNG_FIELDS,)
    assert draws(rng, 10_000).tolist() == bitgen.random_raw(10_000).tolist()
    assert draws(rng, 7).tolist() == bitgen.random_raw(7).tolist()  # the state carries on


def _reference_deal(words: list[int], rounds: int, k: int) -> tuple[list[list[int]], int]:
    """The partial shuffle in plain Python from a list of 32-bit words (the kernels' former word buffer)."""
    deck, pos, out = list(range(52)), 0, []
    for _ in range(rounds):
        for i in range(k):
            n = 52 - i
            while True:
                m = words[pos] * n
                pos += 1
                if (m & 0xFFFFFFFF) >= (2**32 - n) % n:
                    break
            j = i + (m >> 32)
            deck[i], deck[j] = deck[j], deck[i]
        out.append(deck[:k])
    return out, pos


@pytest.mark.parametrize("k", [5, 6, 7])
def test_deal_draws_the_streams_words_in_order(k: int) -> None:
    """Round after round, the same cards as the shuffle fed the stream's 32-bit words in order (each 64-bit
    output's low half, then its high half): an odd number of words a round carries a half over."""
    seed = np.random.SeedSequence(4, spawn_key=(1,))
    rounds = 3000
    raw = np.random.PCG64(seed).random_raw(rounds * k)
    words = raw.view(np.uint32).tolist()
    expected, used = _reference_deal(words, rounds, k)
    rng = rng_state(np.random.PCG64(seed))
    deck = np.arange(52, dtype=np.int64)
    for r in range(rounds):
        deal_prefix(deck, k, rng)
        assert deck[:k].tolist() == expected[r]
        assert sorted(deck.tolist()) == list(range(52))
    assert int(rng[5]) == used % 2  # a half word left over exactly when an odd number was used


def test_a_biased_word_is_rejected() -> None:
    """Word 0 is always rejected for n = 52 (its low product 0 is below 2^32 mod 52 = 48)."""
    assert _reference_deal([0, 2**31 + 1], 1, 1) == ([[26]], 2)


def test_first_card_is_uniform() -> None:
    firsts = np.zeros(52, dtype=np.int64)
    rng = rng_state(np.random.PCG64(7))
    deck = np.arange(52, dtype=np.int64)
    for _ in range(52_000):
        deal_prefix(deck, 1, rng)
        firsts[deck[0]] += 1
    chi2 = float(((firsts - 1000) ** 2 / 1000).sum())
    assert chi2 < 110  # 51 degrees of freedom: p < 1e-5 above this

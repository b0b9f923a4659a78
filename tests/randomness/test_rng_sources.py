"""Random sources: live vs seeded cannot be mixed up, bounded integers are unbiased, shuffles are permutations (R-0.1)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tablegames.randomness as randomness_pkg
from tablegames.cards import CARDS
from tablegames.randomness import (
    LiveRandom,
    NotLiveError,
    ProvablyFair,
    ProvablyFairRandom,
    RandomSource,
    SeededRandom,
    ServerSeed,
    require_live,
    shuffle_deck,
    shuffle_items,
)
from tablegames.randomness.batch import (
    LiveBatch,
    ModuloBatch,
    NaiveBatch,
    SeededBatch,
    live_below,
    make_batcher,
)
from tablegames.randomness.broken import ModuloBiasedRandom, naive_shuffle_deck

seeds = st.one_of(st.integers(), st.text(max_size=20), st.binary(max_size=20))


class ScriptedBits(RandomSource):
    """Returns the given values from getrandbits, checking the number of bits asked for."""

    def __init__(self, values: list[int], k: int) -> None:
        self.values = list(values)
        self.k = k
        self.used = 0

    def getrandbits(self, k: int) -> int:
        assert k == self.k
        self.used += 1
        return self.values.pop(0)


# --------------------------------------------------------------------------------- mixing them up is impossible


def test_live_random_takes_no_seed_and_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError):
        LiveRandom(7)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="cannot be subclassed"):

        class Sneaky(LiveRandom):  # type: ignore[misc]
            pass


@pytest.mark.parametrize("bad", [1.5, None, [1, 2]])
def test_seeded_random_needs_an_explicit_seed(bad: object) -> None:
    """A float (e.g. time.time()) or None is refused: no seed from the clock."""
    with pytest.raises(TypeError, match="explicit int, str or bytes seed"):
        SeededRandom(bad)  # type: ignore[arg-type]


def test_require_live_accepts_only_secret_sources() -> None:
    live = LiveRandom()
    assert require_live(live) is live
    fair = ProvablyFair(nonce=3)
    source = fair.source()
    assert source.kind == "provably-fair" and require_live(source) is source
    fair.reveal()  # once the server seed is public the deck is predictable: no longer live
    with pytest.raises(NotLiveError):
        require_live(source)
    with pytest.raises(NotLiveError):
        require_live(fair.source())
    refused: list[RandomSource] = [
        SeededRandom(1),
        SeededRandom(1).child(2),
        ModuloBiasedRandom(1),
        ProvablyFairRandom(bytes(32), "c", 1),  # from given bytes: verification/replay, not live
        ProvablyFairRandom(ServerSeed.generate().hex, "c", 1),  # re-built from hex: not secret
    ]
    for src in refused:
        with pytest.raises(NotLiveError, match="live table needs LiveRandom"):
            require_live(src)
        assert not src.live


def test_not_live_error_is_exported_and_a_type_error() -> None:
    assert "require_live" in randomness_pkg.__all__ and issubclass(NotLiveError, TypeError)


def test_randomness_package_never_reads_the_clock() -> None:
    """No seed from time: no module that draws random numbers imports time/datetime or calls random.seed()."""
    package = Path(randomness_pkg.__file__).parent
    drawing = ["__init__.py", "sources.py", "fairness.py", "guard.py", "batch.py", "broken.py"]
    for path in (package / name for name in drawing):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not {a.name.split(".")[0] for a in node.names} & {"time", "datetime"}, path
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] not in {"time", "datetime"}, path
            if isinstance(node, ast.Attribute) and node.attr == "seed" and isinstance(node.value, ast.Name):
                assert node.value.id != "random", path


# ---------------------------------------------------------------------------------------- unbiased integers


@pytest.mark.parametrize("n", [*range(1, 70), 255, 256, 257, 1000])
def test_randbelow_accepts_below_n_and_redraws_otherwise(n: int) -> None:
    """Rejection sampling: each of the 2^k equally likely k-bit draws below n is returned as is (so every value
    in [0, n) has the same probability), every draw >= n is thrown away and drawn again."""
    k = n.bit_length()
    for v in range(1 << k):
        src = ScriptedBits([v, 0], k)
        assert src.randbelow(n) == (v if v < n else 0)
        assert src.used == (1 if v < n else 2)


def test_modulo_biased_integer_is_biased_as_stated() -> None:
    """byte % 52 over all 256 bytes: 0..47 come 5 times, 48..51 only 4 times (the bug the tests must catch)."""
    counts = Counter(b % 52 for b in range(256))
    assert {v: counts[v] for v in (0, 47, 48, 51)} == {0: 5, 47: 5, 48: 4, 51: 4}
    src = ModuloBiasedRandom(5)
    assert all(0 <= src.randbelow(52) < 52 for _ in range(500))


def test_naive_shuffle_of_three_cards_has_the_textbook_bias() -> None:
    """All 27 paths of the naive shuffle of 3 cards: orders come 4 or 5 times, not 27/6 (so it cannot be fair)."""
    from itertools import product

    from tablegames.randomness.broken import naive_shuffle_items

    class Scripted(RandomSource):
        def __init__(self, js: tuple[int, ...]) -> None:
            self.js = list(js)

        def getrandbits(self, k: int) -> int:  # pragma: no cover - randbelow is overridden
            raise AssertionError

        def randbelow(self, n: int) -> int:
            return self.js.pop(0)

    counts = Counter(tuple(naive_shuffle_items("abc", Scripted(js))) for js in product(range(3), repeat=3))
    assert sorted(counts.values()) == [4, 4, 4, 5, 5, 5]
    fy = Counter(tuple(shuffle_items("abc", Scripted(js))) for js in product(range(3), range(2)))
    assert set(fy.values()) == {1} and len(fy) == 6  # Fisher–Yates: 3·2 paths onto 6 orders, one each


# ------------------------------------------------------------------------------------------------ shuffles


def test_seeded_decks_are_stable() -> None:
    """The engine's seeded tables (and their tests) rely on these exact decks: the stream must never change."""
    assert " ".join(map(str, shuffle_deck(SeededRandom(7))[:10])) == "2d Qc 3c 6h 4c Ts 3s Qh 5h 2c"
    assert (
        " ".join(map(str, shuffle_deck(SeededRandom("x").child(3))[:10])) == "9c Ad 7c Ac Qc 5h 7s 5d 3d Ks"
    )


@given(seeds)
def test_same_seed_same_deck(seed: int | str | bytes) -> None:
    a, b = shuffle_deck(SeededRandom(seed)), shuffle_deck(SeededRandom(seed))
    assert a == b and sorted(a) == list(CARDS)
    assert shuffle_deck(SeededRandom(seed).child(1)) == shuffle_deck(SeededRandom(seed).child(1))


@given(seeds)
def test_live_source_never_reproduces_the_seeded_path(seed: int | str | bytes) -> None:
    """P(equal) = 1/52! per try: a live deck equal to a seeded one would mean the live source is seeded."""
    seeded = shuffle_deck(SeededRandom(seed))
    live = shuffle_deck(LiveRandom())
    assert live != seeded and sorted(live) == list(CARDS)
    assert shuffle_deck(LiveRandom()) != live  # and two live rounds are independent


@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=2, max_value=60))
def test_vectorized_seeded_batches_are_reproducible_permutations(seed: int, size: int) -> None:
    a = SeededBatch(seed, size).decks(50)
    b = SeededBatch(seed, size).decks(50)
    assert np.array_equal(a, b)
    assert np.array_equal(np.sort(a, axis=1), np.tile(np.arange(size), (50, 1)))


@pytest.mark.parametrize("size", [2, 3, 4, 13, 52, 200])
def test_every_batch_path_deals_valid_permutations(size: int) -> None:
    batchers = [LiveBatch(size), SeededBatch(1, size), NaiveBatch(1, size), ModuloBatch(1, size)]
    for batcher in batchers:
        decks = batcher.decks(300)
        assert decks.shape == (300, size) and decks.dtype == np.uint8
        assert np.array_equal(np.sort(decks, axis=1), np.tile(np.arange(size), (300, 1))), batcher


@pytest.mark.parametrize("source", ["live", "seeded", "fair", "broken-naive", "broken-modulo"])
def test_plain_paths_deal_valid_decks(source: str) -> None:
    batcher = make_batcher(source, None if source in ("live", "fair") else 3, plain=True)
    decks = batcher.decks(40)
    assert np.array_equal(np.sort(decks, axis=1), np.tile(np.arange(52), (40, 1)))


def test_plain_seeded_path_is_shuffle_deck() -> None:
    """--plain --source seeded deals exactly shuffle_deck(SeededRandom(seed).child(k)) for deck k."""
    decks = make_batcher("seeded", 9, plain=True).decks(3)
    for k in range(3):
        assert [int(c) for c in shuffle_deck(SeededRandom(9).child(k))] == decks[k].tolist()
    assert [int(c) for c in naive_shuffle_deck(SeededRandom(9))] == make_batcher(
        "broken-naive", 9, plain=True
    ).decks(1)[0].tolist()


def test_live_and_fair_sources_refuse_a_seed() -> None:
    for source in ("live", "fair"):
        with pytest.raises(ValueError, match="takes no seed"):
            make_batcher(source, 1)
    with pytest.raises(ValueError, match="needs a seed"):
        make_batcher("seeded", None)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 52, 128, 129, 256])
def test_live_below_is_in_range_and_uniform(m: int) -> None:
    """Vectorized rejection on OS bytes: values in [0, m), frequencies pass chi-square at alpha = 1e-7."""
    from scipy import stats

    values = live_below(m, 200 * m)
    assert values.min() >= 0 and values.max() < m
    if m > 1:
        counts = np.bincount(values, minlength=m)
        assert stats.chisquare(counts).pvalue > 1e-7

"""Many shuffles at once, for the statistical test suite: vectorized Fisher–Yates with NumPy.

Each batcher returns ``(count, size)`` arrays of ``uint8``; every row is one shuffled deck (a permutation of
``0 .. size-1`` in deal order, the same card indices as :mod:`tablegames.cards`).

* :class:`LiveBatch` — bytes from the OS cryptographic source (``secrets.token_bytes``), bounded integers by
  vectorized rejection sampling (keep the low ``(m-1).bit_length()`` bits of a byte, reject values ``>= m``).
  No seed, like :class:`~tablegames.randomness.LiveRandom`.
* :class:`SeededBatch` — a NumPy ``Generator`` (PCG64) seeded from SHA-256 of the seed; its bounded integers
  are unbiased (Lemire's method with rejection). Simulation and tests only.
* :class:`NaiveBatch`, :class:`ModuloBatch` — the BROKEN shuffles of :mod:`tablegames.randomness.broken`,
  vectorized, to show that the tests fail on them.
* :class:`PlainBatch` — the ordinary one-deck-at-a-time path (``shuffle_deck`` and friends), so the suite also
  tests exactly the code a table deals with.

>>> d = SeededBatch(1).decks(1000)
>>> d.shape, bool((np.sort(d, axis=1) == np.arange(52)).all())
((1000, 52), True)
>>> bool((SeededBatch(1).decks(3) == SeededBatch(1).decks(3)).all())
True
"""

from __future__ import annotations

import hashlib
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from tablegames.randomness.broken import ModuloBiasedRandom, naive_shuffle_items
from tablegames.randomness.fairness import ProvablyFair
from tablegames.randomness.sources import LiveRandom, RandomSource, SeededRandom, shuffle_items

Decks = NDArray[np.uint8]

SOURCES: tuple[str, ...] = ("live", "seeded", "fair", "broken-naive", "broken-modulo")
"""Source names of ``tablegames rng-test --source``."""


class DeckBatcher(ABC):
    """Deals shuffled decks in batches; successive calls continue one stream."""

    kind: ClassVar[str] = "abstract"

    def __init__(self, size: int = 52) -> None:
        if not 2 <= size <= 256:
            raise ValueError(f"deck size must be 2..256, got {size}")
        self.size = size

    @abstractmethod
    def decks(self, count: int) -> Decks:
        """``count`` shuffled decks, shape ``(count, size)``."""

    @property
    def description(self) -> str:
        return repr(self)


def _fisher_yates(count: int, size: int, draw: Callable[[int, int], NDArray[np.integer]]) -> Decks:
    """Vectorized Fisher–Yates over ``count`` decks: for i = size-1 … 1, swap column i with ``draw(i+1)``."""
    decks = np.tile(np.arange(size, dtype=np.uint8), (count, 1))
    rows = np.arange(count)
    for i in range(size - 1, 0, -1):
        j = draw(i + 1, count)
        held = decks[:, i].copy()
        decks[:, i] = decks[rows, j]
        decks[rows, j] = held
    return decks


def _seed_material(seed: int | str | bytes) -> int:
    material = seed if isinstance(seed, bytes) else repr(seed).encode()
    return int.from_bytes(hashlib.sha256(material).digest(), "big")


def live_below(m: int, count: int) -> NDArray[np.uint8]:
    """``count`` unbiased integers in ``[0, m)`` (m <= 256) from OS random bytes, by vectorized rejection."""
    if not 1 <= m <= 256:
        raise ValueError(f"live_below needs 1 <= m <= 256, got {m}")
    if m == 1:
        return np.zeros(count, dtype=np.uint8)
    mask = (1 << (m - 1).bit_length()) - 1  # acceptance (m / (mask+1)) is above 1/2
    out = np.empty(count, dtype=np.uint8)
    filled = 0
    while filled < count:
        need = count - filled
        raw = np.frombuffer(secrets.token_bytes(need + need // 2 + 64), dtype=np.uint8) & mask
        accepted = raw[raw < m][:need]
        out[filled : filled + accepted.size] = accepted
        filled += accepted.size
    return out


class LiveBatch(DeckBatcher):
    """Vectorized shuffles from the OS cryptographic source. No seed."""

    kind: ClassVar[str] = "live"

    def decks(self, count: int) -> Decks:
        return _fisher_yates(count, self.size, live_below)

    def __repr__(self) -> str:
        return "LiveBatch(os.urandom via secrets, vectorized rejection sampling)"


class SeededBatch(DeckBatcher):
    """Vectorized seeded shuffles (NumPy PCG64); simulation and tests only."""

    kind: ClassVar[str] = "seeded"

    def __init__(self, seed: int | str | bytes, size: int = 52) -> None:
        super().__init__(size)
        if not isinstance(seed, int | str | bytes):
            raise TypeError(
                f"a seeded batch needs an explicit int, str or bytes seed, got {type(seed).__name__}"
            )
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(_seed_material(seed)))

    def _below(self, m: int, count: int) -> NDArray[np.integer]:
        return self.rng.integers(0, m, size=count)

    def decks(self, count: int) -> Decks:
        return _fisher_yates(count, self.size, self._below)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.seed!r})"


class NaiveBatch(SeededBatch):
    """BROKEN: the naive shuffle (swap each position with one uniform over the whole deck), vectorized."""

    kind: ClassVar[str] = "broken-naive"

    def decks(self, count: int) -> Decks:
        decks = np.tile(np.arange(self.size, dtype=np.uint8), (count, 1))
        rows = np.arange(count)
        for i in range(self.size):
            j = self.rng.integers(0, self.size, size=count)
            held = decks[:, i].copy()
            decks[:, i] = decks[rows, j]
            decks[rows, j] = held
        return decks


class ModuloBatch(SeededBatch):
    """BROKEN: Fisher–Yates with ``random_byte % (i+1)`` as the bounded integer, vectorized."""

    kind: ClassVar[str] = "broken-modulo"

    def _below(self, m: int, count: int) -> NDArray[np.integer]:
        return self.rng.integers(0, 256, size=count) % m


class PlainBatch(DeckBatcher):
    """The plain path: deck k is ``shuffle(range(size), source_for(k))`` — the code a table really runs."""

    def __init__(
        self,
        kind: str,
        source_for: Callable[[int], RandomSource],
        shuffle: Callable[[Sequence[int], RandomSource], list[int]] = shuffle_items,
        size: int = 52,
        label: str = "",
    ) -> None:
        super().__init__(size)
        self.plain_kind = kind
        self.source_for = source_for
        self.shuffle = shuffle
        self.label = label
        self.dealt = 0

    def decks(self, count: int) -> Decks:
        out = np.empty((count, self.size), dtype=np.uint8)
        base = range(self.size)
        for row in range(count):
            out[row] = self.shuffle(base, self.source_for(self.dealt))
            self.dealt += 1
        return out

    def __repr__(self) -> str:
        return f"PlainBatch({self.label or self.plain_kind})"


def _fair_source(_k: int) -> RandomSource:
    # A fresh secret server seed per round, client seed by default, nonce = 1: each round as a live table deals it.
    return ProvablyFair(nonce=1).source()


def make_batcher(
    source: str, seed: int | str | None = None, *, plain: bool = False, size: int = 52
) -> DeckBatcher:
    """The batcher for ``tablegames rng-test --source SOURCE [--seed S] [--plain]``.

    ``live`` and ``fair`` take no seed; the others need one. ``fair`` (provably fair rounds, fresh server seed per
    round) only exists on the plain path.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; choose {', '.join(SOURCES)}")
    if source in ("live", "fair"):
        if seed is not None:
            raise ValueError(f"the {source} source takes no seed (it draws from the OS cryptographic source)")
        if source == "fair":
            return PlainBatch(
                "fair", _fair_source, size=size, label="ProvablyFair: fresh server seed per round"
            )
        if plain:
            live = LiveRandom()
            return PlainBatch("live", lambda _k: live, size=size, label="LiveRandom() + shuffle_deck")
        return LiveBatch(size)
    if seed is None:
        raise ValueError(f"the {source} source needs a seed")
    if not plain:
        batch_class: dict[str, type[SeededBatch]] = {
            "seeded": SeededBatch,
            "broken-naive": NaiveBatch,
            "broken-modulo": ModuloBatch,
        }
        return batch_class[source](seed, size)
    root_seed = seed
    if source == "seeded":
        root = SeededRandom(root_seed)
        return PlainBatch(
            "seeded", root.child, size=size, label=f"SeededRandom({seed!r}).child(k) + shuffle_deck"
        )
    if source == "broken-naive":
        rng = SeededRandom(root_seed)
        return PlainBatch(
            "broken-naive",
            lambda _k: rng,
            naive_shuffle_items,
            size=size,
            label=f"naive shuffle, seed {seed!r}",
        )
    modulo = ModuloBiasedRandom(root_seed)
    return PlainBatch("broken-modulo", lambda _k: modulo, size=size, label=f"ModuloBiasedRandom({seed!r})")

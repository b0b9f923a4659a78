"""Random sources and the Fisher–Yates shuffle (R-0.1)."""

from __future__ import annotations

import hashlib
import random
import secrets
from abc import ABC, abstractmethod

from tablegames.cards import CARDS, Card


class RandomSource(ABC):
    """A source of unbiased bounded integers."""

    #: True only for the OS cryptographic source; live tables refuse anything else.
    live: bool = False

    @abstractmethod
    def getrandbits(self, k: int) -> int:
        """``k`` uniformly random bits as a non-negative int."""

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, unbiased: draw ``n.bit_length()`` bits, reject values ``>= n``."""
        if n <= 0:
            raise ValueError(f"randbelow needs n > 0, got {n}")
        k = n.bit_length()
        while True:
            r = self.getrandbits(k)
            if r < n:
                return r


class LiveRandom(RandomSource):
    """The operating system's cryptographic source (``secrets``). Has no seed, by design."""

    live = True

    def getrandbits(self, k: int) -> int:
        return secrets.randbits(k)

    def __repr__(self) -> str:
        return "LiveRandom()"


class SeededRandom(RandomSource):
    """Deterministic source for simulation, replay and tests only (never for live play)."""

    live = False

    def __init__(self, seed: int | str | bytes) -> None:
        self.seed = seed
        material = seed if isinstance(seed, bytes) else repr(seed).encode()
        self._rng = random.Random(int.from_bytes(hashlib.sha256(material).digest(), "big"))

    def getrandbits(self, k: int) -> int:
        return self._rng.getrandbits(k) if k else 0

    def child(self, index: int) -> SeededRandom:
        """An independent stream for sub-task ``index`` (e.g. one round of a seeded table)."""
        return SeededRandom(f"{self.seed!r}/{index}")

    def __repr__(self) -> str:
        return f"SeededRandom({self.seed!r})"


def shuffle_deck(source: RandomSource) -> tuple[Card, ...]:
    """A complete 52-card deck in random order, by Fisher–Yates from ``source`` (R-0.1)."""
    deck = list(CARDS)
    for i in range(len(deck) - 1, 0, -1):
        j = source.randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)

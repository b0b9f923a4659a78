"""Random sources and the Fisher–Yates shuffle (R-0.1).

Three kinds of source, each its own type so they cannot be confused:

* :class:`LiveRandom` — the operating system's cryptographic source (``secrets``). It has no seed and
  cannot be given one (its constructor takes no argument and it cannot be subclassed).
* :class:`SeededRandom` — deterministic, for simulation, replay and tests only. It needs an explicit
  ``int``/``str``/``bytes`` seed (a float such as ``time.time()`` is refused).
* ``ProvablyFairRandom`` (in :mod:`tablegames.randomness.fairness`) — deterministic from a secret server seed,
  a client seed and a round number, so that a player can verify the deal afterwards.

Live tables call :func:`tablegames.randomness.require_live` on their source; it raises
:class:`NotLiveError` for anything that is not live.

>>> LiveRandom(42)
Traceback (most recent call last):
...
TypeError: LiveRandom.__init__() takes 1 positional argument but 2 were given
>>> SeededRandom(1.5)
Traceback (most recent call last):
...
TypeError: SeededRandom needs an explicit int, str or bytes seed, got float
"""

from __future__ import annotations

import hashlib
import random
import secrets
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar, final

from tablegames.cards import CARDS, Card

T = TypeVar("T")


class NotLiveError(TypeError):
    """A deterministic (seeded or revealed) source was offered where live play needs a secret random one."""


class RandomSource(ABC):
    """A source of unbiased bounded integers."""

    #: What kind of source this is: ``"live"``, ``"seeded"``, ``"provably-fair"`` or ``"broken-..."``.
    kind: ClassVar[str] = "abstract"

    @property
    def live(self) -> bool:
        """True only if this source may deal a live round (see :func:`require_live`)."""
        return False

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


@final
class LiveRandom(RandomSource):
    """The operating system's cryptographic source (``secrets``). Has no seed, by design.

    Each call reads fresh bytes from the OS, so every round's shuffle is independent of every other.
    """

    kind: ClassVar[str] = "live"

    def __init__(self) -> None:
        pass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("LiveRandom cannot be subclassed (a subclass could hide a seed)")

    @property
    def live(self) -> bool:
        return True

    def getrandbits(self, k: int) -> int:
        return secrets.randbits(k)

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"randbelow needs n > 0, got {n}")
        return secrets.randbelow(n)  # CPython: rejection sampling on n.bit_length() bits, as above

    def __repr__(self) -> str:
        return "LiveRandom()"


class SeededRandom(RandomSource):
    """Deterministic source for simulation, replay and tests only (never for live play)."""

    kind: ClassVar[str] = "seeded"

    def __init__(self, seed: int | str | bytes) -> None:
        if not isinstance(seed, int | str | bytes):
            raise TypeError(
                f"SeededRandom needs an explicit int, str or bytes seed, got {type(seed).__name__}"
            )
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


def shuffle_items(items: Sequence[T], source: RandomSource) -> list[T]:
    """A new list with ``items`` in random order: Fisher–Yates, ``j`` uniform in ``[0, i]`` for i = n-1 … 1.

    >>> shuffle_items("abcd", SeededRandom(3)) == shuffle_items("abcd", SeededRandom(3))
    True
    """
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = source.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def shuffle_deck(source: RandomSource) -> tuple[Card, ...]:
    """A complete 52-card deck in random order, by Fisher–Yates from ``source`` (R-0.1).

    The deck starts in index order (2c 2d 2h 2s 3c … As); the result is the deal order.
    """
    return tuple(shuffle_items(CARDS, source))

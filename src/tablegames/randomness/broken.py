"""Deliberately BROKEN shuffles, kept only to prove that the statistical tests can fail. Never deal with them.

* :func:`naive_shuffle_items` — the classic mistake: for every position i, swap with a position j uniform in
  ``[0, n)`` (not ``[0, i]``). It makes n**n equally likely paths onto n! orders; n! does not divide n**n, so
  some orders are more likely than others (for 3 cards: 4/27 or 5/27 instead of 1/6).
* :class:`ModuloBiasedRandom` — a bounded integer as ``random_byte % n``: values below ``256 % n`` are
  (256 // n + 1) / 256 likely, the rest 256 // n / 256 (for n = 52: 5/256 vs 4/256, a 25% excess).

Both are seeded (reproducible) and :func:`tablegames.randomness.require_live` refuses them.

>>> naive_shuffle_items("abc", SeededRandom(1)) in [list(p) for p in ("abc", "acb", "bac", "bca", "cab", "cba")]
True
>>> ModuloBiasedRandom(1).randbelow(52) < 52
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeVar

from tablegames.cards import CARDS, Card
from tablegames.randomness.sources import RandomSource, SeededRandom

T = TypeVar("T")


class ModuloBiasedRandom(SeededRandom):
    """BROKEN: ``randbelow(n)`` is a random byte (or bytes, for n > 256) modulo n — biased."""

    kind: ClassVar[str] = "broken-modulo"

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"randbelow needs n > 0, got {n}")
        nbytes = max(1, ((n - 1).bit_length() + 7) // 8)
        return self.getrandbits(8 * nbytes) % n

    def child(self, index: int) -> ModuloBiasedRandom:
        return ModuloBiasedRandom(f"{self.seed!r}/{index}")

    def __repr__(self) -> str:
        return f"ModuloBiasedRandom({self.seed!r})"


def naive_shuffle_items(items: Sequence[T], source: RandomSource) -> list[T]:
    """BROKEN: swap every position i with j uniform in ``[0, n)``."""
    out = list(items)
    n = len(out)
    for i in range(n):
        j = source.randbelow(n)
        out[i], out[j] = out[j], out[i]
    return out


def naive_shuffle_deck(source: RandomSource) -> tuple[Card, ...]:
    """BROKEN: the naive shuffle of a 52-card deck."""
    return tuple(naive_shuffle_items(CARDS, source))

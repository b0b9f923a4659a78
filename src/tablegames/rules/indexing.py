"""Indices of rank patterns and card classes: the one definition the exact analysis and the simulation share.

A card ``c`` (0..51) has rank index ``c >> 2`` (0 = deuce .. 12 = ace) and suit ``c & 3``. A tuple of rank
indices ``(r0, .., rk)`` has the base-13 index ``((r0 * 13 + r1) * 13 + ..) * 13 + rk`` (first rank most
significant). A *pattern table* holds the value of a rule function at every sorted rank pattern (plain and
flush); :func:`expand_sorted` spreads it to every ordered tuple, which is what the kernels index.

A card *class* merges cards that a game's rules cannot tell apart: the 13 natural ranks plus one class for
the game's wild cards (:class:`CardClasses`).

>>> rank_index([12, 0, 3]), rank_index([0, 0, 1])
(2031, 1)
>>> c = CardClasses(frozenset({0}))
>>> c.card_class(0), c.card_class(1), c.card_class(51), c.letters[c.wild_class]
(13, 0, 12, 'W')
>>> c.representative([0, 0, 13]), c.representative([13, 13])
([1, 2, 0], None)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NumPy is imported by the array helpers only (the rules layer loads without it)
    import numpy.typing as npt

RANKS = 13
R3, R4, R5 = RANKS**3, RANKS**4, RANKS**5
RANK_LETTERS = "23456789TJQKA"


def rank_index(ranks: Sequence[int]) -> int:
    """Base-13 index of rank indices (0 = deuce .. 12 = ace), the first rank most significant."""
    out = 0
    for r in ranks:
        out = out * RANKS + int(r)
    return out


def rank_weights(k: int) -> npt.NDArray[Any]:
    """The weights of :func:`rank_index` for ``k`` ranks, as an array: ``rows @ rank_weights(k)``."""
    import numpy as np

    return RANKS ** np.arange(k - 1, -1, -1, dtype=np.int64)


def rank_multisets(k: int) -> list[tuple[int, ...]]:
    """Every sorted pattern of ``k`` rank indices that one deck can deal (at most four of a rank)."""
    return [
        m for m in itertools.combinations_with_replacement(range(RANKS), k) if max(m.count(r) for r in m) <= 4
    ]


def build_pattern_tables(
    k: int, classify: Callable[[list[int], bool], int]
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """``classify(ranks, flush)`` at every sorted pattern of ``k`` ranks (ranks 2..14 as the rules take them),
    by :func:`rank_index`: a plain table and a flush table (``-1`` where no deal makes the pattern). Read-only."""
    import numpy as np

    plain = np.full(RANKS**k, -1, dtype=np.int8)
    flush = np.full(RANKS**k, -1, dtype=np.int8)
    for ms in rank_multisets(k):
        ranks = [r + 2 for r in ms]
        key = rank_index(ms)
        plain[key] = classify(ranks, False)
        if len(set(ms)) == k:
            flush[key] = classify(ranks, True)
    plain.setflags(write=False)
    flush.setflags(write=False)
    return plain, flush


pattern_tables = lru_cache(maxsize=8)(build_pattern_tables)
"""Cached :func:`build_pattern_tables`."""


def expand_sorted(sorted_table: npt.NDArray[Any], k: int) -> npt.NDArray[Any]:
    """From a table filled at sorted rank tuples to every ordered tuple (the value depends on the multiset)."""
    import numpy as np

    grid = np.indices((RANKS,) * k).reshape(k, -1).T  # every ordered tuple, in index order
    out: npt.NDArray[Any] = sorted_table[np.sort(grid, axis=1) @ rank_weights(k)]
    return out


class CardClasses:
    """The card classes of a game with wild cards: class ``r`` (0..12) is the natural cards of rank index
    ``r``, class :attr:`wild_class` (13) the wild cards."""

    def __init__(self, wild: Collection[int]) -> None:
        self.wild = frozenset(int(c) for c in wild)
        self.wild_class = RANKS
        self.n = RANKS + 1
        self.letters = RANK_LETTERS + "W"
        pool: list[list[int]] = [[] for _ in range(self.n)]
        for c in range(52):
            pool[self.card_class(c)].append(c)
        self._cards = tuple(tuple(x) for x in pool)

    def card_class(self, card: int) -> int:
        return self.wild_class if card in self.wild else int(card) >> 2

    def class_cards(self) -> tuple[tuple[int, ...], ...]:
        """The cards of each class, in card order."""
        return self._cards

    def representative(self, classes: Sequence[int], taken: Collection[int] = ()) -> list[int] | None:
        """Distinct cards of the given classes (in order), avoiding ``taken``; None when the deck has too few."""
        used = set(taken)
        out = []
        for k in classes:
            card = next((c for c in self._cards[k] if c not in used), None)
            if card is None:
                return None
            used.add(card)
            out.append(card)
        return out

    def triple_index(self, classes: Sequence[int]) -> int:
        """Index of an ordered triple of classes (first most significant)."""
        return (classes[0] * self.n + classes[1]) * self.n + classes[2]

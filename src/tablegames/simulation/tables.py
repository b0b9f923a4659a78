"""Lookup tables for the simulation kernels are built by calling the rules layer (never a second hand ranker).

Every table is filled by calling the plain functions of ``tablegames.rules`` once per *pattern* (rank tuple and
flush flag, or card class), then expanded with NumPy to every ordered tuple so that a kernel needs no sorting.
Each game's kernel adapter (``simulation/<game>.py``) builds its own; this module holds what they share.
Indexing (rank indices, pattern tables, card classes) is :mod:`tablegames.rules.indexing`, shared with the
exact analysis: a card ``c`` has rank index ``c >> 2`` (0 = deuce .. 12 = ace) and suit ``c & 3``; a rank tuple
``(r0, .., rk)`` has index ``((r0 * 13 + r1) * 13 + ..) * 13 + rk``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.rules.common import NO_PAY
from tablegames.rules.indexing import R3, R4, R5, expand_sorted, pattern_tables, rank_index, rank_multisets

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

NO_PRIZE = NO_PAY
"""Marks "this hand loses" in odds tables (a paying hand has odds >= 0): the rules' ``NO_PAY``."""


def odds_array(paytable: Any, hands: Sequence[Any]) -> I64:
    """``X`` of "X to 1" for each hand of a pay table, or :data:`NO_PRIZE` when it loses."""
    return np.array([NO_PRIZE if (o := paytable.odds(h)) is None else o for h in hands], dtype=np.int64)


__all__ = [
    "NO_PRIZE",
    "R3",
    "R4",
    "R5",
    "expand_sorted",
    "odds_array",
    "pattern_tables",
    "rank_index",
    "rank_multisets",
]

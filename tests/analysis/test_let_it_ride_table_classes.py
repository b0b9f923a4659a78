"""The Let It Ride decision table's classes (issue 28): found from the suits' rank masks, they are the same
classes, in the same order, with the same representatives and sizes as from every set's canonical key (the
table ``analyze --format json`` printed before)."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.analysis.let_it_ride_kernel import combos
from tablegames.analysis.let_it_ride_report import canonical_keys, suit_classes


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_classes_are_those_of_the_canonical_keys(n: int) -> None:
    hands = combos(52, n)
    _, first, count = np.unique(canonical_keys(hands), return_index=True, return_counts=True)
    got_first, got_count = suit_classes(hands)
    assert got_first.tolist() == first.tolist()
    assert got_count.tolist() == count.tolist()
    assert int(got_count.sum()) == len(hands)


def test_a_subset_of_hands_keeps_its_own_first_rows() -> None:
    """Representatives are each class's first row of the array given (here: every 7th four-card set)."""
    hands = np.ascontiguousarray(combos(52, 4)[::7])
    _, first, count = np.unique(canonical_keys(hands), return_index=True, return_counts=True)
    got_first, got_count = suit_classes(hands)
    assert (got_first.tolist(), got_count.tolist()) == (first.tolist(), count.tolist())

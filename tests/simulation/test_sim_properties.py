"""Properties of the sequential passes: the meter book and the bankroll tracker equal plain round-by-round
reference implementations, however their input is split."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tablegames.rules.definition import Meter
from tablegames.simulation.bankroll import BankrollTracker
from tablegames.simulation.meters import MeterBook

hits_st = st.lists(
    st.tuples(st.integers(1, 60), st.integers(0, 6), st.integers(0, 1)),
    max_size=25,
    unique_by=lambda h: h[:2],
)


@given(hits_st, st.integers(0, 50), st.integers(0, 7), st.integers(1, 4))
def test_meter_book_equals_round_by_round_meters(
    hits: list[tuple[int, int, int]], c0: int, c1: int, pieces: int
) -> None:
    """R-LIR-7: each round every meter grows by its contributions, then hits pay it in seat order and reset it."""
    hits.sort()
    meters = [Meter("a", 1_000, Fraction(0)), Meter("b", 50, Fraction(0))]
    per_round = [c0, c1]
    value = [m.reset_cents for m in meters]
    expected = []
    for t in range(1, 61):
        for m in range(len(meters)):
            value[m] += per_round[m]
        for _, _, m in (h for h in hits if h[0] == t):
            expected.append(value[m])
            value[m] = meters[m].reset_cents
    book = MeterBook(meters, per_round)
    rows = np.array([[t, s, m, 0, 0, 0] for t, s, m in hits], dtype=np.int64).reshape(-1, 6)
    got: list[int] = []
    for part in np.array_split(rows, pieces):
        got += book.pay(part)
    assert got == expected
    assert [book.value(m, 60) for m in range(2)] == value


@given(st.lists(st.integers(-800, 900), max_size=120), st.integers(1, 9), st.integers(1, 5))
def test_bankroll_tracker_equals_plain_sessions(nets: list[int], session: int, pieces: int) -> None:
    bankroll, cost = 1_000, 300
    finals, ruined = [], []
    for k in range(len(nets) // session):
        bank, dead = bankroll, 0
        for x in nets[k * session : (k + 1) * session]:
            if not dead:
                bank += x
                dead = int(bank < cost)
        finals.append(bank)
        ruined.append(dead)
    t = BankrollTracker(bankroll, session, cost, max(1, len(nets) // session))
    for part in np.array_split(np.array(nets, dtype=np.int64), pieces):
        t.feed(part)
    n = len(finals)
    assert t.finals[:n].tolist() == finals and t.ruined[:n].tolist() == ruined
    assert int(t.state[3]) == n

"""Jackpot meters paid exactly, in order, after the kernels (R-LIR-7, R-OEF-9).

A meter starts at its reset value; every round each seat's side wager adds its share (``per_round`` in all),
at the deal, before anything is settled; a hit pays the whole meter and resets it.  So a hit in round ``t``
(1-based) pays ``reset + per_round * (t - t_last)``, where ``t_last`` is the round of the meter's previous hit
(0 at the start).  Two hits of one meter in one round are paid in seat order, the second from the reset value
(``t == t_last``), as R-LIR-7 says.

>>> from fractions import Fraction
>>> book = MeterBook([Meter("mega", 5000, Fraction(1, 10))], per_round=[10])
>>> book.pay(np.array([[3, 0, 0, 0, 0, 0], [3, 2, 0, 0, 0, 0], [5, 1, 0, 0, 0, 0]]))
[5030, 5000, 5020]
>>> book.value(0, 10)
5050
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tablegames.rules.definition import Meter


class MeterBook:
    """Sequential state of the meters: fed the hits of consecutive chunks, in round order.

    ``per_round[m]``: the cents meter ``m`` gets each round from all seats (``Job.per_round``).
    """

    def __init__(self, meters: Sequence[Meter], per_round: Sequence[int]) -> None:
        self.meters = tuple(meters)
        self.per_round = tuple(per_round)
        if len(self.per_round) != len(self.meters):
            raise ValueError("one contribution per round for each meter")
        self.last = [0] * len(self.meters)
        self.hits = [0] * len(self.meters)
        self.paid = [0] * len(self.meters)
        self.largest = [0] * len(self.meters)

    def pay(self, hits: npt.NDArray[np.int64]) -> list[int]:
        """Amount of each hit (rows sorted by round, then seat)."""
        out = []
        for row in hits:
            t, m = int(row[0]), int(row[2])
            meter = self.meters[m]
            if t < self.last[m]:
                raise ValueError("meter hits must come in round order")
            amount = meter.reset_cents + self.per_round[m] * (t - self.last[m])
            self.last[m] = t
            self.hits[m] += 1
            self.paid[m] += amount
            self.largest[m] = max(self.largest[m], amount)
            out.append(amount)
        return out

    def value(self, m: int, rounds: int) -> int:
        """The meter after ``rounds`` rounds."""
        return self.meters[m].reset_cents + self.per_round[m] * (rounds - self.last[m])

"""Merging chunk results (exact integers, in chunk order), paying the meters, and the report.

Figures per wager type: ``return`` (amount returned per unit of initial wager; for the components of a side
wager, e.g. its fixed prizes, the part of the return they make), ``house_edge`` (expected loss per unit of
initial wager: for Let It Ride one of its three bets, RULES.md) with a 95% confidence interval from the
round-to-round variance (a round's seats are not independent, so the round is the sample).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablegames.rules import registry
from tablegames.simulation.bankroll import BankrollTracker
from tablegames.simulation.job import ChunkResult, Job
from tablegames.simulation.meters import MeterBook
from tablegames.simulation.strategy import kernel_of

Z95 = 1.959963984540054


@dataclass
class Tally:
    """Exact running totals of a job (Python ints), fed chunk results in chunk order."""

    job: Job
    bankroll: BankrollTracker | None = None
    rounds: int = 0
    next_index: int = 0
    wager: list[list[int]] = field(default_factory=list)
    seat: list[list[int]] = field(default_factory=list)
    hist: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        rows = len(self.job.wager_rows) + (1 if self.job.meters else 0)
        self.wager = [[0] * 5 for _ in range(rows)]
        self.seat = [[0] * 4 for _ in range(self.job.seats)]
        self.hist = [0] * self.job.hist_size
        self.book = MeterBook(self.job.meters, self.job.per_round)
        self.kernel = kernel_of(self.job.game)

    @property
    def row_names(self) -> tuple[str, ...]:
        names = self.job.wager_rows
        return (*names, self.kernel.meter_row_name) if self.job.meters else names

    def add(self, res: ChunkResult) -> None:
        if res.index != self.next_index:
            raise ValueError(f"chunk {res.index} out of order (expected {self.next_index})")
        self.next_index += 1
        self.rounds += res.rounds
        for i, row in enumerate(res.wager_acc.tolist()):
            for j, v in enumerate(row[:4]):
                self.wager[i][j] += v
            self.wager[i][4] += (row[4] << 32) + row[5]  # sum of squares from its two int64 parts
        for i, row in enumerate(res.seat_acc.tolist()):
            for j, v in enumerate(row[:3]):
                self.seat[i][j] += v
            self.seat[i][3] += (row[3] << 32) + row[4]
        for i, v in enumerate(res.hist.tolist()):
            self.hist[i] += v
        seat1 = res.seat1
        if len(res.hits):
            amounts = self.book.pay(res.hits)
            self._apply_hits(res.hits.tolist(), amounts)
            if seat1 is not None:
                first = res.index * self.job.chunk_rounds + 1
                seat1 = seat1.copy()
                for row, a in zip(res.hits.tolist(), amounts, strict=True):
                    if row[1] == 0:
                        seat1[row[0] - first] += a
        if self.bankroll is not None and seat1 is not None:
            self.bankroll.feed(seat1)

    def _apply_hits(self, hits: list[list[int]], amounts: list[int]) -> None:
        """Add the meter prizes to the sums (and correct the sums of squares of the rounds that hit)."""
        mrow, comp = self.job.meter_row, len(self.wager) - 1
        by_round: dict[int, tuple[int, int]] = {}
        for (t, s, _m, _sp, x_round, x_seat), a in zip(hits, amounts, strict=True):
            m_total, _ = by_round.get(t, (0, x_round))
            by_round[t] = (m_total + a, x_round)
            self.seat[s][2] += a
            self.seat[s][3] += (x_seat + a) ** 2 - x_seat**2
        for m_total, x_round in by_round.values():
            self.wager[mrow][3] += m_total
            self.wager[mrow][4] += (x_round + m_total) ** 2 - x_round**2
            self.wager[comp][3] += m_total
            self.wager[comp][4] += m_total**2

    # --- the report --------------------------------------------------------------------------

    def _at_risk_units(self, name: str, units: int) -> float:
        """Cents of ``name`` still in action when settled (e.g. Let It Ride's bets that were not pulled)."""
        return self.kernel.at_risk_units(name, units, self.hist)

    def summary(self) -> dict[str, Any]:
        job, n = self.job, self.rounds
        if self.job.meters:
            self.wager[-1][0] = self.wager[job.meter_row][0]
            self.wager[-1][1] = self.wager[job.meter_row][1]
        wagers = {}
        for name, (count, units, staked, returned, x2) in zip(self.row_names, self.wager, strict=True):
            if count == 0:
                continue
            component = name in self.kernel.components
            net = returned - staked
            _, se = _mean_se(net, x2, n)
            per_round = units / n
            ret = (returned if component else units + net) / units
            entry: dict[str, Any] = {
                "wagers": count,
                "wagered_cents": staked if not component else None,
                "returned_cents": returned,
                "net_cents": net if not component else None,
                "return": ret,
                "return_ci95": [ret - Z95 * se / per_round, ret + Z95 * se / per_round],
                "std_error": se / per_round,
            }
            if not component:
                entry["house_edge"] = -net / units
                entry["house_edge_ci95"] = [
                    -net / units - Z95 * se / per_round,
                    -net / units + Z95 * se / per_round,
                ]
                at_risk = self._at_risk_units(name, units)
                if at_risk != units:
                    # Element of risk: loss over the average total amount wagered, i.e. the money still in
                    # action at settlement (Let It Ride's pulled bets were never at risk; RULES.md).
                    entry["element_of_risk"] = -net / at_risk
                    entry["average_wager_units"] = at_risk / units
            wagers[name] = entry
        seats = []
        for i, (units, staked, returned, x2) in enumerate(self.seat):
            net = returned - staked
            _, se = _mean_se(net, x2, n)
            seats.append(
                {
                    "seat": i + 1,
                    "wagered_cents": staked,
                    "returned_cents": returned,
                    "net_cents": net,
                    "net_per_round_cents": net / n if n else 0.0,
                    "edge": -net / units if units else 0.0,
                    "edge_ci95": [(-net - Z95 * se * n) / units, (-net + Z95 * se * n) / units]
                    if units
                    else None,
                }
            )
        jackpots = []
        for m, meter in enumerate(job.meters):
            hits = self.book.hits[m]
            jackpots.append(
                {
                    "meter": meter.name,
                    "reset_cents": meter.reset_cents,
                    "contribution_per_round_cents": job.per_round[m],
                    "hits": hits,
                    "rounds_per_hit": n / hits if hits else None,
                    "average_at_hit_cents": self.book.paid[m] / hits if hits else None,
                    "largest_hit_cents": self.book.largest[m] if hits else None,
                    "paid_cents": self.book.paid[m],
                    "final_value_cents": self.book.value(m, n),
                }
            )
        out: dict[str, Any] = {
            "game": job.game,
            "rules": job.rules_text,
            "strategy": job.strategy,
            "seats": job.seats,
            "rounds": n,
            "seed": job.seed,
            "chunk_rounds": job.chunk_rounds,
            "wagers_cents": job.wagers.cents(registry.get(job.game)),
            "results": wagers,
            "outcomes": self.outcomes(),
            "jackpots": jackpots,
            "per_seat": seats,
        }
        if self.bankroll is not None:
            out["bankroll"] = self.bankroll.summary()
        return out

    def outcomes(self) -> dict[str, dict[str, dict[str, float | int]]]:
        """Hit frequency of each outcome, per wager type: count and frequency per seat-round (or per wager)."""
        h = self.hist
        out: dict[str, dict[str, dict[str, float | int]]] = {}

        def block(name: str, labels: list[str], counts: Sequence[int], per: int) -> None:
            if per:
                out[name] = {
                    lab: {"count": c, "frequency": c / per} for lab, c in zip(labels, counts, strict=True)
                }

        self.kernel.outcomes(block, h, [row[0] for row in self.wager], self.rounds)
        return out


def _mean_se(total: int, sum_sq: int, n: int) -> tuple[float, float]:
    """Mean and its standard error from exact integer sums over ``n`` rounds."""
    if n == 0:
        return 0.0, 0.0
    mean = total / n
    if n == 1:
        return mean, 0.0
    var = (sum_sq - total * total / n) / (n - 1)
    return mean, math.sqrt(max(var, 0.0) / n)


def merge_arrays(parts: list[ChunkResult]) -> ChunkResult:
    """Sum of chunk results (counts only), for tests of exact merging."""
    first = parts[0]
    return ChunkResult(
        -1,
        sum(p.rounds for p in parts),
        np.sum([p.wager_acc for p in parts], axis=0),
        np.sum([p.seat_acc for p in parts], axis=0),
        np.sum([p.hist for p in parts], axis=0),
        np.concatenate([p.hits for p in parts]) if parts else first.hits,
    )

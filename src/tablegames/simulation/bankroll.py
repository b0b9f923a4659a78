"""The bankroll view: seat 1 plays consecutive sessions of ``session`` rounds, each starting with ``bankroll``
cents; a session is *ruined* when, after a round, the bankroll no longer covers one round's wagers (the player
stops; nothing later changes it).  Reports the risk of ruin and the distribution of session results, and
plots percentile bankroll paths (PNG).

The tracker is fed seat 1's net of each round in round order (jackpot prizes included), chunk after chunk, so
sessions may span chunks and memory stays flat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]
MAX_SESSIONS = 10_000_000
MAX_PATHS = 20_000
"""Sessions whose paths are kept for the percentile plot (the first ones; every session counts for the rest)."""


@njit(cache=True, nogil=True)
def _feed(nets, state, start_bank, session, cost, finals, ruined, paths, marks):  # type: ignore[no-untyped-def]
    """state = [bankroll now, round in session, ruined?, sessions done]."""
    bank = state[0]
    t = state[1]
    dead = state[2]
    done = state[3]
    npoints = marks.shape[0]
    for x in nets:
        if done >= finals.shape[0]:
            break
        if dead == 0:
            bank += x
            if bank < cost:
                dead = 1
        t += 1
        if done < paths.shape[0]:
            for j in range(npoints):
                if marks[j] == t:
                    paths[done, j] = bank
        if t == session:
            finals[done] = bank
            ruined[done] = dead
            done += 1
            bank = start_bank
            t = 0
            dead = 0
    state[0] = bank
    state[1] = t
    state[2] = dead
    state[3] = done


@dataclass
class BankrollTracker:
    bankroll: int
    session: int
    cost: int  # cents seat 1 wagers each round
    sessions: int

    def __post_init__(self) -> None:
        if self.bankroll <= 0 or self.session <= 0:
            raise ValueError("bankroll and session length must be positive")
        points = min(self.session, 200)
        self.marks = np.unique(np.linspace(1, self.session, points).round().astype(np.int64))
        self.state = np.array([self.bankroll, 0, 0, 0], dtype=np.int64)
        self.finals = np.zeros(self.sessions, dtype=np.int64)
        self.ruined = np.zeros(self.sessions, dtype=np.int64)
        self.paths = np.zeros((min(self.sessions, MAX_PATHS), len(self.marks)), dtype=np.int64)

    def feed(self, nets: I64) -> None:
        _feed(
            nets,
            self.state,
            self.bankroll,
            self.session,
            self.cost,
            self.finals,
            self.ruined,
            self.paths,
            self.marks,
        )

    def summary(self) -> dict[str, Any]:
        n = int(self.state[3])
        if n == 0:
            return {"sessions": 0}
        results = self.finals[:n] - self.bankroll
        p = float(self.ruined[:n].mean())
        se = math.sqrt(p * (1 - p) / n)
        pct = (1, 5, 10, 25, 50, 75, 90, 95, 99)
        q = np.percentile(results, pct, method="lower")
        return {
            "sessions": n,
            "bankroll_cents": self.bankroll,
            "session_rounds": self.session,
            "risk_of_ruin": p,
            "risk_of_ruin_ci95": [max(0.0, p - 1.96 * se), min(1.0, p + 1.96 * se)],
            "mean_result_cents": float(results.mean()),
            "p_ahead": float((results > 0).mean()),
            "p_even": float((results == 0).mean()),
            "result_percentiles_cents": {str(k): int(v) for k, v in zip(pct, q, strict=True)},
            "min_result_cents": int(results.min()),
            "max_result_cents": int(results.max()),
        }

    def plot(self, path: str | Path, title: str) -> None:
        """Percentile bankroll paths of the first sessions (5/25/50/75/95th), as a PNG."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        n = min(int(self.state[3]), len(self.paths))
        if n == 0:
            raise ValueError("no complete session to plot")
        dollars = self.paths[:n] / 100.0
        x = np.concatenate([[0], self.marks])
        qs = {
            q: np.concatenate([[self.bankroll / 100.0], np.percentile(dollars, q, axis=0)])
            for q in (5, 25, 50, 75, 95)
        }
        fig, ax = plt.subplots(figsize=(9, 5), dpi=100)
        ax.fill_between(x, qs[5], qs[95], alpha=0.2, color="tab:blue", label="5th-95th percentile")
        ax.fill_between(x, qs[25], qs[75], alpha=0.35, color="tab:blue", label="25th-75th percentile")
        ax.plot(x, qs[50], color="tab:blue", label="median")
        ax.axhline(
            self.bankroll / 100.0, color="gray", linestyle="--", linewidth=1, label="starting bankroll"
        )
        ruin = float(self.ruined[: int(self.state[3])].mean())
        ax.set_title(f"{title}\n{n:,} sessions of {self.session:,} rounds; risk of ruin {ruin:.2%}")
        ax.set_xlabel("round of the session")
        ax.set_ylabel("bankroll ($)")
        ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(str(path))
        plt.close(fig)

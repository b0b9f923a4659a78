"""The independent check of the math report: a seeded Numba simulation of whole rounds, as ``tablegames
simulate`` plays them, summarised for the report (``analysis.submission`` gets it injected by the CLI: the
analysis layer does not import the simulation).

>>> from tablegames.rules import make_rules
>>> s = simulate_summary(make_rules("final-count"), 1000, seats=1, side_bets=(), seed=1)
>>> s["rounds"], s["results"]["main"]["wagers"]
(1000, 1000)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tablegames.rules import GameRules
from tablegames.simulation.job import make_job, parse_side_bets
from tablegames.simulation.runner import run_job

BET_CENTS = 500
"""The main wager of the verification runs ($5: below every payout cap, so the edge per unit is the
uncapped one the exact analysis reports)."""


def simulate_summary(
    rules: GameRules,
    rounds: int,
    seats: int = 1,
    side_bets: Sequence[str] = (),
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """``rounds`` seeded rounds at ``seats`` seats playing the exact optimal strategy and ``side_bets``; the
    simulation's summary (``Tally.summary``: per wager row the house edge or return and its standard error)."""
    wagers = parse_side_bets(rules.game, list(side_bets), rules, BET_CENTS)
    job = make_job(rules, rounds, seats=seats, wagers=wagers, strategy="optimal", seed=seed)
    tally = run_job(job, workers=workers, progress=progress)
    summary = tally.summary()
    summary["first_row"] = job.wager_rows[0]
    return summary

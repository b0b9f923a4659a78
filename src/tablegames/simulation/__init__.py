"""Fast, reproducible Monte Carlo of whole tables: every seat and wager, meters, Envy, bankroll sessions.

>>> from tablegames.rules import make_rules
>>> job = make_job(make_rules("final-count"), rounds=1000, seed=1, strategy="basic")
>>> tally = run_job(job)
>>> tally.rounds, tally.summary()["results"]["main"]["wagers"]
(1000, 1000)
"""

from tablegames.simulation.job import CHUNK_ROUNDS, Job, SimulationError, Wagers, make_job, parse_side_bets
from tablegames.simulation.result import Tally
from tablegames.simulation.runner import run_job

__all__ = [
    "CHUNK_ROUNDS",
    "Job",
    "SimulationError",
    "Tally",
    "Wagers",
    "make_job",
    "parse_side_bets",
    "run_job",
]

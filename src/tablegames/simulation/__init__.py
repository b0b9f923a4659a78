"""Fast, reproducible Monte Carlo of whole tables: every seat and wager, meters, neighbour bonuses, bankroll sessions.

>>> from tablegames.rules import GAMES, make_rules
>>> for game in GAMES:
...     job = make_job(make_rules(game), rounds=1000, seed=1, strategy="basic")
...     tally = run_job(job)
...     assert tally.rounds == tally.summary()["results"][job.wager_rows[0]]["wagers"] == 1000
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

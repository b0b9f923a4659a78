"""Issue 21: the engine-backed kernel (the default of a game without a Numba kernel) counts exactly what each
game's Numba kernel counts, deck by deck: every registered game, two seats, the main wager, basic strategy."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.rules import GAMES, make_rules
from tablegames.simulation import job as job_module
from tablegames.simulation.engine_kernel import KERNEL as ENGINE_KERNEL
from tablegames.simulation.job import Wagers, make_job, run_decks
from tablegames.simulation.strategy import kernel_of

DECKS = 200


@pytest.mark.parametrize("game", GAMES)
def test_the_engine_backed_kernel_counts_as_the_numba_kernel(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = make_rules(game)
    assert kernel_of(game) is not ENGINE_KERNEL
    rng = np.random.default_rng(21)
    decks = np.array([rng.permutation(52) for _ in range(DECKS)], dtype=np.int64)
    numba_job = make_job(rules, DECKS, seats=2, wagers=Wagers(500), strategy="basic")
    numba, _ = run_decks(numba_job, decks)
    monkeypatch.setattr(job_module, "kernel_of", lambda game: ENGINE_KERNEL)
    engine_job = make_job(rules, DECKS, seats=2, wagers=Wagers(500), strategy="basic")
    engine, _ = run_decks(engine_job, decks)
    assert engine_job.wager_rows[0] == numba_job.wager_rows[0]
    assert engine.wager_acc[0].tolist() == numba.wager_acc[0].tolist()
    assert engine.seat_acc.tolist() == numba.seat_acc.tolist()
    assert engine.seat1 is not None and numba.seat1 is not None
    assert engine.seat1.tolist() == numba.seat1.tolist()

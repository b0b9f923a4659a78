"""Issue 28, on a CUDA device: every game's GPU run equals its CPU run for the same seed, bit for bit (every
chunk's arrays and the whole report), heads-up and at a full table with every side bet. Skipped without a
device (``numba.cuda.is_available()`` false) and under the simulator (``test_gpu_simulator.py`` covers it)."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.rules import GAMES, make_rules, registry
from tablegames.simulation import gpu, make_job, parse_side_bets, run_job
from tablegames.simulation.job import run_chunks


@pytest.fixture(scope="module")
def device() -> None:
    if gpu.simulated():
        pytest.skip("Numba's CUDA simulator is on (test_gpu_simulator.py runs the device code there)")
    if not gpu.available():
        pytest.skip("no CUDA device (numba.cuda.is_available() is false)")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seats", [1, 7])
def test_a_device_run_equals_the_cpu_run_bit_for_bit(device: None, game: str, seats: int) -> None:
    rules = make_rules(game)
    sides = [",".join(w.name for w in registry.get(game).side_bets)] if seats > 1 else []
    wagers = parse_side_bets(game, sides, rules, 500)
    job = make_job(rules, 300_000, seats=seats, wagers=wagers, strategy="basic", seed=28, chunk_rounds=8192)
    cpu = run_chunks(job, list(range(job.chunks)), keep_seat1=True)
    dev = list(gpu.gpu_chunks(job, keep_seat1=True, batch=16))
    assert len(dev) == len(cpu) == job.chunks
    for a, b in zip(cpu, dev, strict=True):
        for field in ("wager_acc", "seat_acc", "hist", "hits", "seat1"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), (a.index, field)
    assert run_job(job, device="gpu").summary() == run_job(job).summary()

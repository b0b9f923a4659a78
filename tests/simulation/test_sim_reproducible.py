"""Same seed, same result: for any number of workers, any grouping of chunks, and on a Dask cluster."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablegames.rules import make_rules
from tablegames.simulation import Wagers, make_job, run_job
from tablegames.simulation.job import Job, run_chunk
from tablegames.simulation.result import merge_arrays


def lir_job(seed: int = 5, rounds: int = 50_000) -> Job:
    # Small chunks, so that a short run has many of them.
    return make_job(
        make_rules("let-it-ride"),
        rounds,
        seats=4,
        wagers=Wagers(500, bonus=100, progressive=100),
        seed=seed,
        chunk_rounds=4_096,
    )


def report(job: Job, **kw: Any) -> dict[str, Any]:
    return run_job(job, **kw).summary()


def test_same_seed_same_result_any_grouping_and_different_seed_differs() -> None:
    job = lir_job()
    a = report(job)
    assert report(job, chunks_per_task=1) == a
    assert report(job, chunks_per_task=5) == a
    assert report(lir_job(seed=6)) != a
    assert a["rounds"] == 50_000 and a["results"]["bets"]["wagers"] == 4 * 50_000


def test_chunks_are_independent_of_order_and_merge_exactly() -> None:
    """A chunk's result depends only on (seed, chunk index); integer counts add up exactly."""
    job = lir_job()
    forward = [run_chunk(job, i) for i in range(job.chunks)]
    backward = [run_chunk(job, i) for i in reversed(range(job.chunks))][::-1]
    for f, b in zip(forward, backward, strict=True):
        assert (f.wager_acc == b.wager_acc).all() and (f.hist == b.hist).all() and (f.hits == b.hits).all()
    merged = merge_arrays(forward)
    whole = make_job(
        make_rules("let-it-ride"), 50_000, seats=4, wagers=job.wagers, seed=5, chunk_rounds=4_096
    )
    tally = run_job(whole)
    rows = merged.wager_acc[:, :4].tolist()
    rows[2][3] += sum(tally.book.paid)  # the progressive row gets the meter prizes after the merge
    assert [row[:4] for row in tally.wager[:5]] == rows
    assert tally.hist == merged.hist.tolist()
    assert int(np.sum(merged.wager_acc[0, 1])) == 4 * 50_000 * 500


def test_workers_give_the_same_result() -> None:
    """Two local worker processes (spawned) play the same chunks as one process."""
    job = make_job(
        make_rules("one-eyed-flush"),
        40_000,
        seats=2,
        wagers=Wagers(500, jackpot=100),
        seed=9,
        chunk_rounds=4_096,
        strategy="basic",
    )
    assert report(job, workers=2, bankroll=(10_000, 100)) == report(job, bankroll=(10_000, 100))


def test_dask_cluster_gives_the_same_result() -> None:
    distributed = pytest.importorskip("distributed")
    job = make_job(make_rules("final-count"), 30_000, seats=3, seed=21, chunk_rounds=4_096, strategy="basic")
    single = report(job)
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        assert report(job, cluster=cluster.scheduler_address) == single


def test_meter_hits_across_chunks_are_paid_in_round_order() -> None:
    """Meters carry over chunk boundaries: the merged run pays the same as one big chunk."""
    small = lir_job(rounds=60_000)
    big = make_job(
        make_rules("let-it-ride"), 60_000, seats=4, wagers=small.wagers, seed=5, chunk_rounds=60_000
    )
    js, jb = report(small)["jackpots"], report(big)["jackpots"]
    assert sum(j["hits"] for j in js) > 10 and sum(j["hits"] for j in jb) > 10
    for j in js:
        assert j["paid_cents"] == j["hits"] * j["reset_cents"] + j[
            "contribution_per_round_cents"
        ] * 60_000 - (j["final_value_cents"] - j["reset_cents"])

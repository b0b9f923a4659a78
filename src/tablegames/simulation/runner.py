"""Running a job: in this process, on ``workers`` local processes, or on a Dask distributed cluster.

Work is handed out as groups of chunks; results are merged in chunk order (the meters and the bankroll view
need round order), so the outcome is the same for any number of workers or any cluster.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from tablegames.simulation.bankroll import MAX_SESSIONS, BankrollTracker
from tablegames.simulation.job import ChunkResult, Job, SimulationError, run_chunks
from tablegames.simulation.result import Tally

Progress = Callable[[int], None]
"""Called with the number of rounds just finished."""

_JOB: Job | None = None
DEVICES = ("cpu", "gpu")


def _init_worker(job: Job) -> None:
    global _JOB
    _JOB = job


def _worker_chunks(indices: list[int], keep_seat1: bool) -> list[ChunkResult]:
    assert _JOB is not None
    return run_chunks(_JOB, indices, keep_seat1)


def _groups(job: Job, per_task: int) -> list[list[int]]:
    ids = list(range(job.chunks))
    return [ids[i : i + per_task] for i in range(0, len(ids), per_task)]


def _ordered(
    submit: Callable[[list[int]], Any], groups: list[list[int]], window: int
) -> Iterator[ChunkResult]:
    """Submit groups with at most ``window`` in flight; yield chunk results in order."""
    pending: deque[Any] = deque()
    it = iter(groups)
    for g in it:
        pending.append(submit(g))
        if len(pending) >= window:
            break
    while pending:
        fut = pending.popleft()
        yield from fut.result()
        nxt = next(it, None)
        if nxt is not None:
            pending.append(submit(nxt))


def run_job(
    job: Job,
    workers: int = 1,
    cluster: str | None = None,
    progress: Progress | None = None,
    bankroll: tuple[int, int] | None = None,
    chunks_per_task: int = 4,
    device: str = "cpu",
) -> Tally:
    """Play every round of ``job``; ``bankroll = (cents, session rounds)`` adds the bankroll view.
    ``device="gpu"``: the chunks on a CUDA device (:mod:`tablegames.simulation.gpu`: the same result, bit for
    bit), in this process."""
    if workers < 1:
        raise SimulationError(f"workers must be >= 1, got {workers}")
    if device not in DEVICES:
        raise SimulationError(f"unknown device {device!r}; choose {' or '.join(DEVICES)}")
    if device == "gpu" and (workers != 1 or cluster is not None):
        raise SimulationError("a GPU run is one process: no workers or cluster with it")
    if device == "gpu":
        from tablegames.simulation import gpu

        gpu.require(job)  # before anything is run
    tracker = None
    if bankroll is not None:
        cents, session = bankroll
        if cents <= 0 or session <= 0:
            raise SimulationError("--bankroll and --session must be positive")
        sessions = job.rounds // session
        if sessions == 0:
            raise SimulationError(f"--rounds {job.rounds} is less than one session of {session} rounds")
        if sessions > MAX_SESSIONS:
            raise SimulationError(
                f"{sessions:,} sessions is too many (at most {MAX_SESSIONS:,}); use longer sessions"
            )
        tracker = BankrollTracker(cents, session, job.cost_per_round, sessions)
    tally = Tally(job, tracker)
    keep = tracker is not None
    groups = _groups(job, chunks_per_task)

    def done(res: ChunkResult) -> None:
        tally.add(res)
        if progress is not None:
            progress(res.rounds)

    if device == "gpu":
        from tablegames.simulation.gpu import gpu_chunks

        for res in gpu_chunks(job, keep):
            done(res)
    elif cluster is not None:
        _run_dask(job, cluster, groups, keep, done)
    elif workers == 1:
        for g in groups:
            for res in run_chunks(job, g, keep):
                done(res)
    else:
        # fork (POSIX): workers start at once and inherit the compiled kernels; spawn elsewhere.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(job,)) as pool:

            def submit(g: list[int]) -> Future[list[ChunkResult]]:
                return pool.submit(_worker_chunks, g, keep)

            for res in _ordered(submit, groups, 2 * workers + 2):
                done(res)
    return tally


def _run_dask(
    job: Job, address: Any, groups: list[list[int]], keep: bool, done: Callable[[ChunkResult], None]
) -> None:
    """The same chunks on a Dask distributed cluster (``address``: scheduler address or a ``Client``)."""
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - dask is a pinned dependency
        raise SimulationError(f"--cluster needs dask[distributed]: {exc}") from None
    own = not isinstance(address, Client)
    try:
        client = Client(address, timeout="10s") if own else address  # type: ignore[no-untyped-call]
    except (OSError, ValueError, TypeError) as exc:  # refused / timed out / not an address
        raise SimulationError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    try:
        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        [job_future] = client.scatter([job], broadcast=True)

        def submit(g: list[int]) -> Any:
            return client.submit(run_chunks, job_future, g, keep, pure=False)

        for res in _ordered(submit, groups, 2 * nworkers + 2):
            done(res)
    finally:
        if own:
            client.close()

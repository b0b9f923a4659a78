"""The Math lab's solves (issue 15; processes of their own since issue 20): ``LabSolver``.

An exact solve is CPU-bound Python and NumPy work that holds the GIL for seconds. On threads of the server
process it starved the tables (eight concurrent One Eyed Flush structural solves moved a table's ack p99 from
~82 ms to 340-846 ms, the server's memory from 106 MB to 650-790 MB). So solves run in a bounded pool of
**solver processes** (``concurrent.futures.ProcessPoolExecutor``):

* at most :data:`LAB_SOLVES` processes, started on demand from a *forkserver* (never a ``fork`` of the server,
  which has threads, sockets and a database pool), which has imported the analysis once, so a new solver
  process starts in a fraction of a second; each runs at a lower priority (``os.nice(LAB_NICE)``): the kernel
  gives the tables' process the CPU first;
* a bounded queue: at most :data:`LAB_PENDING` distinct solves running or waiting; beyond that a request is
  refused with ``503 busy`` (``Retry-After``);
* a per-client quota: at most :data:`LAB_PER_CLIENT` requests of one client address waiting for a solve at a
  time; more get ``429 busy`` (``Retry-After``), so one client cannot take every place in the queue; a request
  whose client went away gives its place back at once (:func:`unless_gone`);
* identical requests in flight share one solve; the last :data:`LAB_CACHE` answers are kept (in the server
  process: a rule set's figures never change);
* a solver process that dies (killed, out of memory) costs the requests it was serving a ``503 busy``; the
  next request starts a fresh pool;
* a solve still running after :data:`LAB_SOLVE_SECONDS` is stopped by ending the pool's processes (the only
  way to stop a NumPy or Numba loop): ``503 too_slow`` (the pool's other solve, if any, ``503 busy``);
* :meth:`LabSolver.close` (the app's shutdown) cancels what waits and ends the solver processes at once; a
  solver process also ends by itself when the server process is gone (killed).

Each solver process keeps its own analyzers' caches (a pay-table change after a structural solve is a warm
re-solve in the process that made it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.result import lab_figures
from tablegames.rules import RuleError, registry
from tablegames.rules.parameters import changed_values
from tablegames.server.errors import ApiError, FieldError
from tablegames.server.rulesets import Resolved, field_of

log = logging.getLogger("tablegames.server")
T = TypeVar("T")

LAB_SOLVES = 2  # solver processes (the machine's cores; a solve is CPU-bound)
LAB_CACHE = 128  # answers kept (a rule set's figures do not change)
LAB_PENDING = 8  # distinct solves running or waiting; more are refused (503 busy)
LAB_PER_CLIENT = 2  # requests of one client address waiting for a solve; more are refused (429 busy)
LAB_NICE = 10  # the solver processes' niceness (added to the server's)
LAB_SOLVE_SECONDS = 120.0  # a solve still running after this long is stopped (its process ended): too_slow
RETRY_AFTER = 2  # seconds, in a refusal's Retry-After


@dataclass(frozen=True)
class Job:
    """What a solver process needs (picklable: a game's key, not its definition)."""

    game: str
    rules: Any
    rule_set: dict[str, str]
    bet_cents: int | None
    meters: tuple[tuple[str, int], ...]


def figures(job: Job) -> dict[str, Any]:
    """The exact figures of a rule set, as the page draws them (in a solver process): the analysis's own model
    (``analysis.result.lab_figures``) as JSON-ready data. A value the analysis refuses raises ``FieldError``."""
    started = time.perf_counter()
    rules = job.rules
    try:
        a = analyze_game(rules, job.bet_cents, dict(job.meters))
        axes = analyzer(rules).chart_axes
    except RuleError as exc:
        raise FieldError(str(exc), field_of(str(exc))) from None
    d = registry.get(job.game)
    changed = changed_values(d.parameters, rules, d.make_rules()) if d.parameters else {}
    result = lab_figures(a, job.rule_set, changed, axes, time.perf_counter() - started)
    return result.model_dump(mode="json", by_alias=True, exclude_unset=True)


Solve = Callable[[Job], dict[str, Any]]


def run_job(solve: Solve, job: Job) -> dict[str, Any]:
    """``solve(job)`` with its refusal or failure as plain data (what crosses back from a solver process:
    an exception of ours need not survive pickling): ``{"refused": {message, field}}`` for a value the analysis
    refuses, ``{"failed": text}`` for anything else."""
    try:
        return solve(job)
    except FieldError as exc:
        return {"refused": {"message": exc.message, "field": exc.field, "code": exc.code}}
    except Exception as exc:  # reported once by the server (one log line), not as a traceback per request
        return {"failed": f"{type(exc).__name__}: {exc}"[:500]}


def _solver_process_started(nice: int) -> None:
    """A solver process's initializer: a lower priority, Ctrl-C is the server's to handle, and the process ends
    when the server does, however it ends (a killed server never tells its pool: the process would wait for work
    for ever)."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = multiprocessing.parent_process()  # (forkserver: its sentinel is the server's end of a pipe)
    if server is not None:

        def end_with_the_server() -> None:
            server.join()
            os._exit(0)

        threading.Thread(target=end_with_the_server, name="lab-parent-watch", daemon=True).start()


def process_pool(workers: int) -> ProcessPoolExecutor:
    """The solver processes: forked from a forkserver that has imported the analysis (never from the server)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_solver_process_started, initargs=(LAB_NICE,)
    )


def _busy(message: str, status: int) -> ApiError:
    return ApiError("busy", message, status, headers={"Retry-After": str(RETRY_AFTER)})


Key = tuple[str, tuple[tuple[str, str], ...], int | None, tuple[tuple[str, int], ...]]


class LabSolver:
    """The lab's solves for one app: the pool of solver processes, the answers cache, the solves in flight and
    each client's requests waiting (all but the pool touched on the event loop only).

    ``executor(workers)`` makes the pool (default :func:`process_pool`); ``solve`` is run there, on a
    :class:`Job` (default :func:`figures`; both must pickle by name for a process pool)."""

    def __init__(
        self,
        solves: int = LAB_SOLVES,
        cache: int = LAB_CACHE,
        pending: int = LAB_PENDING,
        per_client: int = LAB_PER_CLIENT,
        executor: Callable[[int], Executor] = process_pool,
        solve: Solve = figures,
        seconds: float = LAB_SOLVE_SECONDS,
    ) -> None:
        self.solves = solves
        self.size = cache
        self.pending = pending
        self.per_client = per_client
        self.executor = executor
        self.solve = solve
        self.seconds = seconds  # a solve's time limit, from its start
        self.pool: Executor | None = None  # made at the first solve
        self.cache: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self.inflight: dict[Key, asyncio.Future[dict[str, Any]]] = {}
        self.waiting: Counter[str] = Counter()  # client address -> its requests waiting for a solve

    async def analyze(
        self, got: Resolved, bet_cents: int | None, meters: dict[str, int], client: str = ""
    ) -> dict[str, Any]:
        """The figures of ``got`` (``client``: the requester's address, for its quota)."""
        key: Key = (
            got.definition.key,
            (*sorted(got.rule_set.items()), ("", got.paytable or "")),
            bet_cents,
            tuple(sorted(meters.items())),
        )
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return {**hit, "name": got.name, "seconds": 0.0, "cached": True}
        if self.waiting[client] >= self.per_client:
            raise _busy(f"at most {self.per_client} lab solves per client at a time; try again shortly", 429)
        future = self.inflight.get(key)
        if future is None:
            if len(self.inflight) >= self.pending:
                raise _busy(f"the lab is solving {self.pending} rule sets; try again shortly", 503)
            job = Job(
                got.definition.key, got.rules, dict(got.rule_set), bet_cents, tuple(sorted(meters.items()))
            )
            future = asyncio.ensure_future(self._run(job))
            self.inflight[key] = future
            future.add_done_callback(lambda f: self._done(key, f))
        self.waiting[client] += 1
        try:
            answer = await asyncio.shield(future)
        finally:
            self.waiting[client] -= 1
            if self.waiting[client] <= 0:
                del self.waiting[client]
        if "refused" in answer:
            r = answer["refused"]
            raise FieldError(r["message"], r["field"], r["code"])
        if "failed" in answer:
            log.error("lab solve failed: %s", answer["failed"])
            raise ApiError("server_error", "the analysis of this rule set failed; nothing was changed", 500)
        return {**answer, "name": got.name}

    async def _run(self, job: Job) -> dict[str, Any]:
        if self.pool is None:
            self.pool = self.executor(self.solves)
        pool = self.pool
        loop = asyncio.get_running_loop()
        try:
            work = pool.submit(run_job, self.solve, job)
            answer = asyncio.wrap_future(work)
            started: float | None = None
            while True:
                done, _ = await asyncio.wait({answer}, timeout=min(1.0, self.seconds))
                if done:
                    return answer.result()
                if work.running():  # (not while it waits in the queue)
                    started = loop.time() if started is None else started
                    if loop.time() - started >= self.seconds:
                        break
        except BrokenProcessPool:
            if self.pool is pool:  # a solver process died: the next solve starts a fresh pool
                log.warning("a lab solver process died; the lab's pool is started again")
                self.pool = None
                _end(pool)
            raise _busy("the lab's solver stopped; try again shortly", 503) from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            raise _busy("the lab's solver was stopped; try again shortly", 503) from None  # (pool ended)
        # over its time: only ending its process stops it (the pool's other solve is answered busy)
        log.warning("a lab solve ran over %g s (%s); the lab's pool is started again", self.seconds, job.game)
        if self.pool is pool:
            self.pool = None
            _end(pool)
        raise ApiError("too_slow", f"the analysis took longer than {self.seconds:g} s; it was stopped", 503)

    def _done(self, key: Key, future: asyncio.Future[dict[str, Any]]) -> None:
        self.inflight.pop(key, None)
        if not future.cancelled() and future.exception() is None:
            answer = future.result()
            if "refused" not in answer and "failed" not in answer:
                self.cache[key] = answer
                while len(self.cache) > self.size:
                    self.cache.popitem(last=False)

    def close(self) -> None:
        """Waiting solves are dropped and the solver processes ended now (a solve in progress is abandoned)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            _end(pool)


async def unless_gone(solving: Coroutine[Any, Any, T], receive: Callable[[], Awaitable[Any]]) -> T:
    """What ``solving`` (a :meth:`LabSolver.analyze`) answers, unless the client goes away first (``receive``:
    the request's ASGI ``receive``, its body already read: the next message is ``http.disconnect``). Then the
    request is dropped, which gives its place in the client's quota back at once (the page aborts a request a
    newer edit made stale); a solve it started carries on for the requests sharing it, and for the cache."""
    task = asyncio.ensure_future(solving)
    gone = asyncio.ensure_future(_disconnect(receive))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
    if gone.done() and not gone.cancelled() and gone.exception() is not None:
        log.debug("lab: the request's receive failed: %s", gone.exception())
    if not task.done() or task.cancelled():
        raise ApiError("gone", "the client went away before the answer", 499)
    return task.result()


async def _disconnect(receive: Callable[[], Awaitable[Any]]) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return


def _end(pool: Executor) -> None:
    """Shut ``pool`` down without waiting for a solve: its processes (if any) are terminated and reaped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        with contextlib.suppress(Exception):
            p.terminate()
    pool.shutdown(wait=bool(processes), cancel_futures=True)
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(5)

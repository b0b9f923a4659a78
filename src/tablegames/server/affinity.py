"""Pinning a server process to CPUs (``serve --cpus``, ``loadtest --server-cpus``): Linux's thread affinity, and
the batch scheduling policy for its threads.

A server process runs its Python on one core at a time (the interpreter lock), shared by the event loop's thread and
the tables' threads. Left to float, the two threads wake each other on different cores each time one of them lets
the lock go (a database call, a socket write), and those cross-core wake-ups cost CPU of their own. Pinned to one
core, a thread that wakes the other (a step's messages handed to the event loop) would still hand the core over at
once, to a thread that then waits for the interpreter the first one holds; under ``SCHED_BATCH`` (``sched(7)``: a
woken thread does not preempt the running one) it goes on until it lets the interpreter go. On the think-0 load
test, pinned and batch: 0.70-0.72 ms of CPU an action, against 0.82-0.84 pinned only and 0.98-1.0 neither
(docs/performance.md, "Fifth pass"). Several server processes on one machine (PostgreSQL behind HAProxy,
docs/deployment.md) are each pinned to their own CPU.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection

log = logging.getLogger("tablegames.server")


def parse_cpus(text: str) -> frozenset[int]:
    """CPU numbers from a list like ``2`` or ``0,2-3`` (the form of ``taskset -c`` and ``/proc``'s lists).

    >>> sorted(parse_cpus("0,2-3"))
    [0, 2, 3]
    >>> parse_cpus("3-1")
    Traceback (most recent call last):
    ...
    ValueError: bad CPU list '3-1': a range runs from low to high, like 0-3
    """
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"bad CPU list {text!r}: numbers and ranges like 0,2-3")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"bad CPU list {text!r}: a range runs from low to high, like 0-3")
        if last - first > 4096:
            raise ValueError(f"bad CPU list {text!r}: at most 4096 CPUs in a range")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


def allowed_cpus() -> frozenset[int]:
    """The CPUs this process may run on (all of the machine's unless it was started pinned)."""
    if not hasattr(os, "sched_getaffinity"):
        return frozenset(range(os.cpu_count() or 1))
    return frozenset(os.sched_getaffinity(0))


def check_cpus(cpus: Collection[int]) -> frozenset[int]:
    """``cpus`` if this process can be pinned to them, else a ``ValueError`` that says why (nothing changed)."""
    wanted = frozenset(cpus)
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError("pinning to CPUs needs Linux (os.sched_setaffinity)")
    allowed = allowed_cpus()
    if not wanted:
        raise ValueError("no CPU given")
    if not wanted <= allowed:
        raise ValueError(
            f"CPU {', '.join(map(str, sorted(wanted - allowed)))} is not one this process may run on "
            f"({cpu_list(allowed)})"
        )
    return wanted


def pin_process(cpus: Collection[int], batch: bool = True) -> frozenset[int]:
    """Pin every thread of this process to ``cpus`` and (``batch``) give it the ``SCHED_BATCH`` policy, and so
    the threads they start later (they inherit both); the CPUs pinned to. Checked first (:func:`check_cpus`): a bad
    list changes nothing. A system that refuses the batch policy leaves the threads pinned, with a warning."""
    wanted = check_cpus(cpus)
    refused: OSError | None = None
    for tid in sorted(int(t) for t in os.listdir("/proc/self/task")):
        try:
            os.sched_setaffinity(tid, wanted)
            if batch and refused is None:
                try:
                    os.sched_setscheduler(tid, os.SCHED_BATCH, os.sched_param(0))
                except PermissionError as exc:
                    refused = exc
        except ProcessLookupError:  # (a thread that ended meanwhile)
            continue
    if refused is not None:
        log.warning("pinned to CPU %s without the batch scheduling policy: %s", cpu_list(wanted), refused)
    return wanted


def cpu_list(cpus: Collection[int]) -> str:
    """``0-3`` or ``0,2`` ...: a CPU list as ``/proc`` writes it.

    >>> cpu_list({0, 1, 2, 3, 6})
    '0-3,6'
    """
    out: list[str] = []
    run: list[int] = []
    for c in sorted(cpus):
        if run and c != run[-1] + 1:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        run.append(c)
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)

"""The thread each method of a table runner's parts runs on, declared in its type (a marker), not in prose.

A table's work is split between threads (docs/server.md, "The table runner"):

- :func:`on_loop`: the event loop's thread. Sockets, timers and the inbox's queue belong to it; nothing there
  may wait for the database.
- :func:`on_worker`: the table's inbox, on one of the server's worker threads: one step of this table at a
  time, in order (so the parts need no lock of their own); the database is written there.
- :func:`on_any`: any thread (the loop, this table's worker, another table's worker): only copy-on-write
  reads and hand-overs to the loop.

The markers change nothing at run time (the function itself is returned, no wrapper: no cost per call);
``tests/server/test_runner_parts.py`` checks that every method of every part declares one, and
:func:`thread_of` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

Thread = Literal["loop", "worker", "any"]

F = TypeVar("F", bound=Callable[..., Any])

ATTRIBUTE = "runs_on"


def _mark(fn: F, thread: Thread) -> F:
    vars(fn)[ATTRIBUTE] = thread
    return fn


def on_loop(fn: F) -> F:
    """Runs on the event loop's thread: never waits for the database."""
    return _mark(fn, "loop")


def on_worker(fn: F) -> F:
    """Runs in the table's inbox (a worker thread, this table's steps one at a time): may use the database."""
    return _mark(fn, "worker")


def on_any(fn: F) -> F:
    """Safe from any thread: reads copy-on-write state, or hands the work over to the loop."""
    return _mark(fn, "any")


def thread_of(fn: Any) -> Thread | None:
    """The thread ``fn`` declared (a function, or a static method's function), or None.

    >>> thread_of(on_loop(lambda: None)), thread_of(lambda: None)
    ('loop', None)
    """
    fn = getattr(fn, "__func__", fn)
    value: Thread | None = getattr(fn, ATTRIBUTE, None)
    return value

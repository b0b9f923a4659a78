"""A table's inbox: the serial executor that runs the table's steps on the server's worker threads.

Every step of a table runs there, one at a time and in order, so the event loop keeps serving the other tables
while this one waits for the database, and the table's parts need no lock of their own.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tablegames.server.client import _call_on, run_holding
from tablegames.server.threads import on_any, on_loop, on_worker

if TYPE_CHECKING:
    from tablegames.server.core import TableHost

log = logging.getLogger("tablegames.server")

T = TypeVar("T")

Item = tuple[Callable[[], Any], "asyncio.Future[Any] | None"]


class Inbox:
    """One table's queue of steps (owned by the event loop's thread), each run on one of the server's worker
    threads after the one before it finished.

    No task drains it: a step is submitted to the workers when the one before it is done, and its end (its
    result, with the messages and timers it handed to the loop) reaches the loop in one hand-over."""

    def __init__(self, server: TableHost, table_id: int) -> None:
        self.server = server
        self.table_id = table_id
        self._steps: deque[Item] = deque()
        self._busy = False  # a step is on a worker now
        self._running: asyncio.Future[Any] | None = None  # its caller's future
        self._generation = 0  # a stop() starts a new one: the end of a step from before it starts nothing

    @on_loop
    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on a worker thread, after this table's earlier steps, and wait for it.

        A caller that is cancelled meanwhile does not cancel the step: it was received, so it runs.
        """
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._enqueue(functools.partial(fn, *args), future)
        return await future

    @on_loop
    def submit(self, fn: Callable[[], Any]) -> None:
        """Queue ``fn()`` after this table's earlier steps without waiting (timers)."""
        self._enqueue(fn, None)

    @on_any
    def to_loop(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop's thread (timers belong to it); nothing without a loop."""
        loop = self.server.loop
        if loop is not None and not loop.is_closed():
            _call_on(loop, fn, *args)

    @on_loop
    def stop(self) -> None:
        """Steps not started are dropped; the one in progress finishes (its caller is not answered)."""
        self._steps.clear()
        running, self._running, self._busy = self._running, None, False
        self._generation += 1
        if running is not None and not running.done():
            running.cancel()

    @on_loop
    def _enqueue(self, fn: Callable[[], Any], future: asyncio.Future[Any] | None) -> None:
        self._steps.append((fn, future))
        if not self._busy:
            self._start()

    @on_loop
    def _start(self) -> None:
        """Hand the next step to a worker thread (none: the inbox is idle)."""
        loop = asyncio.get_running_loop()
        while self._steps:
            fn, future = self._steps.popleft()
            if future is not None and future.cancelled():
                future = None  # (a step whose caller went away still runs: it was received)
            try:
                self.server.workers.submit(self._run, loop, self._generation, fn, future)
            except RuntimeError as exc:  # (the workers are shut down)
                self._finish(self._generation, future, None, exc)
                continue
            self._busy, self._running = True, future
            return
        self._busy, self._running = False, None

    @on_worker
    def _run(
        self,
        loop: asyncio.AbstractEventLoop,
        generation: int,
        fn: Callable[[], Any],
        future: asyncio.Future[Any] | None,
    ) -> None:
        """One step, holding its hand-overs to the loop; its end is handed over last, with them."""

        def step() -> None:
            try:
                result = fn()
            except BaseException as exc:
                _call_on(loop, self._finish, generation, future, None, exc)
            else:
                _call_on(loop, self._finish, generation, future, result, None)

        run_holding(step)

    @on_loop
    def _finish(
        self, generation: int, future: asyncio.Future[Any] | None, result: Any, exc: BaseException | None
    ) -> None:
        if exc is not None:
            if future is None or future.done():
                log.error("step failed on table %s", self.table_id, exc_info=exc)
            else:
                future.set_exception(exc)
        elif future is not None and not future.done():
            future.set_result(result)
        if generation == self._generation and self._busy:
            self._start()

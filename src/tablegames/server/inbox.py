"""A table's inbox: the serial executor that runs the table's steps on the server's worker threads.

Every step of a table runs there, one at a time and in order, so the event loop keeps serving the other tables
while this one waits for the database, and the table's parts need no lock of their own.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tablegames.server.client import _call_on, run_holding
from tablegames.server.threads import on_any, on_loop

if TYPE_CHECKING:
    from tablegames.server.core import TableHost

log = logging.getLogger("tablegames.server")

T = TypeVar("T")

Item = tuple[Callable[[], Any], "asyncio.Future[Any] | None"]


class Inbox:
    """One table's queue of steps (owned by the event loop's thread) and the task that drains it, each step on
    one of the server's worker threads."""

    def __init__(self, server: TableHost, table_id: int) -> None:
        self.server = server
        self.table_id = table_id
        self._queue: asyncio.Queue[Item] | None = None
        self._drainer: asyncio.Task[None] | None = None

    @on_loop
    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on a worker thread, after this table's earlier steps, and wait for it.

        A caller that is cancelled meanwhile does not cancel the step: it was received, so it runs.
        """
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._enqueue(functools.partial(fn, *args), future)
        return await asyncio.shield(future)

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
        """Steps not started are dropped; the one in progress finishes."""
        if self._drainer is not None:
            self._drainer.cancel()
            self._drainer = None

    @on_loop
    def _enqueue(self, fn: Callable[[], Any], future: asyncio.Future[Any] | None) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue()
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.get_running_loop().create_task(self._drain(self._queue))
        self._queue.put_nowait((fn, future))

    @on_loop
    async def _drain(self, queue: asyncio.Queue[Item]) -> None:
        """This table's steps, one at a time, each on one of the server's worker threads."""
        loop = asyncio.get_running_loop()
        while True:
            fn, future = await queue.get()
            try:
                # (the step's messages and timers handed to the loop at once when it ends)
                result = await loop.run_in_executor(self.server.workers, functools.partial(run_holding, fn))
            except asyncio.CancelledError:
                if future is not None and not future.done():
                    future.cancel()
                raise
            except Exception as exc:
                if future is None:
                    log.error("step failed on table %s", self.table_id, exc_info=exc)
                elif not future.done():
                    future.set_exception(exc)
            else:
                if future is not None and not future.done():
                    future.set_result(result)

"""Running a coroutine's first step inline, on the caller's stack, with no task of its own.

A socket's send (uvicorn frames the message and writes it to the transport) and, under load, often its receive
complete without ever suspending; wrapping each in a task (``asyncio.wait_for``, ``ensure_future``) costs the
event loop a task and a wake-up per message. :func:`run_inline` runs the first step now: a coroutine that
finishes there costs one call; one that suspends is handed back as a :class:`Suspended`, which the caller
awaits (in its own task, or in one it starts) to finish it exactly as ``await coro`` would have.

>>> async def quick() -> int:
...     return 7
>>> run_inline(quick())
7
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Generator
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Suspended(Generic[T]):
    """A coroutine that suspended on its first step (waiting for ``waiting``). ``await`` it to finish it; its
    result is the coroutine's, or None when :meth:`interrupt` ended it first (the coroutine is closed then, so
    what it waited for is given up: a queue's getter is removed, nothing is lost)."""

    __slots__ = ("coro", "interrupted", "waiting")

    def __init__(self, coro: Generator[Any, Any, T], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting  # what the coroutine yielded last: a future (or None: one turn of the loop)
        self.interrupted = False

    def interrupt(self) -> None:
        """End the wait now: the awaiting task resumes at once and gets None (the result, if the coroutine
        already had what it waited for)."""
        if not self.interrupted:
            self.interrupted = True
            waiting = self.waiting
            if isinstance(waiting, asyncio.Future) and not waiting.done():
                waiting.cancel()

    def __await__(self) -> Generator[Any, Any, T | None]:
        coro = self.coro
        while True:
            thrown: BaseException | None = None
            try:
                value = yield self.waiting
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                thrown = exc
            if self.interrupted and self._by_interrupt(thrown):
                coro.close()
                return None
            try:
                self.waiting = coro.send(value) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                result: T = stop.value
                return result

    def _by_interrupt(self, thrown: BaseException | None) -> bool:
        """Whether this resumption is :meth:`interrupt`'s doing (not a cancellation of the awaiting task)."""
        if thrown is None:
            waiting = self.waiting
            return not (isinstance(waiting, asyncio.Future) and waiting.done() and not waiting.cancelled())
        if not isinstance(thrown, asyncio.CancelledError):
            return False
        task = asyncio.current_task()
        return task is None or task.cancelling() == 0


def run_inline(awaitable: Awaitable[T]) -> T | Suspended[T]:
    """Run ``awaitable`` (a coroutine, say) up to its first suspension: its result if it finished there (its
    exception, if it raised), else a :class:`Suspended` to await."""
    coro = awaitable.__await__()
    try:
        waiting = coro.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    return Suspended(coro, waiting)

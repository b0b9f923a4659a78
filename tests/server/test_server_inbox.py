"""A table's inbox (server/inbox.py) with no task draining it, and a socket's direct sink (Connection.sink):
steps one at a time and in order, a step's end handed to the loop with its messages (one wake-up), failures
and cancelled callers, stop; the texts of a socket with a sink in order and its close through the queue."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tablegames.server.client import Connection, _call_on, send_all
from tablegames.server.core import PlayerInfo
from tablegames.server.inbox import Inbox


class Host:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.workers = ThreadPoolExecutor(max_workers=4)


def inbox() -> tuple[Inbox, Host]:
    host = Host(asyncio.get_running_loop())
    return Inbox(host, 1), host  # type: ignore[arg-type]


def test_steps_run_one_at_a_time_in_order_and_answer_their_callers() -> None:
    async def scenario() -> None:
        box, host = inbox()
        ran: list[int] = []
        inside = threading.Semaphore(1)

        def step(i: int) -> int:
            assert inside.acquire(blocking=False), "two steps of one table at once"
            time.sleep(0.002)
            ran.append(i)
            inside.release()
            if i == 3:
                raise ValueError("three")
            return i * 10

        calls = [asyncio.ensure_future(box.call(step, i)) for i in range(6)]
        await asyncio.sleep(0)  # (the calls queue their steps)
        box.submit(lambda: ran.append(99))
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert [r if not isinstance(r, ValueError) else "err" for r in results] == [0, 10, 20, "err", 40, 50]
        await box.call(lambda: None)
        assert ran == [0, 1, 2, 3, 4, 5, 99]
        host.workers.shutdown()

    asyncio.run(scenario())


def test_a_steps_messages_and_its_end_reach_the_loop_in_one_hand_over() -> None:
    async def scenario() -> None:
        box, host = inbox()
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        wakeups = 0
        real = loop.call_soon_threadsafe

        def counting(*args: Any, **kwargs: Any) -> Any:
            nonlocal wakeups
            wakeups += 1
            return real(*args, **kwargs)

        loop.call_soon_threadsafe = counting  # type: ignore[method-assign]

        def step() -> str:
            _call_on(loop, seen.append, "message 1")
            _call_on(loop, seen.append, "message 2")
            return "done"

        assert await box.call(step) == "done"
        assert seen == ["message 1", "message 2"]  # delivered before the caller resumed
        assert wakeups == 1
        host.workers.shutdown()

    asyncio.run(scenario())


def test_a_cancelled_caller_does_not_cancel_its_step_and_a_failed_timer_step_stalls_nothing() -> None:
    async def scenario() -> None:
        box, host = inbox()
        ran: list[str] = []
        gate = threading.Event()

        def slow() -> None:
            gate.wait(5)
            ran.append("slow")

        first = asyncio.ensure_future(box.call(slow))
        queued = asyncio.ensure_future(box.call(ran.append, "queued"))
        await asyncio.sleep(0.01)
        first.cancel()
        queued.cancel()  # (not started yet: it was received, so it runs all the same)
        gate.set()

        def boom() -> None:
            raise RuntimeError("a timer step failed")

        box.submit(boom)
        await box.call(ran.append, "after")
        assert ran == ["slow", "queued", "after"]
        host.workers.shutdown()

    asyncio.run(scenario())


def test_stop_drops_the_steps_not_started() -> None:
    async def scenario() -> None:
        box, host = inbox()
        ran: list[str] = []
        gate = threading.Event()
        running = asyncio.ensure_future(box.call(lambda: gate.wait(5) and ran.append("running")))
        await asyncio.sleep(0)
        box.submit(lambda: ran.append("dropped"))
        await asyncio.sleep(0.01)
        box.stop()
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await running
        await asyncio.sleep(0.05)
        assert ran == ["running"]
        assert await box.call(ran.append, "new") is None  # the inbox serves again
        assert ran == ["running", "new"]
        host.workers.shutdown()

    asyncio.run(scenario())


def test_shut_down_workers_fail_the_step_not_the_inbox() -> None:
    async def scenario() -> None:
        box, host = inbox()
        host.workers.shutdown()
        with pytest.raises(RuntimeError):
            await box.call(lambda: None)
        host.workers = ThreadPoolExecutor(max_workers=1)
        assert await box.call(lambda: 7) == 7
        host.workers.shutdown()

    asyncio.run(scenario())


def test_a_sockets_texts_go_to_its_sink_in_order_and_its_close_through_the_queue() -> None:
    one, two = Connection(PlayerInfo(1, "a", 1)), Connection(PlayerInfo(2, "b", 2))
    sunk: list[str] = []
    one.sink = sunk.append
    send_all([(one, "1"), (two, "x"), (one, "2")])
    one.send_text("3")
    assert sunk == ["1", "2", "3"] and one.queue.empty()
    assert two.queue.get_nowait() == "x"
    one.close(4409)
    one.send_text("4")
    send_all([(one, "5")])
    assert sunk == ["1", "2", "3"]
    assert one.queue.get_nowait() is None and one.close_code == 4409

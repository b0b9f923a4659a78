"""Issue 28: a table's hand-overs to the event loop (``server/client.py``) wake the loop once for all that reach
it before it runs them, and keep their order: every call handed over by one thread runs in the order it was
handed over, held ones (a table's step: ``run_holding``) and direct ones alike."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tablegames.server import client
from tablegames.server.client import _call_on, run_holding


class Loop:
    """An event loop on a thread of its own, counting its ``call_soon_threadsafe`` wake-ups."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.wakeups = 0
        real = self.loop.call_soon_threadsafe

        def counted(*args: Any, **kw: Any) -> Any:
            self.wakeups += 1
            return real(*args, **kw)

        self.loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, fn: Any) -> None:
        """Run ``fn`` on the loop and wait for it."""
        done = threading.Event()

        def call() -> None:
            fn()
            done.set()

        self.loop.call_soon_threadsafe(call)
        assert done.wait(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def test_hand_overs_while_the_loop_is_busy_wake_it_once_and_keep_their_order() -> None:
    lp = Loop()
    try:
        got: list[tuple[str, int]] = []
        busy, release = threading.Event(), threading.Event()

        def hold_the_loop() -> None:
            busy.set()
            assert release.wait(10)

        lp.loop.call_soon_threadsafe(hold_the_loop)
        assert busy.wait(10)
        before = lp.wakeups

        def step(name: str, first: int) -> None:  # a table's step: its hand-overs held to its end
            for i in range(first, first + 3):
                _call_on(lp.loop, got.append, (name, i))

        def work(name: str) -> None:
            for n in range(5):
                run_holding(lambda n=n: step(name, 4 * n))
                _call_on(lp.loop, got.append, (name, 4 * n + 3))  # not held: handed over at once

        threads = [threading.Thread(target=work, args=(f"t{k}",)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert lp.wakeups - before == 1  # 30 hand-overs reached the busy loop: one wake-up
        release.set()
        lp.run(lambda: None)
        assert len(got) == 60
        for k in range(3):
            assert [i for name, i in got if name == f"t{k}"] == list(range(20))
        assert lp.loop not in client._pending  # (nothing left over; other tests' loops are theirs)
        # an idle loop is woken by the next hand-over
        lp.wakeups = 0
        _call_on(lp.loop, got.append, ("late", 0))
        lp.run(lambda: None)
        assert got[-1] == ("late", 0) and lp.wakeups >= 1
    finally:
        lp.close()


def test_a_failing_call_does_not_drop_the_others_handed_over_with_it() -> None:
    lp = Loop()
    try:
        got: list[int] = []

        def boom() -> None:
            raise RuntimeError("boom")

        def step() -> None:
            _call_on(lp.loop, got.append, 1)
            _call_on(lp.loop, boom)
            _call_on(lp.loop, got.append, 2)

        run_holding(step)
        lp.run(lambda: None)
        assert got == [1, 2]
    finally:
        lp.close()


def test_a_loop_closed_before_it_ran_its_hand_overs_is_not_kept() -> None:
    """A loop that stops and closes with hand-overs not yet run (a server shutting down) leaves nothing behind in
    the module's table: the next hand-over anywhere drops it, and nothing more is queued for it."""
    dead = asyncio.new_event_loop()  # never runs
    got: list[int] = []
    worker = threading.Thread(target=_call_on, args=(dead, got.append, 1))
    worker.start()
    worker.join(10)
    assert dead in client._pending  # handed over, waiting for a loop that will never run it
    dead.close()
    lp = Loop()
    try:
        worker = threading.Thread(target=_call_on, args=(lp.loop, got.append, 2))
        worker.start()
        worker.join(10)
        lp.run(lambda: None)
        assert dead not in client._pending and got == [2]
        worker = threading.Thread(target=_call_on, args=(dead, got.append, 3))
        worker.start()
        worker.join(10)
        assert dead not in client._pending and got == [2]
    finally:
        lp.close()

"""The middleware's send and receive paths at the ASGI level (issue 28: no task per message): a message is
written inline when nothing is ahead of it, the messages behind a send that suspends go out in order after it,
a slow reader is still dropped, a drop ends a waiting receive at once, and the app's return flushes the queue.
Also :mod:`tablegames.server.inline` on its own."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tablegames.server.inline import Suspended, run_inline
from tablegames.server.limits import SEND_TEXT, HardeningMiddleware, Limits

Msg = dict[str, Any]
App = Callable[[Any, Any, Any], Awaitable[None]]


class Transport:
    """The server's side of one socket: ``send`` suspends while ``writable`` is clear (uvicorn's flow
    control: the client reads slowly), else records the message at once."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.sent: list[Msg] = []
        self.suspended = 0
        self.incoming: asyncio.Queue[Msg] = asyncio.Queue()
        self.incoming.put_nowait({"type": "websocket.connect"})

    async def send(self, message: Msg) -> None:
        if not self.writable.is_set():
            self.suspended += 1
            await self.writable.wait()
        self.sent.append(message)

    async def receive(self) -> Msg:
        return await self.incoming.get()

    def texts(self) -> list[str]:
        return [m["text"] for m in self.sent if m["type"] == "websocket.send"]


async def serve(app: App, limits: Limits, transport: Transport) -> None:
    mw = HardeningMiddleware(app, limits)
    await asyncio.wait_for(
        mw({"type": "websocket", "path": "/ws", "headers": []}, transport.receive, transport.send), 5
    )


def test_messages_are_written_inline_and_in_order_behind_a_send_that_suspends() -> None:
    transport = Transport()
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": "0"})
        seen["inline"] = transport.texts()  # written before the app's send returned: no task in between
        transport.writable.clear()  # the client stops reading
        for i in range(1, 6):
            scope[SEND_TEXT](str(i))  # the direct path, mixed with the ASGI one: one order
            await send({"type": "websocket.send", "text": f"{i}b"})
        seen["held"] = transport.texts()
        await asyncio.sleep(0.01)
        transport.writable.set()  # it reads again: the queue goes out, in order
        await asyncio.sleep(0.01)
        await send({"type": "websocket.send", "text": "last"})
        await send({"type": "websocket.close", "code": 1000})
        await send({"type": "websocket.send", "text": "after close"})

    asyncio.run(serve(app, Limits(send_timeout=2.0), transport))
    assert seen["inline"] == ["0"]
    assert seen["held"] == ["0"]
    assert transport.texts() == ["0"] + [x for i in range(1, 6) for x in (str(i), f"{i}b")] + ["last"]
    assert transport.sent[-1] == {"type": "websocket.close", "code": 1000}
    assert transport.suspended == 1  # one send waited; the others queued behind it


def test_a_slow_reader_is_dropped_and_a_waiting_receive_returns_a_disconnect_at_once() -> None:
    transport = Transport()
    got: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        transport.writable.clear()  # never reads again
        await send({"type": "websocket.send", "text": "stuck"})
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        got["receive"] = await receive()  # nothing comes in: the drop after send_timeout ends the wait
        got["waited"] = loop.time() - t0
        got["after"] = await receive()
        scope[SEND_TEXT]("dropped")

    asyncio.run(serve(app, Limits(send_timeout=0.05), transport))
    assert got["receive"]["type"] == got["after"]["type"] == "websocket.disconnect"
    assert 0.04 <= got["waited"] < 3.0
    assert transport.texts() == []
    assert transport.incoming.empty() and not transport.incoming._getters  # type: ignore[attr-defined]


def test_the_queue_bound_drops_a_socket_behind_a_suspended_send() -> None:
    transport = Transport()
    got: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        transport.writable.clear()
        for i in range(10):
            await send({"type": "websocket.send", "text": str(i)})
        got["receive"] = await receive()  # the queue overflowed: a disconnect, without waiting
        transport.writable.set()

    asyncio.run(serve(app, Limits(send_timeout=5.0, send_queue_messages=3), transport))
    assert got["receive"]["type"] == "websocket.disconnect"
    assert transport.texts() == ["0"]  # the send in progress finished; the queue was given up


def test_the_apps_return_flushes_what_is_queued() -> None:
    transport = Transport()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        transport.writable.clear()
        for i in range(4):
            await send({"type": "websocket.send", "text": str(i)})
        asyncio.get_running_loop().call_later(0.02, transport.writable.set)

    asyncio.run(serve(app, Limits(send_timeout=2.0), transport))
    assert transport.texts() == ["0", "1", "2", "3"]


def test_a_message_already_received_is_returned_without_waiting() -> None:
    transport = Transport()
    got: list[Msg] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        for text in ("a", "b"):
            transport.incoming.put_nowait({"type": "websocket.receive", "text": text})
        got.extend([await receive(), await receive()])

    asyncio.run(serve(app, Limits(), transport))
    assert [m["text"] for m in got] == ["a", "b"]


# --- inline.py --------------------------------------------------------------------------------------------


def test_run_inline_finishes_what_does_not_suspend_and_hands_back_what_does() -> None:
    async def scenario() -> None:
        queue: asyncio.Queue[int] = asyncio.Queue()
        queue.put_nowait(1)
        assert run_inline(queue.get()) == 1
        waiting = run_inline(queue.get())
        assert isinstance(waiting, Suspended)
        asyncio.get_running_loop().call_soon(queue.put_nowait, 2)
        assert await waiting == 2

        async def fails() -> None:
            raise KeyError("x")

        with pytest.raises(KeyError):
            run_inline(fails())

    asyncio.run(scenario())


def test_interrupt_ends_the_wait_and_gives_up_what_was_waited_for() -> None:
    async def scenario() -> None:
        queue: asyncio.Queue[int] = asyncio.Queue()
        waiting = run_inline(queue.get())
        assert isinstance(waiting, Suspended)
        asyncio.get_running_loop().call_soon(waiting.interrupt)
        assert await waiting is None
        queue.put_nowait(3)  # nobody waits any more: the item stays for the next reader
        assert run_inline(queue.get()) == 3
        # an interrupt after the item was handed over: the item is returned, not lost
        waiting = run_inline(queue.get())
        assert isinstance(waiting, Suspended)
        queue.put_nowait(4)
        waiting.interrupt()
        assert await waiting == 4

    asyncio.run(scenario())


def test_cancelling_the_awaiting_task_is_not_taken_for_an_interrupt() -> None:
    async def scenario() -> None:
        queue: asyncio.Queue[int] = asyncio.Queue()
        waiting = run_inline(queue.get())
        assert isinstance(waiting, Suspended)

        async def wait() -> int | None:
            return await waiting

        task = asyncio.ensure_future(wait())
        await asyncio.sleep(0)
        waiting.interrupted = True  # (even while an interrupt is pending) a cancellation stays a cancellation
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        queue.put_nowait(5)
        assert run_inline(queue.get()) == 5  # the cancelled wait let go of the queue

    asyncio.run(scenario())

"""One client socket of a table (:class:`Connection`) and the bounds on sockets; handing work to the event
loop's thread from the tables' worker threads."""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from tablegames.server.core import PlayerInfo
from tablegames.server.wire import encode

T = TypeVar("T")
log = logging.getLogger("tablegames.server")
MAX_QUEUE = 1000

# Sockets (docs/protocol.md, issue 11 defect 8): a player's newest sockets win; the table keeps room for players.
MAX_SOCKETS_PER_PLAYER_TABLE = 4  # a fifth socket of one player at one table closes the player's oldest there
MAX_SOCKETS_PER_PLAYER = 16  # over all tables: the oldest anywhere is closed
# a table's sockets: then an onlooker's new socket is refused, a seated player's replaces an onlooker's
MAX_SOCKETS_PER_TABLE = 64
CLOSE_REPLACED = 4409  # close code of a socket replaced by a newer one of the same player
CLOSE_TABLE_FULL = 4503  # close code of a socket refused (or replaced) because the table has too many
CLOSE_REDIRECT = 4307  # close code after a ``redirect`` message: the table is served by another process
CLOSE_RESTART = 1012  # the process gave the table up and nobody holds it yet: reconnect (to any process)


def _on(loop: asyncio.AbstractEventLoop | None) -> bool:
    """True when the caller runs on ``loop``'s thread (or there is no loop to hand over to)."""
    if loop is None:
        return True
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


Held = list[tuple[asyncio.AbstractEventLoop, Callable[..., None], tuple[Any, ...]]]
_held = threading.local()  # .calls: the hand-overs held by the step running on this thread (run_holding)


def _call_on(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., None], *args: Any) -> None:
    """Run ``fn(*args)`` on ``loop``'s thread: now when the caller is on it (or there is no loop), else handed
    over in order (held to the end of a table's step, when the caller is one: :func:`run_holding`); nothing once
    the loop is closing (nobody is listening any more)."""
    if _on(loop):
        fn(*args)
        return
    assert loop is not None
    held: Held | None = getattr(_held, "calls", None)
    if held is not None:
        held.append((loop, fn, args))
        return
    _hand_over(loop, [(loop, fn, args)])


_pending_lock = threading.Lock()
_pending: dict[asyncio.AbstractEventLoop, Held] = {}  # loop -> the calls handed to it that it has not run yet


def _hand_over(loop: asyncio.AbstractEventLoop, calls: Held) -> None:
    """Have ``loop``'s thread run ``calls`` in order, after every call handed over before them: one wake-up of
    the loop for all that reach it before it runs them (each ``call_soon_threadsafe`` wakes it: a system
    call holding the interpreter lock); nothing once the loop is closing."""
    with _pending_lock:
        for gone in [lp for lp in _pending if lp.is_closed()]:  # (closed before it ran them: nobody listens)
            del _pending[gone]
        if loop.is_closed():
            return
        queued = _pending.get(loop)
        if queued is not None:  # a wake-up is on its way: these go with it
            queued.extend(calls)
            return
        _pending[loop] = list(calls)
    try:
        loop.call_soon_threadsafe(_run_pending, loop)
    except RuntimeError:  # (closed: nobody is listening any more)
        with _pending_lock:
            _pending.pop(loop, None)


def _run_pending(loop: asyncio.AbstractEventLoop) -> None:
    with _pending_lock:
        calls = _pending.pop(loop, [])
    for _, fn, args in calls:
        try:
            fn(*args)
        except Exception:  # (one failing call does not drop the others handed over with it)
            log.exception("a call handed to the event loop failed")


def run_holding(fn: Callable[[], T]) -> T:
    """(A table's step, on a worker thread.) Run ``fn()`` holding every hand-over to the event loop it makes
    (its messages, its timers), then hand them over at once, in order, when it ends (also when it raised): one
    wake-up of the loop a step, not one a message."""
    held: Held = []
    _held.calls = held
    try:
        return fn()
    finally:
        _held.calls = None
        loops: dict[asyncio.AbstractEventLoop, Held] = {}
        for call in held:
            loops.setdefault(call[0], []).append(call)
        for loop, calls in loops.items():
            _hand_over(loop, calls)


_OPENED = itertools.count()
_SOCKETS_LOCK = threading.Lock()


class Connection:
    """One client socket: its player, its outgoing queue and its hint toggle.

    :meth:`send` may be called from the table's worker thread: the message is encoded there (JSON text, off the
    event loop) and handed to the event loop, which owns the queue (messages keep their order).
    """

    def __init__(self, player: PlayerInfo, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.player = player
        self.loop = loop
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()  # encoded messages; None: close
        # the socket's own send of one text (the route sets it: limits.SEND_TEXT), never waiting: the texts go
        # out at once, bounded by the socket's limits, and only the close goes through the queue
        self.sink: Callable[[str], None] | None = None
        self.close_code = 1008  # the WebSocket close code when the server closes it (app.py)
        self.opened = next(_OPENED)  # order of opening (the oldest sockets are replaced first)
        self.hints = False
        self.round_key: int | None = None  # engine round_no of the events sent so far
        self.sent = 0
        self.closed = False
        self.ending = False  # close() was called (from any thread): nothing more is sent
        self.last_hint: tuple[int, int] | None = None

    @property
    def gone(self) -> bool:
        """Closed, or being closed: it no longer counts among the table's sockets."""
        return self.closed or self.ending

    def send(self, message: dict[str, Any]) -> None:
        """Send one message (encoded now, on the caller's thread)."""
        if not self.closed and not self.ending:
            _call_on(self.loop, self._deliver, encode(message))

    def send_text(self, text: str) -> None:
        """Send one message already encoded (a table's push shares one text between its sockets)."""
        if not self.closed and not self.ending:
            _call_on(self.loop, self._deliver, text)

    def _deliver(self, message: str | None) -> None:
        if self.closed:
            return
        sink = self.sink
        # (without a sink, a client that does not read is dropped here; with one, by the socket's own bound)
        if message is None or (sink is None and self.queue.qsize() >= MAX_QUEUE):
            self.closed = True
            self.queue.put_nowait(None)
        elif sink is not None:
            sink(message)
        else:
            self.queue.put_nowait(message)

    def close(self, code: int | None = None) -> None:
        if not self.closed and not self.ending:
            if code is not None:
                self.close_code = code
            self.ending = True
            _call_on(self.loop, self._deliver, None)


def send_all(messages: list[tuple[Connection, str]]) -> None:
    """Send encoded messages to several sockets, handed over to their event loop at once (a table's push: one
    wake-up of the loop, not one a socket); each socket's messages keep their order."""
    live = [(c, text) for c, text in messages if not c.gone]
    by_loop: dict[asyncio.AbstractEventLoop | None, list[tuple[Connection, str]]] = {}
    for c, text in live:
        by_loop.setdefault(c.loop, []).append((c, text))
    for loop, batch in by_loop.items():
        _call_on(loop, _deliver_all, batch)


def _deliver_all(messages: list[tuple[Connection, str]]) -> None:
    for conn, text in messages:
        conn._deliver(text)


def redirect(conn: Connection, table_id: int, owner: dict[str, Any] | None) -> None:
    """Send the client to the table's owner: one ``redirect`` message, then close code 4307 (docs/protocol.md);
    with no owner known, close 1012 (the client reconnects, and is sent on from there)."""
    if owner and owner.get("url"):
        conn.send({"type": "redirect", "url": owner["url"], "table_id": table_id})
        conn.close(CLOSE_REDIRECT)
    else:
        conn.close(CLOSE_RESTART)


def follow_redirect(ws_url: str, message: dict[str, Any]) -> str:
    """The WebSocket URL to reconnect to after a ``redirect`` message: the owner's URL (``http[s]://host[/prefix]``)
    with the same path and query as ``ws_url``.

    >>> follow_redirect("ws://a:1/ws/tables/3?token=t", {"type": "redirect", "url": "http://b:2/n/n2", "table_id": 3})
    'ws://b:2/n/n2/ws/tables/3?token=t'
    """
    from urllib.parse import urlsplit

    old, new = urlsplit(ws_url), urlsplit(str(message["url"]))
    scheme = {"https": "wss", "http": "ws"}.get(new.scheme, new.scheme)
    path = new.path.rstrip("/") + old.path
    return f"{scheme}://{new.netloc}{path}" + (f"?{old.query}" if old.query else "")

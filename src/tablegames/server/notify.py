"""PostgreSQL LISTEN/NOTIFY between the server processes of one database (issue 16).

- :func:`notify` sends a payload on a channel *inside* a transaction: PostgreSQL delivers it when, and only
  if, the transaction commits (a rolled-back settlement announces nothing), to every listener, in commit order.
- :class:`Listener` is a thread with its own psycopg connection (never the event loop, never the pool) that
  LISTENs on a channel and hands every payload to the event loop with ``call_soon_threadsafe``. When the
  connection drops (the database restarted, a network cut, ``pg_terminate_backend``) it reconnects with a
  backoff and hands over :data:`RESYNC` once it listens again: what was sent meanwhile is lost, so the receiver
  re-reads what it follows. ``on_lost`` (optional) is called on the listener's thread as soon as a connection
  is given up, before any reconnection: a cache kept exact by the notices stops being used until the RESYNC.

On SQLite (one process per database) :func:`notify` does nothing and no listener is started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

log = logging.getLogger("tablegames.server")

METERS_CHANNEL = "tablegames_meters"
RESYNC: dict[str, Any] = {"resync": True}  # handed to the callback after a (re)connection
MAX_PAYLOAD = 7999  # PostgreSQL's limit on a payload (bytes) is 8000
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def _dialect(handle: Any) -> str:
    bind = handle.get_bind() if hasattr(handle, "get_bind") else handle
    return str(bind.dialect.name)


def is_postgres(database_url: str) -> bool:
    """Whether the URL names a PostgreSQL database.

    >>> is_postgres("postgresql+psycopg://u@127.0.0.1/db"), is_postgres("sqlite:///x.db"), is_postgres("x.db")
    (True, False, False)
    """
    return "://" in database_url and make_url(database_url).get_backend_name() == "postgresql"


def notify(conn: Any, payload: dict[str, Any] | str, channel: str = METERS_CHANNEL) -> bool:
    """(Inside a transaction on a SQLAlchemy Connection or Session.) Send ``payload`` (JSON) on ``channel``
    when the transaction commits; False (nothing sent) on a database without NOTIFY (SQLite)."""
    if _dialect(conn) != "postgresql":
        return False
    body = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    if len(body.encode()) > MAX_PAYLOAD:
        raise ValueError(f"a NOTIFY payload is at most {MAX_PAYLOAD} bytes, got {len(body.encode())}")
    conn.execute(_NOTIFY, {"channel": channel, "payload": body})
    return True


def notify_all(conn: Any, payloads: list[dict[str, Any]], channel: str = METERS_CHANNEL) -> int:
    """:func:`notify` of several payloads in one statement (one round trip); how many were sent."""
    if not payloads or _dialect(conn) != "postgresql":
        return 0
    if len(payloads) == 1:
        notify(conn, payloads[0], channel)
        return 1
    params: dict[str, Any] = {"channel": channel}
    for i, p in enumerate(payloads):
        body = json.dumps(p, separators=(",", ":"))
        if len(body.encode()) > MAX_PAYLOAD:
            raise ValueError(f"a NOTIFY payload is at most {MAX_PAYLOAD} bytes, got {len(body.encode())}")
        params[f"p{i}"] = body
    calls = ", ".join(f"pg_notify(:channel, :p{i})" for i in range(len(payloads)))
    conn.execute(text(f"SELECT {calls}"), params)
    return len(payloads)


def libpq_url(database_url: str) -> str:
    """The SQLAlchemy URL as a libpq connection URI for psycopg (the driver name dropped).

    >>> libpq_url("postgresql+psycopg://u:p@127.0.0.1:5432/db?options=-csearch_path%3Ds")
    'postgresql://u:p@127.0.0.1:5432/db?options=-csearch_path%3Ds'
    """
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """LISTEN on ``channel`` in a thread of its own; ``callback(payload)`` runs on ``loop`` for every payload
    (parsed JSON; a payload that is not a JSON object is handed over as ``{"raw": text}``) and with
    :data:`RESYNC` after each (re)connection. ``loop`` None: the callback runs on the listener thread (tools,
    tests without an event loop).
    """

    def __init__(
        self,
        database_url: str,
        callback: Callable[[dict[str, Any]], None],
        loop: asyncio.AbstractEventLoop | None = None,
        channel: str = METERS_CHANNEL,
        poll_seconds: float = 0.25,
        max_backoff: float = 5.0,
        on_lost: Callable[[], None] | None = None,
        parse: bool = True,
    ) -> None:
        if not channel.isidentifier():
            raise ValueError(f"bad channel name {channel!r}")
        self.conninfo = libpq_url(database_url)
        self.callback = callback
        self.loop = loop
        self.channel = channel
        self.poll_seconds = poll_seconds
        self.max_backoff = max_backoff
        self.on_lost = on_lost  # (on the listener thread) a connection was given up: lost, or stopped
        self.parse = parse  # False: a payload is handed over as ``{"raw": text}`` (no JSON parse tried)
        self.connections = 0  # successful (re)connections, for tests and health
        self.backend_pid: int | None = None  # the PostgreSQL backend of the current connection
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._conn: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=f"listen-{self.channel}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def _hand(self, payload: dict[str, Any]) -> None:
        loop = self.loop
        if loop is None:
            self._call(payload)
            return
        try:
            loop.call_soon_threadsafe(self._call, payload)
        except RuntimeError:  # the loop is closed: the app is shutting down
            self._stop.set()

    def _call(self, payload: dict[str, Any]) -> None:
        try:
            self.callback(payload)
        except Exception:
            log.exception("listener callback failed on %s", self.channel)

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(
            self.conninfo,
            autocommit=True,
            connect_timeout=5,
            # a dead peer (a cut network) is noticed within about 10 s instead of the system's 2 hours
            keepalives=1,
            keepalives_idle=5,
            keepalives_interval=2,
            keepalives_count=3,
            application_name=f"tablegames-{self.channel}",
        )
        conn.execute(f"LISTEN {self.channel}")
        return conn

    def _run(self) -> None:
        import psycopg

        backoff = 0.2
        while not self._stop.is_set():
            try:
                conn = self._conn = self._connect()
            except psycopg.Error as exc:
                log.warning(
                    "listener on %s cannot connect (%s); retrying in %.1f s", self.channel, exc, backoff
                )
                self._stop.wait(backoff)
                backoff = min(self.max_backoff, backoff * 2)
                continue
            backoff = 0.2
            self.backend_pid = conn.info.backend_pid
            self.connections += 1
            self.listening.set()
            self._hand(dict(RESYNC))
            try:
                while not self._stop.is_set():
                    for n in conn.notifies(timeout=self.poll_seconds):
                        self._hand(_parse(n.payload) if self.parse else {"raw": n.payload})
            except psycopg.Error as exc:
                if not self._stop.is_set():
                    log.warning("listener on %s lost its connection (%s); reconnecting", self.channel, exc)
            finally:
                self.listening.clear()
                self._conn = None
                with contextlib.suppress(psycopg.Error):
                    conn.close()
                if self.on_lost is not None:
                    try:
                        self.on_lost()
                    except Exception:
                        log.exception("listener on_lost failed on %s", self.channel)


def _parse(raw: str) -> dict[str, Any]:
    """A payload as a dict.

    >>> _parse('{"meter": "m", "cents": 5}'), _parse("x")
    ({'meter': 'm', 'cents': 5}, {'raw': 'x'})
    """
    try:
        value = json.loads(raw)
    except ValueError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"raw": raw}

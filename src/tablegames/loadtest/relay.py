"""A loopback TCP relay in front of the database, to play a database outage for the load test's own processes
(issue 20) without touching the database server that others share: :meth:`DatabaseRelay.cut` drops every
connection through it and refuses new ones (as a PostgreSQL restart or a cut network does to its clients: their
sessions end, their next statement fails), :meth:`DatabaseRelay.restore` lets them connect again.

Point the processes at :attr:`DatabaseRelay.url` (the database URL with the relay's port); read the books through
the real URL.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

from tablegames.loadtest.config import LoadTestError, check_loopback_database


class DatabaseRelay:
    """Relay ``127.0.0.1:<port>`` to the database of ``database_url`` (a loopback address), in one thread."""

    def __init__(self, database_url: str) -> None:
        check_loopback_database(database_url)
        parts = urlsplit(database_url)
        if parts.hostname is None or parts.hostname.startswith("/"):
            raise LoadTestError("the database relay needs a TCP database URL (host:port)")
        self.target = (parts.hostname, parts.port or 5432)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = int(self._listener.getsockname()[1])
        netloc = parts.netloc.rsplit("@", 1)
        host = f"127.0.0.1:{self.port}"
        self.url = urlunsplit(parts._replace(netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))
        self.cuts = 0
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self._pairs: dict[socket.socket, socket.socket] = {}
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="db-relay", daemon=True)
        self._thread.start()

    def cut(self) -> None:
        """Drop every connection and refuse new ones until :meth:`restore`."""
        with self._lock:
            self._open.clear()
            self.cuts += 1
            for s in list(self._pairs):
                self._drop(s)

    def restore(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            for s in list(self._pairs):
                self._drop(s)
        self._selector.close()
        self._listener.close()

    def __enter__(self) -> DatabaseRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drop(self, s: socket.socket) -> None:
        peer = self._pairs.pop(s, None)
        for x in (s, peer):
            if x is None:
                continue
            self._pairs.pop(x, None)
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(x)
            with contextlib.suppress(OSError):
                x.close()

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except OSError:
            return
        if not self._open.is_set():
            client.close()  # refused (the database is "down")
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        for s in (client, server):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._pairs[client], self._pairs[server] = server, client
            self._selector.register(client, selectors.EVENT_READ)
            self._selector.register(server, selectors.EVENT_READ)

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.1):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                if s is self._listener:
                    self._accept()
                    continue
                with self._lock:
                    peer = self._pairs.get(s)
                    if peer is None:
                        continue
                    try:
                        data = s.recv(65536)
                        if data:  # (a peer that does not read for 2 s, a paused process, is dropped)
                            peer.settimeout(2.0)
                            peer.sendall(data)
                            peer.setblocking(False)
                            continue
                    except OSError:
                        pass
                    self._drop(s)

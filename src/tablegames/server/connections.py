"""Connection-level bounds of the server that ``tablegames serve`` runs (uvicorn), against slow and idle clients.

uvicorn by itself never times out a connection whose request headers are unfinished (a "slowloris" client
sends a byte now and then and holds a socket, and a file descriptor, for ever) and has no cap per client.
:func:`bounded_http_protocol` builds a small subclass of uvicorn's httptools protocol class (passed as
``http=``) that

* gives every request ``request_timeout`` seconds from its first byte (from the connection's opening for the
  first request) until its headers *and* body have arrived; a client still sending then is disconnected;
* admits at most ``max_connections_per_address`` open connections (HTTP and WebSocket) from one client
  address (IPv6: one /64) and ``max_connections`` in all: a connection over either is answered ``503`` with
  the protocol's error body (code ``too_many_connections``) and closed at once, so it costs a descriptor
  for a moment only;
* keeps ``GET /health`` answered while an address holds its whole allowance (issue 20: a load balancer's health
  check, or any client behind the same proxy or NAT, shares the address of the client holding it): a connection
  over its *address's* cap (not over the server's) is admitted for one ``GET /health`` only, into one
  of :data:`HEALTH_SLOTS` places shared by the whole server; its request must arrive within
  :data:`HEALTH_DEADLINE` seconds, is answered by the app and the connection closed; any other request on it
  (or none in time) gets the ``503`` refusal above.

A connection idle between requests is closed after ``keep_alive_timeout`` seconds (uvicorn's
``timeout_keep_alive``); a WebSocket stays open while it answers the server's pings (uvicorn's
``ws_ping_interval`` / ``ws_ping_timeout``), and counts against its address like any connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
from dataclasses import dataclass
from typing import Any

from tablegames.server.limits import address_key

log = logging.getLogger("tablegames.server")

HEALTH_PATH = b"/health"
HEALTH_SLOTS = 16  # connections over an address's cap admitted at once for GET /health only (whole server)
HEALTH_DEADLINE = 1.0  # seconds such a connection has to send its request


def _default_max_connections() -> int:
    """4096, or fewer when the process may open fewer files (room is left for the database and logs)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 4096
    return max(64, min(4096, soft - 256))


@dataclass(frozen=True)
class ConnectionLimits:
    """The bounds (``tablegames serve --request-timeout/--keep-alive-timeout/--max-connections-per-address/
    --max-connections``)."""

    request_timeout: float = 10.0
    keep_alive_timeout: float = 5.0
    max_connections_per_address: int = 256
    max_connections: int = 0  # 0: the default, 4096 or what the file limit allows

    def resolved(self) -> ConnectionLimits:
        """These limits, checked, with the default total filled in (``ValueError`` with a clear message)."""
        total = self.max_connections or _default_max_connections()
        for name, value, lo, hi in (
            ("request_timeout", self.request_timeout, 0.1, 3600.0),
            ("keep_alive_timeout", self.keep_alive_timeout, 0.1, 3600.0),
        ):
            if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
                raise ValueError(f"{name} must be {lo:g}-{hi:g} seconds, got {value!r}")
        for name, count in (
            ("max_connections_per_address", self.max_connections_per_address),
            ("max_connections", total),
        ):
            if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1_000_000:
                raise ValueError(f"{name} must be 1-1000000, got {count!r}")
        if self.max_connections_per_address > total:
            raise ValueError(
                f"max_connections_per_address ({self.max_connections_per_address}) is above "
                f"max_connections ({total})"
            )
        return ConnectionLimits(
            self.request_timeout, self.keep_alive_timeout, self.max_connections_per_address, total
        )


class PeerTable:
    """Open connections by client address. A connection is released when its HTTP protocol loses it; one that
    became a WebSocket is dropped from the table once its transport is closing (checked lazily: when its
    address or the whole server is at its cap, and every 1024 admissions)."""

    def __init__(self, per_address: int, total: int, health_slots: int = HEALTH_SLOTS) -> None:
        self.per_address = per_address
        self.total = total
        self.by_address: dict[str, set[Any]] = {}
        self.count = 0
        self._admitted = 0
        self.health_slots = health_slots
        self.health: set[Any] = set()  # connections over their address's cap, for GET /health only

    def admit_health(self, transport: Any) -> bool:
        """A place for a ``/health``-only connection (its address at its cap, the server not full)."""
        if len(self.health) >= self.health_slots:
            self.health = {t for t in self.health if not t.is_closing()}
        if len(self.health) >= self.health_slots or self.count >= self.total:
            return False
        self.health.add(transport)
        return True

    def _prune(self, address: str | None = None) -> None:
        for a in [address] if address is not None else list(self.by_address):
            live = self.by_address.get(a)
            if live is None:
                continue
            dead = {t for t in live if t.is_closing()}
            live -= dead
            self.count -= len(dead)
            if not live:
                del self.by_address[a]

    def admit(self, address: str, transport: Any) -> bool:
        self._admitted += 1
        if self._admitted % 1024 == 0:
            self._prune()
        if len(self.by_address.get(address, ())) >= self.per_address:
            self._prune(address)
        if self.count >= self.total:
            self._prune()
        live = self.by_address.get(address, set())
        if len(live) >= self.per_address or self.count >= self.total:
            return False
        live.add(transport)
        self.by_address[address] = live
        self.count += 1
        return True

    def release(self, address: str, transport: Any) -> None:
        live = self.by_address.get(address)
        if live is not None and transport in live:
            live.discard(transport)
            self.count -= 1
            if not live:
                del self.by_address[address]


def _refusal(message: str) -> bytes:
    body = json.dumps({"error": {"code": "too_many_connections", "message": message}}).encode()
    head = (
        b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
    )
    return head + body


def bounded_http_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol with the bounds of ``limits`` (a fresh table of connections per call)."""
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    limits = limits.resolved()
    peers = PeerTable(limits.max_connections_per_address, limits.max_connections)

    class BoundedHttpToolsProtocol(HttpToolsProtocol):
        _request_timer: asyncio.TimerHandle | None = None
        _address: str | None = None  # None: refused (nothing to release)
        _health_only = False  # over its address's cap: admitted for one GET /health
        _refused_request = False  # a health-only connection's request was not /health: refused

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            host = peer[0] if isinstance(peer, tuple) and peer else "?"
            address = address_key({"client": (host, 0)})
            if not peers.admit(address, transport):
                full = len(peers.by_address.get(address, ())) >= peers.per_address
                if full and peers.admit_health(transport):
                    self._address, self._health_only = address, True
                    super().connection_made(transport)
                    self._arm()
                    return
                why = (
                    f"at most {peers.per_address} connections from one address"
                    if full
                    else f"at most {peers.total} connections in all"
                )
                transport.write(_refusal(f"too many connections: {why}; try again later"))
                transport.close()
                return
            self._address = address
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._address is None:
                return  # refused in connection_made: uvicorn never saw it
            if self._health_only:
                peers.health.discard(self.transport)
            else:
                peers.release(self._address, self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._address is None or self._refused_request:
                return
            super().data_received(data)

        def _refuse_request(self) -> None:
            """A health-only connection's request that is not ``GET /health`` (or none in time): refused."""
            self._refused_request = True
            self._disarm()
            if not self.transport.is_closing():
                why = f"at most {peers.per_address} connections from one address"
                self.transport.write(_refusal(f"too many connections: {why}; try again later"))
                self.transport.close()

        # the request timer: from a request's first byte until it has arrived whole
        def _arm(self) -> None:
            if self._request_timer is None:
                deadline = HEALTH_DEADLINE if self._health_only else limits.request_timeout
                self._request_timer = self.loop.call_later(deadline, self._too_slow)

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _too_slow(self) -> None:
            self._request_timer = None
            if self._health_only:
                self._refuse_request()
                return
            if not self.transport.is_closing():
                log.debug("closing a connection from %s: request not complete within %gs", self._address,
                         limits.request_timeout)  # fmt: skip
                self.transport.close()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            if self._refused_request:
                return
            if self._health_only and not self._is_health():
                self._refuse_request()
                return
            if self.parser.should_upgrade() and self._should_upgrade():
                self._disarm()  # a WebSocket handshake: the WebSocket protocol takes over
            super().on_headers_complete()
            if self._health_only and self.cycle is not None:
                self.cycle.keep_alive = False  # one answer, then the place is given back

        def _is_health(self) -> bool:
            if self.parser.get_method() != b"GET" or self.parser.should_upgrade():
                return False
            if self.cycle is not None:  # a second request on the connection
                return False
            try:
                return bool(httptools.parse_url(self.url).path == HEALTH_PATH)
            except httptools.HttpParserError:
                return False

        def on_body(self, body: bytes) -> None:
            if not self._refused_request:
                super().on_body(body)

        def on_message_complete(self) -> None:
            self._disarm()
            if not self._refused_request:
                super().on_message_complete()

    return BoundedHttpToolsProtocol

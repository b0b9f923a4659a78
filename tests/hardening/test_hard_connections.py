"""Issue 11, defect 5 and its class, connection-level exhaustion, against a real ``tablegames serve``: requests
whose headers (or body) never finish are closed after the request timeout, idle keep-alive connections after
the keep-alive timeout, an address may hold only so many connections (idle WebSockets included) and the
server only so many in all; meanwhile ``/health`` answers other clients, and the slots come back."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import time
from pathlib import Path

import pytest
from hard_serve import connect, http_get, read_until_closed, tablegames_serve

from server_harness import ADMIN, eventually

pytestmark = pytest.mark.timeout(180)

SLOW_HEADERS = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # never ends with the blank line


def _refused(sock_data: tuple[bytes, bool]) -> bool:
    data, closed = sock_data
    return closed and data.startswith(b"HTTP/1.1 503") and b"too_many_connections" in data


def test_slow_requests_are_closed_and_an_address_is_capped(tmp_path: Path) -> None:
    timeout = 1.5
    opts = (
        "--request-timeout",
        str(timeout),
        "--keep-alive-timeout",
        "1",
        "--max-connections-per-address",
        "20",
    )
    with tablegames_serve(tmp_path, *opts) as port:
        t0 = time.monotonic()
        slow = [connect(port, "127.0.0.3") for _ in range(20)]
        for s in slow[:10]:
            s.sendall(SLOW_HEADERS)  # half send unfinished headers, half nothing at all
        slow[10].sendall(b"POST /players HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")  # a slow body
        # over the cap from that address: refused at once; another address is served meanwhile
        assert _refused(read_until_closed(connect(port, "127.0.0.3"), 3.0))
        assert http_get(port, "/health", "127.0.0.2").startswith(b"HTTP/1.1 200")
        # one drips a header line a byte at a time: still closed at the deadline (uvicorn alone never would)
        drip, dripped = slow[0], False
        while time.monotonic() - t0 < timeout + 3.0:
            try:
                drip.sendall(b"X")
            except (BrokenPipeError, ConnectionResetError):
                dripped = True
                break
            time.sleep(0.2)
        assert dripped, "a connection dripping header bytes was never closed"
        for s in slow[1:]:
            _, closed = read_until_closed(s, max(0.1, t0 + timeout + 3.0 - time.monotonic()))
            assert closed, "a slow connection outlived the request timeout"
        assert time.monotonic() - t0 >= timeout * 0.8  # not closed early: the timeout, not a refusal
        for s in slow:
            s.close()
        # the address has its slots back
        assert http_get(port, "/health", "127.0.0.3").startswith(b"HTTP/1.1 200")
        # a keep-alive connection left idle after its request is closed after the keep-alive timeout
        idle = connect(port, "127.0.0.4")
        idle.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data, closed = read_until_closed(idle, 4.0)
        assert data.startswith(b"HTTP/1.1 200") and closed
        idle.close()


def _ws_handshake(port: int, source: str, path: str) -> object:
    sock = connect(port, source)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def test_idle_websockets_count_against_their_address_and_the_server_caps_all(tmp_path: Path) -> None:
    opts = ("--request-timeout", "2", "--max-connections-per-address", "10", "--max-connections", "40")
    with tablegames_serve(tmp_path, *opts) as port:
        import httpx

        base = f"http://127.0.0.1:{port}"
        table = httpx.post(
            f"{base}/tables", json={"game": "final-count", "name": "t"}, headers={"X-Admin-Token": ADMIN}
        )
        assert table.status_code == 201, table.text
        token = httpx.post(f"{base}/players", json={"name": "idler"}).json()["token"]
        path = f"/ws/tables/{table.json()['table_id']}?token={token}"
        sockets = [_ws_handshake(port, "127.0.0.5", path) for _ in range(10)]  # idle: they never read
        assert _refused(read_until_closed(connect(port, "127.0.0.5"), 3.0))
        assert http_get(port, "/health", "127.0.0.6").startswith(b"HTTP/1.1 200")
        for s in sockets[:3]:
            s.close()  # type: ignore[attr-defined]
        # the server sees them go: a slot is free again
        eventually(
            lambda: http_get(port, "/health", "127.0.0.5").startswith(b"HTTP/1.1 200"), "a free slot", 10
        )
        # the whole server: 40 connections, then new ones are refused (from any address) until slots free
        held = list(sockets[3:])
        refused = 0
        for i in range(40):
            s = connect(port, f"127.0.1.{i // 8 + 1}")
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # over the total: refused
                s.sendall(SLOW_HEADERS)
            held.append(s)
        for i in range(5):
            refused += _refused(read_until_closed(connect(port, f"127.0.2.{i + 1}"), 1.0))
        assert refused == 5
        # the slow ones are closed after the request timeout
        eventually(
            lambda: http_get(port, "/health", "127.0.0.7").startswith(b"HTTP/1.1 200"), "slow ones closed", 15
        )
        for s in held:
            s.close()  # type: ignore[attr-defined]
        body = json.loads(http_get(port, "/health").split(b"\r\n\r\n", 1)[1])
        assert body == {"ok": True}


def _raw(port: int, source: str, request: bytes) -> tuple[bytes, bool]:
    sock = connect(port, source)
    try:
        sock.sendall(request)
        return read_until_closed(sock, 5.0)
    finally:
        sock.close()


def test_health_and_other_addresses_are_answered_while_an_address_holds_its_whole_allowance(
    tmp_path: Path,
) -> None:
    """Issue 20 ("Also"): a load balancer's health check, or a client behind the same proxy, shares the address
    of a client that holds every connection that address may open; ``/health`` stays answered for it (and any
    other address is served as usual), while nothing else gets past the cap."""
    opts = ("--request-timeout", "60", "--max-connections-per-address", "20")
    with tablegames_serve(tmp_path, *opts) as port:
        held = [connect(port, "127.0.0.3") for _ in range(20)]
        for s in held[:10]:
            s.sendall(SLOW_HEADERS)  # half of them half-sent requests, half idle: the whole allowance
        time.sleep(0.3)
        for _ in range(3):  # each on a connection of its own, over the address's cap
            answer = http_get(port, "/health", "127.0.0.3")
            assert answer.startswith(b"HTTP/1.1 200"), answer
            assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"ok": True}
        data, closed = _raw(port, "127.0.0.3", b"GET /health?probe=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        assert data.startswith(b"HTTP/1.1 200") and closed  # one answer (keep-alive asked), then closed
        # anything but /health from that address is still refused, and so is a connection that sends nothing
        assert _refused(_raw(port, "127.0.0.3", b"GET /games HTTP/1.1\r\nHost: x\r\n\r\n"))
        assert _refused(
            _raw(port, "127.0.0.3", b"POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        )
        assert _refused(_raw(port, "127.0.0.3", SLOW_HEADERS))  # a request never finished: refused
        assert _refused(read_until_closed(connect(port, "127.0.0.3"), 3.0))
        # another address: served as usual
        assert http_get(port, "/games", "127.0.0.2").startswith(b"HTTP/1.1 200")
        assert http_get(port, "/health", "127.0.0.2").startswith(b"HTTP/1.1 200")
        # the held connections were never closed by any of this
        for s in held[10:]:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data, closed = read_until_closed(s, 5.0)
            assert data.startswith(b"HTTP/1.1 200") and closed
        for s in held:
            s.close()

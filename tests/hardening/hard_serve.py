"""Helpers of the hardening tests that need the real server (no tests here): ``tablegames serve`` in a subprocess
(uvicorn, as production runs it) and raw sockets from chosen loopback addresses (127.0.0.0/8 is all loopback,
so each test client can have an address of its own)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server_harness import ADMIN


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def connect(port: int, source: str, timeout: float = 5.0) -> socket.socket:
    """A TCP connection to the server from the loopback address ``source``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """Everything the server sends within ``timeout`` seconds, and whether it closed the connection."""
    deadline = time.monotonic() + timeout
    data = b""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return data, False
        except (ConnectionResetError, BrokenPipeError):
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def http_get(port: int, path: str, source: str = "127.0.0.1", headers: dict[str, str] | None = None) -> bytes:
    """One ``GET`` on a connection of its own (``Connection: close``): the raw answer."""
    sock = connect(port, source)
    try:
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data, _ = read_until_closed(sock, 10.0)
        return data
    finally:
        sock.close()


@contextmanager
def tablegames_serve(data_dir: Path, *options: str, database: str | None = None) -> Iterator[int]:
    """``tablegames serve`` on a free port (admin token ``server_harness.ADMIN``, no demo tables); yields the
    port once ``/health`` answers; stopped at the end."""
    port = free_port()
    cmd = [sys.executable, "-c", "from tablegames.cli import main; main()", "serve", "--port", str(port)]
    cmd += ["--data-dir", str(data_dir), "--admin-token", ADMIN, "--no-demo-tables", *options]
    if database is not None:
        cmd += ["--database", database]
    log_path = data_dir / "serve.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    raise AssertionError(
                        f"tablegames serve exited {proc.returncode}:\n{log_path.read_text()}"
                    )
                try:
                    if http_get(port, "/health").startswith(b"HTTP/1.1 200"):
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"tablegames serve did not answer:\n{log_path.read_text()}")
                time.sleep(0.1)
            yield port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)

"""Several ``tablegames serve`` processes on one PostgreSQL database, on free loopback ports, optionally behind
HAProxy: the load test's ``--servers N [--proxy]``, the benchmark and the tests (issue 16).

Each node is ``tablegames serve --node nK --advertise URL`` (``URL`` is the node's own address, or
``http://PROXY/n/nK`` behind the proxy); :meth:`Cluster.kill` sends SIGKILL (or SIGSTOP, :meth:`Cluster.pause`)
to one of them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablegames.loadtest.config import MAX_CLIENTS, MAX_SERVERS, LoadTestError, check_loopback_database
from tablegames.loadtest.process import _free_port
from tablegames.loadtest.proxy import HAProxy, NodeAddress, ProxyLimits, render

HEALTH_PATH = "/health"  # a node's health check (the proxy's too)


@dataclass
class Node:
    name: str
    port: int
    url: str  # direct: http://127.0.0.1:PORT
    advertise: str  # how clients reach it (direct, or through the proxy)
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    log: Any = None
    state: str = "new"  # new, up, stopped (SIGSTOP), killed, exited

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.state in ("up", "new")


@dataclass
class Cluster:
    """``servers`` nodes ``n1..nN`` on ``database`` (PostgreSQL on this machine), and HAProxy when ``proxy``."""

    database: str
    servers: int
    admin_token: str
    log_dir: Path
    betting_seconds: float = 10.0
    turn_seconds: float = 30.0
    proxy: bool = False
    extra_args: tuple[str, ...] = ()
    nodes: list[Node] = field(default_factory=list)
    haproxy: HAProxy | None = None
    proxy_url: str | None = None
    health_path: str = HEALTH_PATH

    def __post_init__(self) -> None:
        if not 1 <= self.servers <= MAX_SERVERS:
            raise LoadTestError(f"--servers must be 1..{MAX_SERVERS}, got {self.servers}")
        check_loopback_database(self.database)
        if self.servers > 1 and not self.database.startswith("postgres"):
            raise LoadTestError(
                "several server processes need one PostgreSQL database (--database postgresql+psycopg://...)"
            )

    # --- lifecycle ------------------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> Cluster:
        """Start every node (and the proxy), wait until each answers its health check."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        proxy_port = _free_port() if self.proxy else None
        if proxy_port is not None:
            self.proxy_url = f"http://127.0.0.1:{proxy_port}"
        for k in range(1, self.servers + 1):
            port = _free_port()
            name = f"n{k}"
            url = f"http://127.0.0.1:{port}"
            advertise = f"{self.proxy_url}/n/{name}" if self.proxy_url else url
            self.nodes.append(Node(name, port, url, advertise, self.log_dir / f"{name}.log"))
        try:
            # the first node creates the schema alone (several at once would race on CREATE TABLE)
            self._spawn(self.nodes[0])
            self.wait_ready(self.nodes[0], timeout)
            for node in self.nodes[1:]:
                self._spawn(node)
            for node in self.nodes[1:]:
                self.wait_ready(node, timeout)
            if self.proxy:
                assert proxy_port is not None
                config = render(
                    [NodeAddress(n.name, "127.0.0.1", n.port) for n in self.nodes],
                    bind=f"127.0.0.1:{proxy_port}",
                    health=self.health_path,
                    # every player comes from 127.0.0.1: the per-address limits sized for the load test's own
                    limits=ProxyLimits(connections=2 * MAX_CLIENTS + 100, requests_per_10s=1_000_000),
                )
                self.haproxy = HAProxy(config, self.log_dir / "haproxy.cfg", self.log_dir / "haproxy.log")
                for node in self.nodes:
                    self.haproxy.wait_ready(f"{node.advertise}{self.health_path}", timeout)
                self.haproxy.wait_ready(f"{self.proxy_url}{self.health_path}", timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _command(self, node: Node) -> list[str]:
        args = [
            sys.executable,
            "-c",
            "import sys; sys.argv[0] = 'tablegames'; from tablegames.cli import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(node.port),
            "--database",
            self.database,
            "--no-demo-tables",
            "--betting-seconds",
            str(self.betting_seconds),
            "--turn-seconds",
            str(self.turn_seconds),
            "--max-connections-per-address",
            str(2 * MAX_CLIENTS + 100),  # every player's sockets come from 127.0.0.1 (or the proxy)
        ]
        args += ["--node", node.name, "--advertise", node.advertise]
        return [*args, *self.extra_args]

    def _spawn(self, node: Node) -> None:
        env = {**os.environ, "TABLEGAMES_ADMIN_TOKEN": self.admin_token}
        node.log = node.log_path.open("ab")
        node.proc = subprocess.Popen(self._command(node), stdout=node.log, stderr=subprocess.STDOUT, env=env)
        node.state = "new"

    def wait_ready(self, node: Node, timeout: float = 60.0) -> None:
        """Until ``node`` answers its health check (``/health``)."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert node.proc is not None
            if node.proc.poll() is not None:
                node.state = "exited"
                raise LoadTestError(f"server {node.name} exited ({node.proc.returncode}):\n{self.tail(node)}")
            try:
                if httpx.get(node.url + self.health_path, timeout=1.0).status_code == 200:
                    node.state = "up"
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise LoadTestError(f"server {node.name} did not answer within {timeout:g} s:\n{self.tail(node)}")

    def tail(self, node: Node, lines: int = 30) -> str:
        if node.log is not None and not node.log.closed:
            node.log.flush()
        text = node.log_path.read_text(errors="replace") if node.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Stop the proxy and every node (SIGCONT first to a stopped one, SIGTERM, then SIGKILL)."""
        if self.haproxy is not None:
            self.haproxy.stop()
            self.haproxy = None
        for node in self.nodes:
            proc = node.proc
            if proc is None:
                continue
            if proc.poll() is None:
                if node.state == "stopped":
                    proc.send_signal(signal.SIGCONT)
                proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
            if node.log is not None:
                node.log.close()
            if node.state in ("up", "new"):
                node.state = "exited"

    # --- what the clients see ---------------------------------------------------------------------------

    @property
    def base(self) -> str:
        """Where REST goes: the proxy (round-robin), else the first node that is up."""
        if self.proxy_url is not None:
            return self.proxy_url
        return next(n.url for n in self.nodes if n.alive)

    def node(self, which: str | int) -> Node:
        if isinstance(which, int):
            return self.nodes[which]
        for n in self.nodes:
            if n.name == which:
                return n
        raise KeyError(which)

    @property
    def pids(self) -> dict[str, int]:
        return {n.name: n.proc.pid for n in self.nodes if n.proc is not None and n.alive}

    # --- failures -------------------------------------------------------------------------------------

    def kill(self, which: str | int) -> Node:
        """SIGKILL one node (a crash: no shutdown, its sockets drop, its leases run out)."""
        node = self.node(which)
        if node.proc is not None and node.proc.poll() is None:
            node.proc.send_signal(signal.SIGKILL)
            node.proc.wait(timeout=10)
        node.state = "killed"
        return node

    def pause(self, which: str | int) -> Node:
        """SIGSTOP one node (a paused or partitioned owner: its sockets stay open, it answers nothing)."""
        node = self.node(which)
        if node.proc is not None and node.proc.poll() is None:
            node.proc.send_signal(signal.SIGSTOP)
        node.state = "stopped"
        return node

    def restart(self, which: str | int, timeout: float = 60.0) -> Node:
        """Start a killed node again (same name, port and address) and wait until it answers its health check."""
        node = self.node(which)
        if node.proc is not None and node.proc.poll() is None:
            raise LoadTestError(f"server {node.name} is still running")
        if node.log is not None:
            node.log.close()
        self._spawn(node)
        self.wait_ready(node, timeout)
        return node

    def resume(self, which: str | int) -> Node:
        """SIGCONT a node :meth:`pause` stopped."""
        node = self.node(which)
        if node.proc is not None and node.proc.poll() is None:
            node.proc.send_signal(signal.SIGCONT)
            node.state = "up"
        return node

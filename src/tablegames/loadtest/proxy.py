"""HAProxy (Debian's ``haproxy`` package) in front of several table-server processes: the configuration
rendered from ``deploy/haproxy.cfg.template`` (``tablegames deploy haproxy``) and the proxy run as a
subprocess (the load test, the tests).

Routing (the contract of issue 16): ``/n/<NAME>/...`` goes to node NAME with the prefix stripped, everything
else round-robin over the nodes that answer their health check; WebSockets are tunnels with a long timeout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template

from tablegames.loadtest.config import LoadTestError

TEMPLATE = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg.template"
DEFAULT_BIND = "127.0.0.1:8080"
DEFAULT_HEALTH = "/health"
# Health checks (issue 20): every 0.5 s, 0.25 s after a failure, out after 2 failures, back after 1 success; each
# check is given 0.75 s (``timeout check`` in the template): a dead or paused node is out within about 2 s.
CHECK = "check inter 500ms fastinter 250ms fall 2 rise 1"


@dataclass(frozen=True)
class ProxyLimits:
    """What one client address may hold at the proxy (issue 20): open connections, HTTP requests per 10 s, and
    the seconds it has to send a request's headers (``timeout http-request``).

    >>> ProxyLimits(connections=0)
    Traceback (most recent call last):
    ...
    ValueError: the connections per client address must be 1..100000, got 0
    """

    connections: int = 256  # as the servers' own --max-connections-per-address
    requests_per_10s: int = 1000
    request_timeout: float = 10.0

    def __post_init__(self) -> None:
        if not 1 <= self.connections <= 100_000:
            raise ValueError(f"the connections per client address must be 1..100000, got {self.connections}")
        if not 1 <= self.requests_per_10s <= 10_000_000:
            raise ValueError(
                f"the requests per client address in 10 s must be 1..10000000, got {self.requests_per_10s}"
            )
        if not 0.1 <= self.request_timeout <= 3600:
            raise ValueError(f"the request timeout must be 0.1..3600 s, got {self.request_timeout:g}")


_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$")
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)$")


@dataclass(frozen=True)
class NodeAddress:
    name: str
    host: str
    port: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def parse_address(text: str, what: str = "address") -> tuple[str, int]:
    """``HOST:PORT`` (an IPv6 host in brackets) -> (host, port); ValueError with a clear message.

    >>> parse_address("127.0.0.1:8001"), parse_address("[::1]:80")
    (('127.0.0.1', 8001), ('[::1]', 80))
    >>> parse_address("nohost")
    Traceback (most recent call last):
    ...
    ValueError: bad address 'nohost': expected HOST:PORT
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not _HOST.match(host) or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad {what} {text!r}: expected HOST:PORT")
    return host, int(port)


def parse_node(text: str) -> NodeAddress:
    """``NAME=HOST:PORT`` -> :class:`NodeAddress`; ValueError with a clear message.

    >>> parse_node("n1=127.0.0.1:8001")
    NodeAddress(name='n1', host='127.0.0.1', port=8001)
    >>> parse_node("a b=127.0.0.1:1")
    Traceback (most recent call last):
    ...
    ValueError: bad node name 'a b': letters, digits, '_' and '-' (at most 63)
    """
    name, sep, address = text.partition("=")
    if not sep:
        raise ValueError(f"bad node {text!r}: expected NAME=HOST:PORT")
    if not _NAME.match(name):
        raise ValueError(f"bad node name {name!r}: letters, digits, '_' and '-' (at most 63)")
    host, port = parse_address(address, "node address")
    return NodeAddress(name, host, port)


def render(
    nodes: list[NodeAddress],
    bind: str = DEFAULT_BIND,
    health: str = DEFAULT_HEALTH,
    template: Path | None = None,
    limits: ProxyLimits | None = None,
) -> str:
    """The HAProxy configuration for ``nodes`` (distinct names, at least one) listening on ``bind``, with the
    per-address ``limits`` (default :class:`ProxyLimits`)."""
    limits = limits or ProxyLimits()
    if not nodes:
        raise ValueError("at least one --node NAME=HOST:PORT")
    names = [n.name for n in nodes]
    if len(set(names)) != len(names):
        raise ValueError(f"node names must be distinct, got {', '.join(names)}")
    parse_address(bind, "bind address")
    if not re.match(r"^/[A-Za-z0-9_./-]*$", health):
        raise ValueError(f"bad health-check path {health!r}")
    check = CHECK
    rules = "\n".join(
        f"    acl to_{n.name} path_reg ^/n/{n.name}(/|$)\n    use_backend node_{n.name} if to_{n.name}"
        for n in nodes
    )
    servers = "\n".join(f"    server {n.name} {n.address} check" for n in nodes)
    backends = "\n\n".join(
        f"backend node_{n.name}\n"
        f"    http-request set-path %[path,regsub(^/n/{n.name}/?,/)]\n"
        f"    option httpchk GET {health}\n"
        f"    http-check expect status 200\n"
        f"    timeout check 750ms\n"
        f"    http-request set-timeout server 5s if METH_GET or METH_HEAD\n"
        f"    server {n.name} {n.address} {check}"
        for n in nodes
    )
    text = (template or TEMPLATE).read_text()
    return Template(text).substitute(
        BIND=bind,
        HEALTH=health,
        NODE_RULES=rules,
        ANY_SERVERS=servers,
        NODE_BACKENDS=backends,
        CHECK=CHECK,
        MAX_CONN=limits.connections,
        MAX_RATE=limits.requests_per_10s,
        REQUEST_TIMEOUT=f"{round(limits.request_timeout * 1000)}ms",
    )


def haproxy_binary() -> str | None:
    """The ``haproxy`` executable (Debian installs it in /usr/sbin), or None."""
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if Path(p).is_file()), None
    )


class HAProxy:
    """``haproxy -f CONFIG`` in the foreground (``-db``) as a subprocess; its config checked first."""

    def __init__(self, config: str, config_path: Path, log_path: Path) -> None:
        binary = haproxy_binary()
        if binary is None:
            raise LoadTestError("haproxy is not installed (Debian package haproxy: make system)")
        config_path.write_text(config)
        checked = subprocess.run(
            [binary, "-c", "-q", "-f", str(config_path)], capture_output=True, text=True, check=False
        )
        if checked.returncode != 0:
            raise LoadTestError(f"haproxy refused the configuration:\n{checked.stdout}{checked.stderr}")
        self.log_path = log_path
        self.log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [binary, "-db", "-f", str(config_path)], stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, url: str, timeout: float = 20.0) -> None:
        """Until ``url`` answers 200 through the proxy (a node is up and its check passed)."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise LoadTestError(
                    f"haproxy exited ({self.proc.returncode}): {self.log_path.read_text()[-2000:]}"
                )
            try:
                if httpx.get(url, timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise LoadTestError(f"haproxy did not pass requests to {url} within {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()

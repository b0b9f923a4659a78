"""Helpers of the cluster tests (no tests here): several real server processes on one PostgreSQL database
(``tablegames serve --node nI --advertise URL``), a fresh schema per test, and a player whose WebSocket follows
the ``redirect`` to a table's owner the way ``server/client.py`` says (``follow_redirect``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from websockets.exceptions import InvalidStatus, WebSocketException
from websockets.sync.client import ClientConnection, connect

from server_harness import fresh_schema, pg_url_or_skip
from tablegames.server.client import follow_redirect

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"
ADMIN = "cluster-admin"
Message = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def pg_schema() -> Iterator[str]:
    """A fresh schema on the test PostgreSQL (the URL sets its search path); skips without one."""
    with fresh_schema("c") as url:
        yield pg_url_or_skip(url)


class Node:
    """One server process: ``tablegames serve`` (or ``script``, a Python file taking the same few options)."""

    def __init__(self, name: str, url: str, log: Path, args: list[str], script: str | None = None) -> None:
        self.name = name
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = url
        self.log = log
        self.args = args
        self.script = script
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        head = (
            [sys.executable, self.script]
            if self.script
            else [sys.executable, "-c", "from tablegames.cli import main; main()", "serve"]
        )
        cmd = [*head, "--port", str(self.port), "--database", self.url, "--node", self.name,
               "--advertise", self.base, *self.args]  # fmt: skip
        env = {**os.environ, "TABLEGAMES_ADMIN_TOKEN": ADMIN}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)

    def wait_healthy(self, timeout: float = 90) -> None:
        assert self.proc is not None
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"node {self.name} exited: {self.log.read_text()[-3000:]}")
            with suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"node {self.name} did not start: {self.log.read_text()[-3000:]}")

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class Cluster:
    def __init__(self, url: str, nodes: list[Node]) -> None:
        self.url = url
        self.nodes = nodes
        self.engine = sa.create_engine(url)

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def leases(self) -> dict[int, tuple[str, int, bool, float]]:
        """table id -> (node, generation, live, taken_at) as the database has them."""
        with self.engine.connect() as c:
            rows = c.execute(
                sa.text(
                    "SELECT table_id, node, generation, expires_at > EXTRACT(EPOCH FROM clock_timestamp()), "
                    "taken_at FROM table_leases"
                )
            ).all()
        return {int(t): (str(n), int(g), bool(live), float(at)) for t, n, g, live, at in rows}

    def wait_owned(
        self, tables: list[int], timeout: float = 20, exclude: str | None = None
    ) -> dict[int, str]:
        """Wait until every table has a live lease (of a node other than ``exclude``); table -> node."""
        deadline = time.time() + timeout
        while True:
            leases = self.leases()
            owned = {
                t: leases[t][0] for t in tables if t in leases and leases[t][2] and leases[t][0] != exclude
            }
            if len(owned) == len(tables):
                return owned
            assert time.time() < deadline, f"not all tables owned: {leases}"
            time.sleep(0.1)

    def sql(self, query: str, **params: Any) -> list[Any]:
        with self.engine.connect() as c:
            return list(c.execute(sa.text(query), params).all())

    def close(self) -> None:
        for n in self.nodes:
            n.stop()
        self.engine.dispose()


@contextmanager
def clusters(pg_url: str, tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    """``start_cluster(n=3, args=[...], script=None)``: n nodes ``n1..nN`` started together and healthy."""
    made: list[Cluster] = []

    def start(
        n: int = 3, args: list[str] | None = None, script: str | None = None, demo: bool = False
    ) -> Cluster:
        base_args = [*([] if demo else ["--no-demo-tables"]), *(args or [])]
        nodes = [Node(f"n{i}", pg_url, tmp_path / f"n{i}.log", base_args, script) for i in range(1, n + 1)]
        cluster = Cluster(pg_url, nodes)
        made.append(cluster)
        for node in nodes:
            node.start()
        for node in nodes:
            node.wait_healthy()
        return cluster

    try:
        yield start
    finally:
        for c in made:
            c.close()


class Player:
    """A registered player with money, playing over WebSockets that follow redirects to a table's owner."""

    def __init__(self, base: str, name: str, buy_in: int) -> None:
        r = httpx.post(f"{base}/players", json={"name": name})
        assert r.status_code == 201, r.text
        self.name = name
        self.token = str(r.json()["token"])
        self.headers = {"Authorization": f"Bearer {self.token}"}
        r = httpx.post(
            f"{base}/wallet/buy-in", json={"amount": buy_in, "request_id": "b"}, headers=self.headers
        )
        assert r.status_code == 200, r.text
        self.ws: ClientConnection | None = None
        self.log: list[Message] = []
        self.redirects: list[str] = []  # the URLs it was sent to
        self.n = 0
        self.decision: str | None = None

    def connect(self, entry: str, table_id: int, timeout: float = 30) -> Message:
        """Open the table's socket through ``entry`` (any node), following redirects, retrying while no node
        answers for the table (its owner just died); the ``welcome``."""
        url = f"ws{entry[4:]}/ws/tables/{table_id}?token={self.token}"
        start = url
        deadline = time.time() + timeout
        while True:
            assert time.time() < deadline, f"no owner answered for table {table_id}: {self.redirects}"
            try:
                ws = connect(url, open_timeout=5).__enter__()
            except (OSError, InvalidStatus, WebSocketException, TimeoutError):
                url = start  # the owner is gone: back to the entry node, which sends us on
                time.sleep(0.2)
                continue
            try:
                first: Message = json.loads(ws.recv(timeout=10))
            except (WebSocketException, TimeoutError):
                ws.close()
                url = start
                time.sleep(0.2)
                continue
            if first["type"] == "redirect":
                assert first["table_id"] == table_id
                with suppress(WebSocketException, TimeoutError):
                    ws.recv(timeout=5)  # the close (4307) follows
                assert ws.close_code == 4307, ws.close_code
                self.redirects.append(first["url"])
                url = follow_redirect(url, first)
                continue
            assert first["type"] == "welcome", first
            self.ws = ws
            self.log.append(first)
            return first

    def recv(self, timeout: float = 30) -> Message:
        assert self.ws is not None
        m: Message = json.loads(self.ws.recv(timeout=timeout))
        self.log.append(m)
        if m["type"] == "state":
            self.decision = m.get("decision")
        return m

    def until(self, pred: Callable[[Message], bool], timeout: float = 30) -> Message:
        deadline = time.time() + timeout
        while True:
            m = self.recv(timeout=max(0.1, deadline - time.time()))
            if pred(m):
                return m

    def send(self, **msg: Any) -> str:
        assert self.ws is not None
        self.n += 1
        rid = f"{self.name}-{self.n}"
        if msg["type"] == "act":
            msg.setdefault("decision", self.decision)
        self.ws.send(json.dumps({**msg, "request_id": rid}))
        return rid

    def request(self, **msg: Any) -> Message:
        rid = self.send(**msg)
        return self.until(lambda m: m.get("request_id") == rid and m["type"] in ("ack", "error"))

    def close(self) -> None:
        if self.ws is not None:
            with suppress(Exception):
                self.ws.close()
            self.ws = None


def create_table(base: str, game: str, name: str, seats: int = 5) -> int:
    r = httpx.post(
        f"{base}/tables", json={"game": game, "name": name, "seats": seats}, headers={"X-Admin-Token": ADMIN}
    )
    assert r.status_code == 201, r.text
    return int(r.json()["table_id"])


def money(cluster: Cluster) -> dict[str, int]:
    """Balances by account kind."""
    return {str(k): int(v) for k, v in cluster.sql("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")}


def ledger_ok(cluster: Cluster) -> None:
    from sqlalchemy.orm import Session

    from tablegames.server.ledger import check_ledger

    with Session(cluster.engine) as s:
        check = check_ledger(s)
    assert check.ok, check

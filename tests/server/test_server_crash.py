"""Crash recovery: the server runs as a process, real WebSocket clients play into the middle of rounds of every
game, the process is killed with SIGKILL and restarted. Every unfinished round resumes (issue 20, defect 7); here
nobody comes back, so each pending decision gets the timeout default once its fresh turn clock runs out, and each
round is settled exactly once, with no money created or lost (wallets + house + meters). A player who comes
back takes the decision: tests/server/test_server_resume.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.sync.client import ClientConnection, connect

from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition
from tablegames.server.db import make_engine
from tablegames.server.ledger import check_ledger

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

ADMIN = "crash-admin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    def __init__(self, url: str, port: int) -> None:
        self.url = url
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, seconds: float = 120) -> None:
        """Start (recovery runs before the server listens); ``seconds``: its turn and betting clocks."""
        cmd = [
            sys.executable, "-c", "from tablegames.cli import main; main()", "serve",
            "--port", str(self.port), "--database", self.url, "--turn-seconds", str(seconds),
            "--betting-seconds", str(seconds), "--no-demo-tables",
        ]  # fmt: skip
        env = {**os.environ, "TABLEGAMES_ADMIN_TOKEN": ADMIN}
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise AssertionError(f"server exited: {out}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def server_proc(db_url: str) -> Iterator[ServerProcess]:
    sp = ServerProcess(db_url, free_port())
    yield sp
    sp.stop()


class Client:
    def __init__(self, port: int, table: int, token: str) -> None:
        self.ws: ClientConnection = connect(
            f"ws://127.0.0.1:{port}/ws/tables/{table}?token={token}"
        ).__enter__()
        self.n = 0
        self.decision: str | None = None  # of the latest state: what an act answers

    def until(self, pred: Any) -> dict[str, Any]:
        for _ in range(500):
            m: dict[str, Any] = json.loads(self.ws.recv(timeout=20))
            if m["type"] == "state":
                self.decision = m.get("decision")
            if pred(m):
                return m
        raise AssertionError("no such message")

    def request(self, **msg: Any) -> dict[str, Any]:
        self.n += 1
        rid = f"q{self.n}"
        if msg["type"] == "act":
            msg.setdefault("decision", self.decision)
        self.ws.send(json.dumps({**msg, "request_id": rid}))
        return self.until(lambda m: m.get("request_id") == rid and m["type"] in ("ack", "error"))

    def turn(self, seat: int) -> dict[str, Any]:
        return self.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["to_act"] == seat)


def money(url: str) -> dict[str, Any]:
    engine = make_engine(url)
    try:
        with sa.orm.Session(engine) as s:
            # The rounds first: pysqlite runs each SELECT in its own snapshot, so a settlement committed between
            # two reads is seen by the later ones only; read in this order, "every round settled" implies that
            # the balances read after it include those settlements (CI saw in_play read before the commit).
            rounds = s.execute(sa.text("SELECT id, status, recovered FROM rounds ORDER BY id")).all()
            totals = dict(s.execute(sa.text("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")).all())
            stakes = dict(
                s.execute(
                    sa.text(
                        "SELECT round_id, COUNT(*) FROM ledger_transactions WHERE kind = 'stakes' GROUP BY round_id"
                    )
                ).all()
            )
            check = check_ledger(s)
    finally:
        engine.dispose()
    return {
        "totals": {k: int(v) for k, v in totals.items()},
        "rounds": rounds,
        "stakes": stakes,
        "check": check,
    }


def wait_settled(url: str, timeout: float = 60) -> dict[str, Any]:
    """The money once every round is settled (the resumed rounds time out on their fresh clocks)."""
    deadline = time.time() + timeout
    while True:
        now = money(url)
        if all(r[1] == "settled" for r in now["rounds"]):
            return now
        assert time.time() < deadline, now["rounds"]
        time.sleep(0.2)


def test_sigkill_mid_round_then_restart_settles_every_round_once(
    server_proc: ServerProcess, db_url: str
) -> None:
    sp = server_proc
    sp.start()
    base = f"http://127.0.0.1:{sp.port}"
    tables = {}
    for game in ("let-it-ride", "one-eyed-flush", "final-count"):
        r = httpx.post(f"{base}/tables", json={"game": game, "name": game}, headers={"X-Admin-Token": ADMIN})
        tables[game] = r.json()["table_id"]
    tokens = {}
    for name in ("ann", "bob", "cid"):
        tokens[name] = httpx.post(f"{base}/players", json={"name": name}).json()["token"]
        r = httpx.post(
            f"{base}/wallet/buy-in",
            json={"amount": 100_000, "request_id": "in"},
            headers={"Authorization": f"Bearer {tokens[name]}"},
        )
        assert r.json()["balance"] == 100_000
    clients = {}
    for game, t in tables.items():
        for seat, name in ((1, "ann"), (2, "bob")):
            c = Client(sp.port, t, tokens[name])
            assert c.request(type="sit", seat=seat)["type"] == "ack"
            clients[game, seat] = c
    # Final Count: one complete round first (must not be settled again), then one left in its betting window
    fc1, fc2 = clients["final-count", 1], clients["final-count", 2]
    fc1.request(type="wager", wagers={"main": 500})
    fc2.request(type="wager", wagers={"main": 700})
    while True:  # both stand when their turn comes (odd two-card totals are turned by the dealer)
        m = fc1.until(
            lambda m: m["type"] == "round_result" or (m["type"] == "state" and m["round"] is not None)
        )
        if m["type"] == "round_result":
            break
        if m["round"]["phase"] == "deciding":
            {1: fc1, 2: fc2}[m["round"]["to_act"]].request(type="act", action="stand", decision=m["decision"])
    fc1.request(type="wager", wagers={"main": 300})  # bob has not wagered: still betting
    # Let It Ride: ann rides bet 1, then the crash; One Eyed Flush: ann draws, bob has not decided
    lir1 = clients["let-it-ride", 1]
    lir1.request(type="wager", wagers={"bets": 500, "bonus": 100, "progressive": 100})
    clients["let-it-ride", 2].request(type="wager", wagers={"bets": 200, "progressive": 100})
    lir1.turn(1)
    assert lir1.request(type="act", action="ride")["type"] == "ack"
    oef1 = clients["one-eyed-flush", 1]
    oef1.request(
        type="wager", wagers={"main": 1000, "jackpot": 100, "flip": 100}, options={"flip": "one-eyed"}
    )
    clients["one-eyed-flush", 2].request(type="wager", wagers={"main": 400})
    oef1.turn(1)
    assert oef1.request(type="act", action="discard 1")["type"] == "ack"

    before = money(db_url)
    assert before["check"].ok
    open_rounds = [r for r in before["rounds"] if r[1] != "settled"]
    assert len(open_rounds) == 3 and before["totals"]["in_play"] > 0
    conserved = sum(v for k, v in before["totals"].items() if k != "cashier")
    assert conserved == 300_000

    sp.kill()
    for c in clients.values():
        c.ws.close()
    sp.start(seconds=1)  # the rounds resume; nobody comes back: each turn times out after 1 s

    after = wait_settled(db_url)
    assert after["check"].ok, after["check"]
    assert [r[1] for r in after["rounds"]] == ["settled"] * 4
    assert all(after["stakes"][r[0]] == 1 for r in after["rounds"])  # settled exactly once
    assert {r[0] for r in after["rounds"] if r[2]} == {r[0] for r in open_rounds}
    assert after["totals"]["in_play"] == 0
    assert sum(v for k, v in after["totals"].items() if k != "cashier") == conserved
    assert after["totals"]["cashier"] == before["totals"]["cashier"]
    # the recall shows what happened: ann's decisions by the player, the rest by the timeout default
    lir_round = next(
        r[0] for r in open_rounds if httpx.get(f"{base}/rounds/{r[0]}").json()["game"] == "let-it-ride"
    )
    rec = httpx.get(f"{base}/rounds/{lir_round}").json()
    acts = [(e["seat"], e["action"], e["by"]) for e in rec["events"] if e["type"] == "action"]
    assert acts == [
        (1, "ride", "player"),
        (2, "pull", "timeout"),
        (1, "pull", "timeout"),
        (2, "pull", "timeout"),
    ]
    assert rec["recovered"] is True
    # a reconnecting player gets the seat back
    c = Client(sp.port, tables["one-eyed-flush"], tokens["bob"])
    welcome = c.until(lambda m: m["type"] == "welcome")
    assert welcome["seat"] == 2
    c.ws.close()

    # another crash right after recovery changes nothing
    sp.kill()
    sp.start()
    again = money(db_url)
    assert again["rounds"] == after["rounds"] and again["totals"] == after["totals"]


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_sigkill_mid_round_of_every_game_then_restart_settles_it_once(
    server_proc: ServerProcess, db_url: str, definition: GameDefinition
) -> None:
    """Every registered game: two players place every wager of its definition, the first takes one decision,
    the process is killed; on restart the round resumes, nobody comes back, so it is finished by the
    definition's timeout default on fresh clocks and settled exactly once, with no money created or lost."""
    sp = server_proc
    sp.start()
    base = f"http://127.0.0.1:{sp.port}"
    r = httpx.post(
        f"{base}/tables", json={"game": definition.key, "name": "crash"}, headers={"X-Admin-Token": ADMIN}
    )
    table = r.json()["table_id"]
    rules = definition.make_rules()
    wagers: dict[str, int] = {}
    options: dict[str, str] = {}
    for w in definition.wagers:
        fixed = w.fixed_cents(rules)
        wagers[w.name] = 500 if w.main else fixed if fixed is not None else 200
        if w.option is not None:
            options[w.name] = w.option.choices[-1]
    clients = []
    for seat, name in ((1, "ann"), (2, "bob")):
        token = httpx.post(f"{base}/players", json={"name": name}).json()["token"]
        httpx.post(
            f"{base}/wallet/buy-in",
            json={"amount": 100_000, "request_id": "in"},
            headers={"Authorization": f"Bearer {token}"},
        )
        c = Client(sp.port, table, token)
        assert c.request(type="sit", seat=seat)["type"] == "ack"
        clients.append(c)
    for c in clients:
        assert c.request(type="wager", wagers=wagers, options=options)["type"] == "ack"
    first = clients[0]
    st = first.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] != "betting")
    decided = []
    if st["round"]["phase"] == "deciding" and st["round"]["to_act"] == 1:
        action = st["round"]["legal_actions"][-1]
        assert first.request(type="act", action=action, decision=st["decision"])["type"] == "ack"
        decided.append((1, action, "player"))
    before = money(db_url)
    open_rounds = [r for r in before["rounds"] if r[1] != "settled"]
    conserved = sum(v for k, v in before["totals"].items() if k != "cashier")
    sp.kill()
    for c in clients:
        c.ws.close()
    sp.start(seconds=1)  # the round resumes; nobody comes back: each turn times out after 1 s
    after = wait_settled(db_url)
    assert after["check"].ok, after["check"]
    assert [r[1] for r in after["rounds"]] == ["settled"] * len(after["rounds"])
    assert all(after["stakes"][r[0]] == 1 for r in after["rounds"])  # settled exactly once
    assert {r[0] for r in after["rounds"] if r[2]} == {r[0] for r in open_rounds}
    assert after["totals"]["in_play"] == 0
    assert sum(v for k, v in after["totals"].items() if k != "cashier") == conserved
    for round_id, *_ in open_rounds:
        rec = httpx.get(f"{base}/rounds/{round_id}").json()
        acts = [(e["seat"], e["action"], e["by"]) for e in rec["events"] if e["type"] == "action"]
        assert acts[: len(decided)] == decided
        assert all(a == definition.default_action and by == "timeout" for _, a, by in acts[len(decided) :])
        assert rec["recovered"] is True and {p["seat"] for p in rec["players"]} == {1, 2}

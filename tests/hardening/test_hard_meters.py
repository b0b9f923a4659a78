"""Concurrent jackpot hits on a linked meter (issue 11, defect 1): several tables of one game whose players all
hit the same meter at the same moment, on one server or on two servers sharing the database, on SQLite and
PostgreSQL.

A hit takes the meter's value and resets it in the database, in one order: the first hit is paid the meter
(with its own contribution), every later hit of the same instant the reset value plus its own contribution
(R-OEF-9, R-LIR-7: "100% of the meter"). The meter's liability is paid once, the meter never goes below zero
between entries nor below its reset between settlements, the books balance, the engine's events of every round
say what the ledger paid, and the order of the hits is recorded (``hit_seq`` in ``GET /jackpots/history``).

A slow database is simulated by holding every settlement that pays a hit for a moment between its ledger
writes and its commit (``slow_hits``): on a server where each table pays the meter value it read before its
step, the other tables read the meter during that moment and every hit is paid the full meter.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy import select
from sqlalchemy.orm import Session
from test_hard_support import harness, make_app, postgres_url
from websockets.sync.client import connect

from server_harness import ADMIN, WS, Harness, Message
from tablegames.cards import CARDS, parse_card
from tablegames.server import ledger
from tablegames.server.db import HOUSE, Account, Entry, LedgerTransaction, make_engine
from tablegames.server.service import Server

pytestmark = pytest.mark.timeout(180)

OEF, LIR = "one-eyed-flush", "let-it-ride"
BUY_IN = 1_000_000
# One seat per table; deal order seat, dealer, seat, dealer, seat, dealer.
# One Eyed Flush: J♥ J♠ K♦ is the One Eyed Flush (R-OEF-9: 100% of the meter).
# Let It Ride: A♥ K♥ Q♥, the dealer's burn card 2♣, then the community cards J♥ T♥: a Royal Flush (R-LIR-7: Mega).
GAMES: dict[str, dict[str, Any]] = {
    OEF: {
        "deck": ["Jh", "2c", "Js", "3c", "Kd", "4c"],
        "wagers": {"main": 500, "jackpot": 100},
        "meter": OEF,
        "reset": 500_000,
        "contribution": 10,  # 1/10 of the $1 jackpot wager
        "actions": ["stand"],
    },
    LIR: {
        "deck": ["Ah", "2c", "Kh", "Jh", "Qh", "Th"],
        "wagers": {"bets": 100, "progressive": 100},
        "meter": "mega",
        "reset": 5_000_000,
        "contribution": 10,  # 10/100 of the $1 progressive wager
        "actions": ["ride", "ride"],
    },
}


def deck(cards: list[str]) -> list[int]:
    head = [int(parse_card(c)) for c in cards]
    return head + [int(c) for c in CARDS if int(c) not in head]


@pytest.fixture(params=["sqlite", "postgres"])
def meter_db(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """SQLite, and PostgreSQL in a fresh schema when TABLEGAMES_TEST_POSTGRES_URL is set (CI)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'meters.sqlite3'}"
        return
    with postgres_url() as url:
        if url is None:
            pytest.skip("TABLEGAMES_TEST_POSTGRES_URL is not set (CI sets it with .ci/start-postgres)")
        yield url


@contextmanager
def slow_hits(monkeypatch: pytest.MonkeyPatch, seconds: float = 0.3) -> Iterator[None]:
    """Every settlement that pays a jackpot hit waits ``seconds`` after its ledger writes, before its commit."""
    real = ledger.post_all

    def post_all(executor: Any, postings: Any) -> Any:
        out = real(executor, postings)
        if any(p.kind == "hit" for p in postings):
            time.sleep(seconds)
        return out

    monkeypatch.setattr(ledger, "post_all", post_all)
    try:
        yield
    finally:
        monkeypatch.setattr(ledger, "post_all", real)


def top_up(h: Harness, game: str, meter: str, cents: int) -> None:
    """The house seeds ``cents`` more into the meter (an operator's top-up)."""
    account = h.server.meter_accounts(game)[meter]
    with h.server.tx() as s:
        ledger.transfer(s, "seed", h.server.system[HOUSE], account, cents, memo="test top-up")


def meters(h: Harness, game: str) -> dict[str, int]:
    return {m["meter"]: m["value"] for m in h.client.get("/jackpots").json() if m["game"] == game}


def ready_for_last_decision(h: Harness, game: str, table_id: int, name: str) -> tuple[WS, dict[str, str]]:
    """A player seated alone at the table who wagered and took every decision but the last."""
    token, headers = h.player(name, BUY_IN)
    ws = h.seated(token, table_id)
    ack = ws.request(type="wager", wagers=GAMES[game]["wagers"])
    assert ack["type"] == "ack", ack
    rid = ack["round_id"]
    st = ws.until(
        lambda m: m["type"] == "state" and m["round_id"] == rid and m["round"]["phase"] == "deciding"
    )
    for action in GAMES[game]["actions"][:-1]:
        seq = st["seq"]
        assert ws.request(type="act", action=action)["type"] == "ack"
        st = ws.until(lambda m, seq=seq: m["type"] == "state" and m["seq"] > seq)  # type: ignore[misc]
        assert st["round"]["phase"] == "deciding" and st["round"]["to_act"] == 1
    return ws, headers


def act_together(socks: list[WS], action: str) -> list[Message]:
    """Every socket sends ``action`` at the same moment (a barrier), from its own thread; their round results."""
    barrier = threading.Barrier(len(socks))
    results: list[Message | None] = [None] * len(socks)
    errors: list[BaseException] = []

    def go(i: int, ws: WS) -> None:
        try:
            barrier.wait(timeout=30)
            ack = ws.request(type="act", action=action)
            assert ack["type"] == "ack", ack
            results[i] = ws.until(lambda m: m["type"] == "round_result")
        except BaseException as exc:  # reported by the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(i, ws)) for i, ws in enumerate(socks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def meter_balances_by_round(h: Harness, game: str, meter: str) -> list[int]:
    """The meter account's balance after each round's (or top-up's) entries, in ledger order; asserts it never
    went below zero between two entries."""
    account = h.server.meter_accounts(game)[meter]
    with h.server.sessions() as s:
        rows = s.execute(
            select(Entry.amount, LedgerTransaction.round_id)
            .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
            .where(Entry.account_id == account)
            .order_by(Entry.id)
        ).all()
    out: list[int] = []
    balance = 0
    last: object = object()
    for amount, round_id in rows:
        if round_id != last or round_id is None:
            out.append(balance)
            last = round_id
        balance += int(amount)
        assert balance >= 0, f"the {meter} meter went negative: {balance}"
    out.append(balance)
    return out[1:]


def check_hits(
    h: Harness, game: str, before: int, results: list[Message], players: list[dict[str, str]]
) -> None:
    """The hits of ``results`` (one per table, all at once on a meter that stood at ``before``) were paid in one
    order: the first the whole meter, each later one the reset plus its own contribution."""
    spec = GAMES[game]
    meter, reset, c = spec["meter"], spec["reset"], spec["contribution"]
    n = len(results)
    hits = [r["jackpot_hits"] for r in results]
    assert all(len(x) == 1 and x[0]["meter"] == meter for x in hits), hits
    amounts = sorted((x[0]["amount"] for x in hits), reverse=True)
    assert amounts == [before + c] + [reset + c] * (n - 1)
    assert sum(amounts) == before + n * c + (n - 1) * reset  # the meter's liability, paid once
    assert meters(h, game)[meter] == reset
    # the order of the hits is recorded: sequence numbers 1..n, the first paid the whole meter
    history = h.client.get("/jackpots/history", params={"game": game, "meter": meter, "last": 200}).json()
    recorded = sorted((e for e in history if e["kind"] == "hit"), key=lambda e: e["hit_seq"])
    assert [e["hit_seq"] for e in recorded] == list(range(1, n + 1))
    assert [-e["amount"] for e in recorded] == amounts  # (entries of the meter account: a hit debits it)
    by_round = {r["round_id"]: r for r in results}
    assert {e["round_id"] for e in recorded} == set(by_round)
    for e in recorded:  # round_result tells each table its place in the order
        assert by_round[e["round_id"]]["jackpot_hits"][0]["hit_seq"] == e["hit_seq"]
    assert all(e["kind"] != "seed" or e["hit_seq"] is None for e in history)
    # the engine's events of each round say what the ledger paid, and are consistent among themselves
    for r in results:
        rec = h.client.get(f"/rounds/{r['round_id']}").json()
        hit = next(e for e in rec["events"] if e["type"] == "jackpot_hit")
        contribution = next(
            e for e in rec["events"] if e["type"] == "jackpot_contribution" and e["meter"] == meter
        )
        assert hit["amount"] == r["jackpot_hits"][0]["amount"] == contribution["meter_after"]
    # every wallet got exactly what its round returned, the hit included
    for r, headers in zip(results, players, strict=True):
        (mine,) = r["results"]
        assert h.balance(headers) == BUY_IN + mine["net"]
        assert mine["returned"] >= r["jackpot_hits"][0]["amount"]
    # the meter never stood below its reset after a settlement; the books balance
    balances = meter_balances_by_round(h, game, meter)
    assert min(balances) >= reset and balances[-1] == reset
    totals = h.totals()
    assert sum(totals.values()) == 0 and totals["in_play"] == 0
    h.check_ledger()


class TestConcurrentMeterHits:
    """Hits on one linked meter from several tables at the same instant."""

    @pytest.mark.parametrize(("game", "tables"), [(OEF, 2), (OEF, 4), (LIR, 2), (LIR, 4)])
    def test_simultaneous_hits_pay_the_meter_once_in_order(
        self, meter_db: str, monkeypatch: pytest.MonkeyPatch, game: str, tables: int
    ) -> None:
        spec = GAMES[game]
        app = make_app(meter_db, deck_factory=lambda t: deck(spec["deck"]), table_threads=4)
        with harness(app) as h:
            top_up(h, game, spec["meter"], 400)  # the meter: $5,004.00 (One Eyed Flush)
            before = spec["reset"] + 400
            ids = [h.table(game, seats=1) for _ in range(tables)]
            seated = [ready_for_last_decision(h, game, t, f"p{i}") for i, t in enumerate(ids)]
            with slow_hits(monkeypatch):
                results = act_together([ws for ws, _ in seated], spec["actions"][-1])
            check_hits(h, game, before, results, [hd for _, hd in seated])
            if game == LIR:  # the other meters of the Progressive got every table's contribution
                assert meters(h, game)["major"] == 500_000 + 4 * tables
                assert meters(h, game)["minor"] == 50_000 + 2 * tables

    def test_a_meter_over_twice_its_reset_is_paid_once_and_never_goes_negative(
        self, meter_db: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        spec = GAMES[OEF]
        app = make_app(meter_db, deck_factory=lambda t: deck(spec["deck"]), table_threads=4)
        with harness(app) as h:
            top_up(h, OEF, OEF, 750_000)  # $12,500.00: two and a half times the reset
            ids = [h.table(OEF, seats=1) for _ in range(2)]
            seated = [ready_for_last_decision(h, OEF, t, f"p{i}") for i, t in enumerate(ids)]
            with slow_hits(monkeypatch):
                results = act_together([ws for ws, _ in seated], "stand")
            check_hits(h, OEF, 1_250_000, results, [hd for _, hd in seated])

    def test_two_servers_on_one_database_pay_the_meter_once(
        self, meter_db: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Two server instances (each with its own locks and balance cache, as two processes would have) share
        the database; one table on each. Only the database can put their hits in order."""
        spec = GAMES[OEF]
        with ExitStack() as stack:
            h1 = stack.enter_context(harness(make_app(meter_db, deck_factory=lambda t: deck(spec["deck"]))))
            h2 = stack.enter_context(harness(make_app(meter_db, deck_factory=lambda t: deck(spec["deck"]))))
            assert h1.server is not h2.server
            top_up(h1, OEF, OEF, 400)
            t1, t2 = h1.table(OEF, seats=1), h2.table(OEF, seats=1)
            ws1, hd1 = ready_for_last_decision(h1, OEF, t1, "one")
            ws2, hd2 = ready_for_last_decision(h2, OEF, t2, "two")
            with slow_hits(monkeypatch):
                results = act_together([ws1, ws2], "stand")
            assert h1.balance(hd2) == h2.balance(hd2)
            check_hits(h1, OEF, 500_400, results, [hd1, hd2])

    def test_a_settlement_retried_after_another_tables_hit_pays_the_meter_as_it_stands(
        self, meter_db: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Table A's hit is refused by the database (its settlement is retried); meanwhile table B hits and is
        paid the whole meter. A's retried settlement pays the meter as it stands then: reset + A's contribution
        (and A's stored events say so)."""
        from tablegames.server import push

        monkeypatch.setattr(push, "RETRY_SECONDS", 0.3)
        spec = GAMES[OEF]
        app = make_app(meter_db, deck_factory=lambda t: deck(spec["deck"]))
        with harness(app) as h:
            top_up(h, OEF, OEF, 400)
            ta, tb = h.table(OEF, seats=1), h.table(OEF, seats=1)
            a, ha = ready_for_last_decision(h, OEF, ta, "ann")
            b, hb = ready_for_last_decision(h, OEF, tb, "bob")
            failing: set[int | None] = {a.state()["round_id"]}
            real = ledger.post_all

            def post_all(executor: Any, postings: Any) -> Any:
                if any(p.kind == "hit" and p.round_id in failing for p in postings):
                    raise sa.exc.OperationalError("hit", {}, Exception("database is locked"))
                return real(executor, postings)

            monkeypatch.setattr(ledger, "post_all", post_all)
            assert a.request(type="act", action="stand")["type"] == "ack"
            a.until(lambda m: m["type"] == "error" and "settlement" in m["message"])
            assert b.request(type="act", action="stand")["type"] == "ack"
            rb = b.until(lambda m: m["type"] == "round_result")
            assert rb["jackpot_hits"][0]["amount"] == 500_400 + 10
            failing.clear()  # the database is back: A's next automatic retry settles
            ra = a.until(lambda m: m["type"] == "round_result")
            monkeypatch.setattr(ledger, "post_all", real)
            check_hits(h, OEF, 500_400, [rb, ra], [hb, ha])


# A server process for the two-process test: One Eyed Flush decks stacked as above, and every settlement that
# pays a hit held for a moment before its commit (slow_hits, in that process).
SERVE = """
import sys, time
import uvicorn
from tablegames.cards import CARDS, parse_card
from tablegames.server import ledger
from tablegames.server.app import create_app

url, port, admin = sys.argv[1], int(sys.argv[2]), sys.argv[3]
head = [int(parse_card(c)) for c in DECK]
deck = head + [int(c) for c in CARDS if int(c) not in head]
real = ledger.post_all

def post_all(executor, postings):
    out = real(executor, postings)
    if any(p.kind == "hit" for p in postings):
        time.sleep(0.5)
    return out

ledger.post_all = post_all
app = create_app(url, admin_token=admin, deck_factory=lambda t: deck, betting_seconds=30.0, turn_seconds=30.0)
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
""".replace("DECK", repr(GAMES[OEF]["deck"]))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server_process(url: str) -> Iterator[str]:
    """A table server in a process of its own on ``url``; yields its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, url, str(port), ADMIN],
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                raise AssertionError(f"server exited: {out}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "server did not start"
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


class Player:
    """One player at a table of one server process, over a real WebSocket."""

    def __init__(self, base: str, table_id: int, name: str) -> None:
        r = httpx.post(f"{base}/players", json={"name": name})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        self.headers = {"Authorization": f"Bearer {token}"}
        r = httpx.post(
            f"{base}/wallet/buy-in", json={"amount": BUY_IN, "request_id": "b"}, headers=self.headers
        )
        assert r.status_code == 200, r.text
        self.ws = connect(f"ws{base[4:]}/ws/tables/{table_id}?token={token}").__enter__()
        self.n = 0
        self.decision: str | None = None  # of the latest state: what an ``act`` answers

    def until(self, pred: Any) -> Message:
        for _ in range(500):
            m: Message = json.loads(self.ws.recv(timeout=30))
            if m["type"] == "state":
                self.decision = m.get("decision")
            if pred(m):
                return m
        raise AssertionError("message not received")

    def request(self, **msg: Any) -> Message:
        self.n += 1
        rid = f"q{self.n}"
        if msg["type"] == "act":
            msg["decision"] = self.decision
        self.ws.send(json.dumps({**msg, "request_id": rid}))
        return self.until(lambda m: m.get("request_id") == rid and m["type"] in ("ack", "error"))


def top_up_before_start(url: str, game: str, meter: str, cents: int) -> None:
    """A database with the schema and meters, ``cents`` more in the meter (before the servers start, so that
    both show it)."""
    server = Server(url)
    server.start()
    try:
        with server.tx() as s:
            account = server.meter_accounts(game)[meter]
            ledger.transfer(s, "seed", server.system[HOUSE], account, cents, memo="test top-up")
    finally:
        server.stop()


class TestMeterHitsFromSeveralProcesses:
    """Hits on one linked meter from tables of two server processes sharing one database."""

    def test_two_server_processes_pay_the_meter_once_in_order(self, meter_db: str) -> None:
        top_up_before_start(meter_db, OEF, OEF, 400)
        with server_process(meter_db) as one, server_process(meter_db) as two:
            tables = []
            for base in (one, two):
                body = {"game": OEF, "name": f"OEF {base[-5:]}", "seats": 1}
                r = httpx.post(f"{base}/tables", json=body, headers={"X-Admin-Token": ADMIN})
                assert r.status_code == 201, r.text
                tables.append(int(r.json()["table_id"]))
            players = [
                Player(base, t, f"p{i}") for i, (base, t) in enumerate(zip((one, two), tables, strict=True))
            ]
            for p in players:
                assert p.request(type="sit")["type"] == "ack"
                ack = p.request(type="wager", wagers=GAMES[OEF]["wagers"])
                assert ack["type"] == "ack", ack
                p.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] == "deciding")
            barrier = threading.Barrier(len(players))
            results: dict[int, Message] = {}
            errors: list[BaseException] = []

            def go(i: int, p: Player) -> None:
                try:
                    barrier.wait(timeout=30)
                    assert p.request(type="act", action="stand")["type"] == "ack"
                    results[i] = p.until(lambda m: m["type"] == "round_result")
                except BaseException as exc:
                    errors.append(exc)

            threads = [threading.Thread(target=go, args=(i, p)) for i, p in enumerate(players)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=120)
            assert not errors, errors
            amounts = sorted((results[i]["jackpot_hits"][0]["amount"] for i in range(2)), reverse=True)
            assert amounts == [500_400 + 10, 500_000 + 10]
            assert sorted(results[i]["jackpot_hits"][0]["hit_seq"] for i in range(2)) == [1, 2]
            value = {m["meter"]: m["value"] for m in httpx.get(f"{one}/jackpots").json()}[OEF]
            assert value == 500_000
            history = httpx.get(f"{two}/jackpots/history", params={"game": OEF}).json()
            hits = sorted((e for e in history if e["kind"] == "hit"), key=lambda e: e["hit_seq"])
            assert [(e["hit_seq"], -e["amount"]) for e in hits] == [(1, 500_410), (2, 500_010)]
            for i, p in enumerate(players):
                me = httpx.get(f"{(one, two)[i]}/me", headers=p.headers).json()
                assert me["balance"] == BUY_IN + results[i]["results"][0]["net"]
                p.ws.close()
        engine = make_engine(meter_db)
        try:
            with engine.connect() as c, Session(bind=c) as s:
                check = ledger.check_ledger(s)
                meter_account = s.scalar(
                    select(Account.balance).where(Account.name == f"jackpot:{OEF}:{OEF}")
                )
        finally:
            engine.dispose()
        assert check.ok, check
        assert meter_account == 500_000

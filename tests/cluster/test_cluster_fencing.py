"""Fencing and balances with several writers, in process (issue 16): once another process took a table's lease
(its generation went up), a step of the old owner is refused in its own transaction and writes nothing, its
sockets are sent to the new owner, and its REST answers for the table point there; a balance changed by another
process is what a table shows (no process caches a balance it does not own). On SQLite one process owns all."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from server_harness import ADMIN, Harness, eventually
from tablegames.cli import app
from tablegames.randomness import SeededRandom
from tablegames.server import cluster
from tablegames.server.app import create_app
from tablegames.server.cluster import NodeNameTaken

pytestmark = pytest.mark.timeout(120)


def app_for(url: str, node: str, advertise: str) -> object:
    counter = itertools.count(1)
    return create_app(
        url,
        admin_token=ADMIN,
        source_factory=lambda: SeededRandom(next(counter)),
        betting_seconds=30.0,
        turn_seconds=30.0,
        node=node,
        advertise=advertise,
    )


@pytest.fixture
def quiet_leases(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Leases of a minute renewed every minute: nothing but the test changes them while it runs."""
    monkeypatch.setattr(cluster, "LEASE_SECONDS", 60.0)
    monkeypatch.setattr(cluster, "HEARTBEAT_SECONDS", 60.0)
    monkeypatch.setattr(cluster, "CLAIM_SECONDS", 60.0)
    yield


def counts(h: Harness) -> dict[str, object]:
    with h.server.engine.connect() as c:
        return {
            q: c.execute(sa.text(q)).all()
            for q in (
                "SELECT COUNT(*), MAX(seq) FROM round_steps",
                "SELECT COUNT(*) FROM ledger_entries",
                "SELECT id, balance FROM accounts ORDER BY id",
                "SELECT table_id, seat, player_id FROM seatings ORDER BY table_id, seat",
                "SELECT id, status FROM rounds ORDER BY id",
            )
        }


def test_a_step_after_another_process_took_the_lease_is_refused_and_writes_nothing(
    pg_url: str, quiet_leases: None
) -> None:
    with ExitStack() as stack:
        h = Harness(stack.enter_context(TestClient(app_for(pg_url, "me", "http://me.example"))), stack)
        tid = h.table("one-eyed-flush", seats=2)
        (ta, ha), (tb, _) = h.player("ann"), h.player("bob")
        a, b = h.seated(ta, tid), h.ws(tb, tid)
        assert a.request(type="wager", wagers={"main": 500})["type"] == "ack"
        a.until(lambda m: m["type"] == "state" and m["decision"] is not None)
        owner = h.client.get(f"/tables/{tid}/owner").json()
        assert owner == {"table_id": tid, "node": "me", "url": "http://me.example", "generation": 1}
        # another process takes the table over, as a takeover does: a new generation
        with h.server.engine.begin() as c:
            c.execute(
                sa.text(
                    "UPDATE table_leases SET node = 'other', advertise = 'http://other.example/n/other', "
                    "generation = generation + 1, expires_at = expires_at + 60 WHERE table_id = :t"
                ),
                {"t": tid},
            )
        before = counts(h)
        balance = h.balance(ha)
        answer = a.request(type="act", action="stand")
        assert answer["type"] == "error" and answer["code"] == "moved", answer
        redirect = a.until(lambda m: m["type"] == "redirect")
        assert redirect == {"type": "redirect", "url": "http://other.example/n/other", "table_id": tid}
        with pytest.raises(WebSocketDisconnect) as closed:
            a.recv()
        assert closed.value.code == 4307
        assert b.until(lambda m: m["type"] == "redirect")["url"] == "http://other.example/n/other"
        assert counts(h) == before and h.balance(ha) == balance  # nothing was written
        assert tid not in h.server.runners
        # REST points to the new owner; a new socket is sent there at once
        assert h.client.get(f"/tables/{tid}/owner").json()["node"] == "other"
        r = h.client.get(f"/tables/{tid}", follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == f"http://other.example/n/other/tables/{tid}"
        with h.client.websocket_connect(f"/ws/tables/{tid}?token={tb}") as ws:
            assert ws.receive_json() == redirect
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4307
        lobby = {t["table_id"]: t for t in h.client.get("/tables").json()}
        assert lobby[tid]["occupied"] == {"1": "ann"}  # the lobby from the database


def test_a_balance_changed_by_another_process_is_what_the_table_shows(pg_url: str) -> None:
    with ExitStack() as stack:
        one = Harness(stack.enter_context(TestClient(app_for(pg_url, "one", "http://one"))), stack)
        two = Harness(stack.enter_context(TestClient(app_for(pg_url, "two", "http://two"))), stack)
        tid = one.table("final-count", seats=2, max_bet=20_000)
        token, headers = one.player("ann", buy_in=10_000)
        a = one.seated(token, tid)
        assert a.state()["balance"] == 10_000
        r = two.client.post("/wallet/buy-in", json={"amount": 2_500, "request_id": "more"}, headers=headers)
        assert r.status_code == 200 and r.json()["balance"] == 12_500
        # the table shows it once process two's commit is announced (LISTEN/NOTIFY drops one's cached 10_000;
        # the notice may land a moment after two answered), never the cached 10_000 for good
        eventually(lambda: a.state()["balance"] == 12_500, "the balance changed on process two", 15)
        ack = a.request(type="wager", wagers={"main": 12_500})  # all of it: the database knows it is there
        assert ack["type"] == "ack" and ack["balance"] == 0
        r = two.client.post("/wallet/cash-out", json={"amount": 1, "request_id": "out"}, headers=headers)
        assert r.status_code == 400 and r.json()["error"]["code"] == "insufficient_funds"
        assert two.client.get("/me", headers=headers).json()["balance"] == 0


def test_on_sqlite_one_process_owns_every_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    with ExitStack() as stack:
        h = Harness(stack.enter_context(TestClient(app_for(url, "solo", "http://solo:8000"))), stack)
        tid = h.table("final-count")
        assert h.server.cluster is None
        assert h.client.get(f"/tables/{tid}/owner").json() == {
            "table_id": tid,
            "node": "solo",
            "url": "http://solo:8000",
            "generation": 0,
        }
        r = h.client.get("/tables/999/owner")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_a_second_process_under_a_running_nodes_name_is_refused(pg_url: str) -> None:
    """Two processes under one name would take each other's tables (a node takes an earlier run's at once)."""
    with ExitStack() as stack:
        h = Harness(stack.enter_context(TestClient(app_for(pg_url, "same", "http://a"))), stack)
        tid = h.table("final-count")
        with pytest.raises(NodeNameTaken, match="running already"):
            stack.enter_context(TestClient(app_for(pg_url, "same", "http://b")))
        assert h.client.get(f"/tables/{tid}/owner").json()["url"] == "http://a"  # still the first one's


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--advertise", "ftp://x"], "--advertise must be an http:// or https:// URL"),
        (["--node", "n" * 121], "--node must be 1-120 characters"),
    ],
)
def test_serve_checks_node_and_advertise(tmp_path: Path, options: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), *options], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "tablegames.sqlite3").exists()  # nothing was started

"""The ledger in the audit chain (issue 25): ledger transactions sealed into the audit trail, so that one cent
changed, a transaction removed or one added inside a sealed range makes ``audit verify`` exit 1 naming the
range; what is not sealed yet is reported, not called broken; several sealers seal each range once."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from server_harness import Harness
from tablegames.cli import app
from tablegames.server import audit, ledger_seal
from tablegames.server.db import AuditEntry

pytestmark = pytest.mark.timeout(300)


def later() -> float:
    """The server's clock, moved past the settling time of every transaction written now."""
    return time.time() + 10 * ledger_seal.SETTLE_SECONDS


def _cli(db_url: str, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, [*args, "--database", db_url])
    return r.exit_code, r.output


def buy_ins(h: Harness, n: int, prefix: str) -> None:
    for i in range(n):
        h.player(f"{prefix}{i}", buy_in=1_000 + i)


def test_seals_follow_each_other_and_verify(make_server: Callable[..., Harness], db_url: str) -> None:
    h = make_server(clock=later)
    buy_ins(h, 3, "a")
    with h.server.db.tx() as s:
        first = ledger_seal.seal(s, later)
    assert first is not None and first.action == ledger_seal.SEAL_ACTION
    after = dict(first.after)
    assert after["from"] == 1 and after["transactions"] == after["to"] >= 3
    with h.server.db.tx() as s:
        assert ledger_seal.seal(s, later) is None  # nothing new
    buy_ins(h, 1, "b")
    with h.server.db.tx() as s:  # nothing old enough on the real clock: a transaction just written waits
        assert ledger_seal.seal(s, time.time) is None
    with h.server.db.tx() as s:
        second = ledger_seal.seal(s, later)
    assert second is not None and second.after["from"] == after["to"] + 1
    with h.server.sessions() as s:
        books = ledger_seal.verify(s)
        assert books.ok and books.unsealed == 0 and books.sealed == second.after["to"]
        assert audit.verify(s).ok  # the seals are entries of the one chain
    code, out = _cli(db_url, "audit", "verify")
    assert code == 0 and f"ledger: {second.after['to']} transactions sealed and intact" in out, out


@pytest.mark.parametrize(
    ("damage", "sql"),
    [
        ("one cent", "UPDATE ledger_entries SET amount = amount + 1 WHERE id = 3"),
        ("a memo", "UPDATE ledger_transactions SET memo = 'changed' WHERE id = 2"),
        ("a transaction removed", "DELETE FROM ledger_entries WHERE transaction_id = 2"),
    ],
)
def test_a_sealed_range_altered_is_named(
    make_server: Callable[..., Harness], db_url: str, damage: str, sql: str
) -> None:
    h = make_server(clock=later)
    buy_ins(h, 4, "p")
    with h.server.db.tx() as s:
        sealed = ledger_seal.seal(s, later)
    assert sealed is not None
    assert _cli(db_url, "audit", "verify")[0] == 0
    with h.server.db.engine.begin() as conn:
        conn.execute(sa.text(sql))
        if damage == "a transaction removed":
            conn.execute(sa.text("DELETE FROM ledger_transactions WHERE id = 2"))
    code, out = _cli(db_url, "audit", "verify")
    assert code == 1, out
    assert f"ledger transactions 1-{sealed.after['to']} (sealed in audit entry {sealed.id})" in out, out


def test_a_transaction_added_inside_a_sealed_range_is_found(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    h = make_server(clock=later)
    buy_ins(h, 2, "q")
    with (
        h.server.db.engine.begin() as conn
    ):  # ids with a gap below the highest (a sequence skips on rollback)
        top = int(conn.execute(sa.text("SELECT MAX(id) FROM ledger_transactions")).scalar_one())
        conn.execute(
            sa.text(
                "INSERT INTO ledger_transactions (id, kind, memo, created_at) VALUES (:i, 'note', '', 1.0)"
            ),
            {"i": top + 5},
        )
    with h.server.db.tx() as s:
        sealed = ledger_seal.seal(s, later)
    assert sealed is not None and sealed.after["to"] == top + 5
    with h.server.db.engine.begin() as conn:  # a forged transaction slipped into the gap afterwards
        conn.execute(
            sa.text(
                "INSERT INTO ledger_transactions (id, kind, memo, created_at) VALUES (:i, 'adjust', '', 1.0)"
            ),
            {"i": top + 1},
        )
    code, out = _cli(db_url, "audit", "verify")
    assert code == 1 and "altered, removed or added" in out, out


def test_unsealed_transactions_are_reported_and_sealed_on_request(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    h = make_server()
    buy_ins(h, 2, "u")
    with h.server.sessions() as s:  # the buy-ins and what the server wrote at its start (meters' seeds)
        total = int(s.execute(sa.text("SELECT COUNT(*) FROM ledger_transactions")).scalar_one())
    assert total >= 2
    code, out = _cli(db_url, "audit", "verify")
    assert code == 0 and f"0 transactions sealed and intact, {total} not sealed yet" in out, out
    assert _cli(db_url, "audit", "seal") == (0, "nothing to seal\n")  # only 30 s old transactions are sealed
    with h.server.db.engine.begin() as conn:  # as if they were written a minute ago
        conn.execute(sa.text("UPDATE ledger_transactions SET created_at = created_at - 60"))
    code, out = _cli(db_url, "audit", "verify", "--seal")
    assert code == 0 and f"{total} transactions sealed and intact" in out and "not sealed yet" not in out, out
    with h.server.sessions() as s:
        actor = s.scalar(sa.select(AuditEntry.actor).where(AuditEntry.action == ledger_seal.SEAL_ACTION))
    assert actor is not None and actor.startswith("console:")


def test_sealers_running_at_once_seal_each_range_once(make_server: Callable[..., Harness]) -> None:
    h = make_server(clock=later)
    sealers = [ledger_seal.Sealer(h.server.db.tx, later, 0.02) for _ in range(3)]
    stop = threading.Event()

    def traffic() -> None:
        i = 0
        while not stop.is_set():
            h.player(f"t{i}", buy_in=100)
            i += 1

    writer = threading.Thread(target=traffic)
    writer.start()
    for s in sealers:
        s.start()
    try:
        deadline = time.time() + 30
        while sum(s.seals for s in sealers) < 6 and time.time() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        writer.join()
        for s in sealers:
            s.stop()
    for s in sealers:
        s.seal_now()
    assert sum(s.seals for s in sealers) >= 6
    with h.server.sessions() as s:
        seals = [dict(a) for (a,) in s.execute(
            sa.select(AuditEntry.after).where(AuditEntry.action == ledger_seal.SEAL_ACTION).order_by(AuditEntry.id)
        )]  # fmt: skip
        books = ledger_seal.verify(s)
        total = int(s.execute(sa.text("SELECT COUNT(*) FROM ledger_transactions")).scalar_one())
        assert audit.verify(s).ok
    assert all(b["from"] == a["to"] + 1 for a, b in itertools.pairwise(seals))
    assert books.ok and books.sealed == total and books.unsealed == 0

"""Issue 28: the hot paths' statements on the driver's cursor (``server/rawsql.py``) store what SQLAlchemy's
``Connection.execute`` stores, row for row (JSON, floats, nulls, non-ASCII, one row or several), return what it
returns, in the caller's transaction, and fail as SQLAlchemy's errors do (a repeated key is its
``IntegrityError``: a repeated request id is told apart by it); the ledger on a table's connection (the cursor)
stores what it stores on an ORM session (SQLAlchemy's path) and refuses the same way."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tablegames.server import ledger, rawsql
from tablegames.server import statements as sql
from tablegames.server.db import (
    CASHIER,
    HOUSE,
    IN_PLAY,
    WALLET,
    Account,
    Entry,
    LedgerTransaction,
    create_schema,
    make_engine,
)
from tablegames.server.rawsql import begin_immediate, insert_rows

META = sa.MetaData()
ROWS = sa.Table(
    "rawsql_rows",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("k", sa.String(40), nullable=False),
    sa.Column("n", sa.BigInteger),
    sa.Column("payload", sa.JSON),
    sa.Column("at", sa.Float),
    sa.UniqueConstraint("k"),
)
INSERT = sa.insert(ROWS)

VALUES: list[dict[str, Any]] = [
    {
        "k": "a",
        "n": 2**40,
        "payload": {"op": "wager", "seat": 3, "amount": 500, "x": None},
        "at": 1765000000.25,
    },
    {"k": "b", "n": -1, "payload": {"name": "Zoë 🂡", "list": [1, "2", [3]], "1": True}, "at": 0.1},
    {"k": "c", "n": None, "payload": {"deep": {"er": {"still": [{}]}}}, "at": 3.0},
]


def stored(conn: sa.Connection, prefix: str) -> list[tuple[Any, ...]]:
    rows = conn.execute(sa.select(ROWS.c.k, ROWS.c.n, ROWS.c.payload, ROWS.c.at).order_by(ROWS.c.k))
    return [(k[len(prefix) :], n, p, at) for k, n, p, at in rows if k.startswith(prefix)]


def test_insert_rows_stores_what_sqlalchemy_stores(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        META.create_all(engine)
        with engine.begin() as conn:
            insert_rows(conn, INSERT, {**VALUES[0], "k": "raw1-a"})  # one row
            insert_rows(conn, INSERT, [{**v, "k": f"raw2-{v['k']}"} for v in VALUES])  # several
            conn.execute(INSERT, [{**v, "k": f"sa-{v['k']}"} for v in VALUES])  # the reference
        with engine.connect() as conn:
            reference = stored(conn, "sa-")
            assert len(reference) == 3 and reference[1][2]["name"] == "Zoë 🂡"
            assert stored(conn, "raw2-") == reference
            assert stored(conn, "raw1-") == reference[:1]
        # in the caller's transaction: rolled back with it
        with pytest.raises(RuntimeError), engine.begin() as conn:
            insert_rows(conn, INSERT, {**VALUES[0], "k": "gone"})
            raise RuntimeError("roll back")
        with engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).where(ROWS.c.k == "gone")).scalar() == 0
    finally:
        engine.dispose()


def test_insert_rows_fails_as_sqlalchemy_does(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        META.create_all(engine)
        with engine.begin() as conn:
            insert_rows(conn, INSERT, {**VALUES[0], "k": "once"})
        for rows in ({**VALUES[1], "k": "once"}, [{**VALUES[1], "k": "new"}, {**VALUES[2], "k": "once"}]):
            with pytest.raises(IntegrityError), engine.begin() as conn:
                insert_rows(conn, INSERT, rows)
        with engine.connect() as conn:  # nothing of the failed transactions stayed
            assert [r[0] for r in conn.execute(sa.select(ROWS.c.k))] == ["once"]
        with pytest.raises(ValueError, match="same columns"), engine.begin() as conn:
            insert_rows(conn, INSERT, [VALUES[0], {"k": "short"}])
    finally:
        engine.dispose()


def test_begin_immediate_takes_sqlites_write_lock(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'lock.sqlite3'}")
    other = sa.create_engine(f"sqlite:///{tmp_path / 'lock.sqlite3'}", connect_args={"timeout": 0})
    try:
        META.create_all(engine)
        with engine.connect() as conn, conn.begin():
            begin_immediate(conn)
            with pytest.raises(sa.exc.OperationalError, match="locked"), other.begin() as c2:
                c2.exec_driver_sql("BEGIN IMMEDIATE")
    finally:
        other.dispose()
        engine.dispose()


def test_sqlites_kept_write_connection_is_dropped_when_a_transaction_fails(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's writes keep their connection from one to the next; one whose commit and then rollback failed
    (left in its transaction by the driver) is not kept: the next write begins on a clean connection."""
    import sqlite3

    from tablegames.server.transactions import Transactions

    tx = Transactions(f"sqlite:///{tmp_path / 'kept.sqlite3'}")
    try:
        META.create_all(tx.engine)
        with tx.write() as c:
            insert_rows(c, INSERT, {"k": "first"})
        with tx.write() as c:
            assert c is tx._kept[0, False]  # the same connection, kept
            insert_rows(c, INSERT, {"k": "second"})
        dialect = tx.engine.dialect
        failing = {"do_commit": 1, "do_rollback": 1}
        for name in failing:

            def fail(dbapi_conn: Any, real: Any = getattr(dialect, name), name: str = name) -> None:
                if failing[name]:
                    failing[name] -= 1
                    raise sqlite3.OperationalError(f"{name}: disk I/O error")
                real(dbapi_conn)

            monkeypatch.setattr(dialect, name, fail)
        with pytest.raises(sa.exc.DBAPIError), tx.write() as c:
            insert_rows(c, INSERT, {"k": "lost"})
        with tx.write() as c:
            insert_rows(c, INSERT, {"k": "third"})
        assert failing == {"do_commit": 0, "do_rollback": 0}  # (the pool rolled the dropped connection back)
        with tx.engine.connect() as conn:
            assert [r[0] for r in conn.execute(sa.select(ROWS.c.k).order_by(ROWS.c.id))] == [
                "first",
                "second",
                "third",
            ]
    finally:
        tx.dispose()


def _accounts(s: Session, prefix: str) -> dict[str, int]:
    ids = {}
    for name, kind in (
        ("house", HOUSE),
        ("cashier", CASHIER),
        ("in-play", IN_PLAY),
        ("a", WALLET),
        ("b", WALLET),
    ):
        acc = Account(name=f"{prefix}:{name}", kind=kind, balance=0)
        s.add(acc)
        s.flush()
        ids[name] = acc.id
    return ids


def _postings(acc: dict[str, int]) -> list[list[ledger.Posting]]:
    P = ledger.Posting
    return [
        [
            P.transfer("buy-in", acc["cashier"], acc["a"], 1_000),
            P.transfer("buy-in", acc["cashier"], acc["b"], 500),
        ],
        [P.transfer("wager", acc["a"], acc["in-play"], 300, memo="table 1 seat 1: main 300 é")],
        [  # a settlement: several transactions, one of them moving nothing
            P.transfer("stakes", acc["in-play"], acc["house"], 300),
            P.transfer("payout", acc["house"], acc["b"], 0),
            P.transfer("payout", acc["house"], acc["a"], 600, memo="x" * 250),
            P.transfer("envy", acc["house"], acc["b"], 25),
        ],
    ]


def _stored(s: Session, acc: dict[str, int], tx_ids: list[int]) -> list[Any]:
    """The transactions, their entries and the balances, accounts by their role (ids differ between the two)."""
    role = {v: k for k, v in acc.items()}
    out: list[Any] = []
    for tx_id in tx_ids:
        if tx_id == 0:
            out.append(None)
            continue
        tx = s.get(LedgerTransaction, tx_id)
        assert tx is not None
        entries = s.scalars(sa.select(Entry).where(Entry.transaction_id == tx_id).order_by(Entry.id)).all()
        out.append(
            (
                tx.kind,
                tx.round_id,
                tx.player_id,
                tx.memo,
                type(tx.created_at),
                [(role[e.account_id], e.amount, e.kind) for e in entries],
            )
        )
    out.append({role[a]: ledger.balance(s, a) for a in acc.values()})
    return out


def test_post_all_on_the_cursor_stores_what_the_orm_path_stores(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        create_schema(engine)
        with Session(engine) as s, s.begin():
            raw_acc, orm_acc = _accounts(s, "raw"), _accounts(s, "orm")
        results: dict[str, list[Any]] = {"raw": [], "orm": []}
        for raw_batch, orm_batch in zip(_postings(raw_acc), _postings(orm_acc), strict=True):
            with rawsql.traced() as trace, engine.begin() as conn:
                raw_ids, raw_balances = ledger.post_all(conn, raw_batch)
            assert any(q.startswith("UPDATE accounts") for q, _ in trace)  # (it ran on the cursor)
            with rawsql.traced() as trace, Session(engine) as s, s.begin():
                orm_ids, orm_balances = ledger.post_all(s, orm_batch)
            assert trace == []  # (a session keeps SQLAlchemy's path)
            assert [i == 0 for i in raw_ids] == [i == 0 for i in orm_ids]
            rev_raw = {v: k for k, v in raw_acc.items()}
            rev_orm = {v: k for k, v in orm_acc.items()}
            assert {rev_raw[a]: b for a, b in raw_balances.items()} == {
                rev_orm[a]: b for a, b in orm_balances.items()
            }
            results["raw"] += raw_ids
            results["orm"] += orm_ids
        with Session(engine) as s:
            raw = _stored(s, raw_acc, results["raw"])
            assert raw == _stored(s, orm_acc, results["orm"])
            assert raw[-1] == {"house": -325, "cashier": -1_500, "in-play": 0, "a": 1_300, "b": 525}
            assert raw[4] is None and raw[5][3] == "x" * 200 and raw[2][3].endswith("é")
            assert ledger.check_ledger(s).ok
    finally:
        engine.dispose()


def test_post_all_on_the_cursor_refuses_as_the_orm_path(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        create_schema(engine)
        with Session(engine) as s, s.begin():
            acc = _accounts(s, "r")
            ledger.post_all(s, _postings(acc)[0])
        P = ledger.Posting
        over = [
            P.transfer("wager", acc["a"], acc["in-play"], 600),
            P.transfer("wager", acc["a"], acc["b"], 401),
        ]
        missing = 10**9
        for batch, error in (
            (over, ledger.NotEnoughMoney),
            ([P.transfer("payout", acc["house"], missing, 5)], IntegrityError),  # (the entry's foreign key)
        ):
            with pytest.raises(error), engine.begin() as conn:
                ledger.post_all(conn, batch)
            with pytest.raises(error), Session(engine) as s, s.begin():
                ledger.post_all(s, batch)
        with Session(engine) as s:  # nothing of the refused batches stayed
            assert {a: ledger.balance(s, i) for a, i in acc.items() if a in ("a", "b")} == {
                "a": 1_000,
                "b": 500,
            }
            assert ledger.check_ledger(s).transactions == 2
        with engine.begin() as conn:  # lock_balances: the balances, on the cursor as on a session
            assert ledger.lock_balances(conn, [acc["b"], acc["a"]]) == {acc["a"]: 1_000, acc["b"]: 500}
            with pytest.raises(ledger.LedgerError, match="no accounts"):
                ledger.lock_balances(conn, [acc["a"], missing])
    finally:
        engine.dispose()


def test_execute_returns_what_sqlalchemy_returns(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        META.create_all(engine)
        create_schema(engine)
        with engine.begin() as conn:
            keys = rawsql.insert_returning(
                conn, sa.insert(ROWS).returning(ROWS.c.id), [{**v, "k": f"x-{v['k']}"} for v in VALUES]
            )
            by_key = dict(conn.execute(sa.select(ROWS.c.k, ROWS.c.id)).all())
            assert keys == [by_key[f"x-{v['k']}"] for v in VALUES]  # in the order of the rows
            assert rawsql.insert_returning(conn, sa.insert(ROWS).returning(ROWS.c.id), [{"k": "y"}]) == [
                max(keys) + 1
            ]
        selected = sa.select(ROWS.c.k, ROWS.c.n, ROWS.c.payload, ROWS.c.at).where(
            ROWS.c.k.in_(sa.bindparam("ks", expanding=True))
        )
        with engine.begin() as conn:
            for ks in (["x-a"], ["x-c", "x-b", "nothing"], []):
                assert rawsql.execute(conn, selected.order_by(ROWS.c.k), {"ks": ks}) == [
                    tuple(r) for r in conn.execute(selected.order_by(ROWS.c.k), {"ks": ks})
                ]
            assert rawsql.execute(conn, selected, {"ks": ["x-b"]})[0][2]["name"] == "Zoë 🂡"
            acc = Account(name="w", kind=WALLET, balance=100)
            with Session(bind=conn) as s:
                s.add(acc)
                s.flush()
            debit = ledger._DEBIT  # (its NOT IN list: constants of the statement)
            assert rawsql.execute(conn, debit, {"account": acc.id, "delta": -30, "need": 30}) == [(70,)]
            assert rawsql.execute(conn, debit, {"account": acc.id, "delta": -80, "need": 80}) == []
            assert conn.execute(debit, {"account": acc.id, "delta": -80, "need": 80}).all() == []
            assert rawsql.execute(conn, sql.ACCOUNT_BALANCES, {"accounts": [acc.id, 10**9]}) == [(acc.id, 70)]
            update = sa.update(ROWS).where(ROWS.c.k == sa.bindparam("key")).values(payload=sa.bindparam("p"))
            assert rawsql.execute(conn, update, {"key": "x-a", "p": {"é": [1]}}) == []
            assert conn.execute(sa.select(ROWS.c.payload).where(ROWS.c.k == "x-a")).scalar() == {"é": [1]}
            with pytest.raises(ValueError, match="not a parameter"):
                rawsql.execute(conn, update, {"key": "x-a", "p": None, "other": 1})
        with pytest.raises(IntegrityError), engine.begin() as conn:
            rawsql.insert_returning(conn, sa.insert(ROWS).returning(ROWS.c.id), [{"k": "z"}, {"k": "x-a"}])
        with pytest.raises(IntegrityError), engine.begin() as conn:
            rawsql.execute(conn, INSERT, {"k": "x-b"})
    finally:
        engine.dispose()

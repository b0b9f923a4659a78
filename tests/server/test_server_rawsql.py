"""Issue 28: the hot paths' INSERTs on the driver's cursor (``server/rawsql.py``) store what SQLAlchemy's
``Connection.execute`` stores, row for row (JSON, floats, nulls, non-ASCII, one row or several), in the caller's
transaction, and fail as SQLAlchemy's errors do (a repeated key is its ``IntegrityError``: a repeated request id
is told apart by it)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tablegames.server.db import make_engine
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
            assert c is tx._kept  # the same connection, kept
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

"""Prebuilt INSERTs run on the driver's cursor (issue 28): the statements every wager and decision writes (its
step, its answer's key), without SQLAlchemy's execution context (about 0.1 ms a statement).

Each statement is compiled once per dialect and set of columns by SQLAlchemy itself (the SQL text, the order of
its parameters, PostgreSQL's casts), and each value goes through its column type's own bind processor (a JSON
column's serializer): the driver gets what ``Connection.execute`` would give it, in the same transaction.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

_Prepared = tuple[str, tuple[str, ...], tuple[Callable[[Any], Any] | None, ...], bool]
_cache: dict[tuple[int, str, tuple[str, ...]], _Prepared] = {}
_lock = threading.Lock()


def _prepare(conn: Connection, stmt: Insert, keys: tuple[str, ...]) -> _Prepared:
    dialect = conn.dialect
    key = (id(stmt), dialect.name, keys)
    prepared = _cache.get(key)
    if prepared is None:
        compiled = stmt.inline().compile(dialect=dialect, column_keys=list(keys))  # (no implicit RETURNING)
        positional = bool(compiled.positional)
        names = tuple(compiled.positiontup or ()) if positional else tuple(compiled.binds)
        if set(names) != set(keys):
            raise ValueError(f"the statement's parameters are {sorted(names)}, not {sorted(keys)}")
        processors = tuple(
            compiled.binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names
        )
        prepared = (compiled.string, names, processors, positional)
        with _lock:
            _cache[key] = prepared
    return prepared


def insert_rows(
    conn: Connection, stmt: Insert, rows: Mapping[str, Any] | Sequence[Mapping[str, Any]]
) -> None:
    """Run the INSERT ``stmt`` (no RETURNING) with one row's values or several rows' (the same columns each), in
    ``conn``'s transaction."""
    many = list(rows) if not isinstance(rows, Mapping) else [rows]
    if not many:
        return
    columns = set(many[0])
    if any(set(row) != columns for row in many):
        raise ValueError("every row of one insert has the same columns")
    if len(many) > 1 and conn.dialect.name != "sqlite":
        # (PostgreSQL: SQLAlchemy sends the rows as one multi-row INSERT; the driver's executemany would pipeline
        # one statement a row)
        conn.execute(stmt, many)
        return
    text, names, processors, positional = _prepare(conn, stmt, tuple(many[0]))
    params: list[Any] = []
    for row in many:
        values = [row[n] if p is None else p(row[n]) for n, p in zip(names, processors, strict=True)]
        params.append(tuple(values) if positional else dict(zip(names, values, strict=True)))
    _run(conn, text, params)


def begin_immediate(conn: Connection) -> None:
    """SQLite: take the database's write lock now (``BEGIN IMMEDIATE``) on ``conn``'s driver connection."""
    _run(conn, "BEGIN IMMEDIATE", [()])


def _run(conn: Connection, text: str, params: list[Any]) -> None:
    """Execute on the driver's cursor; its errors raised as SQLAlchemy's (``IntegrityError``, ``OperationalError``
    ...: what callers catch), a lost connection invalidated as SQLAlchemy would."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    dialect = conn.dialect
    cur = dbapi.cursor()
    try:
        if len(params) == 1:
            cur.execute(text, params[0])
        else:
            cur.executemany(text, params)
    except dialect.loaded_dbapi.Error as exc:
        lost = dialect.is_disconnect(exc, dbapi, cur)
        if lost:
            conn.invalidate(exc)
        raise DBAPIError.instance(
            text,
            params[0] if len(params) == 1 else params,
            exc,
            dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=dialect,
        ) from exc
    finally:
        with contextlib.suppress(Exception):
            cur.close()

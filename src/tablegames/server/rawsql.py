"""Prebuilt statements run on the driver's cursor (issue 28): the statements every wager, decision and settlement
runs (its step, its answer's key, its stake, the ledger's transactions, entries and balances, the round's
record), without SQLAlchemy's execution context (about 0.1 ms a statement).

Each statement is compiled once per dialect and set of parameters by SQLAlchemy itself (the SQL text, the order
of its parameters, PostgreSQL's casts, the constants it holds such as a ``NOT IN`` list, an ``IN`` list given as
an expanding parameter compiled once per length), each value goes through its column type's own bind processor
(a JSON column's serializer) and each value returned (``RETURNING``, ``SELECT``) through its type's result
processor: the driver gets what ``Connection.execute`` would give it, in the same transaction, and the caller
gets the same values back. Driver errors are raised as SQLAlchemy's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable
from sqlalchemy.sql.dml import Insert

_Processor = Callable[[Any], Any] | None
# One driver parameter: the caller's key (None: a constant of the statement), the index in that key's list (an
# expanding parameter; -1: a plain value), the constant, the bind processor.
_Slot = tuple[str | None, int, Any, _Processor]
# The SQL, its parameters' slots, their names (named paramstyle) or None (positional), the returned columns'
# types and (once a first row came back: the processors depend on the driver's column types) their result
# processors.
_Prepared = tuple[
    str, tuple[_Slot, ...], tuple[str, ...] | None, tuple[Any, ...], list[tuple[_Processor, ...]]
]
_Key = tuple[int, str, tuple[str, ...]]  # the statement, the dialect, the parameters' names
_expanding: dict[_Key, tuple[str, ...]] = {}  # the expanding parameters among them
_cache: dict[tuple[_Key, tuple[int, ...]], _Prepared] = {}  # (and the lengths of their lists)
_lock = threading.Lock()
_traces: list[list[tuple[str, dict[str, Any]]]] = []


@contextlib.contextmanager
def traced() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """(Tests.) Every statement run here while the block runs, in order: its SQL and each row's parameters as the
    caller gave them (a statement run with several rows appears once a row)."""
    trace: list[tuple[str, dict[str, Any]]] = []
    with _lock:
        _traces.append(trace)
    try:
        yield trace
    finally:
        with _lock:
            _traces.remove(trace)


def _compile(stmt: Executable, dialect: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(stmt, Insert) and not stmt._returning:
        stmt = stmt.inline()  # (no implicit RETURNING of the primary key)
    return stmt.compile(dialect=dialect, column_keys=list(keys))  # type: ignore[attr-defined]


def _prepare(conn: Connection, stmt: Executable, row: Mapping[str, Any]) -> _Prepared:
    dialect = conn.dialect
    base = (id(stmt), dialect.name, tuple(row))
    expanding = _expanding.get(base)
    if expanding is None:
        binds = _compile(stmt, dialect, base[2]).binds
        expanding = tuple(k for k in row if k in binds and binds[k].expanding)
        with _lock:
            _expanding[base] = expanding
    key = (base, tuple(len(row[k]) for k in expanding))
    prepared = _cache.get(key)
    if prepared is not None:
        return prepared
    compiled = _compile(stmt, dialect, base[2])
    binds = compiled.binds
    for k in row:
        if k not in binds:
            raise ValueError(f"{k!r} is not a parameter of the statement")
    sizes = dict(zip(expanding, key[1], strict=True))
    params = compiled.construct_params({k: (list(range(sizes[k])) if k in sizes else None) for k in row})
    for name, value in params.items():
        if name not in row and value is None:  # (a column's Python default: SQLAlchemy's context computes it)
            raise ValueError(f"the statement's parameter {name!r} needs a value")
    text = compiled.string
    positions = compiled.positiontup
    origin: dict[str, tuple[str, int]] = {}  # an expanded parameter's name -> (its parameter, index)
    if compiled.post_compile_params or compiled.literal_execute_params:
        expanded = compiled._process_parameters_for_postcompile(params)
        text, params, positions = expanded.statement, expanded.parameters, expanded.positiontup
        for name, parts in expanded.parameter_expansion.items():
            origin.update((part, (name, i)) for i, part in enumerate(parts))
    names = tuple(positions) if compiled.positional and positions is not None else tuple(params)
    slots: list[_Slot] = []
    for name in names:
        source, index = origin.get(name, (name, -1))
        process = binds[source].type.dialect_impl(dialect).bind_processor(dialect)
        if source in row:
            slots.append((source, index, None, process))
        else:  # a constant of the statement
            value = params[name]
            slots.append((None, -1, value if process is None else process(value), None))
    types = tuple(column[3].dialect_impl(dialect) for column in compiled._result_columns)
    prepared = (text, tuple(slots), None if compiled.positional else names, types, [])
    with _lock:
        _cache[key] = prepared
    return prepared


def _values(prepared: _Prepared, row: Mapping[str, Any]) -> Any:
    values = []
    for key, index, constant, process in prepared[1]:
        if key is None:
            values.append(constant)
            continue
        value = row[key] if index < 0 else row[key][index]
        values.append(value if process is None else process(value))
    names = prepared[2]
    return tuple(values) if names is None else dict(zip(names, values, strict=True))


def execute(
    conn: Connection, stmt: Executable, params: Mapping[str, Any] | None = None
) -> list[tuple[Any, ...]]:
    """Run ``stmt`` once with ``params`` in ``conn``'s transaction; the rows it returns (``SELECT``,
    ``RETURNING``; none for others) as tuples of the values ``Connection.execute`` would give."""
    row = params or {}
    prepared = _prepare(conn, stmt, row)
    rows, description = _run(conn, prepared[0], [_values(prepared, row)], [row])
    if not rows:
        return rows
    known = prepared[4]
    if not known:  # (as SQLAlchemy: each column's processor for the type the driver reports)
        assert description is not None
        types = prepared[3]
        known.append(
            tuple(t.result_processor(conn.dialect, d[1]) for t, d in zip(types, description, strict=True))
        )
    results = known[0]
    if not any(results):
        return rows
    return [tuple(v if p is None else p(v) for v, p in zip(r, results, strict=True)) for r in rows]


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
        # (PostgreSQL: the rows in one statement; the driver's executemany would pipeline one statement a row)
        execute(conn, *_several(stmt, many))
        return
    prepared = _prepare(conn, stmt, many[0])
    _run(conn, prepared[0], [_values(prepared, row) for row in many], many)


def insert_returning(conn: Connection, stmt: Insert, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Run the INSERT ``stmt``, whose ``RETURNING`` is the table's autoincrement primary key, with each row's
    values (the same columns each); the new keys, in the order of ``rows``."""
    if len(rows) == 1 or conn.dialect.name == "sqlite":  # (SQLite: no round trips, one statement a row)
        return [execute(conn, stmt, row)[0][0] for row in rows]
    # PostgreSQL: one multi-row INSERT. Its rows are inserted in the order of its VALUES and the sequence numbers
    # them in that order: the keys sorted are the rows' (SQLAlchemy's own "insertmanyvalues" sorts them so).
    return sorted(row[0] for row in execute(conn, *_several(stmt, rows)))


_SEVERAL_MAX = 1000  # rows in one statement
_several_cache: dict[tuple[int, tuple[str, ...], int], Insert] = {}


def _several(stmt: Insert, rows: Sequence[Mapping[str, Any]]) -> tuple[Insert, dict[str, Any]]:
    """``stmt`` as one INSERT of ``len(rows)`` rows (built once per number of rows and kept: ``_prepare`` knows a
    statement by its id) and the parameters of ``rows`` for it."""
    keys = tuple(rows[0])
    if len(rows) > _SEVERAL_MAX:
        raise ValueError(f"at most {_SEVERAL_MAX} rows in one insert")
    key = (id(stmt), keys, len(rows))
    several = _several_cache.get(key)
    if several is None:
        columns = stmt.table.c
        values = [{k: bindparam(f"{k}_r{i}", type_=columns[k].type) for k in keys} for i in range(len(rows))]
        # (a RETURNING sorted by the parameters' order is for executemany: rebuilt without it)
        several = (
            insert(stmt.table).values(values).returning(*stmt._returning)
            if stmt._returning
            else stmt.values(values)
        )
        with _lock:
            _several_cache[key] = several
    return several, {f"{k}_r{i}": row[k] for i, row in enumerate(rows) for k in keys}


def begin_immediate(conn: Connection) -> None:
    """SQLite: take the database's write lock now (``BEGIN IMMEDIATE``) on ``conn``'s driver connection."""
    _run(conn, "BEGIN IMMEDIATE", [()], [{}])


def _run(
    conn: Connection, text: str, params: list[Any], rows: Sequence[Mapping[str, Any]]
) -> tuple[list[tuple[Any, ...]], Any]:
    """Execute on the driver's cursor; the rows it returns and their description; its errors raised as SQLAlchemy's
    (``IntegrityError``, ``OperationalError`` ...: what callers catch), a lost connection invalidated as
    SQLAlchemy would."""
    if _traces:
        with _lock:
            for trace in _traces:
                trace.extend((text, dict(row)) for row in rows)
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    dialect = conn.dialect
    cur = dbapi.cursor()
    try:
        if conn._has_events or conn.engine._has_events:
            # the engine's before_cursor_execute listeners (a test's injected fault) as SQLAlchemy calls them,
            # without an execution context
            for listener in conn.dispatch.before_cursor_execute:
                text, given = listener(
                    conn, cur, text, params[0] if len(params) == 1 else params, None, len(params) > 1
                )
                params = [given] if len(params) == 1 else list(given)
        if len(params) == 1:
            cur.execute(text, params[0])
            description = cur.description
            return (list(cur.fetchall()) if description is not None else []), description
        cur.executemany(text, params)
        return [], None
    except dialect.loaded_dbapi.Error as exc:
        lost = dialect.is_disconnect(exc, dbapi, cur)
        if lost:  # (as SQLAlchemy: the pool's older connections too)
            conn.engine.pool._invalidate(conn.connection, exc)
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

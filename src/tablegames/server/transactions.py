"""The unit of work: the one place a database transaction begins and commits (every service's, every table's).

:class:`Transactions` owns the database engine and its sessions. A transaction is :meth:`Transactions.tx` (an
ORM session) or :meth:`Transactions.write` (a Core connection, the tables' hot paths); either commits on success
and rolls back on any error, checks a table's lease first when given its fence, and hands the balances it set to
the cache of committed balances in commit order. Its methods block on the database: they run on the REST
threads, the tables' worker threads or a tool's own thread, never on the event loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from tablegames.server import statements as sql
from tablegames.server.caches import BalanceCache, Changes, new_origin, origin_setting
from tablegames.server.cluster import FENCE, IDLE_IN_TRANSACTION_MS, LeaseLost, check_fence
from tablegames.server.db import make_engine
from tablegames.server.rawsql import begin_immediate

# Write connections kept (PostgreSQL: one per table thread and kind; the pool holds 30, and 30 more)
KEPT_MAX = 16
Fence = tuple[int, int]  # (table id, lease generation) of a table's write (server/cluster.py)


def _session_settings(origin: str) -> Callable[[Any, Any], None]:
    def settings(dbapi_conn: Any, _record: Any) -> None:
        """PostgreSQL: a transaction left open by a paused process (SIGSTOP) is ended by the database, so its
        locks (a table's lease among them) do not hold a takeover up for ever; the connection names this
        server as the origin of the changes it writes (the triggers' notices, server/caches.py)."""
        with dbapi_conn.cursor() as cur:
            cur.execute(f"SET idle_in_transaction_session_timeout = {int(IDLE_IN_TRANSACTION_MS)}")
            cur.execute(origin_setting(origin))
        dbapi_conn.commit()

    return settings


class Transactions:
    """The database, its transactions and the cache of committed balances."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.engine: Engine = make_engine(database_url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")  # one round trip a query
        self.fenced = self.reads  # (PostgreSQL) a fenced write's connection: it begins with its fence
        self.sqlite = self.engine.dialect.name == "sqlite"
        self.origin = new_origin(self)
        if not self.sqlite:
            event.listen(self.engine, "connect", _session_settings(self.origin))
        # Held through each commit and its cache update (and by whoever refreshes the cache from the database:
        # meters.py), so the cache gets the balances in commit order.
        self.commit_lock = threading.Lock()
        # account id -> committed balance (server/caches.py). On SQLite this process is the only writer of
        # balances (one server per database), and every committed transaction stores the balances it set (tx(),
        # write()). On PostgreSQL too, and the other processes' changes are dropped as their notices arrive
        # (:meth:`start_changes`); until the listener listens, nothing is used from it (every balance is read).
        self.cache = BalanceCache(self.commit_lock, live=self.sqlite)
        self.changes: Changes | None = None
        # (PostgreSQL) called on the listener's thread: a player whose guard changed; a reset (False: the
        # listener lost its connection, nothing kept may be used; True: it listens again)
        self.on_players: list[Callable[[int], None]] = []
        self.on_reset: list[Callable[[bool], None]] = []
        self.on_players_elsewhere: list[
            Callable[[int], None]
        ] = []  # (of on_players: another process's change)
        self._write_lock = threading.RLock()
        self._kept: dict[tuple[int, bool], Connection] = {}  # the write connections kept, see _writer
        self._kept_lock = threading.Lock()
        # Several processes (server/cluster.py): this process's node name while it holds leases; a write given
        # a fence checks the table's lease first. None: no leases (SQLite, or stopped).
        self.fence_node: str | None = None
        self._fence_sql: dict[
            tuple[int, int, str], str
        ] = {}  # (table, generation, node) -> BEGIN and the fence

    def _begin_fenced(self, conn: Connection, fence: Fence, node: str) -> None:
        """PostgreSQL, a connection in autocommit: ``BEGIN`` and the fence (:func:`cluster.check_fence`'s lock of
        the table's lease as held, or :class:`LeaseLost`) in one round trip (one simple query of two statements:
        the driver would send its own ``BEGIN`` first otherwise). The transaction is then the server's; the
        driver's commit or rollback ends it (they act on the server's transaction status)."""
        key = (*fence, node)
        query = self._fence_sql.get(key)
        if query is None:
            table_id, generation = fence
            bound = FENCE.bindparams(t=table_id, g=generation, n=node)
            query = "BEGIN; " + str(
                bound.compile(dialect=self.engine.dialect, compile_kwargs={"literal_binds": True})
            )
            if len(self._fence_sql) > 10_000:
                self._fence_sql.clear()
            self._fence_sql[key] = query
        cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cur.execute(query)
            cur.nextset()  # (the first result is BEGIN's)
            row = cur.fetchone()
        finally:
            cur.close()
        if row is None:
            raise LeaseLost(fence[0])

    @contextmanager
    def tx(self, fence: Fence | None = None) -> Iterator[Session]:
        """One database transaction on an ORM session (committed on success, rolled back on any error).
        ``fence``: (table id, generation) of a table's write: its lease checked first (``cluster.LeaseLost``)."""
        with self._one_writer(), self.sessions() as session, self._transaction(session):
            self._fence(session, fence)
            yield session

    @contextmanager
    def write(self, fence: Fence | None = None) -> Iterator[Connection]:
        """One transaction on a Core connection: the table hot paths (wagers, steps, settlements) use prebuilt
        statements on it instead of the ORM. Committed on success, rolled back on any error. ``fence``: as
        :meth:`tx`."""
        if self.sqlite:
            with self._write_lock, self._writer(False) as conn, self._transaction(conn):
                # The database's write lock first, not at the first write: what this transaction reads stays as
                # read until it commits, whatever other processes do (a settlement reads the jackpot meters).
                begin_immediate(conn)
                self._fence(conn, fence)
                yield conn
            return
        node = self.fence_node
        fenced = fence is not None and node is not None
        with self._writer(fenced) as conn, self._transaction(conn):
            if fenced:
                assert fence is not None and node is not None
                self._begin_fenced(conn, fence, node)
            else:
                self._fence(conn, fence)
            yield conn

    @contextmanager
    def _writer(self, fenced: bool) -> Iterator[Connection]:
        """The connection of a write transaction, kept from one write to the next (a pool checkout and check-in
        and a ``Connection`` a write saved): SQLite's one (the caller holds the write lock), PostgreSQL's one per
        thread and kind (``fenced``: the autocommit one a fenced write begins itself), at most ``KEPT_MAX`` kept.
        A transaction that fails gives its connection back to the pool, which rolls back whatever it left (a
        commit that failed leaves the connection in its transaction) or discards it (lost): the next write takes
        a fresh one; so does one whose kept connection the pool has invalidated since (the database restarted)."""
        key = (0 if self.sqlite else threading.get_ident(), fenced)
        conn = self._kept.get(key)
        if conn is not None and (conn.invalidated or conn.closed or self._stale(conn)):
            self._drop(key)
            conn = None
        if conn is None:
            conn = (self.fenced if fenced else self.engine).connect()
            if len(self._kept) < KEPT_MAX:
                with self._kept_lock:
                    self._kept[key] = conn
        try:
            yield conn
        except BaseException:
            if not self._drop(key, conn):
                with suppress(Exception):
                    conn.close()
            raise
        if self._kept.get(key) is not conn:
            conn.close()

    def _stale(self, conn: Connection) -> bool:
        """A kept connection older than the pool's last invalidation (SQLAlchemy's check at a checkout)."""
        record = getattr(conn.connection, "_connection_record", None)
        return record is None or bool(self.engine.pool._invalidate_time > record.starttime)

    def _drop(self, key: tuple[int, bool], conn: Connection | None = None) -> bool:
        """Stop keeping ``key``'s connection (``conn`` only if it is the one kept) and close it (back to the
        pool); whether it was kept."""
        with self._kept_lock:
            kept = self._kept.get(key)
            if kept is None or (conn is not None and kept is not conn):
                return False
            del self._kept[key]
        with suppress(Exception):
            kept.close()
        return True

    @contextmanager
    def _one_writer(self) -> Iterator[None]:
        """SQLite: one write transaction at a time in this process (the tables' threads take turns here rather
        than in SQLite's busy handler, which sleeps for up to 100 ms). PostgreSQL: no limit (row locks)."""
        if self.sqlite:
            with self._write_lock:
                yield
        else:
            yield

    @contextmanager
    def _transaction(self, handle: Session | Connection) -> Iterator[None]:
        """Begin on ``handle``; on success commit holding the commit lock and keep the balances the transaction
        set (the cache gets them in commit order); roll back on any error, a failed commit included."""
        locked = False
        try:
            with handle.begin():
                yield
                self.commit_lock.acquire()  # held through the commit (the end of this block) and the update
                locked = True
            self.cache.committed(handle.info.get("new_balances", {}))
        finally:
            if locked:
                self.commit_lock.release()
            # (a Connection's info dict lives as long as the pooled connection)
            handle.info.pop("new_balances", None)

    def _fence(self, handle: Session | Connection, fence: Fence | None) -> None:
        """The table's lease as this process holds it, locked until the commit (server/cluster.py)."""
        node = self.fence_node
        if fence is not None and node is not None:
            check_fence(handle, fence, node)

    def balance(self, account_id: int) -> int:
        """The committed balance of one account (see :meth:`balances`)."""
        return self.balances([account_id])[account_id]

    def balances(self, account_ids: Iterable[int]) -> dict[int, int]:
        """Committed balances of several accounts: from the cache (every committed ledger transaction of this
        process updates it; on PostgreSQL other processes' commits drop what they changed, after their notice's
        delay: for display only), the rest in one query."""
        cache = self.cache
        out, missing = cache.get(account_ids)
        if missing:
            token = cache.token()
            read: dict[int, int] = {}
            with self.reads.connect() as conn:
                for a, b in conn.execute(sql.ACCOUNT_BALANCES, {"accounts": missing}):
                    read[int(a)] = int(b)
            cache.keep(token, read)
            out.update(read)
        return out

    def start_changes(self) -> Changes | None:
        """PostgreSQL: listen to the other processes' changes (server/caches.py); the balance cache is used
        once the listener listens. Nothing on SQLite."""
        if self.sqlite or self.changes is not None:
            return self.changes
        with self.reads.connect() as conn:
            schema = str(conn.execute(text("SELECT current_schema()")).scalar_one())
        self.changes = Changes(
            self.database_url, self.origin, self.cache, schema, self.on_players, self.on_reset,
            self.on_players_elsewhere,
        )  # fmt: skip
        self.changes.start()
        return self.changes

    def dispose(self) -> None:
        """Close the listener, the write connections kept and the pooled connections (a stopped server's, a
        command's at its end)."""
        changes, self.changes = self.changes, None
        if changes is not None:
            changes.stop()
        with self._write_lock:
            for key in list(self._kept):
                self._drop(key)
        self.engine.dispose()

"""The server's core: its configuration, the database and its transactions, the worker threads, and the
cache of committed balances (the meters' included)."""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, event, select
from sqlalchemy.orm import Session, sessionmaker

from tablegames.randomness import RandomSource
from tablegames.server.db import (
    Account,
    Meter,
    make_engine,
)
from tablegames.server.limits import KnownTokens
from tablegames.server.meters import meter_accounts


def _session_settings(dbapi_conn: Any, _record: Any) -> None:
    """PostgreSQL: a transaction left open by a paused process (SIGSTOP) is ended by the database, so its locks
    (a table's lease among them) do not hold a takeover up for ever."""
    from tablegames.server.cluster import IDLE_IN_TRANSACTION_MS

    with dbapi_conn.cursor() as cur:
        cur.execute(f"SET idle_in_transaction_session_timeout = {int(IDLE_IN_TRANSACTION_MS)}")
    dbapi_conn.commit()


@dataclass(frozen=True)
class PlayerInfo:
    player_id: int
    name: str
    account_id: int


MAX_TABLE_THREADS = 64
_INSTANCES = itertools.count(1)  # server instances in this process (their default node names differ)


@dataclass
class Config:
    betting_seconds: float = 15.0
    turn_seconds: float = 30.0
    # tests only: seeded decks instead of live ones / table id -> the deck of the next round
    source_factory: Callable[[], RandomSource] | None = None
    deck_factory: Callable[[int], Sequence[int]] | None = None
    max_message_bytes: int = 65536
    # Worker threads for the tables' steps (each table's steps still run one at a time, in order). A few are
    # enough to go on while some wait for the database; more only fight over the interpreter lock.
    table_threads: int = 2  # 1 .. MAX_TABLE_THREADS
    # Several processes on one PostgreSQL database (server/cluster.py): this process's name and the URL clients
    # reach it at (the owner's URL in redirects). Defaults: unique per server instance, no URL.
    node: str | None = None
    advertise: str = ""


class ServerCore:
    """Database, transactions, worker threads and the balance cache; the rest of :class:`~tablegames.server.service.Server`
    builds on it."""

    def __init__(
        self, database_url: str, config: Config | None = None, admin_token: str | None = None
    ) -> None:
        self.database_url = database_url
        self.config = config or Config()
        self.admin_token = admin_token or secrets.token_urlsafe(18)
        self.engine = make_engine(database_url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")  # one round trip a query
        self.runners: dict[int, Any] = {}  # table id -> TableRunner (replaced, not changed, once started)
        self._tables_lock = threading.Lock()
        # Tokens seen valid (registration, authentication): the rate limiter gives only these their own bucket.
        self.known_tokens = KnownTokens()
        self.system: dict[str, int] = {}
        self.started = False
        # account id -> committed balance. On SQLite this process is the only writer of balances (one server
        # per database), and every committed transaction stores the balances it set (tx(), write()). On
        # PostgreSQL other processes write balances too: nothing is cached, every balance is read.
        self._balances: dict[int, int] = {}
        self._meter_accounts: dict[str, dict[str, int]] = {}
        self._meter_ids: dict[str, dict[str, int]] = {}
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._cache_balances = self._sqlite
        # PostgreSQL: table leases (server/cluster.py), set up by Server.start(); None: this process owns all
        self.cluster: Any = None
        self.node = self.config.node or f"{socket.gethostname()}:{os.getpid()}:{next(_INSTANCES)}"
        if not self._sqlite:
            event.listen(self.engine, "connect", _session_settings)
        self.workers = ThreadPoolExecutor(max_workers=self.config.table_threads, thread_name_prefix="tables")
        self._write_lock = threading.RLock()
        self._commit_lock = threading.Lock()
        # The event loop the server runs on (set by start() when it runs inside one): the tables' worker
        # threads hand messages and timers to it. None when driven synchronously (tests, tools).
        self.loop: asyncio.AbstractEventLoop | None = None

    # --- lifecycle --------------------------------------------------------------------------------

    @contextmanager
    def _one_writer(self) -> Iterator[None]:
        """SQLite: one write transaction at a time in this process (the tables' threads take turns here rather
        than in SQLite's busy handler, which sleeps for up to 100 ms). PostgreSQL: no limit (row locks)."""
        if self._sqlite:
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
                self._commit_lock.acquire()  # held through the commit (the end of this block) and the update
                locked = True
            if self._cache_balances:
                self._balances.update(handle.info.get("new_balances", {}))
        finally:
            if locked:
                self._commit_lock.release()
            # (a Connection's info dict lives as long as the pooled connection)
            handle.info.pop("new_balances", None)

    @contextmanager
    def tx(self, fence: tuple[int, int] | None = None) -> Iterator[Session]:
        """One database transaction on an ORM session (committed on success, rolled back on any error).
        ``fence``: (table id, generation) of a table's write: its lease checked first (``cluster.LeaseLost``)."""
        with self._one_writer(), self.sessions() as session, self._transaction(session):
            self._fence(session, fence)
            yield session

    @contextmanager
    def write(self, fence: tuple[int, int] | None = None) -> Iterator[Connection]:
        """One transaction on a Core connection: the table hot paths (wagers, steps, settlements) use prebuilt
        statements on it instead of the ORM. Committed on success, rolled back on any error. ``fence``: as
        :meth:`tx`."""
        with self._one_writer(), self.engine.connect() as conn, self._transaction(conn):
            if self._sqlite:
                # The database's write lock first, not at the first write: what this transaction reads stays as
                # read until it commits, whatever other processes do (a settlement reads the jackpot meters).
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            self._fence(conn, fence)
            yield conn

    def _fence(self, handle: Session | Connection, fence: tuple[int, int] | None) -> None:
        """The table's lease as this process holds it, locked until the commit (server/cluster.py)."""
        if fence is not None and self.cluster is not None:
            from tablegames.server.cluster import check_fence

            check_fence(handle, fence, self.cluster.node)

    def meter_accounts(self, game: str) -> dict[str, int]:
        """Meter name -> its jackpot account id (fixed once the meters exist; cached)."""
        cached = self._meter_accounts.get(game)
        if cached is None:
            with self.sessions() as s:
                cached = self._meter_accounts[game] = meter_accounts(s, game)
        return cached

    def meter_ids(self, game: str) -> dict[str, int]:
        """Meter name -> its row id in ``meters`` (fixed once the meters exist; cached)."""
        cached = self._meter_ids.get(game)
        if cached is None:
            with self.sessions() as s:
                rows = s.execute(select(Meter.name, Meter.id).where(Meter.game == game))
                cached = self._meter_ids[game] = {n: int(i) for n, i in rows}
        return cached

    def meter_values(self, game: str) -> dict[str, int]:
        """The linked meters of a game as committed (meter name -> cents), from the balance cache."""
        accounts = self.meter_accounts(game)
        balances = self.balances(accounts.values())
        return {name: balances[acc] for name, acc in accounts.items()}

    def balance(self, player: PlayerInfo) -> int:
        """The committed balance of the player's wallet (see :meth:`balances`)."""
        return self.balances([player.account_id])[player.account_id]

    def balances(self, account_ids: Iterable[int]) -> dict[int, int]:
        """Committed balances of several accounts: from the cache (every committed ledger transaction updates
        it), the rest in one query."""
        out: dict[int, int] = {}
        missing = []
        for a in set(account_ids):
            cached = self._balances.get(a) if self._cache_balances else None
            if cached is None:
                missing.append(a)
            else:
                out[a] = cached
        if missing:
            with self.reads.connect() as conn:
                for a, b in conn.execute(select(Account.id, Account.balance).where(Account.id.in_(missing))):
                    out[int(a)] = int(b)
                    if self._cache_balances:
                        self._balances[int(a)] = int(b)
        return out

    def stop(self) -> None:
        cluster, self.cluster = self.cluster, None
        if cluster is not None:
            cluster.stop()  # no more claims nor renewals
        for runner in self.runners.values():
            runner.stop()
        self.workers.shutdown(wait=True)  # the steps in progress finish
        if cluster is not None:
            cluster.release_all()  # the leases given back: another process may take the tables at once
        self.workers = ThreadPoolExecutor(max_workers=self.config.table_threads, thread_name_prefix="tables")
        self.engine.dispose()

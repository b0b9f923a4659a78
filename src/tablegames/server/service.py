"""The table server composed: :class:`Server` *has* its parts.

- ``db``: :class:`~tablegames.server.transactions.Transactions`, the unit of work every part begins and commits
  its transactions on (the database engine, sessions, the cache of committed balances);
- ``players``: :class:`~tablegames.server.players.PlayerService` (registration, tokens, the operator's token);
- ``wallets``: :class:`~tablegames.server.wallet.WalletService` (buy-in, cash-out, a wallet's entries);
- ``tables``: :class:`~tablegames.server.tables.TableService` (tables and one
  :class:`~tablegames.server.runner.TableRunner` each);
- ``workers``: the tables' worker threads (a table's steps run there, its own one at a time); ``loop``: the event
  loop the server runs on; ``cluster``: the leases of several processes on PostgreSQL (server/cluster.py).

The services' methods block on the database: the routers call them on the REST threads (``routes/deps.py``).
A :class:`Server` is the :class:`~tablegames.server.core.TableHost` of its tables' runners.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import secrets
import socket
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from tablegames.rules import registry
from tablegames.server import ledger
from tablegames.server.accounts import AccountService
from tablegames.server.adjustments import AdjustmentService
from tablegames.server.cluster import Cluster
from tablegames.server.core import Config, PlayerInfo
from tablegames.server.db import CASHIER, HOUSE, IN_PLAY, GameTable, Meter, create_schema
from tablegames.server.limits import KnownTokens
from tablegames.server.meters import ensure_meters, meter_accounts
from tablegames.server.players import PlayerService
from tablegames.server.protection import ProtectionService
from tablegames.server.runner import TableRunner
from tablegames.server.sessions import Sessions
from tablegames.server.staff import StaffService
from tablegames.server.tables import TableService
from tablegames.server.transactions import Fence, Transactions
from tablegames.server.wallet import WalletService

STARTUP_LOCK = 0x7461626C  # the advisory lock of a PostgreSQL server's start-up ("tabl")
DEMO_TABLES = tuple((d.title, d.key) for d in registry.DEFINITIONS)  # one demo table of every game
_INSTANCES = itertools.count(1)  # server instances in this process (their default node names differ)


class Server:
    """Players, wallets and tables over one unit of work, and the threads their tables run on."""

    def __init__(
        self, database_url: str, config: Config | None = None, admin_token: str | None = None
    ) -> None:
        self.config = config or Config()
        self.db = Transactions(database_url)
        self.node = self.config.node or f"{socket.gethostname()}:{os.getpid()}:{next(_INSTANCES)}"
        self.system: dict[str, int] = {}  # the system accounts' ids by kind (house, cashier, in play)
        self.known_tokens = KnownTokens()
        self.players = PlayerService(self.db, admin_token or secrets.token_urlsafe(18), self.known_tokens)
        # player protection (issue 26): limits and exclusions, and the players' sessions
        self._protection = ProtectionService(self.db, self.config.clock, self.sockets_of, self._excluded)
        self._sessions = Sessions(
            self.db, self.config.clock, self.config.inactivity_seconds, self._protection.close_sockets,
            self.sockets_of,
        )  # fmt: skip
        self.players.sessions = self._sessions
        self._protection.on_limits = self._sessions.limits_changed
        self.db.on_players_elsewhere.append(self._changed_elsewhere)
        self.db.on_reset.append(self._listening_again)
        self.wallets = WalletService(self.db, self.system, self._protection)
        self.tables = TableService(self.db, self.config, self.node, self.open_runner)
        self.staff = StaffService(self.db, self.config.clock)
        self.adjustments = AdjustmentService(self.db, self.system, self.config)
        self.accounts = AccountService(self.db, self.config.clock, self._protection.close_sockets)
        self.workers = self._table_workers()
        # The event loop the server runs on (set by start() when it runs inside one): the tables' worker
        # threads hand messages and timers to it. None when driven synchronously (tests, tools).
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started = False
        self._meter_accounts: dict[str, dict[str, int]] = {}
        self._meter_ids: dict[str, dict[str, int]] = {}

    def _table_workers(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self.config.table_threads, thread_name_prefix="tables")

    # --- the parts as a table runner sees them (core.TableHost) ---------------------------------------

    @property
    def database_url(self) -> str:
        return self.db.database_url

    @property
    def engine(self) -> Engine:
        return self.db.engine

    @property
    def sessions(self) -> sessionmaker[Session]:
        return self.db.sessions

    @property
    def reads(self) -> Engine:
        return self.db.reads

    @property
    def admin_token(self) -> str:
        return self.players.admin_token

    @property
    def runners(self) -> dict[int, Any]:
        return self.tables.runners

    @runners.setter
    def runners(self, runners: dict[int, Any]) -> None:
        self.tables.runners = runners

    @property
    def runners_lock(self) -> threading.Lock:
        return self.tables.lock

    @property
    def cluster(self) -> Any:
        return self.tables.cluster

    def open_runner(self, row: GameTable) -> TableRunner:
        return TableRunner(self, row)

    @property
    def protection(self) -> ProtectionService:
        return self._protection

    @property
    def player_sessions(self) -> Sessions:
        return self._sessions

    def sockets_of(self, player_id: int) -> list[Any]:
        """The player's open table sockets (any table of this process)."""
        return [
            c
            for runner in list(self.runners.values())
            for c in list(runner.conns)
            if c.player.player_id == player_id and not c.gone
        ]

    def _excluded(self, player_id: int, kind: str) -> None:
        """A break or self-exclusion began: the session ends (the sockets are closed already); at every table,
        on its own thread, the player's wagers of a round still open for betting are returned and their seat
        given up unless they play in a dealt round (which its turn timeouts finish)."""
        self._sessions.end(player_id, kind, close=False)
        for runner in list(self.runners.values()):
            runner.between_rounds(functools.partial(runner.recovery.return_wagers, player_id))

    def _changed_elsewhere(self, player_id: int) -> None:
        """(PostgreSQL, on the changes' listener thread.) Another process stored a change of the player's limits,
        breaks or exclusions. Should the player have a socket or a seat at a table of this process, one of its table
        threads looks whether they are away now (:meth:`_away_here`): the process the break was taken on closed
        only its own sockets and gave up only its own tables' seats."""
        for runner in list(self.runners.values()):
            if player_id in self._players_at(runner):
                runner.between_rounds(functools.partial(self._away_here, player_id))
                return

    def _listening_again(self, live: bool) -> None:
        """(PostgreSQL, on the changes' listener thread.) The listener listens again after a lost connection
        (``live``): the notices sent meanwhile are lost, so each table of this process looks again, on its thread,
        whether a player with a socket or a seat there went away meanwhile (:meth:`_away_here`)."""
        if not live:
            return
        for runner in list(self.runners.values()):
            players = self._players_at(runner)
            if players:
                runner.between_rounds(functools.partial(self._away_here, *sorted(players)))

    @staticmethod
    def _players_at(runner: TableRunner) -> set[int]:
        """The players with a socket or a seat at the runner's table."""
        return {c.player.player_id for c in list(runner.conns)} | {
            p.player_id for p in runner.occupants.values()
        }

    def _away_here(self, *player_ids: int) -> None:
        """The players on a break or self-excluded since another process's change are treated here as at its
        start: every socket of theirs told and closed, their session ended, their wagers of a round open for
        betting returned and their seats given up (:meth:`_excluded`). Nothing for one who is not away (a limit
        changed)."""
        for player_id, (kind, ends) in self._protection.away(player_ids).items():
            self._protection.tell_away(player_id, kind, ends)
            self._excluded(player_id, kind)

    def tx(self, fence: Fence | None = None) -> AbstractContextManager[Session]:
        return self.db.tx(fence)

    def write(self, fence: Fence | None = None) -> AbstractContextManager[Connection]:
        return self.db.write(fence)

    def balance(self, player: PlayerInfo) -> int:
        """The committed balance of the player's wallet (a spectator has none: 0)."""
        return 0 if player.spectator else self.db.balance(player.account_id)

    def balances(self, account_ids: Iterable[int]) -> dict[int, int]:
        return self.db.balances(account_ids)

    def meter_accounts(self, game: str) -> dict[str, int]:
        """Meter name -> its jackpot account id (fixed once the meters exist; cached)."""
        cached = self._meter_accounts.get(game)
        if cached is None:
            with self.db.sessions() as s:
                cached = self._meter_accounts[game] = meter_accounts(s, game)
        return cached

    def meter_ids(self, game: str) -> dict[str, int]:
        """Meter name -> its row id in ``meters`` (fixed once the meters exist; cached)."""
        cached = self._meter_ids.get(game)
        if cached is None:
            with self.db.sessions() as s:
                rows = s.execute(select(Meter.name, Meter.id).where(Meter.game == game).order_by(Meter.id))
                cached = self._meter_ids[game] = {n: int(i) for n, i in rows}
        return cached

    def meter_values(self, game: str) -> dict[str, int]:
        """The linked meters of a game as committed (meter name -> cents), from the balance cache."""
        accounts = self.meter_accounts(game)
        balances = self.db.balances(accounts.values())
        return {name: balances[acc] for name, acc in accounts.items()}

    # --- lifecycle ----------------------------------------------------------------------------------

    def start(self, demo_tables: bool = False) -> None:
        """Create the schema, system accounts and meters, demo tables; rebuild and settle unfinished rounds.
        Called on the event loop the server will run on (its loop), or without one (tests, tools)."""
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        with self._starting():
            create_schema(self.db.engine)
            self.db.start_changes()  # PostgreSQL: other processes' changes drop what this one keeps (caches.py)
            self._sessions.recover()
            with self.db.tx() as s:
                for kind in (HOUSE, CASHIER, IN_PLAY):
                    self.system[kind] = ledger.system_account(s, kind)
            ensure_meters(self)
            with self.db.tx() as s:
                if demo_tables and s.scalar(select(func.count(GameTable.id))) == 0:
                    for name, game in DEMO_TABLES:
                        s.add(GameTable(name=name, game=game, seats=5, min_bet=100, max_bet=10_000, rules={}))
                rows = list(s.scalars(select(GameTable).order_by(GameTable.id)))
        if not self.db.sqlite:  # several processes may share the database: each table is leased (cluster.py)
            cluster = Cluster(self, self.node, self.config.advertise)
            self.tables.cluster = cluster
            self.db.fence_node = cluster.node
            cluster.start()
        else:
            self.runners = {row.id: self.open_runner(row) for row in rows}
            for runner in self.runners.values():
                runner.recover()
        self.started = True

    @contextmanager
    def _starting(self) -> Iterator[None]:
        """PostgreSQL: one process at a time creates the schema, the accounts, the meters and the demo tables
        (processes started together would each create them)."""
        if self.db.sqlite:
            yield
            return
        with self.db.engine.connect() as c:
            c.execute(text("SELECT pg_advisory_lock(:k)"), {"k": STARTUP_LOCK})
            c.commit()
            try:
                yield
            finally:
                c.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": STARTUP_LOCK})
                c.commit()

    def stop(self) -> None:
        cluster, self.tables.cluster = self.tables.cluster, None
        self.db.fence_node = None
        if cluster is not None:
            cluster.stop()  # no more claims nor renewals
        for runner in self.runners.values():
            runner.stop()
        self.workers.shutdown(wait=True)  # the steps in progress finish
        if cluster is not None:
            cluster.release_all()  # the leases given back: another process may take the tables at once
        self.workers = self._table_workers()
        self.db.dispose()

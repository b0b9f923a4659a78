"""The server's state outside the WebSocket: players and tokens, wallets, tables, jackpot meters, game recall.

:class:`Server` owns the database engine, the worker threads and one :class:`~tablegames.server.runner.TableRunner`
per table. Every money movement is a ledger transaction (:meth:`Server.tx` on an ORM session, :meth:`Server.write`
on a Core connection); a table's steps run on the worker threads, its own one at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import func, select, text

from tablegames.rules import registry
from tablegames.server import ledger
from tablegames.server.checks import (
    HISTORY_PAGE_MAX,
    IDEMPOTENCY_KEY_MAX,
    JACKPOT_PAGE_MAX,
    REQUEST_ID_MAX,
    check_amount,
    check_request_id,
    hash_token,
    idempotency_key,
    iso,
)
from tablegames.server.cluster import Cluster
from tablegames.server.core import MAX_TABLE_THREADS, Config, PlayerInfo, ServerCore
from tablegames.server.db import CASHIER, HOUSE, IN_PLAY, GameTable, create_schema
from tablegames.server.meters import ensure_meters, jackpot_history, jackpots, meter_accounts
from tablegames.server.queries import ALL_BALANCES, history, player_id_of, round_recall
from tablegames.server.tables import Tables, clear_seat, new_table_row, table_info

STARTUP_LOCK = 0x7461626C  # the advisory lock of a PostgreSQL server's start-up ("tabl")
DEMO_TABLES = tuple((d.title, d.key) for d in registry.DEFINITIONS)  # one demo table of every game


class Server(Tables):
    """Database, players, wallets, tables and their runners: the parts are
    :class:`~tablegames.server.core.ServerCore` (transactions, balances), :mod:`~tablegames.server.players`,
    :mod:`~tablegames.server.wallet` and :mod:`~tablegames.server.tables`; meters and read models are in
    :mod:`~tablegames.server.meters` and :mod:`~tablegames.server.queries`."""

    def start(self, demo_tables: bool = False) -> None:
        """Create the schema, system accounts and meters, demo tables; rebuild and settle unfinished rounds."""
        from tablegames.server.runner import TableRunner

        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        with self._starting():
            create_schema(self.engine)
            with self.tx() as s:
                for kind in (HOUSE, CASHIER, IN_PLAY):
                    self.system[kind] = ledger.system_account(s, kind)
            ensure_meters(self)
            with self.tx() as s:
                if demo_tables and s.scalar(select(func.count(GameTable.id))) == 0:
                    for name, game in DEMO_TABLES:
                        s.add(GameTable(name=name, game=game, seats=5, min_bet=100, max_bet=10_000, rules={}))
                rows = list(s.scalars(select(GameTable).order_by(GameTable.id)))
        if not self._sqlite:  # several processes may share the database: each table is leased (cluster.py)
            self.cluster = Cluster(self, self.node, self.config.advertise)
            self.cluster.start()
        else:
            for row in rows:
                self.runners[row.id] = TableRunner(self, row)
            for runner in self.runners.values():
                runner.recover()
        self.started = True

    @contextmanager
    def _starting(self) -> Iterator[None]:
        """PostgreSQL: one process at a time creates the schema, the accounts, the meters and the demo tables
        (processes started together would each create them)."""
        if self._sqlite:
            yield
            return
        with self.engine.connect() as c:
            c.execute(text("SELECT pg_advisory_lock(:k)"), {"k": STARTUP_LOCK})
            c.commit()
            try:
                yield
            finally:
                c.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": STARTUP_LOCK})
                c.commit()


__all__ = [
    "ALL_BALANCES",
    "DEMO_TABLES",
    "HISTORY_PAGE_MAX",
    "IDEMPOTENCY_KEY_MAX",
    "JACKPOT_PAGE_MAX",
    "MAX_TABLE_THREADS",
    "REQUEST_ID_MAX",
    "Config",
    "PlayerInfo",
    "Server",
    "ServerCore",
    "check_amount",
    "check_request_id",
    "clear_seat",
    "ensure_meters",
    "hash_token",
    "history",
    "idempotency_key",
    "iso",
    "jackpot_history",
    "jackpots",
    "meter_accounts",
    "new_table_row",
    "player_id_of",
    "round_recall",
    "table_info",
]

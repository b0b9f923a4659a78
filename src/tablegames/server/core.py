"""What every part of the server shares: its configuration (:class:`Config`), a player's identity
(:class:`PlayerInfo`), and :class:`TableHost`, what a table runner, the cluster and the meter feed use of the
server (:class:`~tablegames.server.service.Server` is one)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from tablegames.randomness import RandomSource
from tablegames.server.db import GameTable, normalize_url
from tablegames.server.transactions import Transactions


@dataclass(frozen=True)
class PlayerInfo:
    player_id: int
    name: str
    account_id: int

    @property
    def bot(self) -> bool:
        """A practice bot the server plays (server/bots.py): its name is one no person can register."""
        return self.name.startswith(BOT_PREFIX)

    @property
    def spectator(self) -> bool:
        """A socket watching without an account (``?watch=1``, issue 24): public cards only, no seat, no money."""
        return self.player_id == SPECTATOR_ID


BOT_PREFIX = (
    "[bot] "  # a practice bot's name: "[bot] <table>.<seat>" (a person's starts with a letter or digit)
)
SPECTATOR_ID = 0  # (players' ids start at 1)
SPECTATOR = PlayerInfo(SPECTATOR_ID, "", SPECTATOR_ID)


MAX_TABLE_THREADS = 64
# The tables' worker threads by database (issue 28): on SQLite this process is the database's only writer and
# every step's transaction waits for the one before it, so a second thread only adds lock waits and switches of
# the interpreter lock (measured: 899-913 actions/s at p99 51 ms with one, 798-799 at 59-60 ms with two,
# docs/performance.md); on PostgreSQL a step's round trips release the lock, and two overlap them.
TABLE_THREADS_SQLITE = 1
TABLE_THREADS_POSTGRESQL = 2


def default_table_threads(database_url: str) -> int:
    """The tables' worker threads a server on ``database_url`` runs unless told otherwise.

    A bare path is a SQLite file (``db.normalize_url``), as the server opens it:

    >>> default_table_threads("sqlite:///tables.sqlite3"), default_table_threads("postgresql+psycopg://h/db")
    (1, 2)
    >>> default_table_threads("tables.sqlite3"), default_table_threads("postgresql://h/db")
    (1, 2)
    """
    url = normalize_url(database_url)
    return TABLE_THREADS_SQLITE if url.startswith("sqlite") else TABLE_THREADS_POSTGRESQL


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
    table_threads: int = 2  # 1 .. MAX_TABLE_THREADS (create_app: default_table_threads of its database)
    # Several processes on one PostgreSQL database (server/cluster.py): this process's name and the URL clients
    # reach it at (the owner's URL in redirects). Defaults: unique per server instance, no URL.
    node: str | None = None
    advertise: str = ""
    # POST /tables refuses rules whose exact house edge (any wager's) is below this, unless the request confirms
    # it (issue 20: a table that pays the players opens only with a name to it; server/tables.py).
    min_house_edge: Fraction = Fraction(0)
    # Solve each table's exact strategy when it opens (server/hints.py: prepare), so that the first hand's hints
    # are exact; off in tests that do not need it (each solve takes a core for seconds).
    prepare_hints: bool = False
    # The disk cache of solved strategies (analysis/strategy_cache.py): after a restart the first hint is exact
    # at once. None: solved at every start.
    strategy_cache: Path | None = None
    # Seal the ledger into the audit chain every this many seconds (server/ledger_seal.py; serve: 60). None:
    # only by `tablegames audit seal` / `audit verify --seal` (the tests' in-process servers).
    seal_seconds: float | None = None
    # An adjustment of a player's balance above this (either way, cents) waits for a second staff member's
    # approval (server/adjustments.py; issue 25: $2,000).
    dual_control_cents: int = 200_000
    # The one clock of time-based rules (staff sessions now; limits, cooling-off, breaks next: issues 25, 26):
    # epoch seconds. Tests pass their own and move it instead of waiting.
    clock: Callable[[], float] = time.time
    # Practice bots (server/bots.py): the pause before each bot's wager or decision (so a person can follow),
    # the rounds bots open at a table nobody watches before they pause (the bound on unattended play), and
    # whether a seated player may seat bots at their table too (a practice server: play money only).
    bot_seconds: float = 1.0
    bot_unwatched_rounds: int = 200
    practice_bots: bool = False
    # A player's session ends after this long without a request (issue 26: the inactivity time-out).
    inactivity_seconds: float = 30 * 60.0


class TableHost(Protocol):
    """What a table runner (and the cluster, the meter feed) uses of the server: its configuration, the event
    loop it runs on (None when driven synchronously), the tables' worker threads, every table's runner, the
    unit of work (``tx``, ``write``: :class:`~tablegames.server.transactions.Transactions`), the committed
    balances and the linked meters' accounts."""

    config: Config
    loop: asyncio.AbstractEventLoop | None
    workers: ThreadPoolExecutor
    system: dict[str, int]
    node: str
    runners: dict[int, Any]  # table id -> TableRunner (replaced, not changed, under runners_lock)
    db: Transactions

    @property
    def runners_lock(self) -> threading.Lock: ...

    @property
    def cluster(self) -> Any: ...  # server/cluster.py's Cluster; None: this process owns every table
    @property
    def engine(self) -> Engine: ...
    @property
    def database_url(self) -> str: ...
    @property
    def sessions(self) -> sessionmaker[Session]: ...
    @property
    def reads(self) -> Engine: ...

    def tx(self, fence: tuple[int, int] | None = None) -> AbstractContextManager[Session]: ...
    def write(self, fence: tuple[int, int] | None = None) -> AbstractContextManager[Connection]: ...
    def balance(self, player: PlayerInfo) -> int: ...
    def balances(self, account_ids: Iterable[int]) -> dict[int, int]: ...
    def meter_accounts(self, game: str) -> dict[str, int]: ...
    def meter_ids(self, game: str) -> dict[str, int]: ...
    def meter_values(self, game: str) -> dict[str, int]: ...
    def open_runner(self, row: GameTable) -> Any: ...  # a TableRunner for the table's row

    @property
    def protection(self) -> Any: ...  # server/protection.py's ProtectionService (issue 26)
    @property
    def player_sessions(self) -> Any: ...  # server/sessions.py's Sessions (issue 26)

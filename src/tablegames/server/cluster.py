"""Many server processes on one PostgreSQL database: each table is owned by one process at a time through a
lease in the ``table_leases`` table, fenced by its generation (docs/server.md, "Several processes").

- A process (a *node*, ``tablegames serve --node NAME --advertise URL``) keeps a heartbeat row in
  ``cluster_nodes`` and renews the leases it holds every :data:`HEARTBEAT_SECONDS` (each lasts
  :data:`LEASE_SECONDS`), on a thread and a database connection of its own (never the event loop's).
- Taking a lease (a table nobody holds, one whose lease expired, or one held by an earlier run of the same node)
  increments its ``generation``, under the row's ``FOR UPDATE`` lock. Every write of a round step (wager, deal,
  decision, settlement, seats) first reads its table's lease ``FOR KEY SHARE`` in its own transaction: the
  generation it holds, its node, not expired (:data:`FENCE`), or :class:`LeaseLost` and nothing is written. A
  takeover waits for such a transaction to end, and every transaction after it finds the new generation: an
  owner that lost its lease (paused, cut off) can never commit a step.
- The new owner rebuilds the table from the database and completes its interrupted round from the stored steps
  exactly once (:meth:`~tablegames.server.recovery.Recovery.recover`, as after a restart).
- Tables are spread: a node takes free tables while it holds fewer than its share (the tables divided by the
  live nodes, rounded up); a table created through a node is that node's if it is under its share.
- Tables move back: a node holding more than its share (or two more than the node holding the fewest: a node
  started or restarted) hands one table over at a time between rounds, on the table's own thread after its
  earlier steps (its players are redirected and sit again at the new owner), never more often than every
  :data:`HANDOVER_SECONDS` (issue 20).
- A client at a node that does not own the table is sent to the owner (``GET /tables/{id}/owner``, the
  WebSocket's ``redirect`` message and close code 4307, a ``307`` for ``GET /tables/{id}``).
- A database outage (PostgreSQL restarted, the network to it cut) is not a node's death (issue 20): a node that
  could not reach the database keeps its tables (its writes are refused meanwhile: the fence needs a live lease)
  and renews them once it can; a lease that could not be renewed is not one another node took
  (:meth:`Cluster.lose` asks the database before giving a table up). For :data:`OUTAGE_GRACE` after its own last
  failure a node takes no table another node held, and a node counts as dead only when its heartbeat session is
  gone *and* its last heartbeat was after the database started and over :data:`DEAD_AFTER` ago. One log line when
  the database goes, one when it is back; clients get the retryable ``unavailable`` error.

On SQLite there is one process and no leases: it owns every table (``Server.cluster`` is None).
"""

from __future__ import annotations

import contextlib
import logging
import math
import random
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, text

from tablegames.server.outage import database_unreachable, lock_timeout

if TYPE_CHECKING:
    from tablegames.server.core import TableHost

log = logging.getLogger("tablegames.server")

LEASE_SECONDS = 3.0  # a lease not renewed for this long may be taken by another node
HEARTBEAT_SECONDS = 1.0  # leases and the node's row are renewed this often
CLAIM_SECONDS = 0.5  # free and expired leases are looked for this often
IDLE_IN_TRANSACTION_MS = 5000  # a paused process's open transaction is ended by PostgreSQL after this
# An owner not renewed for 1.5 heartbeats may be dead: its table's sockets wait (up to the lease) for a renewal
# or a takeover rather than being sent to a process that may not answer.
STALE_SECONDS = LEASE_SECONDS - 1.5 * HEARTBEAT_SECONDS
# A node whose heartbeat session is gone counts as dead (its leases taken before they run out) only once its last
# heartbeat is this old: a live node whose connection dropped (the database restarted) registers again sooner.
DEAD_AFTER = 1.5 * HEARTBEAT_SECONDS
# After its own last failed database call a node takes no table another node held for this long: the others were
# cut off too and renew their leases once they reach the database again.
OUTAGE_GRACE = LEASE_SECONDS + HEARTBEAT_SECONDS
HANDOVER_SECONDS = 2.0  # a node hands at most one busy table over (between rounds) this often

_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"


def _dead(node: str) -> str:
    """SQL: the node's heartbeat connection is gone from the database (its process died: PostgreSQL ends the
    sessions of a killed process at once), so its leases need not be waited for. Fencing keeps this safe
    whatever the reason: a process that is alive after all has its next write refused.

    Not dead (issue 20): a node whose last heartbeat is from before the database started (PostgreSQL restarted:
    every session is gone, the node's next heartbeat registers its new one) or younger than :data:`DEAD_AFTER`
    (its connection just dropped; a live node registers again within a heartbeat)."""
    beat = f"(d.expires_at - {LEASE_SECONDS})"
    return (
        f"EXISTS (SELECT 1 FROM cluster_nodes d WHERE d.node = {node} AND d.pid IS NOT NULL "
        f"AND {beat} < {_NOW} - {DEAD_AFTER} "
        f"AND {beat} > CAST(EXTRACT(EPOCH FROM pg_postmaster_start_time()) AS DOUBLE PRECISION) "
        "AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = d.pid))"
    )


#: The fence of a table's write (first statement of its transaction): the lease as this node holds it.
FENCE = text(
    "SELECT generation FROM table_leases WHERE table_id = :t AND generation = :g AND node = :n "
    f"AND expires_at > {_NOW} FOR KEY SHARE"
)
_PLACEHOLDER = text(
    "INSERT INTO table_leases (table_id, node, advertise, generation, expires_at, taken_at) "
    "VALUES (:t, '', '', 0, 0, 0) ON CONFLICT (table_id) DO NOTHING"
)
_LOCK_LEASE = text(
    f"SELECT l.node, l.generation, l.expires_at, {_NOW} AS now, {_dead('l.node')} AS dead FROM table_leases l "
    "WHERE l.table_id = :t FOR UPDATE OF l"
)
_TAKE = text(
    "UPDATE table_leases SET node = :n, advertise = :a, generation = generation + 1, "
    f"expires_at = {_NOW} + :s, taken_at = {_NOW} WHERE table_id = :t RETURNING generation"
)
_RENEW = text(
    f"UPDATE table_leases SET expires_at = {_NOW} + :s WHERE node = :n AND (table_id, generation) IN "
    "(SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:gens AS bigint[]))) RETURNING table_id"
)
_RENEW_ONE = text(
    f"UPDATE table_leases SET expires_at = {_NOW} + :s WHERE table_id = :t AND node = :n AND generation = :g "
    "RETURNING generation"
)
_RELEASE = text(
    "UPDATE table_leases SET expires_at = 0 WHERE node = :n AND (table_id, generation) IN "
    "(SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:gens AS bigint[])))"
)
_NODE = text(
    f"INSERT INTO cluster_nodes (node, advertise, expires_at, pid) VALUES (:n, :a, {_NOW} + :s, pg_backend_pid()) "
    "ON CONFLICT (node) DO UPDATE SET advertise = EXCLUDED.advertise, expires_at = EXCLUDED.expires_at, "
    "pid = EXCLUDED.pid"
)
_RUNNING = text(  # another process of this name: a live heartbeat and its session still there
    f"SELECT 1 FROM cluster_nodes c WHERE c.node = :n AND c.expires_at > {_NOW} AND c.pid <> pg_backend_pid() "
    f"AND NOT {_dead('c.node')}"
)
_LIVE_NODES = text(
    f"SELECT COUNT(*) FROM cluster_nodes c WHERE c.expires_at > {_NOW} AND NOT {_dead('c.node')}"
)
_CANDIDATES = text(
    f"SELECT t.id, l.node, l.generation, l.expires_at, {_NOW} AS now, {_dead('l.node')} AS dead FROM tables t "
    "LEFT JOIN table_leases l ON l.table_id = t.id ORDER BY t.id"
)
_OWNER = text(
    f"SELECT l.node, l.advertise, l.generation, l.expires_at - {_NOW} AS remaining, {_dead('l.node')} AS dead, "
    "EXISTS (SELECT 1 FROM cluster_nodes g WHERE g.node = l.node AND g.pid IS NOT NULL AND NOT EXISTS "
    "(SELECT 1 FROM pg_stat_activity a WHERE a.pid = g.pid)) AS gone "
    "FROM table_leases l WHERE l.table_id = :t"
)
_FEWEST = text(  # the fewest tables a live node holds
    f"SELECT MIN(n) FROM (SELECT COUNT(l.table_id) AS n FROM cluster_nodes c LEFT JOIN table_leases l "
    f"ON l.node = c.node AND l.expires_at > {_NOW} WHERE c.expires_at > {_NOW} AND NOT {_dead('c.node')} "
    "GROUP BY c.node) AS held"
)
_LIMITS = text(
    "SELECT id, min_bet, max_bet, status FROM tables WHERE id IN (SELECT * FROM unnest(CAST(:ids AS bigint[])))"
)


class LeaseLost(Exception):
    """This node no longer holds the table's lease: nothing was written."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"the lease of table {table_id} is gone")
        self.table_id = table_id


class NodeNameTaken(RuntimeError):
    """(Start-up.) Another running process has this node name."""


class NotOwner(Exception):
    """The table is owned by another node: ``owner`` is ``GET /tables/{id}/owner``'s answer."""

    def __init__(self, owner: dict[str, Any]) -> None:
        super().__init__(f"table {owner['table_id']} is owned by {owner['node']} at {owner['url']}")
        self.owner = {k: v for k, v in owner.items() if not k.startswith("_")}
        # its lease is due and not renewed (STALE_SECONDS) or its heartbeat session gone (DEAD_AFTER): maybe dead
        self.stale = float(owner.get("_remaining", LEASE_SECONDS)) < STALE_SECONDS or bool(owner.get("_gone"))


def check_fence(handle: Any, fence: tuple[int, int], node: str) -> None:
    """(First in a table's write transaction.) Lock the table's lease as held, or :class:`LeaseLost`."""
    table_id, generation = fence
    if handle.execute(FENCE, {"t": table_id, "g": generation, "n": node}).scalar() is None:
        raise LeaseLost(table_id)


class Cluster:
    """This node's leases: the heartbeat, the claims of free tables, adopting a table (its runner built and its
    interrupted round completed) and giving one up."""

    def __init__(self, server: TableHost, node: str, advertise: str) -> None:
        self.server = server
        self.node = node
        self.advertise = advertise
        self.held: dict[int, int] = {}  # table id -> the generation held
        self._fresh: set[int] = set()  # leased by a transaction creating the table, maybe not committed yet
        self._held_lock = threading.Lock()
        self._adopt_lock = threading.RLock()  # one table adopted at a time (claimer thread, REST threads)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._failed_at = -math.inf  # outages (issue 20): this node's last failed database call, since when
        self._down_since: float | None = None
        self._handover_at = -math.inf  # when this node last handed a busy table over
        self._given: dict[int, float] = {}  # tables this node gave back -> when (not taken again at once)
        # the claims' and the owner look-ups' connections: never wait behind the tables' pool
        self.engine: Engine = create_engine(
            server.engine.url, pool_size=2, max_overflow=4, pool_pre_ping=True
        )
        # the heartbeat's one connection, kept open: its backend's pid in ``cluster_nodes`` says this process
        # is alive (_dead)
        self.beat: Engine = create_engine(server.engine.url, pool_size=1, max_overflow=0, pool_pre_ping=True)

    # --- the database ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Connection]:
        with self.engine.connect() as c:
            yield c

    def register(self, wait: float = DEAD_AFTER + HEARTBEAT_SECONDS) -> None:
        """Join: the node's heartbeat row. A node of the same name still running (its heartbeat live, its
        session in the database) is refused: two processes under one name would take each other's tables. An
        earlier run of this node that just died counts as running until :data:`DEAD_AFTER`: waited for up to
        ``wait`` seconds (a restart right after a crash)."""
        deadline = time.monotonic() + wait
        while True:
            with self.beat.connect() as c, c.begin():
                running = c.execute(_RUNNING, {"n": self.node}).scalar()
                if not running:
                    c.execute(_NODE, {"n": self.node, "a": self.advertise, "s": LEASE_SECONDS})
                    return
            if time.monotonic() >= deadline:
                raise NodeNameTaken(
                    f"a server process named {self.node!r} is running already on this database; "
                    "give each process its own --node"
                )
            time.sleep(0.25)

    # --- outages (issue 20) -----------------------------------------------------------------------------

    def failed(self, exc: BaseException, what: str) -> None:
        """A database call of this node failed: an outage is logged once (no traceback), anything else in full."""
        if lock_timeout(exc):  # a lease locked by its holder's open write (a paused holder): tried again
            log.warning(
                "%s on node %s: a lease is locked by its holder's write; tried again", what, self.node
            )
            return
        if not database_unreachable(exc):
            log.error("%s on node %s failed", what, self.node, exc_info=exc)
            return
        now = time.monotonic()
        self._failed_at = now
        if self._down_since is None:
            self._down_since = now
            log.warning(
                "node %s cannot reach the database (%s); it keeps its tables and retries",
                self.node,
                str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__,
            )

    def reached(self) -> None:
        """A database call of this node succeeded (the outage, if any, is over: the server's pools, whose
        connections the outage ended, are emptied so that no step fails on a stale one)."""
        since, self._down_since = self._down_since, None
        if since is not None:
            log.warning(
                "node %s reaches the database again after %.1f s", self.node, time.monotonic() - since
            )
            self.server.engine.dispose()  # (its reads share the pool)

    @property
    def outage(self) -> bool:
        """Whether this node's database calls are failing now."""
        return self._down_since is not None

    @property
    def recovering(self) -> bool:
        """Within :data:`OUTAGE_GRACE` of this node's last failed database call: every node was probably cut off
        as well, and renews its leases once it reaches the database: none of theirs is taken meanwhile."""
        return time.monotonic() - self._failed_at < OUTAGE_GRACE

    def _pairs(self) -> dict[str, Any]:
        with self._held_lock:
            items = sorted(self.held.items())
        return {"n": self.node, "ids": [t for t, _ in items], "gens": [g for _, g in items]}

    def renew(self) -> set[int]:
        """Renew the node's row and every lease held; the tables whose lease is gone (taken by another node)."""
        with self._held_lock:
            fresh = set(self._fresh)
        pairs = self._pairs()
        with self.beat.connect() as c, c.begin():
            c.execute(_NODE, {"n": self.node, "a": self.advertise, "s": LEASE_SECONDS})
            kept = (
                {int(t) for (t,) in c.execute(_RENEW, {**pairs, "s": LEASE_SECONDS})}
                if pairs["ids"]
                else set()
            )
        return set(pairs["ids"]) - kept - fresh

    def claim(self, table_id: int) -> int | None:
        """Take the table's lease if nobody holds it (free, expired, or an earlier run of this node's): its new
        generation, else None."""
        with self._conn() as c, c.begin():
            c.execute(text("SET LOCAL lock_timeout = '1s'"))
            c.execute(_PLACEHOLDER, {"t": table_id})
            row = c.execute(_LOCK_LEASE, {"t": table_id}).one()
            with self._held_lock:
                mine = self.held.get(table_id)
            if mine is not None and row.node == self.node and row.generation == mine:
                return None  # held already
            if row.expires_at > row.now and row.node != self.node and not row.dead:
                return None
            if self.recovering and row.node and row.node != self.node and row.expires_at > 0:
                return None  # after an outage: its holder renews it (a released lease has expires_at 0)
            generation = int(c.execute(_TAKE, {"t": table_id, "n": self.node, "a": self.advertise,
                                               "s": LEASE_SECONDS}).scalar_one())  # fmt: skip
        with self._held_lock:
            self.held[table_id] = generation
        return generation

    def lease_new_table(self, c: Connection, table_id: int) -> int | None:
        """(In the transaction creating the table.) Lease it to this node if it holds less than its share: the
        generation (1), else None (another node will take it)."""
        share = self.share(c, int(c.execute(text("SELECT COUNT(*) FROM tables")).scalar_one()))
        with self._held_lock:
            if len(self.held) >= share:
                return None
            self.held[table_id] = 1
            self._fresh.add(table_id)
        c.execute(
            text(
                "INSERT INTO table_leases (table_id, node, advertise, generation, expires_at, taken_at) "
                f"VALUES (:t, :n, :a, 1, {_NOW} + :s, {_NOW})"
            ),
            {"t": table_id, "n": self.node, "a": self.advertise, "s": LEASE_SECONDS},
        )
        return 1

    def release_all(self) -> None:
        """(Stopping.) Give every lease back at once (the generation stays: the next owner's is higher)."""
        pairs = self._pairs()
        with contextlib.suppress(Exception), self._conn() as c, c.begin():
            if pairs["ids"]:
                c.execute(_RELEASE, pairs)
            c.execute(text("DELETE FROM cluster_nodes WHERE node = :n"), {"n": self.node})
        with self._held_lock:
            self.held.clear()
        self.engine.dispose()
        self.beat.dispose()

    def owner(self, table_id: int) -> dict[str, Any] | None:
        """The table's live owner (``GET /tables/{id}/owner``; ``_remaining``: seconds its lease has left), or
        None when nobody holds its lease now."""
        with self._conn() as c:
            row = c.execute(_OWNER, {"t": table_id}).first()
        if row is None or row.remaining <= 0 or not row.node or row.dead:
            return None
        return {
            "table_id": table_id,
            "node": row.node,
            "url": row.advertise,
            "generation": int(row.generation),
            "_remaining": float(row.remaining),
            "_gone": bool(row.gone),
        }

    def share(self, c: Connection, tables: int) -> int:
        """The tables this node should hold: all of them divided by the live nodes, rounded up."""
        nodes = max(1, int(c.execute(_LIVE_NODES).scalar_one()))
        return math.ceil(tables / nodes)

    def free_tables(self, respect_share: bool = True) -> list[int]:
        """Tables this node may take now (in random order, so nodes claiming at once pick different ones), at
        most its share minus what it holds (``respect_share``); an earlier run's tables of this node always."""
        with self._conn() as c:
            rows = list(c.execute(_CANDIDATES))
            share = self.share(c, len(rows))
        with self._held_lock:
            held = dict(self.held)
        now = time.monotonic()
        self._given = {t: at for t, at in self._given.items() if now - at < LEASE_SECONDS + HANDOVER_SECONDS}
        given = set(self._given)
        recovering = self.recovering
        mine = [
            int(r.id)
            for r in rows
            if r.node == self.node and held.get(int(r.id)) != r.generation and int(r.id) not in given
        ]
        free = [
            int(r.id)
            for r in rows
            if int(r.id) not in held
            and r.node != self.node
            and (r.node is None or r.expires_at <= r.now or r.dead)
            and not (recovering and r.node and r.expires_at > 0)  # after an outage: its holder renews it
        ]
        random.shuffle(free)
        room = max(0, share - len(held) - len(mine)) if respect_share else len(free)
        return mine + free[:room]

    # --- tables ----------------------------------------------------------------------------------------

    def adopt(self, table_id: int, generation: int | None = None) -> bool:
        """Take the table (its lease, unless ``generation`` is the one just taken) and serve it: its runner built
        from the database, its interrupted round completed and settled (exactly once). False if another node
        has it."""
        from tablegames.server.db import GameTable

        with self._adopt_lock:
            with self._held_lock:
                self._fresh.discard(table_id)  # (committed: the caller had it created)
            if table_id in self.server.runners:
                return True
            if generation is None:
                try:  # (a lease locked by a paused holder's write, or an outage, is tried again later)
                    generation = self.claim(table_id)
                except Exception as exc:
                    self.failed(exc, f"claiming table {table_id}")
                    generation = None
                if generation is None:
                    return False
            try:
                with self.server.sessions() as s:
                    row = s.get(GameTable, table_id)
                if row is None:
                    raise LeaseLost(table_id)
                runner = self.server.open_runner(row)
                runner.fence = (table_id, generation)
                runner.recover()
            except Exception as exc:
                self.failed(exc, f"taking over table {table_id} (its lease is given back)")
                self._give_back(table_id, generation)
                return False
            with self.server.runners_lock:
                self.server.runners = {**self.server.runners, table_id: runner}
            log.warning("node %s serves table %s (generation %s)", self.node, table_id, generation)
            return True

    def _give_back(self, table_id: int, generation: int) -> None:
        with self._held_lock:
            if self.held.get(table_id) == generation:
                del self.held[table_id]
        with contextlib.suppress(Exception), self._conn() as c, c.begin():
            c.execute(_RELEASE, {"n": self.node, "ids": [table_id], "gens": [generation]})

    def forget_new_table(self, table_id: int) -> None:
        """The transaction creating the table failed: its lease was never taken."""
        with self._held_lock:
            self._fresh.discard(table_id)
            self.held.pop(table_id, None)

    def rebalance(self) -> None:
        """Holding more than its share, or two tables more than the node holding the fewest (another node
        started or restarted): give back one table, an idle one (nobody seated, no sockets, no round in play)
        at once, else, at most every :data:`HANDOVER_SECONDS`, one with players between rounds (issue 20: tables
        move back to a restarted node while players sit). A node under its share takes it."""
        if self.recovering:
            return  # after an outage the others first renew what they hold
        with self._conn() as c:
            share = self.share(c, int(c.execute(text("SELECT COUNT(*) FROM tables")).scalar_one()))
            fewest = int(c.execute(_FEWEST).scalar() or 0)
        if len(self.held) <= share and len(self.held) < fewest + 2:
            return
        busy: list[tuple[int, Any]] = []
        for table_id, runner in sorted(self.server.runners.items()):
            live = runner.live
            if runner.moved_to is not None or table_id not in self.held:
                continue
            if runner.conns or runner.occupants or (live is not None and not live.settled):
                busy.append((table_id, runner))
                continue
            self._hand_over(table_id, runner, share)
            return
        now = time.monotonic()
        if not busy or now - self._handover_at < HANDOVER_SECONDS or self.server.loop is None:
            return
        self._handover_at = now
        table_id, runner = min(busy, key=lambda tr: (len(tr[1].occupants), tr[0]))  # the emptiest first

        def between_rounds() -> None:
            """(The table's thread, after its earlier steps: no step of it runs meanwhile.)"""
            live = runner.live
            if runner.moved_to is None and (live is None or live.settled) and table_id in self.held:
                self._hand_over(table_id, runner, share)

        runner.between_rounds(between_rounds)

    def _hand_over(self, table_id: int, runner: Any, share: int) -> None:
        generation = self.held.get(table_id)
        if generation is None:
            return
        with self.server.runners_lock:
            self.server.runners = {k: r for k, r in self.server.runners.items() if k != table_id}
        runner.moved({})  # its sockets closed with 1012: the clients come back and are sent to the new owner
        self._given[table_id] = time.monotonic()
        self._give_back(table_id, generation)
        log.warning("node %s gave table %s back (more than its share of %s)", self.node, table_id, share)

    def kept(self, table_id: int) -> bool:
        """(A write of the table found its lease gone.) True when the table is still this node's: its lease
        lapsed during a database outage and nobody took it (renewed here), or the database cannot be reached to
        tell (issue 20: an outage is not a takeover; every write stays fenced). False: another node took it."""
        with self._held_lock:
            generation = self.held.get(table_id)
        if generation is None:
            return False
        try:
            with self._conn() as c, c.begin():
                renewed = c.execute(
                    _RENEW_ONE, {"t": table_id, "n": self.node, "g": generation, "s": LEASE_SECONDS}
                ).first()
        except Exception as exc:
            self.failed(exc, f"renewing the lease of table {table_id}")
            return True
        self.reached()
        return renewed is not None

    def lose(self, table_id: int, check: bool = True) -> bool:
        """A write of the table found its lease gone: unless it is :meth:`kept` (``check``), stop serving it (its
        sockets are sent to the new owner, or closed) and True; False when the table stays."""
        if check and self.kept(table_id):
            return False
        with self._held_lock:
            self.held.pop(table_id, None)
        with self.server.runners_lock:
            runner = self.server.runners.get(table_id)
            if runner is None:
                return True
            self.server.runners = {k: r for k, r in self.server.runners.items() if k != table_id}
        try:
            owner = self.owner(table_id)
        except Exception:
            owner = None
        log.warning("node %s lost table %s; now %s", self.node, table_id, owner and owner["node"])
        runner.moved(owner)
        return True

    def locate(self, table_id: int) -> dict[str, Any] | None:
        """The table's owner now; a table nobody holds is taken by this node (it answers for it at once)."""
        if table_id not in self.server.runners:
            owner = self.owner(table_id)
            if owner is not None and owner["node"] != self.node:
                return owner
            given = self._given.get(table_id)
            if (
                given is not None
            ):  # handed over just now: a node under its share takes it within a claim or two
                while time.monotonic() < given + LEASE_SECONDS:
                    time.sleep(0.1)
                    owner = self.owner(table_id)
                    if owner is not None and owner["node"] != self.node:
                        return owner
            self.adopt(table_id)
        return self.owner(table_id)

    def start(self) -> None:
        """(Server start, after the schema.) Register, take this node's share of the free tables (an earlier
        run's first), then keep the leases and look for free tables on two threads."""
        self.register()
        for table_id in self.free_tables():
            self.adopt(table_id)
        for name, loop in (("leases", self._heartbeat), ("claims", self._claims)):
            t = threading.Thread(target=loop, name=f"cluster-{name}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        """No more renewals nor claims (the server then stops its tables and calls :meth:`release_all`)."""
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        self._threads.clear()

    def _heartbeat(self) -> None:
        while not self._stop.wait(HEARTBEAT_SECONDS):
            try:
                gone = self.renew()
            except Exception as exc:  # an outage: the tables stay, renewed once the database answers
                self.failed(exc, "the lease heartbeat")
                continue
            self.reached()
            for table_id in gone:
                self.lose(table_id)

    def _claims(self) -> None:
        while not self._stop.wait(CLAIM_SECONDS):
            try:
                for table_id in self.free_tables():
                    if self._stop.is_set():
                        return
                    self.adopt(table_id)
                self.rebalance()
                self._refresh_limits()
            except Exception as exc:
                self.failed(exc, "claiming tables")

    def _refresh_limits(self) -> None:
        """Limits and status changed through another node (``PATCH``, ``/pause``) reach the owned runners."""
        if not (runners := dict(self.server.runners)):
            return
        with self._conn() as c:
            for table_id, lo, hi, status in c.execute(_LIMITS, {"ids": sorted(runners)}):
                if (r := runners.get(int(table_id))) is not None:
                    r.row.min_bet, r.row.max_bet, moved = int(lo), int(hi), status != r.row.status
                    if moved:
                        r.row.status = status
                        r.status_changed()

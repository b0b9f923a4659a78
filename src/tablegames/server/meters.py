"""The linked jackpot meters: one per game and meter name of the registry, seeded from the house; their
values and their entries; and how the meters changed by other server processes reach this one's pages.

Across processes (issue 16, PostgreSQL): every transaction that moves a meter (a settlement's contributions
and hits, a re-seed) sends ``NOTIFY tablegames_meters`` with ``{"game", "meter", "cents", "hit_seq",
"origin"}`` before it commits (:func:`announce`; PostgreSQL delivers it only if it commits, in commit order).
Every process runs a :class:`MeterFeed`: a :class:`~tablegames.server.notify.Listener` thread hands the
payloads to the event loop, which has the changed games' meters re-read on a thread (one query, under the
commit lock, so a value read never overwrites a newer one this process committed meanwhile) and each table of
those games pushes them to its sockets within 0.2-0.4 s (:meth:`~tablegames.server.push.Pusher.meters_moved`).
The payload says what changed and where; the values shown are the database's, so a notification lost while
the listener reconnects, or one from another schema of the same database, can never show a wrong value.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tablegames.rules import registry
from tablegames.server import ledger
from tablegames.server.checks import iso
from tablegames.server.db import (
    HOUSE,
    JACKPOT,
    Account,
    Entry,
    LedgerTransaction,
    Meter,
    MeterHit,
    Player,
)
from tablegames.server.notify import Listener, notify_all
from tablegames.server.outage import database_unreachable
from tablegames.server.threads import on_loop

if TYPE_CHECKING:
    from tablegames.engine.events import JackpotHit
    from tablegames.server.core import TableHost

log = logging.getLogger("tablegames.server")


def ensure_meters(server: TableHost) -> None:
    """One linked meter per game and meter name, seeded from the house at its reset value."""
    for definition in registry.DEFINITIONS:
        game = definition.key
        for spec in definition.meters(definition.make_rules()):
            with server.tx() as s:
                if s.scalar(select(Meter.id).where(Meter.game == game, Meter.name == spec.name)) is not None:
                    continue
                acc = Account(name=f"jackpot:{game}:{spec.name}", kind=JACKPOT, balance=0)
                s.add(acc)
                s.flush()
                s.add(
                    Meter(
                        game=game,
                        name=spec.name,
                        reset_cents=spec.reset_cents,
                        share=str(spec.share),
                        account_id=acc.id,
                    )
                )
                ledger.transfer(
                    s, "seed", server.system[HOUSE], acc.id, spec.reset_cents, memo=f"{game} {spec.name}"
                )


def meter_accounts(session: Session, game: str) -> dict[str, int]:
    """Meter name -> its account, in the meters' order (their creation's, the game's own: every list of meters,
    the lobby's and a table's, shows them alike)."""
    rows = session.execute(select(Meter.name, Meter.account_id).where(Meter.game == game).order_by(Meter.id))
    return {n: int(a) for n, a in rows}


def jackpots(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Meter.game, Meter.name, Account.balance, Meter.reset_cents, Meter.share)
        .join(Account, Account.id == Meter.account_id)
        .order_by(Meter.id)
    ).all()
    return [{"game": g, "meter": n, "value": int(b), "reset": int(r), "share": sh} for g, n, b, r, sh in rows]


def jackpot_history(
    session: Session, game: str | None, meter: str | None, last: int, before: int | None = None
) -> list[dict[str, Any]]:
    """Meter entries, newest first; ``before``: only entries with an ``entry_id`` below it (the next page)."""
    q = (
        select(
            Entry.id,
            Meter.game,
            Meter.name,
            Entry.kind,
            Entry.amount,
            LedgerTransaction.round_id,
            LedgerTransaction.created_at,
            Player.name,
            MeterHit.seq,
        )
        .join(Entry, Entry.account_id == Meter.account_id)
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .outerjoin(Player, Player.id == LedgerTransaction.player_id)
        .outerjoin(
            MeterHit, (MeterHit.transaction_id == LedgerTransaction.id) & (MeterHit.meter_id == Meter.id)
        )
        .order_by(Entry.id.desc())
        .limit(max(1, min(last, 1000)))
    )
    if game:
        q = q.where(Meter.game == game)
    if meter:
        q = q.where(Meter.name == meter)
    if before is not None:
        q = q.where(Entry.id < before)
    return [
        {
            "entry_id": i,
            "game": g,
            "meter": n,
            "kind": k,
            "amount": int(a),
            "round_id": r,
            "time": iso(c),
            "player": p,
            "hit_seq": seq,  # a hit's place in the meter's order of hits (1, 2, ...); None for other entries
        }
        for i, g, n, k, a, r, c, p, seq in session.execute(q).all()
    ]


# --- across processes -------------------------------------------------------------------------------------


def origin_of(server: TableHost) -> str:
    """Who sent a notification: this process and server (a process ignores its own)."""
    return f"{os.getpid()}:{id(server):x}"


def announce(
    conn: Any,
    server: TableHost,
    game: str,
    balances: dict[int, int],
    hits: Iterable[tuple[Any, JackpotHit]] = (),
    hit_seqs: Iterable[int] = (),
) -> int:
    """(Inside the transaction that moved the meters, after its postings.) NOTIFY the other processes of every
    meter of ``game`` whose account is in ``balances`` (the new balances the postings returned); ``hits`` and
    ``hit_seqs`` (the settlement's hit postings and their numbers) give each meter's last hit number. On
    SQLite nothing is sent. How many notifications."""
    last_hit: dict[str, int] = {}
    for (_, e), seq in zip(hits, hit_seqs, strict=False):
        last_hit[e.meter] = max(seq, last_hit.get(e.meter, 0))
    origin = origin_of(server)
    payloads = [
        {"game": game, "meter": name, "cents": balances[acc], "hit_seq": last_hit.get(name), "origin": origin}
        for name, acc in server.meter_accounts(game).items()
        if acc in balances
    ]
    return notify_all(conn, payloads)


class MeterFeed:
    """The meters other processes change, shown by this one's tables (see the module doc). Started and stopped
    with the app (its lifespan); nothing on SQLite."""

    def __init__(self, server: TableHost) -> None:
        self.server = server
        self.origin = origin_of(server)
        self.listener: Listener | None = None
        self.refreshes = 0  # re-reads done (tests, diagnostics)
        self._lock = threading.Lock()
        self._dirty: set[str | None] = set()  # games to re-read; None: all of them
        self._busy = False

    def start(self) -> None:
        if self.listener is not None or self.server.engine.dialect.name != "postgresql":
            return
        loop = self.server.loop
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
        self.listener = Listener(self.server.database_url, self.on_payload, loop)
        self.listener.start()

    def stop(self) -> None:
        if self.listener is not None:
            self.listener.stop()
            self.listener = None

    @on_loop
    def on_payload(self, payload: dict[str, Any]) -> None:
        """One notification, or a resync after the listener (re)connected: have the meters re-read
        off the loop; notifications arriving meanwhile are merged into the next re-read."""
        if payload.get("origin") == self.origin:
            return  # this process's own commit: its balance cache already has the values
        game = payload.get("game")
        with self._lock:
            self._dirty.add(game if isinstance(game, str) and not payload.get("resync") else None)
            if self._busy:
                return
            self._busy = True
        loop = self.listener.loop if self.listener is not None else None
        if loop is None:
            self._drain()
        else:
            loop.run_in_executor(None, self._drain)

    def _drain(self) -> None:
        """(A thread.) Re-read until nothing is left to re-read; each table of a game whose meters moved pushes.
        While the database cannot be reached (issue 20) the re-read is tried again every 0.5 s, up to 20 times (the
        listener's reconnection asks for another one anyway), with one log line."""
        outage = 0
        while True:
            with self._lock:
                dirty, self._dirty = self._dirty, set()
                if not dirty:
                    self._busy = False
                    return
            try:
                moved = self.refresh(None if None in dirty else {g for g in dirty if g is not None})
            except Exception as exc:
                if not database_unreachable(exc):
                    log.exception("re-reading the linked meters failed")
                    continue
                if outage == 0:
                    log.warning("re-reading the linked meters: the database cannot be reached; retrying")
                outage += 1
                if outage < 20:
                    with self._lock:
                        self._dirty |= dirty
                    time.sleep(0.5)
                continue
            for runner in list(self.server.runners.values()):
                if runner.game in moved and runner.conns:
                    runner.meters_moved()

    def refresh(self, games: set[str] | None = None) -> set[str]:
        """Re-read the meters of ``games`` (None: all) into the server's balance cache; the games whose values
        changed. Under the commit lock: no commit of this process lands between the read and the update."""
        q = select(Meter.game, Account.id, Account.balance).join(Account, Account.id == Meter.account_id)
        if games is not None:
            if not games:
                return set()
            q = q.where(Meter.game.in_(sorted(games)))
        server = self.server
        moved: set[str] = set()
        # the connection first: a thread never waits for one while it holds the commit lock
        with server.reads.connect() as conn, server.db.commit_lock:
            rows = conn.execute(q).all()
            cache = server.db.cache.values  # (under the commit lock, as the cache's own changes)
            for game, acc, balance in rows:
                if cache.get(int(acc)) != int(balance):
                    cache[int(acc)] = int(balance)
                    moved.add(str(game))
        self.refreshes += 1
        return moved

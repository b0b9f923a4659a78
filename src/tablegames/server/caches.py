"""The committed balances this process keeps, and how the changes other server processes make reach it.

On SQLite this process is the database's only writer: every committed transaction hands the balances it set to
:meth:`BalanceCache.committed` (in commit order, under the commit lock) and the cache is always usable.

On PostgreSQL (several processes, issue 28) the database announces every change: the triggers of revision 0010
(``server/migrations``) send ``NOTIFY tablegames_changes`` with ``'<schema> <origin> a <account id>'`` for an
account's row and ``'<schema> <origin> p <player id>'`` for a player's limits, breaks or exclusions. ``origin``
is the writing connection's ``tablegames.origin`` setting (:func:`origin_setting`: each pooled connection of a
server's :class:`~tablegames.server.transactions.Transactions` sets its own). :class:`Changes` is one
:class:`~tablegames.server.notify.Listener` per server (its own connection and thread) that drops from the
caches what others changed. The races, and why each is harmless:

- A notice arrives after the commit it announces (PostgreSQL sends it once the commit is visible). Until then
  this process may show the old value: a display-only lag (docs/deployment.md). Nothing whose decision needs
  the exact value reads this cache: the ledger's postings lock and check the balances themselves, a settlement
  locks the meters it pays (``settle.py``), a wager's guard is read again in its own transaction
  (``protection.py``).
- A read from the database races a notice (or this process's own commit): each read takes a token first (the
  sequence number of the last change noted) and its values are kept only if no change of those accounts was
  noted since (:meth:`BalanceCache.keep`); a value read before a change is never kept after it.
- This process's own commits: their notices are ignored (same origin); the commit itself stored the new
  balances in commit order under the commit lock, exactly as on SQLite. A notice of another process's earlier
  commit arriving after that only drops the value (one more read).
- The listener's connection is lost (database restart, network cut, ``pg_terminate_backend``): notices sent
  meanwhile are lost, so from the moment the listener gives the connection up (``on_lost``) nothing is used
  from the cache (every balance is read) until it listens again, and then everything kept is dropped (the
  RESYNC) before the cache is used again. A connection that dies silently (a cut cable) is noticed through the
  TCP keepalives within about 11 s; until then a display may lag by as much.
- A process that starts late, or before its listener is up: its cache is not usable until the first RESYNC.
- Another schema's notices (the tests' schemas share a database): ignored by the schema's name.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any, Final

from tablegames.server.notify import Listener

log = logging.getLogger("tablegames.server")

CHANNEL: Final = "tablegames_changes"
KEPT: Final = 200_000  # accounts whose balance is kept (and changes noted) before everything is dropped


def origin_setting(origin: str) -> str:
    """The statement a server's pooled connection runs once, so the triggers name it as the writer.

    >>> origin_setting("12:ab")
    "SET tablegames.origin = '12:ab'"
    """
    if not all(ch.isalnum() or ch in ":-_" for ch in origin):
        raise ValueError(f"bad origin {origin!r}")
    return f"SET tablegames.origin = '{origin}'"


def parse_notice(raw: str) -> tuple[str, str, str, int] | None:
    """``'<schema> <origin> <kind> <id>'`` as (schema, origin, kind, id); None if it is not one.

    >>> parse_notice("s_1 12:ab a 7"), parse_notice("my schema  p 3"), parse_notice("x")
    (('s_1', '12:ab', 'a', 7), ('my schema', '', 'p', 3), None)
    """
    parts = raw.rsplit(" ", 3)
    if len(parts) != 4 or not parts[3].isdigit():
        return None
    return parts[0], parts[1], parts[2], int(parts[3])


class BalanceCache:
    """Account id -> committed balance, with the bookkeeping that keeps a read from overwriting a newer change
    (see the module doc). ``lock``: the commit lock (``Transactions.commit_lock``), held by every change here."""

    def __init__(self, lock: threading.Lock, live: bool) -> None:
        self.lock = lock
        self.values: dict[int, int] = {}
        self.live = live  # usable (SQLite: always; PostgreSQL: while the listener listens)
        self._seq = 0  # changes noted
        self._changed_at: dict[int, int] = {}  # account -> the number of its last noted change
        self._reset_at = 0  # the number of the last reset (everything dropped)

    def get(self, account_ids: Iterable[int]) -> tuple[dict[int, int], list[int]]:
        """(The kept balances of ``account_ids``, the ids not kept); all missing while the cache is not live."""
        if not self.live:
            return {}, list(set(account_ids))
        out: dict[int, int] = {}
        missing = []
        values = self.values
        for a in set(account_ids):
            v = values.get(a)
            if v is None:
                missing.append(a)
            else:
                out[a] = v
        return out, missing

    def token(self) -> int:
        """Taken before a read from the database: hand it to :meth:`keep` with what was read."""
        return self._seq

    def keep(self, token: int, balances: dict[int, int]) -> None:
        """Keep balances read after :meth:`token` gave ``token``, those of accounts not changed since."""
        with self.lock:
            if not self.live or token < self._reset_at:
                return
            changed_at = self._changed_at
            for a, b in balances.items():
                if changed_at.get(a, 0) <= token:
                    self.values[a] = b

    def committed(self, balances: dict[int, int]) -> None:
        """(Under the commit lock, right after the commit.) This process's transaction set these balances."""
        if balances:
            self._seq += 1
            for a, b in balances.items():
                self.values[a] = b
                self._changed_at[a] = self._seq
            self._bound()

    def forget(self, account_ids: Iterable[int]) -> None:
        """Another process changed these accounts: their kept balances are dropped, reads under way not kept."""
        with self.lock:
            self._seq += 1
            for a in account_ids:
                self.values.pop(a, None)
                self._changed_at[a] = self._seq
            self._bound()

    def reset(self, live: bool) -> None:
        """Drop everything (reads under way are not kept); ``live``: whether the cache may be used from now."""
        with self.lock:
            self._seq += 1
            self._reset_at = self._seq
            self.values.clear()
            self._changed_at.clear()
            self.live = live

    def _bound(self) -> None:
        if len(self._changed_at) > KEPT:  # (a reset needs no notes older than it)
            self._reset_at = self._seq
            self.values.clear()
            self._changed_at.clear()


class Changes:
    """One server's listener of other processes' changes (PostgreSQL): drops the balances they changed from
    ``cache`` and hands the players whose guards they changed to every ``on_players`` callback (and, changed by
    another process, to every ``on_players_elsewhere`` one); on a lost
    connection and again on the reconnection, ``on_reset`` callbacks drop everything (see the module doc)."""

    def __init__(
        self,
        database_url: str,
        origin: str,
        cache: BalanceCache,
        schema: str,
        on_players: list[Callable[[int], None]],
        on_reset: list[Callable[[bool], None]],
        on_players_elsewhere: list[Callable[[int], None]] | None = None,
    ) -> None:
        self.origin = origin
        self.cache = cache
        self.schema = schema
        self.on_players = on_players
        self.on_reset = on_reset
        self.on_players_elsewhere = on_players_elsewhere if on_players_elsewhere is not None else []
        self.notices = 0  # notices taken (tests, diagnostics)
        self.listener = Listener(
            database_url, self._on_notice, None, channel=CHANNEL, on_lost=self._lost, parse=False
        )  # (no loop: handled on the listener's own thread, as soon as they arrive)

    @property
    def live(self) -> bool:
        return self.cache.live

    def start(self) -> None:
        self.listener.start()

    def stop(self) -> None:
        self.listener.stop()
        self._lost()

    def _lost(self) -> None:
        self._reset(False)

    def _reset(self, live: bool) -> None:
        self.cache.reset(live)
        for callback in self.on_reset:
            callback(live)

    def _on_notice(self, payload: dict[str, Any]) -> None:
        if payload.get("resync"):  # listening (again): nothing kept from before is trusted
            self._reset(True)
            return
        notice = parse_notice(str(payload.get("raw", "")))
        if notice is None:
            return
        schema, origin, kind, key = notice
        if schema != self.schema:
            return
        self.notices += 1
        if kind == "a":
            if origin != self.origin:  # (this process's own commits stored their balances themselves)
                self.cache.forget((key,))
        elif kind == "p":  # every origin: a guard is kept only between changes (protection.Guards)
            for callback in self.on_players:
                callback(key)
            if origin != self.origin:  # (another process's change: a break taken there, server/service.py)
                for callback in self.on_players_elsewhere:
                    callback(key)


def new_origin(owner: object) -> str:
    """This process and one object of it (a server's :class:`Transactions`): who wrote, in a notice."""
    return f"{os.getpid()}:{id(owner):x}"

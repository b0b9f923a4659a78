"""A table's state and its inbox: the serial executor that runs the table's steps on worker threads."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import func, select

from tablegames.engine import Round, Table
from tablegames.randomness import (
    LiveRandom,
    ProvablyFair,
)
from tablegames.randomness.client_seeds import SeedEntry, SeedRound
from tablegames.rules import make_rules
from tablegames.server import ledger
from tablegames.server.client import (
    Connection,
    _call_on,
    redirect,
)
from tablegames.server.core import PlayerInfo
from tablegames.server.db import (
    GameTable,
    Player,
    RoundRow,
    Seating,
)
from tablegames.server.tables import table_info

if TYPE_CHECKING:
    from tablegames.server.core import TableHost as ServerCore

log = logging.getLogger("tablegames.server")

T = TypeVar("T")


@dataclass
class Live:
    """The server's side of one engine round."""

    rnd: Round
    round_id: int | None = None
    seat_players: dict[int, int] = field(default_factory=dict)
    steps: int = 0
    pf: ProvablyFair | None = None
    betting_deadline: float | None = None
    turn_key: tuple[int, int, int] | None = None
    turn_deadline: float | None = None
    settled: bool = False
    recovered: bool = False
    result: dict[str, Any] | None = None
    client_seeds: list[tuple[int, str]] = field(default_factory=list)  # (seat, seed) combined into the deck
    # every committed seat, revealed or dropped (issue 20 defect 3: the record lists them)
    seed_entries: tuple[SeedEntry, ...] = ()


class TableCore:
    """A table's state (its seats, its engine table, the live round, its sockets) and its serial executor: every
    step of the table runs on the server's worker threads, one at a time and in order (this table's inbox)."""

    def __init__(self, server: ServerCore, row: GameTable) -> None:
        self.server = server
        self.table_id = row.id
        self.row = row
        self.game = row.game
        self.rules = make_rules(row.game, row.rules, row.paytable)
        self.engine = Table(self.rules, seats=row.seats, source=LiveRandom())
        self.live: Live | None = None
        self.conns: list[Connection] = []
        self.occupants: dict[int, PlayerInfo] = {}
        self._timer: asyncio.TimerHandle | None = None  # owned by the event loop's thread
        self._meter_push: asyncio.TimerHandle | None = None  # owned by the event loop's thread
        self._push_pending = False  # a merged state push is planned (betting)
        # Every step of this table runs on the server's worker threads, one at a time and in order (this
        # table's inbox), so the event loop keeps serving the other tables while this one waits for the database.
        self._inbox: asyncio.Queue[tuple[Callable[[], Any], asyncio.Future[Any] | None]] | None = None
        self._drainer: asyncio.Task[None] | None = None
        self._meters_shown: dict[str, int] | None = None
        self._balances_shown: dict[int, int] | None = None
        self._views_shown: dict[int | None, dict[str, Any]] | None = None  # per push cycle: seat -> view
        # idempotency (issue 11 defect 6): player -> request id -> answer; decision id -> (seat, action event)
        self._answers: OrderedDict[int, OrderedDict[str, dict[str, Any]]] = OrderedDict()
        self._decided: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        # client seeds (issue 11 defect 11): the next round's server seed, committed before any seed is taken
        self._next_pf: ProvablyFair | None = None
        # the players' seeds for the next round (that commitment's): committed first, revealed after every
        # commitment is in (issue 20 defect 3); made fresh with each next round's server seed
        self.seed_round = SeedRound()
        # Several processes (server/cluster.py): (table id, lease generation) checked by every write of this
        # table; once the lease is gone, where the table went (the owner, or {} if nobody holds it now)
        self.fence: tuple[int, int] | None = None
        self.moved_to: dict[str, Any] | None = None
        with server.tx() as s:
            self.in_play = ledger.table_in_play_account(s, row.id)
            for seat, pid, name, acc in s.execute(
                select(Seating.seat, Player.id, Player.name, Player.account_id)
                .join(Player, Player.id == Seating.player_id)
                .where(Seating.table_id == row.id)
            ):
                self.occupants[seat] = PlayerInfo(pid, name, acc)
            self.engine.round_no = int(
                s.scalar(select(func.max(RoundRow.round_no)).where(RoundRow.table_id == row.id)) or 0
            )

    def info(self) -> dict[str, Any]:
        return table_info(self.row, {k: p.name for k, p in self.occupants.items()})

    def seat_of(self, player_id: int) -> int | None:
        for seat, p in self.occupants.items():
            if p.player_id == player_id:
                return seat
        return None

    def public_view(self) -> dict[str, Any]:
        """The table as anyone may see it (``GET /tables/{id}``)."""
        live = self.live
        return {**self.info(), "view": live.rnd.view(None) if live is not None else None}

    def moved(self, owner: dict[str, Any] | None) -> None:
        """(Any thread.) This process lost the table's lease: it serves it no more; every socket is sent to the
        new owner (``redirect``, close 4307) or, with nobody holding it yet, closed (1012: reconnect)."""
        self.moved_to = owner or {}
        if self.server.loop is None:
            self._moved()
        else:
            self._on_loop(self._moved)

    def _moved(self) -> None:
        """(Event loop.)"""
        self.stop_timers()  # (steps already queued still run: each finds moved_to, or the fence)
        for c in list(self.conns):
            redirect(c, self.table_id, self.moved_to)
        self.conns = []

    def stop_timers(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._meter_push is not None:
            self._meter_push.cancel()
            self._meter_push = None

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._meter_push is not None:
            self._meter_push.cancel()
            self._meter_push = None
        if self._drainer is not None:  # steps not started are dropped; the one in progress finishes
            self._drainer.cancel()
            self._drainer = None
        for c in list(self.conns):
            c.close()

    # --- the worker threads --------------------------------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on a worker thread, after this table's earlier steps, and wait for it (event loop).

        A caller that is cancelled meanwhile does not cancel the step: it was received, so it runs.
        """
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._enqueue(functools.partial(fn, *args), future)
        return await asyncio.shield(future)

    def _submit(self, fn: Callable[[], Any]) -> None:
        """(Event loop.) Queue ``fn()`` after this table's earlier steps without waiting (timers)."""
        self._enqueue(fn, None)

    def _enqueue(self, fn: Callable[[], Any], future: asyncio.Future[Any] | None) -> None:
        if self._inbox is None:
            self._inbox = asyncio.Queue()
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.get_running_loop().create_task(self._drain(self._inbox))
        self._inbox.put_nowait((fn, future))

    async def _drain(
        self, inbox: asyncio.Queue[tuple[Callable[[], Any], asyncio.Future[Any] | None]]
    ) -> None:
        """This table's steps, one at a time, each on one of the server's worker threads."""
        loop = asyncio.get_running_loop()
        while True:
            fn, future = await inbox.get()
            try:
                result = await loop.run_in_executor(self.server.workers, fn)
            except asyncio.CancelledError:
                if future is not None and not future.done():
                    future.cancel()
                raise
            except Exception as exc:
                if future is None:
                    log.error("step failed on table %s", self.table_id, exc_info=exc)
                elif not future.done():
                    future.set_exception(exc)
            else:
                if future is not None and not future.done():
                    future.set_result(result)

    def _on_loop(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop's thread (timers belong to it); nothing without a loop."""
        loop = self.server.loop
        if loop is not None and not loop.is_closed():
            _call_on(loop, fn, *args)

"""One live table: seats, the current round (an engine :class:`~tablegames.engine.Round`), timers, and the
messages to each connected client.

Each table has its own worker thread, and every step of the table runs there, one at a time and in order
(:meth:`TableRunner.call`); the event loop only moves messages and fires timers, so a table that waits for the
database holds up no other table. A step is validated, stored in the database, applied to the engine, and then
every client gets a ``state`` message built from ``Round.view(seat)`` / ``Round.visible_history(seat)`` for
*its* seat (secrecy is the engine's); messages and timers are handed to the event loop's thread.

Order of a step: validate (nothing changed on error) -> write the step (and its money) in one database
transaction -> apply it to the engine (cannot fail now) -> settle if the round is over -> push states.
A crash at any point leaves the database with the steps taken so far; :meth:`TableRunner.recover` replays them.
The runner is composed of parts, one concern and one module each (:class:`TableRunner`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tablegames.server.bots import Bots
from tablegames.server.client import (
    CLOSE_REPLACED,
    CLOSE_TABLE_FULL,
    MAX_QUEUE,
    MAX_SOCKETS_PER_PLAYER,
    MAX_SOCKETS_PER_PLAYER_TABLE,
    MAX_SOCKETS_PER_TABLE,
    Connection,
    redirect,
)
from tablegames.server.hints import prepare
from tablegames.server.inbox import Inbox
from tablegames.server.protocol import Protocol
from tablegames.server.push import BETTING_PUSH_SECONDS, METER_PUSH_SECONDS, RETRY_SECONDS, Pusher, Timers
from tablegames.server.recovery import Recovery
from tablegames.server.settle import Settler
from tablegames.server.state import Live
from tablegames.server.steps import DEFAULT_ACTIONS, RoundSteps
from tablegames.server.store import StepStore, open_state
from tablegames.server.threads import on_any, on_loop, on_worker

if TYPE_CHECKING:
    from tablegames.engine import Table
    from tablegames.randomness.client_seeds import SeedRound
    from tablegames.rules import GameRules
    from tablegames.server.core import PlayerInfo, TableHost
    from tablegames.server.db import GameTable

T = TypeVar("T")


class TableRunner:
    """One live table, composed of its parts (docs/server.md, "The table runner"); each part receives the
    others it uses, and each method declares its thread (:mod:`~tablegames.server.threads`):

    - ``state`` (:class:`~tablegames.server.state.TableState`): the table, its engine table, the live round;
    - ``inbox`` (:class:`~tablegames.server.inbox.Inbox`): the serial queue of the table's steps;
    - ``timers`` and ``pusher`` (:mod:`~tablegames.server.push`): the table's timer, the ``state`` messages;
    - ``store`` (:class:`~tablegames.server.store.StepStore`): fenced writes, stored steps and answers;
    - ``settler`` (:class:`~tablegames.server.settle.Settler`): a finished round's settlement;
    - ``steps`` (:class:`~tablegames.server.steps.RoundSteps`): wagers, the deal, decisions, timeouts;
    - ``protocol`` (:class:`~tablegames.server.protocol.Protocol`): the WebSocket messages' handlers;
    - ``recovery`` (:class:`~tablegames.server.recovery.Recovery`): an interrupted round resumed;
    - ``bots`` (:class:`~tablegames.server.bots.Bots`): the practice bots seated, removed, and their moves.

    What the server, the cluster and the routes use of a table is here, forwarded to the part that does it.
    """

    def __init__(self, server: TableHost, row: GameTable) -> None:
        self.state = state = open_state(server, row)
        self.inbox = Inbox(server, row.id)
        # the timer's step is the round's (wired here: the steps need the timers to set them)
        self.timers = Timers(state, self.inbox, due=lambda: self.steps.on_timer())
        self.pusher = Pusher(state, self.inbox, self.timers)
        self.store = StepStore(state)
        self.settler = Settler(state, self.store)
        self.steps = RoundSteps(state, self.store, self.settler, self.pusher, self.timers)
        self.protocol = Protocol(state, self.store, self.steps, self.settler, self.pusher)
        self.recovery = Recovery(state, self.store, self.steps, self.settler, self.timers)
        self.bots = Bots(state, self.store, self.steps, self.pusher)
        self.timers.extra = self.bots.due  # the bots move on the table's one timer
        self.steps.bot_step = self.bots.step
        if server.config.prepare_hints:  # the first hand's hints exact (issue 24): solved now, off the loop
            prepare(state.rules)

    # --- the table, as the server and the cluster read it (the state's) ----------------------------------

    @property
    def table_id(self) -> int:
        return self.state.table_id

    @property
    def row(self) -> GameTable:
        return self.state.row

    @property
    def game(self) -> str:
        return self.state.game

    @property
    def rules(self) -> GameRules:
        return self.state.rules

    @property
    def engine(self) -> Table:
        return self.state.engine

    @property
    def live(self) -> Live | None:
        return self.state.live

    @property
    def conns(self) -> list[Connection]:
        return self.state.conns

    @property
    def occupants(self) -> dict[int, PlayerInfo]:
        return self.state.occupants

    @property
    def seed_round(self) -> SeedRound:
        return self.state.seed_round

    @property
    def moved_to(self) -> dict[str, Any] | None:
        return self.state.moved_to

    @property
    def fence(self) -> tuple[int, int] | None:
        """(table id, lease generation): checked by every write of the table (server/cluster.py)."""
        return self.state.fence

    @fence.setter
    def fence(self, value: tuple[int, int] | None) -> None:
        self.state.fence = value

    @on_any
    def info(self) -> dict[str, Any]:
        return self.state.info()

    @on_any
    def seat_of(self, player_id: int) -> int | None:
        return self.state.seat_of(player_id)

    @on_worker
    def public_view(self) -> dict[str, Any]:
        return self.state.public_view()

    @on_worker
    def decision_id(self) -> str | None:
        return self.state.decision_id()

    # --- the table's life ------------------------------------------------------------------------------

    @on_loop
    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the table's inbox (:meth:`Inbox.call`) and wait for it."""
        return await self.inbox.call(fn, *args)

    @on_worker
    def attach(self, conn: Connection) -> None:
        self.protocol.attach(conn)

    @on_worker
    def handle(self, conn: Connection, text: str | bytes) -> None:
        self.protocol.handle(conn, text)

    @on_any
    def detach(self, conn: Connection) -> None:
        self.protocol.detach(conn)

    @on_worker
    def add_bot(self, seat: object, actor: str, player_id: int | None = None) -> dict[str, Any]:
        return self.bots.add(seat, actor, player_id)

    @on_worker
    def remove_bot(self, seat: object, actor: str, player_id: int | None = None) -> dict[str, Any]:
        return self.bots.remove(seat, actor, player_id)

    @on_worker
    def recover(self) -> None:
        self.recovery.recover()

    @on_any
    def meters_moved(self) -> None:
        self.pusher.meters_moved()

    @on_any
    def status_changed(self) -> None:
        """Staff paused, resumed or closed the table (server/tables.py): its sockets are told now."""
        if self.state.server.loop is None:
            self.pusher.changed()  # driven synchronously: one thread
        else:
            self.inbox.to_loop(self.inbox.submit, self.pusher.changed)

    @on_any
    def between_rounds(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` in the table's inbox from any thread (the cluster hands a table over between rounds)."""
        self.inbox.to_loop(self.inbox.submit, fn)

    @on_any
    def moved(self, owner: dict[str, Any] | None) -> None:
        """This process lost the table's lease: it serves it no more; every socket is sent to the new owner
        (``redirect``, close 4307) or, with nobody holding it yet, closed (1012: reconnect)."""
        self.state.moved_to = owner or {}
        if self.state.server.loop is None:
            self._moved()
        else:
            self.inbox.to_loop(self._moved)

    @on_loop
    def _moved(self) -> None:
        self.timers.stop()  # (steps already queued still run: each finds moved_to, or the fence)
        self.pusher.stop()
        for c in list(self.state.conns):
            redirect(c, self.state.table_id, self.state.moved_to)
        self.state.conns = []

    @on_loop
    def stop(self) -> None:
        self.timers.stop()
        self.pusher.stop()
        self.inbox.stop()  # steps not started are dropped; the one in progress finishes
        for c in list(self.state.conns):
            c.close()


__all__ = [
    "BETTING_PUSH_SECONDS",
    "CLOSE_REPLACED",
    "CLOSE_TABLE_FULL",
    "DEFAULT_ACTIONS",
    "MAX_QUEUE",
    "MAX_SOCKETS_PER_PLAYER",
    "MAX_SOCKETS_PER_PLAYER_TABLE",
    "MAX_SOCKETS_PER_TABLE",
    "METER_PUSH_SECONDS",
    "RETRY_SECONDS",
    "Connection",
    "Live",
    "TableRunner",
]

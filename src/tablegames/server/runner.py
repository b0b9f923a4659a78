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
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from tablegames.engine import Action, IllegalAction, Phase, Round, Table
from tablegames.engine.events import (
    CardDealt,
    EnvyPaid,
    JackpotContribution,
    JackpotHit,
    RoundEnded,
)
from tablegames.engine.replay import at_meters
from tablegames.randomness import (
    LiveRandom,
    ProvablyFair,
    ServerSeed,
    fairness_record,
    require_live,
    shuffle_deck,
)
from tablegames.randomness.fairness import check_player_seed, combine_client_seeds
from tablegames.rules import make_rules, registry
from tablegames.server import ledger, settlement
from tablegames.server.db import (
    BETTING,
    DECIDING,
    HOUSE,
    IN_PLAY,
    SETTLED,
    VOID,
    Account,
    Entry,
    GameTable,
    IdempotencyKey,
    LedgerTransaction,
    MeterHit,
    Player,
    RoundPlayer,
    RoundRow,
    RoundStep,
    Seating,
)
from tablegames.server.errors import ApiError, from_engine
from tablegames.server.hints import hint_message
from tablegames.server.service import (
    PlayerInfo,
    check_amount,
    check_request_id,
    clear_seat,
    idempotency_key,
    table_info,
)

if TYPE_CHECKING:
    from tablegames.server.service import Server

log = logging.getLogger("tablegames.server")
T = TypeVar("T")

#: What the server does for a seat whose turn timed out (docs/protocol.md): each definition's default action.
DEFAULT_ACTIONS: dict[str, Action] = {d.key: Action.parse(d.default_action) for d in registry.DEFINITIONS}

MAX_QUEUE = 1000
BETTING_PUSH_SECONDS = 0.15  # wagers placed within this time share one state push to the table
METER_PUSH_SECONDS = 0.2  # linked meters moved by another table's settlement are pushed within 0.2-0.4 s
RETRY_SECONDS = 1.0  # a timer step (deal, timeout, settlement) that failed, e.g. database down, is retried

# Sockets (docs/protocol.md, issue 11 defect 8): a player's newest sockets win; the table keeps room for players.
MAX_SOCKETS_PER_PLAYER_TABLE = 4  # a fifth socket of one player at one table closes the player's oldest there
MAX_SOCKETS_PER_PLAYER = 16  # over all tables: the oldest anywhere is closed
# a table's sockets: then an onlooker's new socket is refused, a seated player's replaces an onlooker's
MAX_SOCKETS_PER_TABLE = 64
CLOSE_REPLACED = 4409  # close code of a socket replaced by a newer one of the same player
CLOSE_TABLE_FULL = 4503  # close code of a socket refused (or replaced) because the table has too many
# Answers kept for repeated request ids of the non-money messages (sit, leave, act, client_seed; wagers are
# also kept in the database): per player and table, the most recent ones.
ANSWERS_PER_PLAYER = 256
ANSWER_PLAYERS = 4096
DECISIONS_KEPT = 1024  # answered decisions (ids) remembered, to answer a repeated or stale act as a duplicate
IDEMPOTENT = frozenset({"sit", "leave", "wager", "act", "client_seed"})  # the state-changing messages


# Prebuilt statements of the table hot paths (wagers, steps, settlements): compiled once, no ORM unit of work.
_IDEMPOTENT = select(IdempotencyKey.response).where(
    IdempotencyKey.player_id == bindparam("player"), IdempotencyKey.request_id == bindparam("key")
)
_INSERT_KEY = insert(IdempotencyKey)
_INSERT_ROUND = insert(RoundRow).returning(RoundRow.id)
_INSERT_STEP = insert(RoundStep)
_INSERT_ROUND_PLAYERS = insert(RoundPlayer)
# (who sits where is stored when the cards are dealt: until then the wager steps say it)
_SET_STATUS = (
    update(RoundRow)
    .where(RoundRow.id == bindparam("rid"))
    .values(
        status=bindparam("status"),
        seat_players=bindparam("seat_players", type_=RoundRow.__table__.c.seat_players.type),
    )
)
_ROUND_FOR_SETTLEMENT = (
    select(
        RoundRow.status,
        RoundRow.server_seed,
        RoundRow.client_seed,
        RoundRow.nonce,
        RoundRow.deck,
        RoundRow.commitment,
    )
    .where(RoundRow.id == bindparam("rid"))
    .with_for_update()
)
_LAST_HIT = select(func.max(MeterHit.seq)).where(MeterHit.meter_id == bindparam("meter"))
_INSERT_HITS = insert(MeterHit)
_WALLETS = select(Player.id, Player.account_id).where(Player.id.in_(bindparam("players", expanding=True)))
_ACCOUNT_BALANCES = select(Account.id, Account.balance).where(
    Account.id.in_(bindparam("accounts", expanding=True))
)
_FINISH_ROUND = (
    update(RoundRow)
    .where(RoundRow.id == bindparam("rid"))
    .values(
        status=bindparam("status"),
        seat_players=bindparam("seat_players", type_=RoundRow.__table__.c.seat_players.type),
        events=bindparam("events", type_=RoundRow.__table__.c.events.type),
        settled_at=bindparam("settled_at"),
        recovered=bindparam("recovered"),
        result=bindparam("result", type_=RoundRow.__table__.c.result.type),
    )
)


def _on(loop: asyncio.AbstractEventLoop | None) -> bool:
    """True when the caller runs on ``loop``'s thread (or there is no loop to hand over to)."""
    if loop is None:
        return True
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _call_on(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., None], *args: Any) -> None:
    """Run ``fn(*args)`` on ``loop``'s thread: now when the caller is on it (or there is no loop), else handed
    over in order; nothing once the loop is closing (nobody is listening any more)."""
    if _on(loop):
        fn(*args)
        return
    assert loop is not None
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(fn, *args)


_OPENED = itertools.count()
_SOCKETS_LOCK = threading.Lock()


class Connection:
    """One client socket: its player, its outgoing queue and its hint toggle.

    :meth:`send` may be called from the table's worker thread: the message is handed to the event loop, which
    owns the queue (messages keep their order).
    """

    def __init__(self, player: PlayerInfo, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.player = player
        self.loop = loop
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.close_code = 1008  # the WebSocket close code when the server closes it (app.py)
        self.opened = next(_OPENED)  # order of opening (the oldest sockets are replaced first)
        self.hints = False
        self.round_key: int | None = None  # engine round_no of the events sent so far
        self.sent = 0
        self.closed = False
        self.ending = False  # close() was called (from any thread): nothing more is sent
        self.last_hint: tuple[int, int] | None = None

    @property
    def gone(self) -> bool:
        """Closed, or being closed: it no longer counts among the table's sockets."""
        return self.closed or self.ending

    def send(self, message: dict[str, Any]) -> None:
        if not self.closed and not self.ending:
            _call_on(self.loop, self._deliver, message)

    def _deliver(self, message: dict[str, Any] | None) -> None:
        if self.closed:
            return
        if message is None or self.queue.qsize() >= MAX_QUEUE:  # a client that does not read is dropped
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)

    def close(self, code: int | None = None) -> None:
        if not self.closed and not self.ending:
            if code is not None:
                self.close_code = code
            self.ending = True
            _call_on(self.loop, self._deliver, None)


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


class TableRunner:
    def __init__(self, server: Server, row: GameTable) -> None:
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
        self.client_seeds: dict[int, str] = {}  # player id -> their seed at this table
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

    # --- info -------------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        return table_info(self.row, {k: p.name for k, p in self.occupants.items()})

    def seat_of(self, player_id: int) -> int | None:
        for seat, p in self.occupants.items():
            if p.player_id == player_id:
                return seat
        return None

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

    def public_view(self) -> dict[str, Any]:
        """The table as anyone may see it (``GET /tables/{id}``)."""
        live = self.live
        return {**self.info(), "view": live.rnd.view(None) if live is not None else None}

    # --- connections and messages ----------------------------------------------------------------

    def attach(self, conn: Connection) -> None:
        # the tables attach on their own threads: one count of a player's sockets at a time
        with _SOCKETS_LOCK:
            if not self._make_room(conn):
                return
            # copy-on-write: the loop's thread reads the list too (closed ones left by a racing detach go now)
            self.conns = [*(c for c in self.conns if not c.gone), conn]
        cfg = self.server.config
        conn.send(
            {
                "type": "welcome",
                "player": {"player_id": conn.player.player_id, "name": conn.player.name},
                "table": self.info(),
                "seat": self.seat_of(conn.player.player_id),
                "balance": self.server.balance(conn.player),
                "betting_seconds": cfg.betting_seconds,
                "turn_seconds": cfg.turn_seconds,
            }
        )
        self._push(conn)

    def _make_room(self, conn: Connection) -> bool:
        """Bound the sockets (per player here and overall, per table): close the player's oldest beyond
        :data:`MAX_SOCKETS_PER_PLAYER_TABLE` / :data:`MAX_SOCKETS_PER_PLAYER` (``4409``); at a table with
        :data:`MAX_SOCKETS_PER_TABLE` sockets a seated player's new socket replaces an onlooker's oldest, an
        onlooker's is refused (``4503``). False when ``conn`` itself was refused."""
        pid = conn.player.player_id
        live = [c for c in self.conns if not c.gone]
        if len(live) >= MAX_SOCKETS_PER_TABLE:
            seated = {p.player_id for p in self.occupants.values()}
            onlookers = [c for c in live if c.player.player_id not in seated]
            if pid not in seated or not onlookers:
                self._close_with(
                    conn, CLOSE_TABLE_FULL, "too_many_sockets", "this table has too many sockets open"
                )
                return False
            self._close_with(
                onlookers[0],
                CLOSE_TABLE_FULL,
                "too_many_sockets",
                "a seated player needed room at this table",
            )
        mine = [c for c in live if c.player.player_id == pid]
        for old in mine[: max(0, len(mine) - MAX_SOCKETS_PER_PLAYER_TABLE + 1)]:
            self._close_with(old, CLOSE_REPLACED, "replaced", "a newer socket of yours opened at this table")
        anywhere = [
            c
            for runner in list(self.server.runners.values())
            for c in runner.conns
            if c.player.player_id == pid and not c.gone
        ]
        anywhere.sort(key=lambda c: c.opened)
        for old in anywhere[: max(0, len(anywhere) - MAX_SOCKETS_PER_PLAYER + 1)]:
            self._close_with(old, CLOSE_REPLACED, "replaced", "a newer socket of yours opened")
        return True

    def _close_with(self, conn: Connection, close_code: int, code: str, message: str) -> None:
        """Tell the client why, then close its socket with ``close_code`` (its own handler detaches it)."""
        conn.send({"type": "error", "code": code, "message": message, "request_id": None})
        conn.close(close_code)
        self.conns = [c for c in self.conns if c is not conn]

    def detach(self, conn: Connection) -> None:
        """(Safe from any thread.)"""
        self.conns = [c for c in self.conns if c is not conn]
        conn.close()

    def handle(self, conn: Connection, text: str | bytes) -> None:
        """Handle one client message; every refusal is an ``error`` message and changes nothing."""
        rid: str | None = None
        try:
            if len(text) > self.server.config.max_message_bytes:
                raise ApiError(
                    "bad_message", f"message larger than {self.server.config.max_message_bytes} bytes"
                )
            try:
                msg = json.loads(text)
            except (ValueError, UnicodeDecodeError):
                raise ApiError("bad_json", "the message is not valid JSON") from None
            if not isinstance(msg, dict):
                raise ApiError("bad_json", "a message must be a JSON object with a 'type'")
            raw_rid = msg.get("request_id")
            rid = raw_rid if isinstance(raw_rid, str) and len(raw_rid) <= 64 else None
            kind = msg.get("type")
            handler = self.HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                known = ", ".join(self.HANDLERS)
                raise ApiError("unknown_type", f"unknown message type {kind!r}; known: {known}")
            if kind in IDEMPOTENT and rid is not None:
                answers = self._answers.get(conn.player.player_id)
                old = answers.get(rid) if answers is not None else None
                if old is not None:  # a repeated request id: the first answer again, nothing changes
                    conn.send({**old, "duplicate": True})
                    return
            handler(self, conn, msg)
        except ApiError as exc:
            conn.send({"type": "error", **exc.to_dict(), "request_id": rid})
        except IllegalAction as exc:
            conn.send({"type": "error", **from_engine(exc).to_dict(), "request_id": rid})
        except SQLAlchemyError:
            log.exception("database error on table %s", self.table_id)
            conn.send(
                {
                    "type": "error",
                    "code": "server_error",
                    "message": "the database refused the request; nothing was changed",
                    "request_id": rid,
                }
            )
        except Exception:
            log.exception("unexpected error on table %s", self.table_id)
            conn.send(
                {"type": "error", "code": "server_error", "message": "internal error", "request_id": rid}
            )

    def _ack(self, conn: Connection, kind: str, msg: dict[str, Any], **fields: Any) -> None:
        rid = msg.get("request_id") if isinstance(msg.get("request_id"), str) else None
        ack = {"type": "ack", "request_id": rid, "for": kind, **fields}
        if kind in IDEMPOTENT:
            ack.setdefault("duplicate", False)
            self._remember(conn.player.player_id, ack)
        conn.send(ack)

    def _remember(self, player_id: int, ack: dict[str, Any]) -> None:
        """Keep the answer to a state-changing request, so that its request id repeated gets it again."""
        rid = ack.get("request_id")
        if not isinstance(rid, str):
            return
        answers = self._answers.get(player_id)
        if answers is None:
            answers = self._answers[player_id] = OrderedDict()
            while len(self._answers) > ANSWER_PLAYERS:
                self._answers.popitem(last=False)
        else:
            self._answers.move_to_end(player_id)
        answers[rid] = {k: v for k, v in ack.items() if k != "duplicate"}
        while len(answers) > ANSWERS_PER_PLAYER:
            answers.popitem(last=False)

    def decision_id(self) -> str | None:
        """The id of the decision awaited now, ``"<round_id>:<seq>"`` (the round's event count when the turn
        came), or None. An ``act`` must name it (docs/protocol.md)."""
        live = self.live
        if (
            live is None
            or live.round_id is None
            or live.rnd.phase != Phase.DECIDING
            or live.rnd.to_act is None
        ):
            return None
        return f"{live.round_id}:{len(live.rnd.history)}"

    # --- handlers ---------------------------------------------------------------------------------

    def on_ping(self, conn: Connection, msg: dict[str, Any]) -> None:
        conn.send(
            {
                "type": "pong",
                "request_id": msg.get("request_id") if isinstance(msg.get("request_id"), str) else None,
            }
        )

    def on_state(self, conn: Connection, msg: dict[str, Any]) -> None:
        conn.round_key = None  # resend the round's events from the start
        self._push(conn)

    def on_hints(self, conn: Connection, msg: dict[str, Any]) -> None:
        on = msg.get("on")
        if not isinstance(on, bool):
            raise ApiError("bad_message", "hints needs 'on': true or false")
        conn.hints = on
        conn.last_hint = None
        self._ack(conn, "hints", msg, on=on)
        self._push(conn)

    def on_sit(self, conn: Connection, msg: dict[str, Any]) -> None:
        check_request_id(msg.get("request_id"), required=False)
        pid = conn.player.player_id
        if self.seat_of(pid) is not None:
            raise ApiError("already_seated", f"you already sit at seat {self.seat_of(pid)} of this table")
        seat = msg.get("seat")
        n = self.row.seats
        busy = set(self.occupants)
        if self.live is not None and not self.live.rnd.is_over:
            busy |= {s.seat for s in self.live.rnd.active_seats}
        if seat is None:
            free = [i for i in range(1, n + 1) if i not in busy]
            if not free:
                raise ApiError("seat_taken", "the table is full")
            seat = free[0]
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= n:
            raise ApiError("bad_seat", f"no seat {seat!r} at this table (seats 1-{n})")
        elif seat in busy:
            raise ApiError("seat_taken", f"seat {seat} is taken")
        try:
            with self.server.tx() as s:
                s.add(Seating(table_id=self.table_id, seat=seat, player_id=pid))
        except IntegrityError:
            raise ApiError("seat_taken", f"seat {seat} is taken") from None
        self.occupants = {
            **self.occupants,
            seat: conn.player,
        }  # copy-on-write (info() reads it from the loop)
        self._ack(conn, "sit", msg, seat=seat)
        self._changed()

    def on_leave(self, conn: Connection, msg: dict[str, Any]) -> None:
        seat = self.seat_of(conn.player.player_id)
        if seat is None:
            raise ApiError("not_seated", "you do not sit at this table")
        live = self.live
        if live is not None and not live.rnd.is_over and live.rnd.seats[seat].playing:
            raise ApiError("in_round", f"seat {seat} has wagers in play; leave after the round")
        with self.server.tx() as s:
            clear_seat(s, self.table_id, conn.player.player_id)
        self.occupants = {k: p for k, p in self.occupants.items() if k != seat}
        self._ack(conn, "leave", msg, seat=seat)
        self._changed()

    def on_wager(self, conn: Connection, msg: dict[str, Any]) -> None:
        rid = check_request_id(msg.get("request_id"), required=True)
        assert rid is not None
        player = conn.player
        key = idempotency_key(f"wager:{self.table_id}", rid)
        with self.server.reads.connect() as c:
            old = c.execute(_IDEMPOTENT, {"player": player.player_id, "key": key}).scalar()
        if old is not None:
            conn.send({**old, "duplicate": True})
            return
        seat = self.seat_of(player.player_id)
        if seat is None:
            raise ApiError("not_seated", "take a seat (sit) before wagering")
        wagers = msg.get("wagers")
        options = msg.get("options") or {}
        if not isinstance(wagers, dict) or not wagers or len(wagers) > 8:
            raise ApiError("bad_message", "wagers must be an object {wager name: cents}")
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise ApiError("bad_message", "options must be an object {wager name: text}")
        for name in options:
            if name not in wagers:
                raise ApiError("bad_message", f"option for {name!r} without that wager in this message")
        live = self.live
        if live is not None and live.rnd.is_over and not live.settled:
            self._settle()  # a settlement that failed earlier is retried before anything else
        if live is not None and not live.rnd.is_over:
            self._place(conn, live, seat, rid, key, wagers, options)
            return
        # A new round opens only when this wager is placed: a refused wager leaves the table as it was.
        previous = (self.engine.current, self.engine.round_no)
        try:
            self._place(conn, self._new_live(), seat, rid, key, wagers, options)
        except BaseException:
            if self.live is None or self.live.rnd is previous[0]:
                self.engine.current, self.engine.round_no = previous
            raise

    def _place(
        self,
        conn: Connection,
        live: Live,
        seat: int,
        rid: str,
        key: str,
        wagers: dict[str, Any],
        options: dict[str, str],
    ) -> None:
        player = conn.player
        rnd = live.rnd
        if rnd.phase != Phase.BETTING:
            raise ApiError("betting_closed", "the cards are being played; wager in the next round")
        specs = {w.name: w for w in rnd.wager_specs()}
        for name, amount in wagers.items():
            if name not in specs:
                raise ApiError(
                    "bad_wager", f"unknown wager {name!r} for {self.game}; wagers: {', '.join(specs)}"
                )
            cents = check_amount(amount, f"the {name} wager")
            spec = specs[name]
            if spec.main and cents < self.row.min_bet:
                raise ApiError(
                    "under_limit",
                    f"the {name} wager is {cents} cents; this table's minimum is {self.row.min_bet}",
                )
            if spec.fixed_cents is None and cents > self.row.max_bet:
                raise ApiError(
                    "over_limit",
                    f"the {name} wager is {cents} cents; this table's maximum is {self.row.max_bet}",
                )
        order = sorted(wagers, key=lambda n: not specs[n].main)
        # The engine validates them together (typed errors, nothing changed): a side bet may come with its main.
        cost = rnd.check_wagers(seat, [(name, wagers[name], options.get(name)) for name in order])
        first = live.round_id is None
        # the round's first step lists the players' seeds its deck was drawn with (recovery and the record)
        seeds_step = (
            [{"op": "seeds", "seeds": [[seat, seed] for seat, seed in live.client_seeds]}]
            if first and live.client_seeds
            else []
        )
        try:
            with self.server.write() as c:
                if first:
                    round_id = int(c.execute(_INSERT_ROUND, self._round_values(live)).scalar_one())
                else:
                    assert live.round_id is not None
                    round_id = live.round_id
                if seeds_step:
                    c.execute(
                        _INSERT_STEP,
                        {
                            "round_id": round_id,
                            "seq": live.steps,
                            "payload": seeds_step[0],
                            "created_at": time.time(),
                        },
                    )
                c.execute(
                    _INSERT_STEP,
                    [
                        {
                            "round_id": round_id,
                            "seq": live.steps + len(seeds_step) + i,
                            "payload": {
                                "op": "wager",
                                "seat": seat,
                                "player_id": player.player_id,
                                "wager": name,
                                "amount": wagers[name],
                                "option": options.get(name),
                            },
                            "created_at": time.time(),
                        }
                        for i, name in enumerate(order)
                    ],
                )
                # last: the money (locks the busy in-play account until the commit)
                _, balances = ledger.post_all(
                    c,
                    [
                        ledger.Posting.transfer(
                            "wager",
                            player.account_id,
                            self.in_play,
                            cost,
                            round_id=round_id,
                            player_id=player.player_id,
                            memo=f"table {self.table_id} seat {seat}: "
                            + ", ".join(f"{n} {wagers[n]}" for n in order),
                        )
                    ],
                )
                ack = {
                    "type": "ack",
                    "request_id": rid,
                    "for": "wager",
                    "round_id": round_id,
                    "seat": seat,
                    "wagers": {n: wagers[n] for n in order},
                    "balance": balances[player.account_id],
                }
                c.execute(
                    _INSERT_KEY,
                    {
                        "player_id": player.player_id,
                        "request_id": key,
                        "response": ack,
                        "created_at": time.time(),
                    },
                )
        except ledger.NotEnoughMoney:
            raise ApiError(
                "insufficient_funds",
                f"these wagers need {cost} cents; your balance is {self.server.balance(player)}",
            ) from None
        self.live = live
        live.round_id = round_id
        live.steps += len(seeds_step) + len(order)
        live.seat_players[seat] = player.player_id
        if (
            first
            and live.pf is not None
            and self._next_pf is not None
            and live.pf.server_seed is self._next_pf.server_seed
        ):
            self._next_pf = None  # dealt: the next state publishes the following round's commitment
        for name in order:
            rnd.place_wager(seat, name, wagers[name], options.get(name))
        if live.betting_deadline is None:
            live.betting_deadline = time.time() + self.server.config.betting_seconds
        self._remember(player.player_id, ack)
        conn.send({**ack, "duplicate": False})
        playing = {s.seat for s in rnd.active_seats}
        if all(seat in playing for seat in self.occupants):
            self._deal()
        else:
            self._changed_soon()

    def on_act(self, conn: Connection, msg: dict[str, Any]) -> None:
        check_request_id(msg.get("request_id"), required=False)
        seat = self.seat_of(conn.player.player_id)
        if seat is None:
            raise ApiError("not_seated", "you do not sit at this table")
        if "seat" in msg and msg["seat"] != seat:
            raise ApiError("not_your_turn", f"seat {msg['seat']!r} is not yours (you sit at seat {seat})")
        decision = msg.get("decision")
        if decision is not None and (not isinstance(decision, str) or not 1 <= len(decision) <= 64):
            raise ApiError("bad_message", "decision must be the state's decision id (a string)")
        answered = self._decided.get(decision) if decision is not None else None
        if answered is not None:
            # a repeated or stale decision (another socket, a retry, a timeout took it): nothing changes
            by_seat, event = answered
            if by_seat != seat:
                raise ApiError("not_your_turn", f"decision {decision} was seat {by_seat}'s, not yours")
            self._ack(conn, "act", msg, decision=decision, event=event, duplicate=True)
            return
        live = self.live
        if live is None or live.rnd.phase != Phase.DECIDING:
            raise ApiError("wrong_phase", "there is no decision to take now")
        text = msg.get("action")
        if not isinstance(text, str):
            raise ApiError("bad_message", "act needs 'action', e.g. \"stand\"")
        # the engine's rule (whose turn, which actions are legal now): typed errors, nothing changed
        action = live.rnd.verify_act(seat, text)
        current = self.decision_id()
        if decision is None:
            raise ApiError(
                "bad_message", f"act needs 'decision': the id of the decision it answers ({current})"
            )
        if decision != current:
            raise ApiError("stale_decision", f"decision {decision!r} is not open; the open one is {current}")
        event = self._apply_action(seat, action, "player")
        self._ack(conn, "act", msg, decision=decision, event=event.to_dict())
        self._after_step()

    def on_client_seed(self, conn: Connection, msg: dict[str, Any]) -> None:
        """Set (or change) the player's seed for the next round (docs/protocol.md, "Client seeds").

        The message names the commitment it answers (the state's ``next_commitment``): the server seed of that
        round was fixed and published before the seed was taken. Once that round was dealt (opened), the
        commitment is no longer the next one and the seed is refused (``stale_commitment``), nothing changed.
        """
        check_request_id(msg.get("request_id"), required=False)
        upcoming = self._upcoming_pf()
        if upcoming is None:
            raise ApiError("not_provably_fair", "this table does not deal provably fair rounds")
        try:
            seed = check_player_seed(msg.get("seed"))
        except ValueError as exc:
            raise ApiError("bad_seed", str(exc)) from None
        commitment = msg.get("commitment")
        if not isinstance(commitment, str):
            raise ApiError("bad_message", "client_seed needs 'commitment': the state's next_commitment")
        if commitment != upcoming.commitment:
            raise ApiError(
                "stale_commitment",
                f"commitment {commitment[:16]!r}… is not the next round's (its round was dealt, or it never was "
                f"one); the next round's is {upcoming.commitment}",
            )
        pid = conn.player.player_id
        self.client_seeds[pid] = seed
        self._ack(
            conn,
            "client_seed",
            msg,
            seed=seed,
            commitment=upcoming.commitment,
            round_no=self.engine.round_no + 1,
        )
        for c in list(self.conns):
            if c.player.player_id == pid:
                self._push(c)

    HANDLERS: ClassVar[dict[str, Any]] = {
        "sit": on_sit,
        "leave": on_leave,
        "wager": on_wager,
        "act": on_act,
        "client_seed": on_client_seed,
        "hints": on_hints,
        "state": on_state,
        "ping": on_ping,
    }

    # --- round steps ------------------------------------------------------------------------------

    def _new_live(self) -> Live:
        source_factory = self.server.config.source_factory
        deck_factory = self.server.config.deck_factory
        pf = None
        seeds: list[tuple[int, str]] = []  # the seated players' seeds, in seat order (provably fair tables)
        deck: Sequence[int]
        if deck_factory is not None:
            deck = deck_factory(self.table_id)
        elif source_factory is not None:
            deck = shuffle_deck(source_factory())
        else:
            upcoming = self._upcoming_pf()
            assert upcoming is not None
            seeds = [
                (seat, self.client_seeds[p.player_id])
                for seat, p in sorted(self.occupants.items())
                if p.player_id in self.client_seeds
            ]
            pf = ProvablyFair(
                nonce=self.engine.round_no + 1,
                client_seed=combine_client_seeds(seeds) if seeds else None,
                server_seed=upcoming.server_seed,  # committed (published) before any seed was taken
            )
            deck = shuffle_deck(require_live(pf.source()))
        self.engine.current = None
        rnd = self.engine.new_round(deck=[int(c) for c in deck])
        return Live(rnd, pf=pf, client_seeds=seeds)

    def _upcoming_pf(self) -> ProvablyFair | None:
        """The next round's provably fair server seed (made now if needed; its commitment is in every state as
        ``next_commitment``), or None when the table deals from a test source."""
        cfg = self.server.config
        if cfg.deck_factory is not None or cfg.source_factory is not None:
            return None
        if self._next_pf is None:
            self._next_pf = ProvablyFair(nonce=self.engine.round_no + 1)
        return self._next_pf

    def _round_values(self, live: Live) -> dict[str, Any]:
        pf = live.pf
        return {
            "table_id": self.table_id,
            "round_no": live.rnd.round_no,
            "game": self.game,
            "rules": dict(self.rules.describe()),
            "status": BETTING,
            "deck": list(live.rnd.deck),
            "server_seed": pf.server_seed.hex if pf else None,
            "commitment": pf.commitment if pf else None,
            "client_seed": pf.client_seed if pf else None,
            "nonce": pf.nonce if pf else None,
            "seat_players": {},
            "recovered": False,
            "started_at": time.time(),
        }

    def _persist_step(self, payload: dict[str, Any], status: str | None = None) -> None:
        live = self.live
        assert live is not None and live.round_id is not None
        with self.server.write() as c:
            c.execute(
                _INSERT_STEP,
                {"round_id": live.round_id, "seq": live.steps, "payload": payload, "created_at": time.time()},
            )
            if status is not None:
                c.execute(
                    _SET_STATUS,
                    {
                        "rid": live.round_id,
                        "status": status,
                        "seat_players": {str(k): v for k, v in sorted(live.seat_players.items())},
                    },
                )
        live.steps += 1

    def _refresh_meters(self) -> None:
        """Linked meters: the engine's meters = the database value + this round's own contributions."""
        if not self.engine.meters or self.live is None:
            return
        rnd = self.live.rnd
        values = self.server.meter_values(self.game)
        own: dict[str, int] = defaultdict(int)
        for e in rnd.history:
            if isinstance(e, JackpotContribution):
                own[e.meter] += e.amount
        for name in self.engine.meters:
            if name not in values:
                continue
            new = values[name] + own[name]
            diff = new - self.engine.meters[name]
            self.engine.meters[name] = new
            rnd.meters_before[name] = rnd.meters_before.get(name, 0) + diff

    def _deal(self) -> None:
        live = self.live
        if live is None or live.round_id is None:
            return
        rnd = live.rnd
        if rnd.phase != Phase.BETTING or not rnd.active_seats:
            return
        self._refresh_meters()  # (reads only) before the step is stored: after that nothing may fail
        self._persist_step({"op": "deal"}, status=DECIDING)
        rnd.deal()
        self._after_step()

    def _apply_action(self, seat: int, action: Action, by: str) -> Any:
        live = self.live
        assert live is not None
        decision = self.decision_id()
        self._refresh_meters()  # (reads only) before the step is stored: after that nothing may fail
        self._persist_step({"op": "act", "seat": seat, "action": str(action), "by": by})
        event = live.rnd.act(seat, action, by=by)
        if decision is not None:  # answered: the same decision again is a duplicate
            self._decided[decision] = (seat, event.to_dict())
            while len(self._decided) > DECISIONS_KEPT:
                self._decided.popitem(last=False)
        return event

    def _after_step(self) -> None:
        live = self.live
        if live is not None and live.rnd.is_over and not live.settled:
            try:
                self._settle()
            except SQLAlchemyError:
                # Nothing of the settlement was written (one transaction); it is retried by the timer.
                log.exception("settlement of round %s failed; retrying", live.round_id)
                notice = {
                    "type": "error",
                    "code": "server_error",
                    "message": f"the database refused the settlement of round {live.round_id}: nothing was paid or "
                    "taken; it is retried automatically",
                    "request_id": None,
                }
                for c in list(self.conns):  # tell the table (issue 7: a clear error, no partial settlement)
                    c.send(notice)
                self._schedule()
                return
            self._changed()
            if live.result is not None:
                for c in list(self.conns):
                    c.send({**live.result, "balance": self.server.balance(c.player)})
            if self.engine.meters:  # linked meters: the other tables of the game show the new values
                for other in list(self.server.runners.values()):
                    if other is not self and other.game == self.game and other.conns:
                        other.meters_moved()
            return
        self._changed()

    def _settle(self) -> None:
        """Write the round's settlement in one transaction, exactly once (status change included)."""
        live = self.live
        assert live is not None and live.round_id is not None
        rnd = live.rnd
        round_id = live.round_id
        with self.server.write() as c:
            row = c.execute(_ROUND_FOR_SETTLEMENT, {"rid": round_id}).one()
            if row.status == SETTLED:
                live.settled = True
                return
            seat_players = dict(live.seat_players)
            wallets: dict[int, int] = {
                int(pid): int(acc)
                for pid, acc in c.execute(_WALLETS, {"players": sorted(set(seat_players.values()))})
            }
            rnd = self._at_locked_meters(c, rnd, wallets.values())  # the engine settles at the meters now

            accounts = settlement.Accounts(
                wallets={seat: wallets[pid] for seat, pid in seat_players.items()},
                players=seat_players,
                house=self.server.system[HOUSE],
                in_play=self.in_play,
                meters=self.server.meter_accounts(self.game),
            )
            settled = settlement.settlement(rnd.history, accounts, round_id)
            postings, hit_postings = settled.postings, settled.hits
            results = [r.to_dict() for r in settled.results]
            fairness = None
            if row.server_seed and row.client_seed is not None and row.nonce is not None:
                fairness = fairness_record(
                    game=self.game,
                    round_id=round_id,
                    server_seed=ServerSeed.from_hex(row.server_seed),
                    client_seed=row.client_seed,
                    nonce=row.nonce,
                    deck=row.deck,
                    dealt=[(e.position, e.to) for e in rnd.history if isinstance(e, CardDealt)],
                    commitment=row.commitment,
                    client_seeds=live.client_seeds or None,
                )
            c.execute(
                _FINISH_ROUND,
                {
                    "rid": round_id,
                    "status": SETTLED,
                    "seat_players": {str(k): v for k, v in sorted(seat_players.items())},
                    "events": [e.to_dict() for e in rnd.history],
                    "settled_at": time.time(),
                    "recovered": live.recovered,
                    "result": {"house_net": settled.house_net, "results": results, "fairness": fairness},
                },
            )
            # last: the money (locks the busy house, and the in-play and meter accounts if _at_locked_meters did
            # not, until the commit)
            ids, balances = ledger.post_all(c, postings)
            hit_seqs = self._record_hits(c, round_id, seat_players, [(ids[i], e) for i, e in hit_postings])
            untouched = sorted({accounts.wallets[r.seat] for r in settled.results} - set(balances))
            if untouched:
                balances.update(
                    (int(a), int(b)) for a, b in c.execute(_ACCOUNT_BALANCES, {"accounts": untouched})
                )
            c.execute(
                _INSERT_ROUND_PLAYERS,
                [
                    {
                        "round_id": round_id,
                        **r,
                        "balance_before": balances[accounts.wallets[r["seat"]]] - r["net"],
                        "balance_after": balances[accounts.wallets[r["seat"]]],
                    }
                    for r in results
                ],
            )
        if rnd is not live.rnd:
            self._adopt(rnd)
        live.settled = True
        names = {p.player_id: p.name for p in self.occupants.values()}
        live.result = {
            "type": "round_result",
            "round_id": live.round_id,
            "seq": len(rnd.history),
            "results": [{**r, "player": names.get(r["player_id"])} for r in results],
            "envy": [e.to_dict() for e in rnd.history if isinstance(e, EnvyPaid)],
            "jackpot_hits": [
                {**e.to_dict(), "hit_seq": seq} for (_, e), seq in zip(hit_postings, hit_seqs, strict=True)
            ],
            "meters": dict(self.engine.meters),
        }

    def _at_locked_meters(self, c: Any, rnd: Round, wallets: Iterable[int]) -> Round:
        """(In the settlement's transaction, before it writes.) Lock the linked meters the round contributed to
        or hit, read them as they stand and have the engine settle the round at those values (:func:`at_meters`).

        So the hits of all tables (threads, server processes) are paid one after the other, each the meter as
        the previous one left it: the second hit of the same instant is paid the reset plus its own
        contribution. With the meters, the other accounts of the settlement but the house (the round's wallets,
        the table's in-play account) are locked in the same statement, in the ledger's global order (highest id
        first, as :func:`~tablegames.server.ledger.post_all`); the house, the lowest id, is locked last by the
        postings: no two transactions wait for each other.
        """
        touched = sorted({e.meter for e in rnd.history if isinstance(e, JackpotContribution | JackpotHit)})
        if not touched:
            return rnd
        accounts = self.server.meter_accounts(self.game)
        values = ledger.lock_balances(c, [*(accounts[m] for m in touched), *wallets, self.in_play])
        return at_meters(rnd, {m: values[accounts[m]] for m in touched})

    def _record_hits(
        self, c: Any, round_id: int, seat_players: dict[int, int], hits: list[tuple[int, JackpotHit]]
    ) -> list[int]:
        """(In the settlement's transaction, under the meters' locks.) Number the round's hits in each meter's
        order of hits and store them with their ledger transactions; the numbers, in the order of ``hits``."""
        meter_ids = self.server.meter_ids(self.game)
        last: dict[str, int] = {}
        seqs = []
        for _, e in hits:
            if e.meter not in last:
                last[e.meter] = int(c.execute(_LAST_HIT, {"meter": meter_ids[e.meter]}).scalar() or 0)
            last[e.meter] += 1
            seqs.append(last[e.meter])
        if hits:
            stamp = time.time()
            c.execute(
                _INSERT_HITS,
                [
                    {
                        "meter_id": meter_ids[e.meter],
                        "seq": seq,
                        "round_id": round_id,
                        "transaction_id": tx_id,
                        "seat": e.seat,
                        "player_id": seat_players[e.seat],
                        "amount": e.amount,
                        "created_at": stamp,
                    }
                    for (tx_id, e), seq in zip(hits, seqs, strict=True)
                ],
            )
        return seqs

    def _adopt(self, rnd: Round) -> None:
        """(After the commit.) The round as the engine settled it at the locked meters replaces the one played
        (the same events but for the meter amounts, so what the clients were sent stays valid)."""
        live = self.live
        assert live is not None
        played = live.rnd
        self.engine.meters.update(rnd.table.meters)
        ended, was = rnd.history[-1], played.history[-1]
        if isinstance(ended, RoundEnded) and isinstance(was, RoundEnded):
            self.engine.house_net += ended.house_net - was.house_net
        rnd.table = self.engine
        self.engine.current = rnd
        live.rnd = rnd

    # --- timers -----------------------------------------------------------------------------------

    def _schedule(self) -> None:
        """Set the table's one timer to the next deadline (betting closes, a turn times out, a retry)."""
        live = self.live
        deadline: float | None = None
        if live is not None:
            rnd = live.rnd
            if rnd.phase == Phase.BETTING and rnd.active_seats and live.betting_deadline is not None:
                deadline = live.betting_deadline
            elif rnd.phase == Phase.DECIDING and rnd.to_act is not None:
                key = (rnd.round_no, rnd.to_act, len(rnd.history))
                if key != live.turn_key:
                    live.turn_key = key
                    live.turn_deadline = time.time() + self.server.config.turn_seconds
                deadline = live.turn_deadline
            elif rnd.is_over and not live.settled:
                deadline = time.time() + RETRY_SECONDS  # a settlement the database refused is retried
        self._on_loop(self._arm, deadline)

    def _on_loop(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on the event loop's thread (timers belong to it); nothing without a loop."""
        loop = self.server.loop
        if loop is not None and not loop.is_closed():
            _call_on(loop, fn, *args)

    def _arm(self, deadline: float | None) -> None:
        """(Event loop.) Replace the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadline is not None and self.server.loop is not None:
            self._timer = self.server.loop.call_later(max(0.0, deadline - time.time()), self._fire)

    def _fire(self) -> None:
        """(Event loop.) The timer is due: the step runs on the worker thread."""
        self._timer = None
        self._submit(self._on_timer)

    def _on_timer(self) -> None:
        """(Worker.) Close betting, time a turn out or retry a settlement, if it is still due."""
        live = self.live
        if live is None:
            return
        try:
            rnd = live.rnd
            now = time.time() + 0.005
            if rnd.is_over and not live.settled:
                self._after_step()
            elif (
                rnd.phase == Phase.BETTING
                and live.betting_deadline is not None
                and now >= live.betting_deadline
            ):
                self._deal()
            elif rnd.phase == Phase.DECIDING and live.turn_deadline is not None and now >= live.turn_deadline:
                seat = rnd.to_act
                if seat is not None:
                    self._apply_action(seat, DEFAULT_ACTIONS[self.game], "timeout")
                    self._after_step()
            else:
                self._schedule()
        except Exception:
            log.exception("timer step failed on table %s; retrying", self.table_id)
            self._on_loop(self._arm, time.time() + RETRY_SECONDS)

    # --- pushes -----------------------------------------------------------------------------------

    def meters_moved(self) -> None:
        """Another table of this game settled and its linked meters moved: push them here soon, not now.

        Pushes of several settlements within :data:`METER_PUSH_SECONDS` merge into one, and each table pushes at
        its own moment on its own thread, so one settlement never holds the server up with a push to every
        table of its game. (Called from the settling table's thread.)
        """
        if self.server.loop is None:
            self._changed()  # driven synchronously: one thread, push now
            return
        self._on_loop(self._plan_meter_push)

    def _plan_meter_push(self) -> None:
        """(Event loop.)"""
        if self._meter_push is not None or self.server.loop is None:
            return
        delay = METER_PUSH_SECONDS * (1 + (self.table_id % 8) / 8)
        self._meter_push = self.server.loop.call_later(delay, self._fire_meter_push)

    def _fire_meter_push(self) -> None:
        """(Event loop.)"""
        self._meter_push = None
        self._submit(self._push_meters)

    def _push_meters(self) -> None:
        """(Worker.)"""
        try:
            self._changed()
        except Exception:
            log.exception("meter push failed on table %s", self.table_id)

    def _changed_soon(self) -> None:
        """A wager while the others are still betting: the timer is set now, and the table gets one ``state``
        within :data:`BETTING_PUSH_SECONDS` for all the wagers placed meanwhile (the wager itself was acked)."""
        if self.server.loop is None:
            self._changed()  # driven synchronously: push now
            return
        self._schedule()
        if not self._push_pending:
            self._push_pending = True
            self._on_loop(self._plan_push)

    def _plan_push(self) -> None:
        """(Event loop.)"""
        if self.server.loop is not None:
            self.server.loop.call_later(BETTING_PUSH_SECONDS, self._submit, self._flush_push)

    def _flush_push(self) -> None:
        """(Worker.) The merged push, unless a full one went out meanwhile."""
        if self._push_pending:
            self._changed()

    def _changed(self) -> None:
        self._push_pending = False  # this push covers any merged one still planned
        self._schedule()  # first: it sets the turn deadline the states show
        self._meters_shown = self._live_meters()
        self._balances_shown = self._balances()
        self._views_shown = {}
        try:
            for c in list(self.conns):
                self._push(c)
        finally:
            self._meters_shown = None
            self._balances_shown = None
            self._views_shown = None

    def _balances(self) -> dict[int, int]:
        """Wallet balances of every connected player (account id -> cents), from the server's cache."""
        return self.server.balances(c.player.account_id for c in self.conns)

    def _live_meters(self) -> dict[str, int]:
        """The linked meters as they stand (every table's settled contributions, plus this round's own)."""
        if not self.engine.meters:
            return {}
        live = self.live
        if live is not None and live.rnd.phase == Phase.DECIDING:
            return dict(self.engine.meters)
        return self.server.meter_values(self.game)

    def deadline(self) -> float | None:
        live = self.live
        if live is None:
            return None
        if live.rnd.phase == Phase.BETTING and live.rnd.active_seats:
            return live.betting_deadline
        if live.rnd.phase == Phase.DECIDING:
            return live.turn_deadline
        return None

    def state_for(self, conn: Connection) -> dict[str, Any]:
        """The ``state`` message for this client: built only from the engine's view for its seat."""
        seat = self.seat_of(conn.player.player_id)
        live = self.live
        view = None
        events: list[dict[str, Any]] = []
        seq = 0
        if live is not None:
            rnd = live.rnd
            views = self._views_shown
            if views is not None and seat in views:
                view = views[seat]
            else:
                view = rnd.view(seat)
                if views is not None:
                    views[seat] = view
            seq = len(rnd.history)
            if conn.round_key != rnd.round_no:
                conn.round_key = rnd.round_no
                conn.sent = 0
            events = rnd.visible_history(seat, conn.sent)  # the engine's rule of what the seat sees
            conn.sent = seq
        deadline = self.deadline()
        upcoming = self._upcoming_pf()
        return {
            "type": "state",
            "table_id": self.table_id,
            "round_id": live.round_id if live else None,
            "seq": seq,
            "seat": seat,
            "balance": (
                self._balances_shown[conn.player.account_id]
                if self._balances_shown is not None and conn.player.account_id in self._balances_shown
                else self.server.balance(conn.player)
            ),
            "occupants": {str(k): p.name for k, p in sorted(self.occupants.items())},
            "betting_open": live is None or live.rnd.is_over or live.rnd.phase == Phase.BETTING,
            "deadline": deadline,
            "seconds_left": None if deadline is None else max(0.0, round(deadline - time.time(), 3)),
            "meters": dict(self._meters_shown if self._meters_shown is not None else self._live_meters()),
            "commitment": live.pf.commitment if live is not None and live.pf is not None else None,
            "next_commitment": upcoming.commitment if upcoming is not None else None,
            "client_seed": self.client_seeds.get(conn.player.player_id),
            "decision": self.decision_id(),
            "round": view,
            "events": events,
        }

    def _push(self, conn: Connection) -> None:
        conn.send(self.state_for(conn))
        live = self.live
        seat = self.seat_of(conn.player.player_id)
        if conn.hints and live is not None and seat is not None and live.rnd.to_act == seat:
            key = (live.rnd.round_no, len(live.rnd.history))
            if conn.last_hint != key:
                conn.last_hint = key
                conn.send(hint_message(live.rnd, seat, live.round_id))

    # --- recovery ---------------------------------------------------------------------------------

    def _move_shared_stakes(self) -> None:
        """A database from before tables had their own in-play account keeps the stakes of the open rounds in
        the shared one: move them to this table's account before the rounds are settled from it."""
        shared = self.server.system[IN_PLAY]
        open_rounds = select(RoundRow.id).where(
            RoundRow.table_id == self.table_id, RoundRow.status.in_([BETTING, DECIDING])
        )
        with self.server.tx() as s:
            amount = int(
                s.scalar(
                    select(func.coalesce(func.sum(Entry.amount), 0))
                    .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
                    .where(Entry.account_id == shared, LedgerTransaction.round_id.in_(open_rounds))
                )
                or 0
            )
            if amount > 0:
                ledger.transfer(
                    s,
                    "in-play",
                    shared,
                    self.in_play,
                    amount,
                    memo=f"table {self.table_id}: stakes of open rounds",
                )
                log.warning(
                    "moved %s cents of open stakes to table %s's in-play account", amount, self.table_id
                )

    def recover(self) -> None:
        """Rebuild every unfinished round of this table from its stored steps, finish it by the timeout
        defaults and settle it (exactly once)."""
        self._move_shared_stakes()
        with self.server.sessions() as s:
            rows = list(
                s.scalars(
                    select(RoundRow)
                    .where(RoundRow.table_id == self.table_id, RoundRow.status.in_([BETTING, DECIDING]))
                    .order_by(RoundRow.id)
                )
            )
            steps = {
                r.id: [
                    st.payload
                    for st in s.scalars(
                        select(RoundStep).where(RoundStep.round_id == r.id).order_by(RoundStep.seq)
                    )
                ]
                for r in rows
            }
        last_no = self.engine.round_no
        for row in rows:
            self.engine.current = None
            self.engine.round_no = row.round_no - 1
            rnd = self.engine.new_round(deck=row.deck)
            live = Live(
                rnd,
                round_id=row.id,
                # from the wager steps (the row has it only once the cards were dealt)
                seat_players={
                    int(st["seat"]): int(st["player_id"]) for st in steps[row.id] if st["op"] == "wager"
                },
                steps=len(steps[row.id]),
                recovered=True,
            )
            self.live = live
            for step in steps[row.id]:
                op = step["op"]
                if op == "seeds":
                    live.client_seeds = [(int(seat), str(seed)) for seat, seed in step["seeds"]]
                elif op == "wager":
                    rnd.place_wager(step["seat"], step["wager"], step["amount"], step.get("option"))
                elif op == "deal":
                    self._refresh_meters()
                    rnd.deal()
                elif op == "act":
                    self._refresh_meters()
                    rnd.act(step["seat"], step["action"], by=step["by"])
            if not rnd.active_seats:
                with self.server.tx() as s:
                    s.execute(update(RoundRow).where(RoundRow.id == row.id).values(status=VOID))
                continue
            if rnd.phase == Phase.BETTING:
                self._refresh_meters()
                self._persist_step({"op": "deal"}, status=DECIDING)
                rnd.deal()
            while not rnd.is_over:
                seat = rnd.to_act
                assert seat is not None
                self._apply_action(seat, DEFAULT_ACTIONS[self.game], "timeout")
            self._settle()
            log.warning("recovered round %s of table %s", row.id, self.table_id)
        self.engine.round_no = max(last_no, self.engine.round_no)

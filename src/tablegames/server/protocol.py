"""The WebSocket protocol of a table: its message handlers."""

from __future__ import annotations

import copy
import logging
from typing import Any, ClassVar

from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from tablegames.engine import IllegalAction, Phase
from tablegames.engine.events import ActionTaken
from tablegames.randomness.client_seeds import SeedError, check_seed_hash
from tablegames.randomness.fairness import check_player_seed
from tablegames.server.checks import check_request_id, idempotency_key
from tablegames.server.client import (
    _SOCKETS_LOCK,
    CLOSE_REPLACED,
    CLOSE_TABLE_FULL,
    MAX_SOCKETS_PER_PLAYER,
    MAX_SOCKETS_PER_PLAYER_TABLE,
    MAX_SOCKETS_PER_TABLE,
    Connection,
    redirect,
)
from tablegames.server.cluster import LeaseLost
from tablegames.server.db import (
    Seating,
)
from tablegames.server.errors import ApiError, from_engine
from tablegames.server.outage import database_unreachable, unavailable
from tablegames.server.push import Pusher
from tablegames.server.settle import Settler
from tablegames.server.state import TableState
from tablegames.server.steps import RoundSteps
from tablegames.server.store import StepStore
from tablegames.server.tables import clear_seat
from tablegames.server.threads import on_any, on_worker
from tablegames.server.wire import decode

log = logging.getLogger("tablegames.server")

IDEMPOTENT = frozenset({"sit", "leave", "wager", "act", "client_seed"})  # the state-changing messages
# Those whose stored answer is looked up only once the message fails (a refusal, or its answer's key already
# stored: the transaction writing it rolls back): their answer's key is written in the transaction of their
# change, so one taken before (a restart, a takeover) never lets the change happen twice; the common case costs no
# read.
LOOKED_UP_ON_FAILURE = frozenset({"wager", "act"})
SPECTATOR_MAY = frozenset({"ping"})  # all a spectator's socket may send (issue 24)


class Protocol:
    """The WebSocket protocol of one table (docs/protocol.md): sockets attached and bounded, each message
    handled (refusals are ``error`` messages and change nothing), answers kept for repeated request ids."""

    def __init__(
        self, state: TableState, store: StepStore, steps: RoundSteps, settler: Settler, pusher: Pusher
    ) -> None:
        self.state = state
        self.store = store
        self.steps = steps
        self.settler = settler
        self.pusher = pusher

    @on_worker
    def attach(self, conn: Connection) -> None:
        # the tables attach on their own threads: one count of a player's sockets at a time
        with _SOCKETS_LOCK:
            if not self._make_room(conn):
                return
            # copy-on-write: the loop's thread reads the list too (closed ones left by a racing detach go now)
            self.state.conns = [*(c for c in self.state.conns if not c.gone), conn]
        cfg = self.state.server.config
        conn.send(
            {
                "type": "welcome",
                "player": {"player_id": conn.player.player_id, "name": conn.player.name},
                "table": self.state.info(),
                "seat": self.state.seat_of(conn.player.player_id),
                "balance": self.state.server.balance(conn.player),
                "betting_seconds": cfg.betting_seconds,
                "turn_seconds": cfg.turn_seconds,
            }
        )
        self.pusher.push(conn)
        self.pusher.timers.schedule()  # (practice bots paused at a table nobody watched go on: server/bots.py)

    @on_worker
    def _make_room(self, conn: Connection) -> bool:
        """Bound the sockets (per player here and overall, per table): close the player's oldest beyond
        :data:`MAX_SOCKETS_PER_PLAYER_TABLE` / :data:`MAX_SOCKETS_PER_PLAYER` (``4409``); at a table with
        :data:`MAX_SOCKETS_PER_TABLE` sockets a seated player's new socket replaces an onlooker's oldest, an
        onlooker's is refused (``4503``). False when ``conn`` itself was refused."""
        pid = conn.player.player_id
        live = [c for c in self.state.conns if not c.gone]
        if len(live) >= MAX_SOCKETS_PER_TABLE:
            seated = {p.player_id for p in self.state.occupants.values()}
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
        if conn.player.spectator:  # one of many: the table's bound alone (and the connections' per address)
            return True
        mine = [c for c in live if c.player.player_id == pid]
        for old in mine[: max(0, len(mine) - MAX_SOCKETS_PER_PLAYER_TABLE + 1)]:
            self._close_with(old, CLOSE_REPLACED, "replaced", "a newer socket of yours opened at this table")
        anywhere = [
            c
            for runner in list(self.state.server.runners.values())
            for c in runner.conns
            if c.player.player_id == pid and not c.gone
        ]
        anywhere.sort(key=lambda c: c.opened)
        for old in anywhere[: max(0, len(anywhere) - MAX_SOCKETS_PER_PLAYER + 1)]:
            self._close_with(old, CLOSE_REPLACED, "replaced", "a newer socket of yours opened")
        return True

    @on_worker
    def _close_with(self, conn: Connection, close_code: int, code: str, message: str) -> None:
        """Tell the client why, then close its socket with ``close_code`` (its own handler detaches it)."""
        conn.send({"type": "error", "code": code, "message": message, "request_id": None})
        conn.close(close_code)
        self.state.conns = [c for c in self.state.conns if c is not conn]

    @on_any
    def detach(self, conn: Connection) -> None:
        """The socket closed (its handler's thread: the loop)."""
        self.state.conns = [c for c in self.state.conns if c is not conn]
        conn.close()

    @on_worker
    def handle(self, conn: Connection, text: str | bytes) -> None:
        """Handle one client message; every refusal is an ``error`` message and changes nothing."""
        rid: str | None = None
        if self.state.moved_to is not None:  # another process serves this table now (cluster.py)
            redirect(conn, self.state.table_id, self.state.moved_to)
            return
        try:
            if len(text) > self.state.server.config.max_message_bytes:
                raise ApiError(
                    "bad_message", f"message larger than {self.state.server.config.max_message_bytes} bytes"
                )
            try:
                msg = decode(text)
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
            if conn.player.spectator and kind not in SPECTATOR_MAY:
                raise ApiError("spectator", "spectators watch only: register (POST /players) to sit and play")
            if not conn.player.spectator:  # the player's session goes on (issue 26)
                self.state.server.player_sessions.touch(conn.player)
            if kind in IDEMPOTENT and rid is not None:
                pid = conn.player.player_id
                old = self.store.remembered(pid, rid)
                if old is None and kind not in LOOKED_UP_ON_FAILURE:
                    # not answered by this process (yet): answered before a restart or a takeover, or forgotten
                    old = self.store.stored_answer(pid, rid)
                    if old is not None:
                        self.store.remember(pid, old)
                if old is not None:  # a repeated request id: the first answer again, nothing changes
                    conn.send({**old, "duplicate": True})
                    return
                if kind in LOOKED_UP_ON_FAILURE:
                    self._first_or_stored(handler, conn, msg, kind, rid)
                    return
            handler(self, conn, msg)
        except ApiError as exc:
            conn.send({"type": "error", **exc.to_dict(), "request_id": rid})
        except LeaseLost:  # nothing was written: the client is sent to the new owner, and retries there
            if self.state.server.cluster.kept(
                self.state.table_id
            ):  # still this node's (a database outage, issue 20)
                conn.send(unavailable(rid))
                return
            conn.send(
                {
                    "type": "error",
                    "code": "moved",
                    "message": "this table is served by another process now; nothing was changed",
                    "request_id": rid,
                }
            )
            self.state.server.cluster.lose(self.state.table_id, check=False)
        except IllegalAction as exc:
            conn.send({"type": "error", **from_engine(exc).to_dict(), "request_id": rid})
        except SQLAlchemyError as exc:
            if database_unreachable(exc):  # an outage (issue 20): one line, and the client retries
                log.warning(
                    "table %s: the database cannot be reached (%s)", self.state.table_id, type(exc).__name__
                )
                conn.send(unavailable(rid))
                return
            log.exception("database error on table %s", self.state.table_id)
            conn.send(
                {
                    "type": "error",
                    "code": "server_error",
                    "message": "the database refused the request; nothing was changed",
                    "request_id": rid,
                }
            )
        except Exception:
            log.exception("unexpected error on table %s", self.state.table_id)
            conn.send(
                {"type": "error", "code": "server_error", "message": "internal error", "request_id": rid}
            )

    @on_worker
    def _first_or_stored(
        self, handler: Any, conn: Connection, msg: dict[str, Any], kind: str, rid: str
    ) -> None:
        """Handle a wager or an act (:data:`LOOKED_UP_ON_FAILURE`) whose request id this process has not answered;
        when it fails, the answer stored under its request id (before a restart or a takeover), if any, is the
        answer instead (as if looked up first: a repeated request id changes nothing)."""
        try:
            handler(self, conn, msg)
        except (ApiError, IllegalAction, IntegrityError):
            try:
                check_request_id(rid, required=True)
            except ApiError:
                valid = False  # never stored (it was refused)
            else:
                valid = True
            if not valid:
                raise
            pid = conn.player.player_id
            if kind == "wager":
                old = self.store.stored(pid, idempotency_key(f"wager:{self.state.table_id}", rid))
            else:
                old = self.store.stored_answer(pid, rid)
            if old is None:
                raise
            self.store.remember(pid, old)
            conn.send({**old, "duplicate": True})

    @on_worker
    def _ack(self, conn: Connection, kind: str, msg: dict[str, Any], **fields: Any) -> None:
        self._send_ack(conn, self._answer(kind, msg, **fields))

    @staticmethod
    @on_any
    def _answer(kind: str, msg: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """The ``ack`` answering ``msg`` (built before its change is stored: it is stored with it)."""
        rid = msg.get("request_id") if isinstance(msg.get("request_id"), str) else None
        ack = {"type": "ack", "request_id": rid, "for": kind, **fields}
        if kind in IDEMPOTENT:
            ack.setdefault("duplicate", False)
        return ack

    @on_worker
    def _send_ack(self, conn: Connection, ack: dict[str, Any]) -> None:
        if ack["for"] in IDEMPOTENT:
            self.store.remember(conn.player.player_id, ack)
        conn.send(ack)

    # --- handlers ---------------------------------------------------------------------------------

    @on_worker
    def on_ping(self, conn: Connection, msg: dict[str, Any]) -> None:
        conn.send(
            {
                "type": "pong",
                "request_id": msg.get("request_id") if isinstance(msg.get("request_id"), str) else None,
            }
        )

    @on_worker
    def on_state(self, conn: Connection, msg: dict[str, Any]) -> None:
        conn.round_key = None  # resend the round's events from the start
        self.pusher.push(conn)

    @on_worker
    def on_hints(self, conn: Connection, msg: dict[str, Any]) -> None:
        on = msg.get("on")
        if not isinstance(on, bool):
            raise ApiError("bad_message", "hints needs 'on': true or false")
        conn.hints = on
        conn.last_hint = None
        self._ack(conn, "hints", msg, on=on)
        self.pusher.push(conn)

    @on_worker
    def on_sit(self, conn: Connection, msg: dict[str, Any]) -> None:
        check_request_id(msg.get("request_id"), required=False)
        pid = conn.player.player_id
        self.state.server.protection.check_play(conn.player)  # not on a break nor self-excluded (issue 26)
        if self.state.seat_of(pid) is not None:
            raise ApiError(
                "already_seated", f"you already sit at seat {self.state.seat_of(pid)} of this table"
            )
        seat = msg.get("seat")
        n = self.state.row.seats
        busy = set(self.state.occupants)
        if self.state.live is not None and not self.state.live.rnd.is_over:
            busy |= {s.seat for s in self.state.live.rnd.active_seats}
        if seat is None:
            free = [i for i in range(1, n + 1) if i not in busy]
            if not free:
                raise ApiError("seat_taken", "the table is full")
            seat = free[0]
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= n:
            raise ApiError("bad_seat", f"no seat {seat!r} at this table (seats 1-{n})")
        elif seat in busy:
            raise ApiError("seat_taken", f"seat {seat} is taken")
        ack = self._answer("sit", msg, seat=seat)
        try:
            with self.store.tx() as s:
                s.add(Seating(table_id=self.state.table_id, seat=seat, player_id=pid))
                s.flush()  # (a taken seat fails here, before the answer is stored)
                self.store.store_answer(s, pid, ack)
        except IntegrityError:
            raise ApiError("seat_taken", f"seat {seat} is taken") from None
        self.state.occupants = {
            **self.state.occupants,
            seat: conn.player,
        }  # copy-on-write (info() reads it from the loop)
        self._send_ack(conn, ack)
        self.pusher.changed()

    @on_worker
    def on_leave(self, conn: Connection, msg: dict[str, Any]) -> None:
        seat = self.state.seat_of(conn.player.player_id)
        if seat is None:
            raise ApiError("not_seated", "you do not sit at this table")
        live = self.state.live
        if live is not None and not live.rnd.is_over and live.rnd.seats[seat].playing:
            raise ApiError("in_round", f"seat {seat} has wagers in play; leave after the round")
        ack = self._answer("leave", msg, seat=seat)
        with self.store.tx() as s:
            clear_seat(s, self.state.table_id, conn.player.player_id)
            self.store.store_answer(s, conn.player.player_id, ack)
        self.state.occupants = {k: p for k, p in self.state.occupants.items() if k != seat}
        self._send_ack(conn, ack)
        if (
            live is not None
            and live.rnd.phase == Phase.BETTING
            and live.rnd.active_seats
            and all(live.rnd.seats[k].playing for k in self.state.occupants)
        ):
            self.steps.deal()  # the last seated player who had not wagered left: everyone left is in
        else:
            self.pusher.changed()

    @on_worker
    def on_wager(self, conn: Connection, msg: dict[str, Any]) -> None:
        rid = check_request_id(msg.get("request_id"), required=True)
        assert rid is not None
        player = conn.player
        key = idempotency_key(f"wager:{self.state.table_id}", rid)  # (looked up if it fails: handle())
        seat = self.state.seat_of(player.player_id)
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
        live = self.state.live
        if live is not None and live.rnd.is_over and not live.settled:
            self.settler.settle()  # a settlement that failed earlier is retried before anything else
        if live is not None and not live.rnd.is_over:
            self.steps.place(conn, live, seat, rid, key, wagers, options)
            return
        # A new round opens only when this wager is placed: a refused wager leaves the table as it was.
        opened = self.steps.new_live()
        try:
            self.steps.place(conn, opened, seat, rid, key, wagers, options)
        except BaseException:
            if self.state.live is not opened:
                self.state.engine.withdraw(opened.rnd)
            raise

    @on_worker
    def on_act(self, conn: Connection, msg: dict[str, Any]) -> None:
        check_request_id(msg.get("request_id"), required=False)
        seat = self.state.seat_of(conn.player.player_id)
        if seat is None:
            raise ApiError("not_seated", "you do not sit at this table")
        if "seat" in msg and msg["seat"] != seat:
            raise ApiError("not_your_turn", f"seat {msg['seat']!r} is not yours (you sit at seat {seat})")
        decision = msg.get("decision")
        if decision is not None and (not isinstance(decision, str) or not 1 <= len(decision) <= 64):
            raise ApiError("bad_message", "decision must be the state's decision id (a string)")
        answered = self.state.decided.get(decision) if decision is not None else None
        if answered is not None:
            # a repeated or stale decision (another socket, a retry, a timeout took it): nothing changes
            by_seat, event = answered
            if by_seat != seat:
                raise ApiError("not_your_turn", f"decision {decision} was seat {by_seat}'s, not yours")
            self._ack(conn, "act", msg, decision=decision, event=event, duplicate=True)
            return
        live = self.state.live
        if live is None or live.rnd.phase != Phase.DECIDING:
            raise ApiError("wrong_phase", "there is no decision to take now")
        text = msg.get("action")
        if not isinstance(text, str):
            raise ApiError("bad_message", "act needs 'action', e.g. \"stand\"")
        # the engine's rule (whose turn, which actions are legal now): typed errors, nothing changed
        action = live.rnd.verify_act(seat, text)
        current = self.state.decision_id()
        if decision is None:
            raise ApiError(
                "bad_message", f"act needs 'decision': the id of the decision it answers ({current})"
            )
        if decision != current:
            raise ApiError("stale_decision", f"decision {decision!r} is not open; the open one is {current}")
        # the answer, stored with the decision (the engine's event of it: ActionTaken(seat, action, by))
        ack = self._answer(
            "act", msg, decision=decision, event=ActionTaken(seat, str(action), "player").to_dict()
        )
        event = self.steps.apply_action(seat, action, "player", answer=(conn.player.player_id, ack))
        self._send_ack(conn, {**ack, "event": event.to_dict()})
        self.steps.after_step(seat)

    @on_worker
    def on_client_seed(self, conn: Connection, msg: dict[str, Any]) -> None:
        """Commit to, or reveal, the player's seed for the next round (docs/protocol.md, "Client seeds").

        The message names the commitment it answers (the state's ``next_commitment``): the server seed of that
        round was fixed and published before any seed was taken. Once that round was dealt (opened), the
        commitment is no longer the next one and the message is refused (``stale_commitment``), nothing changed.

        A seed is committed first (``seed_hash``: its SHA-256) and revealed later (``seed``); the first reveal
        closes the round's commitments (``seeds_closed``), so no seat can choose its seed after seeing another's
        (issue 20 defect 3; :mod:`tablegames.randomness.client_seeds`).
        """
        check_request_id(msg.get("request_id"), required=False)
        upcoming = self.state.upcoming_pf()
        if upcoming is None:
            raise ApiError("not_provably_fair", "this table does not deal provably fair rounds")
        has_hash, has_seed = "seed_hash" in msg, "seed" in msg
        if has_hash == has_seed:
            raise ApiError(
                "bad_message",
                "client_seed needs either 'seed_hash' (commit: the SHA-256 of your seed) or 'seed' (reveal it, "
                "after every seat committed)",
            )
        try:
            hashed = check_seed_hash(msg["seed_hash"]) if has_hash else None
            seed = check_player_seed(msg["seed"]) if has_seed else None
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
        if self.state.seat_of(pid) is None:  # a watcher's reveal would close the seated players' commitments
            raise ApiError("not_seated", "only a seated player gives a client seed: sit first")
        book = self.state.seed_round
        before = copy.deepcopy(book)
        try:
            position = book.commit(pid, hashed) if hashed is not None else book.reveal(pid, seed or "")
        except SeedError as exc:
            raise ApiError(exc.code, exc.message) from None
        mine = book.of(pid)
        assert mine is not None
        ack = self._answer(
            "client_seed",
            msg,
            seed_hash=mine[0],
            seed=seed,
            position=position,
            commitment=upcoming.commitment,
            round_no=self.state.engine.round_no + 1,
        )
        if ack["request_id"] is not None:  # the answer stored with it: a refused write changes nothing
            try:
                with self.store.write() as db:
                    self.store.store_answer(db, pid, ack)
            except BaseException:
                self.state.seed_round = before
                raise
        self._send_ack(conn, ack)
        for c in list(self.state.conns):  # everyone sees who committed, and when commitments close
            self.pusher.push(c)

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

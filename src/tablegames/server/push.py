"""A table's timers and pushes: one timer per table on the event loop, and the ``state`` message of each
socket built from the engine's view and visible history for its seat."""

from __future__ import annotations

import logging
import time
from typing import Any

from tablegames.engine import Phase
from tablegames.randomness import (
    ProvablyFair,
)
from tablegames.randomness.client_seeds import SeedRound
from tablegames.server.client import (
    Connection,
)
from tablegames.server.hints import hint_message
from tablegames.server.inbox import TableCore

log = logging.getLogger("tablegames.server")

BETTING_PUSH_SECONDS = 0.15  # wagers placed within this time share one state push to the table
METER_PUSH_SECONDS = 0.2  # linked meters moved by another table's settlement are pushed within 0.2-0.4 s
RETRY_SECONDS = 1.0  # a timer step (deal, timeout, settlement) that failed, e.g. database down, is retried


class Pushes(TableCore):
    """Timers (betting closes, a turn times out, a retry) and the ``state`` messages pushed to the sockets."""

    def _on_timer(self) -> None:
        """(Worker.) The timer's step (:class:`~tablegames.server.steps.Steps`)."""
        raise NotImplementedError

    def _refresh_meters(self) -> None:
        """(Worker.) The engine's linked meters = the committed values + this round's own (``Steps``)."""
        raise NotImplementedError

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

    def _arm(self, deadline: float | None) -> None:
        """(Event loop.) Replace the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadline is not None and self.server.loop is not None and self.moved_to is None:
            self._timer = self.server.loop.call_later(max(0.0, deadline - time.time()), self._fire)

    def _fire(self) -> None:
        """(Event loop.) The timer is due: the step runs on the worker thread."""
        self._timer = None
        self._submit(self._on_timer)

    def _upcoming_pf(self) -> ProvablyFair | None:
        """The next round's provably fair server seed (made now if needed; its commitment is in every state as
        ``next_commitment``), or None when the table deals from a test source."""
        cfg = self.server.config
        if cfg.deck_factory is not None or cfg.source_factory is not None:
            return None
        if self._next_pf is None:
            self._next_pf = ProvablyFair(nonce=self.engine.round_no + 1)
            self.seed_round = SeedRound()  # a new commitment: its seeds are committed and revealed anew
        return self._next_pf

    def _seeds_view(self, player_id: int, fair: bool) -> dict[str, Any]:
        """The next round's client seeds as a player sees them (docs/protocol.md, "Client seeds"): their own
        (``client_seed``: hash and, once revealed, seed) and every seated player's commitment (``seeds``)."""
        if not fair:
            return {"client_seed": None, "seeds": None}
        book = self.seed_round
        mine = book.of(player_id)
        return {
            "client_seed": None if mine is None else {"seed_hash": mine[0], "seed": mine[1]},
            "seeds": {
                "closed": book.closed,
                "committed": [
                    {"seat": e.seat, "seed_hash": e.seed_hash, "revealed": e.seed is not None}
                    for e in book.entries({seat: p.player_id for seat, p in self.occupants.items()})
                ],
            },
        }

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
        """(Worker.) Mid-round too: the engine's meters are brought up to the committed values (plus this round's
        own contributions) first, as before a step, so another table's settlement shows during a turn."""
        try:
            self._refresh_meters()
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
            **self._seeds_view(conn.player.player_id, upcoming is not None),
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
                conn.send(hint_message(live.rnd, seat, live.round_id, decision=self.decision_id()))

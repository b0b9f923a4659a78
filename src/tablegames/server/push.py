"""A table's timers and pushes: one timer per table on the event loop (:class:`Timers`), and the ``state``
message of each socket built from the engine's view and visible history for its seat (:class:`Pusher`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from tablegames.engine import Phase, Round
from tablegames.engine.view import round_views, seen_whole, seen_whole_by_all
from tablegames.randomness import ProvablyFair, ServerSeed
from tablegames.server.client import Connection, send_all
from tablegames.server.hints import hint_message
from tablegames.server.inbox import Inbox
from tablegames.server.state import Live, TableState
from tablegames.server.threads import on_any, on_loop, on_worker
from tablegames.server.wire import encode, encode_bytes, encode_strict, splice, splice_encoded

log = logging.getLogger("tablegames.server")


class _Parts:
    """One push's parts encoded once: each seat's view; each (seat, first event) run of events, from the
    round's events encoded once as each seat sees them (``texts``, kept for the round)."""

    def __init__(self, views: dict[int | None, dict[str, Any]], texts: dict[tuple[int, bool], bytes]) -> None:
        self.views = views
        self.texts = texts
        self._views: dict[int | None, bytes] = {}
        self._events: dict[tuple[int | None, int], bytes] = {}
        self._runs: dict[int, list[bytes | None]] = {}  # first event -> those every viewer sees whole
        self._shared: dict[int, bytes] = {}  # first event -> the run, when every viewer sees it whole

    def view(self, seat: int | None) -> bytes:
        known = self._views.get(seat)
        if known is None:
            known = self._views[seat] = encode_strict(self.views[seat])
        return known

    def events(self, rnd: Round, seat: int | None, start: int) -> bytes:
        """The events from ``start`` on as ``seat`` sees them: those every viewer sees whole are looked up
        once per push (and a run of only those is shared by every seat), the others once per seat."""
        known = self._events.get((seat, start))
        if known is not None:
            return known
        run = self._runs.get(start)
        if run is None:
            run = self._runs[start] = [
                self._text(rnd, i, True) if everyone else None
                for i, everyone in enumerate(seen_whole_by_all(rnd, start), start)
            ]
        if None in run:
            whole = seen_whole(rnd, seat, start)
            texts = [
                text if text is not None else self._text(rnd, i, whole[i - start])
                for i, text in enumerate(run, start)
            ]
            known = self._events[(seat, start)] = b"[" + b",".join(texts) + b"]"
        else:
            known = self._shared.get(start)
            if known is None:
                known = self._shared[start] = b"[" + b",".join(t for t in run if t is not None) + b"]"
            self._events[(seat, start)] = known
        return known

    def _text(self, rnd: Round, i: int, whole: bool) -> bytes:
        """Event ``i`` as a seat that sees it whole, or not, sees it (``Round.visible_history``'s)."""
        text = self.texts.get((i, whole))
        if text is None:
            e = rnd.history[i]
            text = self.texts[(i, whole)] = encode_strict(e.to_dict() if whole else e.redacted())
        return text


BETTING_PUSH_SECONDS = 0.15  # wagers placed within this time share one state push to the table
# while a round is decided, the sockets of the seats a decision does not concern (it was not theirs, the next turn is
# not theirs: the other players, the onlookers) get one state for the decisions made within this time
DECISION_PUSH_SECONDS = 0.1
METER_PUSH_SECONDS = 0.2  # linked meters moved by another table's settlement are pushed within 0.2-0.4 s
RETRY_SECONDS = 1.0  # a timer step (deal, timeout, settlement) that failed, e.g. database down, is retried


class Timers:
    """The table's one timer (betting closes, a turn times out, a retry), owned by the event loop's thread;
    when it is due, ``due`` (the round's timer step, :meth:`~tablegames.server.steps.RoundSteps.on_timer`)
    runs in the inbox."""

    def __init__(self, state: TableState, inbox: Inbox, due: Callable[[], None]) -> None:
        self.state = state
        self.inbox = inbox
        self.due = due
        # another deadline the table's one timer keeps (the practice bots' next move: server/bots.py)
        self.extra: Callable[[], float | None] = lambda: None
        self._timer: asyncio.TimerHandle | None = None  # owned by the event loop's thread
        # the deadline last handed to :meth:`arm` by :meth:`schedule`; None once the timer may differ from it
        # (it fired, was stopped, or a retry replaced it)
        self._asked: tuple[float | None] | None = None

    @on_worker
    def schedule(self) -> None:
        """Set the table's one timer to the next deadline (betting closes, a turn times out, a retry)."""
        live = self.state.live
        deadline: float | None = None
        if live is not None:
            rnd = live.rnd
            if rnd.phase == Phase.BETTING and rnd.active_seats and live.betting_deadline is not None:
                deadline = live.betting_deadline
            elif rnd.phase == Phase.DECIDING and rnd.to_act is not None:
                deadline = self.state.turn_deadline()
            elif rnd.is_over and not live.settled:
                deadline = time.time() + RETRY_SECONDS  # a settlement the database refused is retried
        other = self.extra()
        if other is not None and (deadline is None or other < deadline):
            deadline = other
        asked = (deadline,)
        if (
            asked == self._asked
            and (deadline is None or deadline > time.time())
            and self.state.server.loop is not None
        ):
            return  # (the timer is set to it already: every push of a turn or of the betting asks the same)
        self._asked = asked
        self.inbox.to_loop(self.arm, deadline)

    @on_any
    def retry(self) -> None:
        """The timer step failed (the database, a lease in doubt): it is tried again in :data:`RETRY_SECONDS`."""
        self._asked = None
        self.inbox.to_loop(self.arm, time.time() + RETRY_SECONDS)

    @on_loop
    def arm(self, deadline: float | None) -> None:
        """Replace the timer."""
        self._cancel()
        loop = self.state.server.loop
        if deadline is not None and loop is not None and self.state.moved_to is None:
            self._timer = loop.call_later(max(0.0, deadline - time.time()), self._fire)

    @on_loop
    def _fire(self) -> None:
        """The timer is due: the step runs in the inbox."""
        self._timer = None
        self._asked = None
        self.inbox.submit(self.due)

    @on_loop
    def stop(self) -> None:
        self._asked = None
        self._cancel()

    @on_loop
    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Pusher:
    """The ``state`` messages pushed to the table's sockets: at once after a step, merged while the players bet
    (:data:`BETTING_PUSH_SECONDS`) and, for the sockets a decision does not concern, while they decide
    (:data:`DECISION_PUSH_SECONDS`), and soon after another table moved the linked meters."""

    def __init__(self, state: TableState, inbox: Inbox, timers: Timers) -> None:
        self.state = state
        self.inbox = inbox
        self.timers = timers
        self._meter_push: asyncio.TimerHandle | None = None  # owned by the event loop's thread
        self._push_pending = False  # a merged state push is planned (betting)
        # sockets a decision's push left out (:meth:`decided`), to push soon
        self._owed: set[Connection] = set()
        self._owed_planned = False  # their push is planned
        self._meters_shown: dict[str, int] | None = None
        self._balances_shown: dict[int, int] | None = None
        self._views_shown: dict[int | None, dict[str, Any]] | None = None  # per push cycle: seat -> view
        self._texts_of: Round | None = None  # the round of _texts
        self._commitments: dict[int, tuple[ServerSeed, str]] = {}  # id(server seed) -> (it, its commitment)
        self._texts: dict[tuple[int, bool], bytes] = {}  # its events encoded (:meth:`_event_texts`)

    @on_any
    def meters_moved(self) -> None:
        """Another table of this game settled and its linked meters moved: push them here soon, not now.

        Pushes of several settlements within :data:`METER_PUSH_SECONDS` merge into one, and each table pushes at
        its own moment on its own thread, so one settlement never holds the server up with a push to every
        table of its game. (Called from the settling table's thread.)
        """
        if self.state.server.loop is None:
            self.changed()  # driven synchronously: one thread, push now
            return
        self.inbox.to_loop(self._plan_meter_push)

    @on_loop
    def _plan_meter_push(self) -> None:
        loop = self.state.server.loop
        if self._meter_push is not None or loop is None:
            return
        delay = METER_PUSH_SECONDS * (1 + (self.state.table_id % 8) / 8)
        self._meter_push = loop.call_later(delay, self._fire_meter_push)

    @on_loop
    def _fire_meter_push(self) -> None:
        self._meter_push = None
        self.inbox.submit(self._push_meters)

    @on_worker
    def _push_meters(self) -> None:
        """Mid-round too: the engine's meters are brought up to the committed values (plus this round's own
        contributions) first, as before a step, so another table's settlement shows during a turn."""
        try:
            self.state.refresh_meters()
            self.changed()
        except Exception:
            log.exception("meter push failed on table %s", self.state.table_id)

    @on_loop
    def stop(self) -> None:
        if self._meter_push is not None:
            self._meter_push.cancel()
            self._meter_push = None

    @on_worker
    def changed_soon(self) -> None:
        """A wager while the others are still betting: the timer is set now, and the table gets one ``state``
        within :data:`BETTING_PUSH_SECONDS` for all the wagers placed meanwhile (the wager itself was acked)."""
        if self.state.server.loop is None:
            self.changed()  # driven synchronously: push now
            return
        self.timers.schedule()
        if not self._push_pending:
            self._push_pending = True
            self.inbox.to_loop(self._plan, BETTING_PUSH_SECONDS, self._flush_push)

    @on_loop
    def _plan(self, delay: float, step: Callable[[], None]) -> None:
        """Run ``step`` in the inbox in ``delay`` seconds (a merged push)."""
        loop = self.state.server.loop
        if loop is not None:
            loop.call_later(delay, self.inbox.submit, step)

    @on_worker
    def _flush_push(self) -> None:
        """The merged push, unless a full one went out meanwhile."""
        if self._push_pending:
            self.changed()

    @on_worker
    def decided(self, seats: set[int]) -> None:
        """A decision, the round still being decided: the sockets of ``seats`` (who decided, who is to act now)
        get their ``state`` at once; the table's others (the other seats, the onlookers) one ``state`` within
        :data:`DECISION_PUSH_SECONDS` for all the decisions made meanwhile (each with every event since its last:
        nothing is left out, only merged)."""
        if self.state.server.loop is None:
            self.changed()  # driven synchronously: push now
            return
        conns = self.state.conns
        now = [c for c in conns if self.state.seat_of(c.player.player_id) in seats]
        self._owed.update(conns)
        self._owed.difference_update(now)
        self.changed(now)
        if len(now) < len(conns) and not self._owed_planned:
            self._owed_planned = True
            self.inbox.to_loop(self._plan, DECISION_PUSH_SECONDS, self._flush_owed)

    @on_worker
    def _flush_owed(self) -> None:
        """The merged push of the sockets decisions left out, unless a push to every socket went out meanwhile."""
        self._owed_planned = False
        owed = [c for c in self.state.conns if c in self._owed]
        self._owed.clear()
        if owed:
            self.changed(owed)

    @on_worker
    def changed(self, only: list[Connection] | None = None) -> dict[int, int]:
        """The table changed: the timer is set and every socket gets its ``state`` (``only``: these sockets, of the
        table's; the others are owed theirs, :meth:`decided`); the wallet balances the states show (account id ->
        cents; the table's result messages show the same).

        The part of the state every socket shares is built and encoded once (:meth:`common_state`), each
        socket's own part (seat, balance, cards, events) spliced onto it; sockets whose own part is the same (a
        player's several sockets, the onlookers) share one text, and the table's messages are handed to the
        event loop at once (:func:`~tablegames.server.client.send_all`). Each seat's view is encoded once per
        push, each event once per round as a seat sees it (:class:`_Parts`): the text is the one the whole
        own part encoded at once gives (``tests/server/test_server_push_exact.py``)."""
        if only is None:
            self._push_pending = False  # this push covers any merged one still planned
            self._owed.clear()
        self.timers.schedule()  # first: it sets the turn deadline the states show
        conns = list(self.state.conns) if only is None else only
        if not conns:
            return {}
        self._meters_shown = self.live_meters()
        self._balances_shown = shown = self._balances(conns)
        live = self.state.live
        # every socket's seat's view at once (engine.view.round_views: the viewer-free parts worked out once)
        self._views_shown = (
            {}
            if live is None
            else round_views(live.rnd, [self.state.seat_of(c.player.player_id) for c in conns])
        )
        try:
            head = encode_bytes(self.common_state())
            texts: dict[tuple[Any, ...], str] = {}  # the socket's own part's key -> the message's text
            parts = _Parts(self._views_shown, self._event_texts(live))
            out: list[tuple[Connection, str]] = []
            for c in conns:
                seat = self.state.seat_of(c.player.player_id)
                before = (c.round_key, c.sent)
                key = (seat, c.player.player_id, c.player.account_id, before)
                text = texts.get(key)
                if text is None:
                    text = texts[key] = self._own_text(head, c, seat, parts)
                else:
                    self._mark_sent(c)  # (the same events as the socket of the same key)
                out.append((c, text))
                hint = self._hint(c, seat)
                if hint is not None:
                    out.append((c, encode(hint)))
            send_all(out)
            return shown
        finally:
            self._meters_shown = None
            self._balances_shown = None
            self._views_shown = None

    @on_worker
    def _event_texts(self, live: Live | None) -> dict[tuple[int, bool], bytes]:
        """The round's events encoded so far, kept from push to push: (index, seen whole) -> JSON, the event
        as ``Round.visible_history`` gives it (``to_dict`` if whole, else ``redacted``). A new round (another
        ``Round``) starts them afresh."""
        rnd = live.rnd if live is not None else None
        if rnd is not self._texts_of:
            self._texts_of = rnd
            self._texts = {}
        return self._texts

    @on_worker
    def _own_text(self, head: bytes, conn: Connection, seat: int | None, parts: _Parts) -> str:
        """The socket's ``state`` text: :meth:`own_state` spliced onto ``head``, with its view and its new events
        encoded once per push and seat (the view) or per round (each event as a seat sees it)."""
        live = self.state.live
        start = conn.sent if live is not None and conn.round_key == live.rnd.round_no else 0
        own = self.own_state(conn, seat, with_round=False)
        if live is None:
            return splice(head, {**own, "round": None, "events": []})
        try:
            view = parts.view(seat)
            events = parts.events(live.rnd, seat, start)
            return splice_encoded(head, own, {"round": view, "events": events})
        except TypeError:  # a value orjson does not take: the whole part as before (the standard library's)
            rnd = live.rnd
            fields = {**own, "round": parts.views[seat], "events": rnd.visible_history(seat, start)}
            return splice(head, fields)

    @on_worker
    def _mark_sent(self, conn: Connection) -> None:
        """The socket was sent the round's events so far."""
        live = self.state.live
        if live is not None:
            conn.round_key = live.rnd.round_no
            conn.sent = len(live.rnd.history)

    @on_worker
    def _balances(self, conns: list[Connection]) -> dict[int, int]:
        """Wallet balances of the sockets' players (account id -> cents), from the server's cache."""
        return self.state.server.balances(c.player.account_id for c in conns)

    @on_worker
    def live_meters(self) -> dict[str, int]:
        """The linked meters as they stand (every table's settled contributions, plus this round's own)."""
        state = self.state
        if not state.engine.meters:
            return {}
        live = state.live
        if live is not None and live.rnd.phase == Phase.DECIDING:
            return dict(state.engine.meters)
        return state.server.meter_values(state.game)

    @on_worker
    def _committed_seeds(self) -> dict[str, Any]:
        """Every seated player's commitment to the next round's client seeds (``seeds``: the same for every
        socket; docs/protocol.md, "Client seeds")."""
        book = self.state.seed_round
        return {
            "closed": book.closed,
            "committed": [
                {"seat": e.seat, "seed_hash": e.seed_hash, "revealed": e.seed is not None}
                for e in book.entries({seat: p.player_id for seat, p in self.state.occupants.items()})
            ],
        }

    @on_worker
    def _own_seed(self, player_id: int) -> dict[str, Any] | None:
        """The player's own client seed for the next round (``client_seed``: hash and, once revealed, seed)."""
        mine = self.state.seed_round.of(player_id)
        return None if mine is None else {"seed_hash": mine[0], "seed": mine[1]}

    @on_worker
    def state_for(self, conn: Connection) -> dict[str, Any]:
        """The ``state`` message for this client: built only from the engine's view for its seat."""
        seat = self.state.seat_of(conn.player.player_id)
        return {**self.common_state(), **self.own_state(conn, seat)}

    @on_worker
    def common_state(self) -> dict[str, Any]:
        """The part of the ``state`` message that is the same for every socket of the table."""
        state = self.state
        live = state.live
        deadline = state.deadline()
        upcoming = state.upcoming_pf()
        return {
            "type": "state",
            "table_id": state.table_id,
            "round_id": live.round_id if live else None,
            "seq": len(live.rnd.history) if live is not None else 0,
            "occupants": {str(k): p.name for k, p in sorted(state.occupants.items())},
            # (a table staff paused or closed takes no wager: issue 25)
            "betting_open": state.status == "open"
            and (live is None or live.rnd.is_over or live.rnd.phase == Phase.BETTING),
            "table_status": state.status,
            "deadline": deadline,
            "seconds_left": None if deadline is None else max(0.0, round(deadline - time.time(), 3)),
            "meters": dict(self._meters_shown if self._meters_shown is not None else self.live_meters()),
            "commitment": self._commitment(live.pf) if live is not None and live.pf is not None else None,
            "next_commitment": self._commitment(upcoming) if upcoming is not None else None,
            "seeds": self._committed_seeds() if upcoming is not None else None,
            "decision": state.decision_id(),
            # the practice bots' seats (server/bots.py)
            "bots": sorted(k for k, p in state.occupants.items() if p.bot),
        }

    @on_worker
    def _commitment(self, pf: ProvablyFair) -> str:
        """``pf.commitment`` (a hash of its server seed, which never changes), worked out once per seed."""
        seed = pf.server_seed
        known = self._commitments.get(id(seed))
        if known is None or known[0] is not seed:
            if len(self._commitments) > 3:
                self._commitments.clear()
            known = self._commitments[id(seed)] = (seed, pf.commitment)
        return known[1]

    @on_worker
    def own_state(self, conn: Connection, seat: int | None, *, with_round: bool = True) -> dict[str, Any]:
        """The socket's own part of the ``state`` message: its seat, balance, client seed, the round as its
        seat sees it and the events it has not been sent yet (marked sent now). (``with_round=False``: without
        ``round`` and ``events``, the events marked sent all the same: :meth:`_own_text` adds them.)"""
        state = self.state
        live = state.live
        view = None
        events: list[dict[str, Any]] = []
        if live is not None:
            rnd = live.rnd
            if with_round:
                views = self._views_shown
                if views is not None and seat in views:
                    view = views[seat]
                else:
                    view = rnd.view(seat)
                    if views is not None:
                        views[seat] = view
            if conn.round_key != rnd.round_no:
                conn.round_key = rnd.round_no
                conn.sent = 0
            if with_round:
                events = rnd.visible_history(seat, conn.sent)  # the engine's rule of what the seat sees
            conn.sent = len(rnd.history)
        fair = state.server.config.deck_factory is None and state.server.config.source_factory is None
        balances = self._balances_shown
        own: dict[str, Any] = {
            "seat": seat,
            "balance": (
                balances[conn.player.account_id]
                if balances is not None and conn.player.account_id in balances
                else state.server.balance(conn.player)
            ),
            "client_seed": self._own_seed(conn.player.player_id) if fair else None,
            # whether this socket's player may seat bots (server/bots.py)
            "may_seat_bots": state.server.config.practice_bots and seat is not None,
        }
        if with_round:
            own["round"] = view
            own["events"] = events
        return own

    @on_worker
    def _hint(self, conn: Connection, seat: int | None) -> dict[str, Any] | None:
        """The socket's hint, when it asked for hints and its seat is to act (once per turn), else None."""
        live = self.state.live
        if conn.hints and live is not None and seat is not None and live.rnd.to_act == seat:
            key = (live.rnd.round_no, len(live.rnd.history))
            if conn.last_hint != key:
                conn.last_hint = key
                return hint_message(live.rnd, seat, live.round_id, decision=self.state.decision_id())
        return None

    @on_worker
    def push(self, conn: Connection) -> None:
        """Send ``conn`` its ``state`` (and its hint, when it asked for hints and its seat is to act)."""
        seat = self.state.seat_of(conn.player.player_id)
        conn.send(self.state_for(conn))
        hint = self._hint(conn, seat)
        if hint is not None:
            conn.send(hint)

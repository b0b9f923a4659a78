"""Practice bots (issue 24): players the server seats at a table, each with its own play-money wallet, that wager
the table's minimum main wager every round and take every decision by the exact strategy (the one the hints
name: :func:`~tablegames.server.hints.bot_choice`), so a person can learn a game at a full table.

A bot is a player row like any other (its name ``[bot] <table>.<seat>`` is one no person can register: names
start with a letter or a digit), seated by a ``Seating`` row, funded from the cashier by ledger postings (a
buy-in when seated and whenever its wallet runs low, a cash-out of all of it when removed: the ledger stays
exact). It plays through the table's own steps (:class:`~tablegames.server.steps.RoundSteps`: ``place`` and
``apply_action``, ``by="bot"`` in the record), in the table's inbox on a worker thread, paced by the table's
one timer (:attr:`~tablegames.server.core.Config.bot_seconds` before each move). Bounds: bots open at most
:attr:`~tablegames.server.core.Config.bot_unwatched_rounds` rounds while no socket watches the table, then wait
for one; a round in progress is always finished (after a restart too: recovery resumes it and the bots move).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from sqlalchemy import select

from tablegames.engine import Phase
from tablegames.server import audit, ledger
from tablegames.server.checks import hash_token, idempotency_key
from tablegames.server.client import Connection
from tablegames.server.core import BOT_PREFIX, PlayerInfo
from tablegames.server.db import CASHIER, WALLET, Account, Player, Seating
from tablegames.server.errors import ApiError
from tablegames.server.hints import bot_choice
from tablegames.server.push import Pusher
from tablegames.server.state import TableState
from tablegames.server.steps import RoundSteps
from tablegames.server.store import StepStore
from tablegames.server.tables import clear_seat
from tablegames.server.threads import on_any, on_worker

BUY_IN_BETS = 100  # a bot is bought in to this many minimum wagers ...
LOW_BETS = 20  # ... whenever its wallet holds fewer than this many (more than any round can cost it)
NOT_READY_SECONDS = 0.25  # the exact strategy is being solved: the bot looks again after this


class BotConnection(Connection):
    """A bot's side of the table's steps: its player; what the steps send it goes nowhere."""

    def send(self, message: dict[str, Any]) -> None:
        return None

    def send_text(self, text: str) -> None:
        return None


class Bots:
    """The bots of one table: seated and removed (operator, or a practice player), and their moves when the
    table's timer finds one due (:meth:`step`, called first by the round's timer step)."""

    def __init__(self, state: TableState, store: StepStore, steps: RoundSteps, pusher: Pusher) -> None:
        self.state = state
        self.store = store
        self.steps = steps
        self.pusher = pusher
        self.leaving: set[int] = set()  # bots removed while in a round: they go when it is settled
        self.unwatched = 0  # rounds the bots opened since a socket last watched
        self._key: tuple[Any, ...] | None = None  # the situation the bots' next move is timed for
        self._at = 0.0

    @on_any
    def seats(self) -> dict[int, PlayerInfo]:
        return {seat: p for seat, p in self.state.occupants.items() if p.bot}

    # --- seated and removed ----------------------------------------------------------------------------

    @on_worker
    def add(self, seat: object, actor: str, player_id: int | None = None) -> dict[str, Any]:
        """Seat a bot at an empty ``seat`` (``bad_seat``, ``seat_taken``: nothing changed), bought in from the
        cashier; in the audit trail as ``table.bot.add`` in the same transaction. ``player_id``: a practice
        player asks (not the operator): they must sit at this table."""
        state = self.state
        self._may(player_id)
        n = state.row.seats
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= n:
            raise ApiError("bad_seat", f"no seat {seat!r} at this table (seats 1-{n})")
        busy = set(state.occupants)
        if state.live is not None and not state.live.rnd.is_over:
            busy |= {s.seat for s in state.live.rnd.active_seats}
        if seat in busy:
            raise ApiError("seat_taken", f"seat {seat} is taken", 409)
        name = f"{BOT_PREFIX}{state.table_id}.{seat}"
        with self.store.tx() as s:
            p = s.scalar(select(Player).where(Player.name_key == f"bot:{state.table_id}:{seat}"))
            if p is None:
                acc = Account(name=f"wallet:{name}", kind=WALLET, balance=0)
                s.add(acc)
                s.flush()
                p = Player(
                    name=name,
                    name_key=f"bot:{state.table_id}:{seat}",  # (no person's key has a colon)
                    token_hash=hash_token(secrets.token_urlsafe(32)),  # a token nobody is given
                    account_id=acc.id,
                )
                s.add(p)
                s.flush()
            s.add(Seating(table_id=state.table_id, seat=seat, player_id=p.id))
            s.flush()
            bot = PlayerInfo(p.id, p.name, p.account_id)
            self._top_up(s, bot)
            after = {"seat": seat, "player_id": p.id, "name": p.name}
            audit.append(
                s, state.server.config.clock, actor, "table.bot.add", f"table:{state.table_id}", None, after
            )
        state.occupants = {**state.occupants, seat: bot}  # copy-on-write
        self.pusher.changed()
        return {"table_id": state.table_id, "seat": seat, "name": bot.name, "removed": False}

    @on_worker
    def remove(self, seat: object, actor: str, player_id: int | None = None) -> dict[str, Any]:
        """Remove the bot of ``seat``: now, its wallet cashed out, or when its round is settled if it has
        wagers in play (``removed`` false). In the audit trail as ``table.bot.remove``."""
        state = self.state
        self._may(player_id)
        n = state.row.seats
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= n:
            raise ApiError("bad_seat", f"no seat {seat!r} at this table (seats 1-{n})")
        bot = self.seats().get(seat)
        if bot is None:
            raise ApiError("not_a_bot", f"no bot sits at seat {seat}", 409)
        if seat in self.leaving:
            raise ApiError("not_a_bot", f"the bot of seat {seat} leaves after this round already", 409)
        later = self._in_play(seat)
        with self.store.tx() as s:
            before = {"seat": seat, "player_id": bot.player_id, "name": bot.name}
            after = {"after_round": later}
            audit.append(
                s,
                state.server.config.clock,
                actor,
                "table.bot.remove",
                f"table:{state.table_id}",
                before,
                after,
            )
            if not later:
                self._leave(s, seat, bot)
        if later:
            self.leaving.add(seat)
        else:
            state.occupants = {k: p for k, p in state.occupants.items() if k != seat}
        self.pusher.changed()
        return {"table_id": state.table_id, "seat": seat, "name": bot.name, "removed": not later}

    @on_any
    def _may(self, player_id: int | None) -> None:
        """The operator may; a player only on a practice server, seated at this table."""
        if player_id is None:
            return
        if not self.state.server.config.practice_bots or self.state.seat_of(player_id) is None:
            raise ApiError(
                "forbidden",
                "seating bots needs the admin token (X-Admin-Token), or on a practice server a seat at this table",
                403,
            )

    @on_worker
    def _in_play(self, seat: int) -> bool:
        live = self.state.live
        return live is not None and not live.rnd.is_over and live.rnd.seats[seat].playing

    @on_worker
    def _leave(self, s: Any, seat: int, bot: PlayerInfo) -> None:
        clear_seat(s, self.state.table_id, bot.player_id)
        left = ledger.balance(s, bot.account_id)
        if left > 0:
            ledger.transfer(
                s,
                "cash-out",
                bot.account_id,
                self.state.server.system[CASHIER],
                left,
                player_id=bot.player_id,
            )

    @on_worker
    def _top_up(self, s: Any, bot: PlayerInfo) -> None:
        """Buy the bot in from the cashier when its wallet runs low (a posting like a person's buy-in)."""
        stake = self.state.row.min_bet
        have = ledger.balance(s, bot.account_id)
        if have < LOW_BETS * stake:
            cashier = self.state.server.system[CASHIER]
            ledger.transfer(
                s, "buy-in", cashier, bot.account_id, BUY_IN_BETS * stake - have, player_id=bot.player_id
            )

    # --- their moves -----------------------------------------------------------------------------------

    @on_worker
    def _situation(self) -> tuple[Any, ...]:
        live = self.state.live
        if live is None:
            return (None,)
        return (live.rnd.round_no, live.rnd.phase.value, len(live.rnd.history), live.settled)

    @on_worker
    def _wants(self) -> str | None:
        """What the bots would do now: "act", "wager", "leave" or None."""
        state = self.state
        bots = self.seats()
        if not bots or state.moved_to is not None:
            return None
        live = state.live
        if self.leaving and not any(self._in_play(s) for s in self.leaving):
            return "leave"
        if live is not None and live.rnd.phase == Phase.DECIDING:
            return "act" if live.rnd.to_act in bots else None
        if live is not None and live.rnd.is_over and not live.settled:
            return None  # a settlement being retried comes first
        fresh = live is None or live.rnd.is_over
        if fresh and state.conns:
            self.unwatched = 0
        if fresh and not state.conns and self.unwatched >= state.server.config.bot_unwatched_rounds:
            return None  # the bound: nobody watches; a socket attaching starts them again
        if state.status != "open":
            return None  # staff paused or closed the table (issue 25): no new wager
        waiting = [s for s in bots if s not in self.leaving and not self._in_play(s)]
        return "wager" if waiting else None

    @on_worker
    def due(self) -> float | None:
        """When the bots' next move is due (the table's timer takes the earliest deadline), or None."""
        if self._wants() is None:
            return None
        key = self._situation()
        if key != self._key:
            self._key = key
            self._at = time.time() + self.state.server.config.bot_seconds
        return self._at

    @on_worker
    def step(self) -> bool:
        """The bots' move, if one is due now: True when they moved (or wait for the strategy)."""
        wants = self._wants()
        if wants is None or time.time() + 0.005 < self.due_at():
            return False
        if wants == "leave":
            for seat in [s for s in self.leaving if not self._in_play(s)]:
                bot = self.seats()[seat]
                with self.store.tx() as s:
                    self._leave(s, seat, bot)
                self.leaving.discard(seat)
                self.state.occupants = {k: p for k, p in self.state.occupants.items() if k != seat}
            self.pusher.changed()
        elif wants == "act":
            self._act()
        else:
            self._wager()
        return True

    @on_worker
    def due_at(self) -> float:
        at = self.due()
        return at if at is not None else float("inf")

    @on_worker
    def _act(self) -> None:
        live = self.state.live
        assert live is not None and live.rnd.to_act is not None
        seat = live.rnd.to_act
        action = bot_choice(live.rnd, seat)
        if action is None:  # the exact strategy is being solved: look again soon
            self._at = time.time() + NOT_READY_SECONDS
            self.pusher.timers.schedule()
            return
        self.steps.apply_action(seat, action, "bot")
        self.steps.after_step(seat)

    @on_worker
    def _wager(self) -> None:
        """Each bot not in the round wagers the table's minimum main wager (the first one opens the round, as a
        person's first wager does); the deal follows when every seated player is in."""
        state = self.state
        for seat, bot in sorted(self.seats().items()):
            live = state.live
            fresh = live is None or live.rnd.is_over
            if seat in self.leaving or (not fresh and live is not None and live.rnd.seats[seat].playing):
                continue
            if not fresh and live is not None and live.rnd.phase != Phase.BETTING:
                return  # dealt meanwhile (every seated player was in)
            with self.store.tx() as s:
                self._top_up(s, bot)
            opened = self.steps.new_live() if fresh else live
            assert opened is not None
            rid = f"bot-{opened.rnd.round_no}"
            key = idempotency_key(f"wager:{state.table_id}", rid)
            wagers = {opened.rnd.main_wager(): state.row.min_bet}
            try:
                self.steps.place(BotConnection(bot), opened, seat, rid, key, wagers, {})
            except BaseException:
                if fresh and state.live is not opened:
                    state.engine.withdraw(opened.rnd)
                raise
            if fresh:
                self.unwatched += 0 if state.conns else 1

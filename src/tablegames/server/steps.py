"""A round's steps: the wagers (the deal when every seated player has wagered), the deal, the decisions and
timeouts; each validated, stored in the database, then applied to the engine (which cannot fail then)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from tablegames.engine import Action, Phase
from tablegames.randomness import (
    ProvablyFair,
    require_live,
    shuffle_deck,
)
from tablegames.randomness.client_seeds import SeedEntry, counted_seeds
from tablegames.randomness.fairness import combine_client_seeds
from tablegames.rules import registry
from tablegames.server import ledger
from tablegames.server import statements as sql
from tablegames.server.checks import check_amount
from tablegames.server.client import (
    Connection,
)
from tablegames.server.cluster import LeaseLost
from tablegames.server.db import (
    BETTING,
    DECIDING,
)
from tablegames.server.errors import ApiError
from tablegames.server.outage import database_unreachable
from tablegames.server.protection import record
from tablegames.server.push import Pusher, Timers
from tablegames.server.rawsql import execute, insert_rows
from tablegames.server.settle import Settler
from tablegames.server.state import Live, TableState
from tablegames.server.store import StepStore
from tablegames.server.tables import clear_seat
from tablegames.server.threads import on_worker

log = logging.getLogger("tablegames.server")

#: What the server does for a seat whose turn timed out (docs/protocol.md): each definition's default action.
DEFAULT_ACTIONS: dict[str, Action] = {d.key: Action.parse(d.default_action) for d in registry.DEFINITIONS}


class RoundSteps:
    """The round's steps: validated, stored, applied to the engine, settled when the round is over."""

    def __init__(
        self, state: TableState, store: StepStore, settler: Settler, pusher: Pusher, timers: Timers
    ) -> None:
        self.state = state
        self.store = store
        self.settler = settler
        self.pusher = pusher
        self.timers = timers
        self.bot_step: Callable[[], bool] = lambda: False  # (wired by the runner: the bots' step)

    @on_worker
    def place(
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
        if self.state.status != "open":  # staff paused or closed the table (issue 25): no new round starts
            raise ApiError("table_paused", f"this table is {self.state.status} by the casino: no new wagers")
        if rnd.phase != Phase.BETTING:
            raise ApiError("betting_closed", "the cards are being played; wager in the next round")
        specs = {w.name: w for w in rnd.wager_specs()}
        for name, amount in wagers.items():
            if name not in specs:
                raise ApiError(
                    "bad_wager", f"unknown wager {name!r} for {self.state.game}; wagers: {', '.join(specs)}"
                )
            cents = check_amount(amount, f"the {name} wager")
            spec = specs[name]
            if spec.main and cents < self.state.row.min_bet:
                raise ApiError(
                    "under_limit",
                    f"the {name} wager is {cents} cents; this table's minimum is {self.state.row.min_bet}",
                )
            if spec.fixed_cents is None and cents > self.state.row.max_bet:
                raise ApiError(
                    "over_limit",
                    f"the {name} wager is {cents} cents; this table's maximum is {self.state.row.max_bet}",
                )
        order = sorted(wagers, key=lambda n: not specs[n].main)
        # The engine validates them together (typed errors, nothing changed): a side bet may come with its main.
        cost = rnd.check_wagers(seat, [(name, wagers[name], options.get(name)) for name in order])
        # player protection (issue 26): breaks, exclusions, the session limit and the loss limits, before anything
        # is written (a refused wager changes nothing)
        server = self.state.server
        at = server.protection.check_wager(player, cost, server.player_sessions.over_limit(player.player_id))
        first = live.round_id is None
        # the round's first step lists the players' seeds its deck was drawn with, and every committed seat's
        # entry (recovery and the record)
        seeds_step = (
            [
                {
                    "op": "seeds",
                    "seeds": [[seat, seed] for seat, seed in live.client_seeds],
                    "entries": [e.to_json() for e in live.seed_entries],
                }
            ]
            if first and live.seed_entries
            else []
        )
        try:
            with self.store.write() as c:
                if first:
                    ((round_id,),) = execute(c, sql.INSERT_ROUND, self._round_values(live))
                else:
                    assert live.round_id is not None
                    round_id = live.round_id
                if seeds_step:
                    insert_rows(
                        c,
                        sql.INSERT_STEP,
                        {
                            "round_id": round_id,
                            "seq": live.steps,
                            "payload": seeds_step[0],
                            "created_at": time.time(),
                        },
                    )
                insert_rows(
                    c,
                    sql.INSERT_STEP,
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
                record(c, player.player_id, at, "stake", cost, round_id)  # what the loss limits sum
                # last: the money (locks the busy in-play account until the commit)
                _, balances = ledger.post_all(
                    c,
                    [
                        ledger.Posting.transfer(
                            "wager",
                            player.account_id,
                            self.state.in_play,
                            cost,
                            round_id=round_id,
                            player_id=player.player_id,
                            memo=f"table {self.state.table_id} seat {seat}: "
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
                server.protection.recheck_loss(c, player.player_id, at)  # the wallet locked: no race
                insert_rows(
                    c,
                    sql.INSERT_KEY,
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
                f"these wagers need {cost} cents; your balance is {self.state.server.balance(player)}",
            ) from None
        self.state.live = live
        live.round_id = round_id
        live.steps += len(seeds_step) + len(order)
        live.seat_players[seat] = player.player_id
        if (
            first
            and live.pf is not None
            and self.state.next_pf is not None
            and live.pf.server_seed is self.state.next_pf.server_seed
        ):
            self.state.next_pf = None  # dealt: the next state publishes the following round's commitment
        for name in order:
            rnd.place_wager(seat, name, wagers[name], options.get(name))
        if live.betting_deadline is None:
            live.betting_deadline = time.time() + self.state.server.config.betting_seconds
        self.store.remember(player.player_id, ack)
        conn.send({**ack, "duplicate": False})
        playing = {s.seat for s in rnd.active_seats}
        if all(seat in playing for seat in self.state.occupants):
            self.deal()
        else:
            self.pusher.changed_soon()

    @on_worker
    def new_live(self) -> Live:
        source_factory = self.state.server.config.source_factory
        deck_factory = self.state.server.config.deck_factory
        pf = None
        seeds: list[tuple[int, str]] = []  # the seated players' seeds, in seat order (provably fair tables)
        entries: tuple[SeedEntry, ...] = ()
        deck: Sequence[int]
        if deck_factory is not None:
            deck = deck_factory(self.state.table_id)
        elif source_factory is not None:
            deck = shuffle_deck(source_factory())
        else:
            upcoming = self.state.upcoming_pf()
            assert upcoming is not None
            # the seated players who committed; the revealed seeds count, the others are dropped (issue 20)
            entries = self.state.seed_round.entries(
                {seat: p.player_id for seat, p in self.state.occupants.items()}
            )
            seeds = counted_seeds(entries)
            pf = ProvablyFair(
                nonce=self.state.engine.round_no + 1,
                client_seed=combine_client_seeds(seeds) if seeds else None,
                server_seed=upcoming.server_seed,  # committed (published) before any seed was taken
            )
            deck = shuffle_deck(require_live(pf.source()))
        engine = self.state.engine
        rnd = engine.open_round(engine.round_no + 1, [int(c) for c in deck])
        return Live(rnd, pf=pf, client_seeds=seeds, seed_entries=entries)

    @on_worker
    def _round_values(self, live: Live) -> dict[str, Any]:
        pf = live.pf
        return {
            "table_id": self.state.table_id,
            "round_no": live.rnd.round_no,
            "game": self.state.game,
            "rules": dict(self.state.rules.describe()),
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

    @on_worker
    def deal(self) -> None:
        live = self.state.live
        if live is None or live.round_id is None:
            return
        rnd = live.rnd
        if rnd.phase != Phase.BETTING or not rnd.active_seats:
            return
        self.state.refresh_meters()  # (reads only) before the step is stored: after that nothing may fail
        self.store.persist_step({"op": "deal"}, status=DECIDING)
        rnd.deal()
        self.after_step()

    @on_worker
    def apply_action(
        self, seat: int, action: Action, by: str, answer: tuple[int, dict[str, Any]] | None = None
    ) -> Any:
        """Store and apply one decision; ``answer``: as :meth:`~tablegames.server.store.StepStore.persist_step`."""
        live = self.state.live
        assert live is not None
        decision = self.state.decision_id()
        self.state.refresh_meters()  # (reads only) before the step is stored: after that nothing may fail
        self.store.persist_step({"op": "act", "seat": seat, "action": str(action), "by": by}, answer=answer)
        event = live.rnd.act(seat, action, by=by)
        if decision is not None:  # answered: the same decision again is a duplicate
            self.store.decided(decision, seat, event.to_dict())
        return event

    @on_worker
    def after_step(self, acted: int | None = None) -> None:
        """Settle a round that is over, and push the table its change. ``acted``: the seat whose decision the step
        was; while the round is still decided, its sockets and those of the seat to act now get their ``state`` at
        once, the table's others merged (:meth:`~tablegames.server.push.Pusher.decided`)."""
        live = self.state.live
        if live is not None and live.rnd.is_over and not live.settled:
            try:
                self.settler.settle()
            except SQLAlchemyError as exc:
                # Nothing of the settlement was written (one transaction); it is retried by the timer.
                outage = database_unreachable(exc)  # (issue 20) one line, and a retryable code
                if outage:
                    log.warning("settlement of round %s: database unreachable; retrying", live.round_id)
                else:
                    log.exception("settlement of round %s failed; retrying", live.round_id)
                notice = {
                    "type": "error",
                    "code": "unavailable" if outage else "server_error",
                    "message": f"the database refused the settlement of round {live.round_id}: nothing was paid or "
                    "taken; it is retried automatically",
                    "request_id": None,
                }
                for c in list(
                    self.state.conns
                ):  # tell the table (issue 7: a clear error, no partial settlement)
                    c.send(notice)
                self.timers.schedule()
                return
            self.release_leaving()
            balances = self.pusher.changed()  # (read once, for every socket: its state's and its result's)
            if live.result is not None:
                for c in list(self.state.conns):
                    shown = None if c.player.spectator else balances.get(c.player.account_id)
                    balance = shown if shown is not None else self.state.server.balance(c.player)
                    c.send({**live.result, "balance": balance})
            if self.state.engine.meters:  # linked meters: the other tables of the game show the new values
                for other in list(self.state.server.runners.values()):
                    if other.state is not self.state and other.game == self.state.game and other.conns:
                        other.meters_moved()
            return
        rnd = live.rnd if live is not None else None
        if acted is not None and rnd is not None and rnd.phase == Phase.DECIDING and rnd.to_act is not None:
            self.pusher.decided({acted, rnd.to_act})
        else:
            self.pusher.changed()

    @on_worker
    def release_leaving(self) -> None:
        """(After a settlement.) The seats of the players who went on a break or excluded themselves while they
        played in the round (issue 26, ``TableState.leaving``) are given up. Should the database refuse, they are
        kept and given up after the next settlement."""
        state = self.state
        gone = state.leaving
        if not gone:
            return
        try:
            with self.store.tx() as s:
                for player_id in sorted(gone):
                    clear_seat(s, state.table_id, player_id)
        except SQLAlchemyError:
            log.warning("table %s: the seats of players on a break are given up later", state.table_id)
            return
        state.occupants = {k: p for k, p in state.occupants.items() if p.player_id not in gone}
        state.leaving = set()

    @on_worker
    def on_timer(self) -> None:
        """The timer's step: close betting, time a turn out or retry a settlement, if it is still due."""
        if self.state.moved_to is not None:
            return
        try:
            if self.bot_step():  # the practice bots' move, when one is due (server/bots.py)
                return
            live = self.state.live
            if live is None:
                return
            rnd = live.rnd
            now = time.time() + 0.005
            if rnd.is_over and not live.settled:
                self.after_step()
            elif (
                rnd.phase == Phase.BETTING
                and live.betting_deadline is not None
                and now >= live.betting_deadline
            ):
                self.deal()
            elif rnd.phase == Phase.DECIDING and live.turn_deadline is not None and now >= live.turn_deadline:
                seat = rnd.to_act
                if seat is not None:
                    self.apply_action(seat, DEFAULT_ACTIONS[self.state.game], "timeout")
                    self.after_step(seat)
            else:
                self.timers.schedule()
        except LeaseLost:  # nothing was written; another process serves the table now, or (a database outage,
            # issue 20) the lease lapsed and is still this one's: retried
            if not self.state.server.cluster.lose(self.state.table_id):
                self.timers.retry()
        except Exception as exc:
            if database_unreachable(exc):
                log.warning("timer step on table %s: database unreachable; retrying", self.state.table_id)
            else:
                log.exception("timer step failed on table %s; retrying", self.state.table_id)
            self.timers.retry()

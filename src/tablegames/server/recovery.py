"""Recovery: a table's interrupted round rebuilt from its stored steps and resumed where it stopped (GLI-19
interrupted games), when the server starts or another process takes the table over.

A server fault decides nothing for a player (issue 20, defect 7): the round goes on with its wagers, cards and
decisions as stored, the pending decision gets a fresh turn clock (an open betting window a fresh betting clock),
and only a player who does not come back within that turn gets the timeout default, as in any round. A round
whose play was over (its settlement had failed) is settled at once, exactly once.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy import select

from tablegames.engine import Phase
from tablegames.randomness import ProvablyFair, ServerSeed
from tablegames.randomness.client_seeds import SeedEntry
from tablegames.server import ledger
from tablegames.server import statements as sql
from tablegames.server.db import (
    BETTING,
    DECIDING,
    Player,
    RoundRow,
)
from tablegames.server.protection import record
from tablegames.server.push import Timers
from tablegames.server.settle import Settler
from tablegames.server.state import Live, TableState
from tablegames.server.steps import DEFAULT_ACTIONS, RoundSteps
from tablegames.server.store import StepStore
from tablegames.server.tables import clear_seat
from tablegames.server.threads import on_worker

log = logging.getLogger("tablegames.server")


def without_returned(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps of a round without the wagers a later ``return`` step gave back (issue 26)."""
    out: list[dict[str, Any]] = []
    for st in steps:
        if st["op"] == "return":
            out = [x for x in out if not (x["op"] == "wager" and x["seat"] == st["seat"])]
        else:
            out.append(st)
    return out


class Recovery:
    """The table's interrupted round rebuilt from its stored steps and resumed, when the server starts or takes
    the table over."""

    def __init__(
        self, state: TableState, store: StepStore, steps: RoundSteps, settler: Settler, timers: Timers
    ) -> None:
        self.state = state
        self.store = store
        self.steps = steps
        self.settler = settler
        self.timers = timers

    @on_worker
    def recover(self) -> None:
        """Rebuild this table's unfinished round from its stored steps and resume it: it stays the live round,
        its pending decision (or betting window) on a fresh clock (:meth:`_resume`). A round whose play was
        over is settled (exactly once); one without wagers is void. (More than one unfinished round cannot
        arise, as a round opens only once the previous one is settled; the older ones of such a database are
        finished by the timeout defaults and settled, the newest resumed.)"""
        state = self.state
        rounds = self.store.unfinished_rounds([BETTING, DECIDING])
        last_no = state.engine.round_no
        for i, (row, steps) in enumerate(rounds):
            live = self._rebuild(row, steps)
            if not live.rnd.active_seats:
                self.store.void_round(row.id)
                state.live = None
                continue
            if i < len(rounds) - 1:  # an older unfinished round (see above): finished as before
                self._finish_by_defaults()
                continue
            self._resume(live)
        state.engine.count_from(last_no)
        self._release_away()

    @on_worker
    def _release_away(self) -> None:
        """(Issue 26.) The players seated here who are on a break or self-excluded give their seat up: at once, or
        once the resumed round they play in is settled. The process they went away on kept that in memory
        (``TableState.leaving``): a restart or a takeover before the round was settled would have left them seated."""
        state = self.state
        away = state.server.protection.away(p.player_id for p in state.occupants.values())
        for player_id in sorted(away):
            log.warning("table %s: player %s is away (a break or self-exclusion): the seat is given up",
                        state.table_id, player_id)  # fmt: skip
            self.return_wagers(player_id)

    @on_worker
    def _rebuild(self, row: RoundRow, steps: list[dict[str, Any]]) -> Live:
        """The round as it stood: its deck, then its stored steps replayed on the engine (the live round now).
        The decisions taken are remembered (a repeated ``act`` is answered as their duplicate)."""
        state = self.state
        stored = len(steps)
        steps = without_returned(steps)
        rnd = state.engine.open_round(row.round_no, row.deck)  # at its stored number, on its stored deck
        live = Live(
            rnd,
            round_id=row.id,
            # from the wager steps (the row has it only once the cards were dealt)
            seat_players={int(st["seat"]): int(st["player_id"]) for st in steps if st["op"] == "wager"},
            steps=stored,
            recovered=True,
        )
        if row.server_seed and row.nonce is not None:  # the commitment the players saw stays in the state
            live.pf = ProvablyFair(nonce=row.nonce, server_seed=ServerSeed.from_hex(row.server_seed))
        state.live = live
        for step in steps:
            op = step["op"]
            if op == "seeds":
                live.client_seeds = [(int(seat), str(seed)) for seat, seed in step["seeds"]]
                live.seed_entries = tuple(SeedEntry.from_json(e) for e in step.get("entries", ()))
            elif op == "wager":
                rnd.place_wager(step["seat"], step["wager"], step["amount"], step.get("option"))
            elif op == "deal":
                self.state.refresh_meters()
                rnd.deal()
            elif op == "act":
                self.state.refresh_meters()
                decision = state.decision_id()
                event = rnd.act(step["seat"], step["action"], by=step["by"])
                if decision is not None:
                    self.store.decided(decision, int(step["seat"]), event.to_dict())
        return live

    @on_worker
    def return_wagers(self, player_id: int) -> int:
        """(A break or self-exclusion, issue 26.) The player's wagers in a round whose betting is still open are
        returned: a ``return`` step per seat, the refund from the table's in-play account and the player's
        ``player_money`` return in one transaction, then the round rebuilt from its steps without them (a round
        left without wagers is void). The player is unseated now, or, playing in a dealt round (its turn timeouts
        finish it), once that round is settled (:meth:`~tablegames.server.steps.RoundSteps.release_leaving`). The
        cents returned."""
        state = self.state
        live = state.live
        cents = 0
        if live is not None and live.round_id is not None and live.rnd.phase == Phase.BETTING:
            seats = sorted(
                s for s, p in live.seat_players.items() if p == player_id and live.rnd.seats[s].playing
            )
            cents = sum(live.rnd.seats[s].staked for s in seats)
            if seats:
                self._refund(live, player_id, seats, cents)
        live = state.live
        in_play = (
            live is not None
            and not live.rnd.is_over
            and any(p == player_id and live.rnd.seats[s].playing for s, p in live.seat_players.items())
        )
        seat = state.seat_of(player_id)
        if seat is None and not cents:
            return 0  # not at this table
        if seat is not None and in_play:
            state.leaving.add(player_id)  # the seat is given up once the round is settled
        if seat is not None and not in_play:
            with self.store.tx() as s:
                clear_seat(s, state.table_id, player_id)
            state.occupants = {k: p for k, p in state.occupants.items() if k != seat}
            live = state.live
            if (
                live is not None
                and live.rnd.phase == Phase.BETTING
                and live.rnd.active_seats
                and all(live.rnd.seats[k].playing for k in state.occupants)
            ):
                self.steps.deal()  # everyone left has wagered
                return cents
        self.steps.pusher.changed()
        return cents

    @on_worker
    def _refund(self, live: Live, player_id: int, seats: list[int], cents: int) -> None:
        state = self.state
        assert live.round_id is not None
        with self.store.write() as c:
            account = int(c.execute(select(Player.account_id).where(Player.id == player_id)).scalar_one())
            c.execute(
                sql.INSERT_STEP,
                [
                    {
                        "round_id": live.round_id,
                        "seq": live.steps + i,
                        "payload": {"op": "return", "seat": seat, "player_id": player_id},
                        "created_at": time.time(),
                    }
                    for i, seat in enumerate(seats)
                ],
            )
            record(c, player_id, state.server.config.clock(), "return", cents, live.round_id)
            ledger.post_all(
                c,
                [
                    ledger.Posting.transfer(
                        "wager_return",
                        state.in_play,
                        account,
                        cents,
                        round_id=live.round_id,
                        player_id=player_id,
                        memo=f"table {state.table_id} seats {seats}: wagers returned (break or self-exclusion)",
                    )
                ],
            )
        live.steps += len(seats)
        rows = [r for r in self.store.unfinished_rounds([BETTING]) if r[0].id == live.round_id]
        rebuilt = self._rebuild(*rows[0])
        rebuilt.recovered = False
        rebuilt.betting_deadline = live.betting_deadline
        rebuilt.pf, rebuilt.client_seeds, rebuilt.seed_entries = live.pf, live.client_seeds, live.seed_entries
        if (
            not rebuilt.rnd.active_seats
        ):  # nobody else had wagered: the round is void, the next one opens anew
            self.store.void_round(live.round_id)
            state.live = None

    @on_worker
    def _finish_by_defaults(self) -> None:
        """Deal if betting, play every pending decision by its timeout default and settle (exactly once)."""
        live = self.state.live
        assert live is not None
        rnd = live.rnd
        if rnd.phase == Phase.BETTING:
            self.state.refresh_meters()
            self.store.persist_step({"op": "deal"}, status=DECIDING)
            rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            self.steps.apply_action(seat, DEFAULT_ACTIONS[self.state.game], "timeout")
        self.settler.settle()
        log.warning(
            "recovered round %s of table %s (finished by the timeout defaults)",
            live.round_id,
            self.state.table_id,
        )

    @on_worker
    def _resume(self, live: Live) -> None:
        """The rebuilt round goes on: dealt now if every seated player had wagered (the deal the fault
        interrupted), else its betting window open again; the pending decision's turn clock starts afresh
        (:meth:`~tablegames.server.push.Timers.schedule`). A round whose play was over is settled now."""
        rnd = live.rnd
        if rnd.phase == Phase.BETTING:
            playing = {s.seat for s in rnd.active_seats}
            if all(seat in playing for seat in self.state.occupants):
                self.state.refresh_meters()
                self.store.persist_step({"op": "deal"}, status=DECIDING)
                rnd.deal()
            else:
                live.betting_deadline = time.time() + self.state.server.config.betting_seconds
        if rnd.is_over:
            self.settler.settle()
            log.warning("recovered round %s of table %s (settled)", live.round_id, self.state.table_id)
            return
        live.turn_key = None  # a fresh turn clock for the pending decision
        self.timers.schedule()
        log.warning(
            "resumed round %s of table %s (%s, seat %s to act)",
            live.round_id,
            self.state.table_id,
            rnd.phase.value,
            rnd.to_act,
        )

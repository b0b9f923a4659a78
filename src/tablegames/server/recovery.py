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

from sqlalchemy import select, update

from tablegames.engine import Phase
from tablegames.randomness import ProvablyFair, ServerSeed
from tablegames.randomness.client_seeds import SeedEntry
from tablegames.server.db import (
    BETTING,
    DECIDING,
    VOID,
    RoundRow,
    RoundStep,
)
from tablegames.server.inbox import Live
from tablegames.server.steps import DECISIONS_KEPT, DEFAULT_ACTIONS, Steps

log = logging.getLogger("tablegames.server")


class Recovery(Steps):
    """The table's interrupted round rebuilt from its stored steps and resumed, when the server starts or takes
    the table over."""

    def recover(self) -> None:
        """Rebuild this table's unfinished round from its stored steps and resume it: it stays the live round,
        its pending decision (or betting window) on a fresh clock (:meth:`_schedule`). A round whose play was
        over is settled (exactly once); one without wagers is void. (More than one unfinished round cannot
        arise, as a round opens only once the previous one is settled; the older ones of such a database are
        finished by the timeout defaults and settled, the newest resumed.)"""
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
        for i, row in enumerate(rows):
            live = self._rebuild(row, steps[row.id])
            rnd = live.rnd
            if not rnd.active_seats:
                with self.server.tx(self.fence) as s:
                    s.execute(update(RoundRow).where(RoundRow.id == row.id).values(status=VOID))
                self.live = None
                continue
            if i < len(rows) - 1:  # an older unfinished round (see above): finished as before
                self._finish_by_defaults()
                continue
            self._resume(live)
        self.engine.round_no = max(last_no, self.engine.round_no)

    def _rebuild(self, row: RoundRow, steps: list[dict[str, Any]]) -> Live:
        """The round as it stood: its deck, then its stored steps replayed on the engine (the live round now).
        The decisions taken are remembered (a repeated ``act`` is answered as their duplicate)."""
        self.engine.current = None
        self.engine.round_no = row.round_no - 1
        rnd = self.engine.new_round(deck=row.deck)
        live = Live(
            rnd,
            round_id=row.id,
            # from the wager steps (the row has it only once the cards were dealt)
            seat_players={int(st["seat"]): int(st["player_id"]) for st in steps if st["op"] == "wager"},
            steps=len(steps),
            recovered=True,
        )
        if row.server_seed and row.nonce is not None:  # the commitment the players saw stays in the state
            live.pf = ProvablyFair(nonce=row.nonce, server_seed=ServerSeed.from_hex(row.server_seed))
        self.live = live
        for step in steps:
            op = step["op"]
            if op == "seeds":
                live.client_seeds = [(int(seat), str(seed)) for seat, seed in step["seeds"]]
                live.seed_entries = tuple(SeedEntry.from_json(e) for e in step.get("entries", ()))
            elif op == "wager":
                rnd.place_wager(step["seat"], step["wager"], step["amount"], step.get("option"))
            elif op == "deal":
                self._refresh_meters()
                rnd.deal()
            elif op == "act":
                self._refresh_meters()
                decision = self.decision_id()
                event = rnd.act(step["seat"], step["action"], by=step["by"])
                if decision is not None:
                    self._decided[decision] = (int(step["seat"]), event.to_dict())
                    while len(self._decided) > DECISIONS_KEPT:
                        self._decided.popitem(last=False)
        return live

    def _finish_by_defaults(self) -> None:
        """Deal if betting, play every pending decision by its timeout default and settle (exactly once)."""
        live = self.live
        assert live is not None
        rnd = live.rnd
        if rnd.phase == Phase.BETTING:
            self._refresh_meters()
            self._persist_step({"op": "deal"}, status=DECIDING)
            rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            self._apply_action(seat, DEFAULT_ACTIONS[self.game], "timeout")
        self._settle()
        log.warning(
            "recovered round %s of table %s (finished by the timeout defaults)", live.round_id, self.table_id
        )

    def _resume(self, live: Live) -> None:
        """The rebuilt round goes on: dealt now if every seated player had wagered (the deal the fault
        interrupted), else its betting window open again; the pending decision's turn clock starts afresh
        (:meth:`_schedule`). A round whose play was over is settled now."""
        rnd = live.rnd
        if rnd.phase == Phase.BETTING:
            playing = {s.seat for s in rnd.active_seats}
            if all(seat in playing for seat in self.occupants):
                self._refresh_meters()
                self._persist_step({"op": "deal"}, status=DECIDING)
                rnd.deal()
            else:
                live.betting_deadline = time.time() + self.server.config.betting_seconds
        if rnd.is_over:
            self._settle()
            log.warning("recovered round %s of table %s (settled)", live.round_id, self.table_id)
            return
        live.turn_key = None  # a fresh turn clock for the pending decision
        self._schedule()
        log.warning(
            "resumed round %s of table %s (%s, seat %s to act)",
            live.round_id,
            self.table_id,
            rnd.phase.value,
            rnd.to_act,
        )

"""Recovery: a table's unfinished rounds rebuilt from their stored steps, finished by the timeout defaults
and settled (exactly once)."""

from __future__ import annotations

import logging

from sqlalchemy import select, update

from tablegames.engine import Phase
from tablegames.server.db import (
    BETTING,
    DECIDING,
    VOID,
    RoundRow,
    RoundStep,
)
from tablegames.server.inbox import Live
from tablegames.server.steps import DEFAULT_ACTIONS, Steps

log = logging.getLogger("tablegames.server")


class Recovery(Steps):
    """Unfinished rounds rebuilt from their stored steps and settled, when the server starts."""

    def recover(self) -> None:
        """Rebuild every unfinished round of this table from its stored steps, finish it by the timeout
        defaults and settle it (exactly once)."""
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
                with self.server.tx(self.fence) as s:
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

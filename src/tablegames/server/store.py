"""A table's step store: its steps and answers written to the database, each write fenced by the table's lease.

Every write of a table goes through :meth:`StepStore.write` / :meth:`StepStore.tx`, which check the lease
generation inside the transaction (server/cluster.py: a fencing token), so a process that lost the table
writes nothing. A state-changing request's answer is stored in the transaction of its change, so its request id
repeated later gets it again, also after a restart or a takeover (issue 20, defect 5).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection as DbConnection
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tablegames.server import ledger
from tablegames.server import statements as sql
from tablegames.server.checks import idempotency_key
from tablegames.server.core import PlayerInfo
from tablegames.server.db import VOID, GameTable, Player, RoundRow, RoundStep, Seating
from tablegames.server.rawsql import execute, insert_rows
from tablegames.server.state import TableState
from tablegames.server.threads import on_worker

if TYPE_CHECKING:
    from tablegames.server.core import TableHost

DECISIONS_KEPT = 1024  # answered decisions (ids) remembered, to answer a repeated or stale act as a duplicate

# Answers kept for repeated request ids of the non-money messages (sit, leave, act, client_seed; wagers are
# also kept in the database): per player and table, the most recent ones.
ANSWERS_PER_PLAYER = 256
ANSWER_PLAYERS = 4096


def answer_key(table_id: int, rid: str) -> str:
    """The stored key of a request id of ``sit``, ``leave``, ``act`` or ``client_seed`` at a table (a wager's is
    ``wager:<table>``, stored with its money).

    >>> answer_key(7, "sit-1")
    'table:7:sit-1'
    """
    return idempotency_key(f"table:{table_id}", rid)


def open_state(server: TableHost, row: GameTable) -> TableState:
    """A table's state as the database has it: its in-play account, its seated players, its rounds played."""
    with server.tx() as s:
        in_play = ledger.table_in_play_account(s, row.id)
        occupants = {
            seat: PlayerInfo(pid, name, acc)
            for seat, pid, name, acc in s.execute(
                select(Seating.seat, Player.id, Player.name, Player.account_id)
                .join(Player, Player.id == Seating.player_id)
                .where(Seating.table_id == row.id)
            )
        }
        played = int(s.scalar(select(func.max(RoundRow.round_no)).where(RoundRow.table_id == row.id)) or 0)
    return TableState(server, row, in_play=in_play, occupants=occupants, rounds_played=played)


class StepStore:
    """The table's writes (fenced), its stored steps, and the answers kept for repeated request ids."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.server = state.server

    @on_worker
    def write(self) -> AbstractContextManager[DbConnection]:
        """One fenced write transaction (a Core connection)."""
        return self.server.write(self.state.fence)

    @on_worker
    def tx(self) -> AbstractContextManager[Session]:
        """One fenced write transaction (an ORM session)."""
        return self.server.tx(self.state.fence)

    @on_worker
    def persist_step(
        self,
        payload: dict[str, Any],
        status: str | None = None,
        answer: tuple[int, dict[str, Any]] | None = None,
    ) -> None:
        """Store one step of the live round; ``answer``: (player id, ack) of the request that took it, stored in
        the same transaction (its request id repeated later gets it, also after a restart or a takeover)."""
        live = self.state.live
        assert live is not None and live.round_id is not None
        with self.write() as c:
            insert_rows(
                c,
                sql.INSERT_STEP,
                {"round_id": live.round_id, "seq": live.steps, "payload": payload, "created_at": time.time()},
            )
            if answer is not None:
                self.store_answer(c, *answer)
            if status is not None:
                execute(
                    c,
                    sql.SET_STATUS,
                    {
                        "rid": live.round_id,
                        "status": status,
                        "seat_players": {str(k): v for k, v in sorted(live.seat_players.items())},
                    },
                )
        live.steps += 1

    @on_worker
    def unfinished_rounds(self, statuses: list[str]) -> list[tuple[RoundRow, list[dict[str, Any]]]]:
        """The table's rounds in ``statuses`` (oldest first), each with its stored steps in order."""
        with self.server.sessions() as s:
            rows = list(
                s.scalars(
                    select(RoundRow)
                    .where(RoundRow.table_id == self.state.table_id, RoundRow.status.in_(statuses))
                    .order_by(RoundRow.id)
                )
            )
            return [
                (
                    r,
                    [
                        st.payload
                        for st in s.scalars(
                            select(RoundStep).where(RoundStep.round_id == r.id).order_by(RoundStep.seq)
                        )
                    ],
                )
                for r in rows
            ]

    @on_worker
    def void_round(self, round_id: int) -> None:
        """A round without wagers is void (recovery)."""
        with self.tx() as s:
            s.execute(update(RoundRow).where(RoundRow.id == round_id).values(status=VOID))

    @on_worker
    def store_answer(self, c: DbConnection | Session, player_id: int, ack: dict[str, Any]) -> None:
        """(In the transaction of the change it answers.) Keep the answer to a request of ``sit``, ``leave``,
        ``act`` or ``client_seed`` in the database, so that its request id repeated at any later time gets it
        again, also after a restart or a takeover (issue 20, defect 5; :meth:`stored_answer`)."""
        rid = ack.get("request_id")
        if not isinstance(rid, str):
            return
        row = {
            "player_id": player_id,
            "request_id": answer_key(self.state.table_id, rid),
            "response": {k: v for k, v in ack.items() if k != "duplicate"},
            "created_at": time.time(),
        }
        if isinstance(c, DbConnection):
            insert_rows(c, sql.INSERT_KEY, row)
        else:
            c.execute(sql.INSERT_KEY, row)

    @on_worker
    def stored(self, player_id: int, key: str) -> dict[str, Any] | None:
        """The answer stored under this player's idempotency ``key``, or None."""
        with self.server.reads.connect() as c:
            old = c.execute(sql.IDEMPOTENT, {"player": player_id, "key": key}).scalar()
        return dict(old) if old is not None else None

    @on_worker
    def stored_answer(self, player_id: int, rid: str) -> dict[str, Any] | None:
        """The stored answer to this player's request id at this table (:meth:`store_answer`), or None."""
        return self.stored(player_id, answer_key(self.state.table_id, rid))

    @on_worker
    def remember(self, player_id: int, ack: dict[str, Any]) -> None:
        """Keep the answer to a state-changing request, so that its request id repeated gets it again."""
        rid = ack.get("request_id")
        if not isinstance(rid, str):
            return
        kept = self.state.answers
        answers = kept.get(player_id)
        if answers is None:
            answers = kept[player_id] = OrderedDict()
            while len(kept) > ANSWER_PLAYERS:
                kept.popitem(last=False)
        else:
            kept.move_to_end(player_id)
        answers[rid] = {k: v for k, v in ack.items() if k != "duplicate"}
        while len(answers) > ANSWERS_PER_PLAYER:
            answers.popitem(last=False)

    @on_worker
    def remembered(self, player_id: int, rid: str) -> dict[str, Any] | None:
        """The answer this process kept for the player's request id, or None."""
        answers = self.state.answers.get(player_id)
        return answers.get(rid) if answers is not None else None

    @on_worker
    def decided(self, decision: str, seat: int, event: dict[str, Any]) -> None:
        """Decision ``decision`` was answered by ``seat`` with ``event``: the same decision again is a
        duplicate (a retry, another socket, a timeout took it)."""
        kept = self.state.decided
        kept[decision] = (seat, event)
        while len(kept) > DECISIONS_KEPT:
            kept.popitem(last=False)

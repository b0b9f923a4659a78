"""A round's steps: the wagers (the deal when every seated player has wagered), the deal, the decisions and
timeouts; each validated, stored in the database, then applied to the engine (which cannot fail then)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection as DbConnection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from tablegames.engine import Action, Phase
from tablegames.engine.events import (
    JackpotContribution,
)
from tablegames.randomness import (
    ProvablyFair,
    require_live,
    shuffle_deck,
)
from tablegames.randomness.client_seeds import SeedEntry, counted_seeds
from tablegames.randomness.fairness import combine_client_seeds
from tablegames.rules import registry
from tablegames.server import ledger, push
from tablegames.server import statements as sql
from tablegames.server.checks import check_amount, idempotency_key
from tablegames.server.client import (
    Connection,
)
from tablegames.server.cluster import LeaseLost
from tablegames.server.db import (
    BETTING,
    DECIDING,
)
from tablegames.server.errors import ApiError
from tablegames.server.inbox import Live
from tablegames.server.outage import database_unreachable
from tablegames.server.settle import Settling

log = logging.getLogger("tablegames.server")

#: What the server does for a seat whose turn timed out (docs/protocol.md): each definition's default action.
DEFAULT_ACTIONS: dict[str, Action] = {d.key: Action.parse(d.default_action) for d in registry.DEFINITIONS}

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


class Steps(Settling):
    """The round's steps: validated, stored, applied to the engine, settled when the round is over."""

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
            with self.server.write(self.fence) as c:
                if first:
                    round_id = int(c.execute(sql.INSERT_ROUND, self._round_values(live)).scalar_one())
                else:
                    assert live.round_id is not None
                    round_id = live.round_id
                if seeds_step:
                    c.execute(
                        sql.INSERT_STEP,
                        {
                            "round_id": round_id,
                            "seq": live.steps,
                            "payload": seeds_step[0],
                            "created_at": time.time(),
                        },
                    )
                c.execute(
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

    def _new_live(self) -> Live:
        source_factory = self.server.config.source_factory
        deck_factory = self.server.config.deck_factory
        pf = None
        seeds: list[tuple[int, str]] = []  # the seated players' seeds, in seat order (provably fair tables)
        entries: tuple[SeedEntry, ...] = ()
        deck: Sequence[int]
        if deck_factory is not None:
            deck = deck_factory(self.table_id)
        elif source_factory is not None:
            deck = shuffle_deck(source_factory())
        else:
            upcoming = self._upcoming_pf()
            assert upcoming is not None
            # the seated players who committed; the revealed seeds count, the others are dropped (issue 20)
            entries = self.seed_round.entries({seat: p.player_id for seat, p in self.occupants.items()})
            seeds = counted_seeds(entries)
            pf = ProvablyFair(
                nonce=self.engine.round_no + 1,
                client_seed=combine_client_seeds(seeds) if seeds else None,
                server_seed=upcoming.server_seed,  # committed (published) before any seed was taken
            )
            deck = shuffle_deck(require_live(pf.source()))
        self.engine.current = None
        rnd = self.engine.new_round(deck=[int(c) for c in deck])
        return Live(rnd, pf=pf, client_seeds=seeds, seed_entries=entries)

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

    def _persist_step(
        self,
        payload: dict[str, Any],
        status: str | None = None,
        answer: tuple[int, dict[str, Any]] | None = None,
    ) -> None:
        """Store one step of the live round; ``answer``: (player id, ack) of the request that took it, stored in
        the same transaction (its request id repeated later gets it, also after a restart or a takeover)."""
        live = self.live
        assert live is not None and live.round_id is not None
        with self.server.write(self.fence) as c:
            c.execute(
                sql.INSERT_STEP,
                {"round_id": live.round_id, "seq": live.steps, "payload": payload, "created_at": time.time()},
            )
            if answer is not None:
                self._store_answer(c, *answer)
            if status is not None:
                c.execute(
                    sql.SET_STATUS,
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

    def _apply_action(
        self, seat: int, action: Action, by: str, answer: tuple[int, dict[str, Any]] | None = None
    ) -> Any:
        """Store and apply one decision; ``answer``: as :meth:`_persist_step`."""
        live = self.live
        assert live is not None
        decision = self.decision_id()
        self._refresh_meters()  # (reads only) before the step is stored: after that nothing may fail
        self._persist_step({"op": "act", "seat": seat, "action": str(action), "by": by}, answer=answer)
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

    def _on_timer(self) -> None:
        """(Worker.) Close betting, time a turn out or retry a settlement, if it is still due."""
        live = self.live
        if live is None or self.moved_to is not None:
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
        except LeaseLost:  # nothing was written; another process serves the table now, or (a database outage,
            # issue 20) the lease lapsed and is still this one's: retried
            if not self.server.cluster.lose(self.table_id):
                self._on_loop(self._arm, time.time() + push.RETRY_SECONDS)
        except Exception as exc:
            if database_unreachable(exc):
                log.warning("timer step on table %s: database unreachable; retrying", self.table_id)
            else:
                log.exception("timer step failed on table %s; retrying", self.table_id)
            self._on_loop(self._arm, time.time() + push.RETRY_SECONDS)

    def _store_answer(self, c: DbConnection | Session, player_id: int, ack: dict[str, Any]) -> None:
        """(In the transaction of the change it answers.) Keep the answer to a request of ``sit``, ``leave``,
        ``act`` or ``client_seed`` in the database, so that its request id repeated at any later time gets it
        again, also after a restart or a takeover (issue 20, defect 5; :meth:`stored_answer`)."""
        rid = ack.get("request_id")
        if not isinstance(rid, str):
            return
        c.execute(
            sql.INSERT_KEY,
            {
                "player_id": player_id,
                "request_id": answer_key(self.table_id, rid),
                "response": {k: v for k, v in ack.items() if k != "duplicate"},
                "created_at": time.time(),
            },
        )

    def stored_answer(self, player_id: int, rid: str) -> dict[str, Any] | None:
        """The stored answer to this player's request id at this table (:meth:`_store_answer`), or None."""
        with self.server.reads.connect() as c:
            old = c.execute(
                sql.IDEMPOTENT, {"player": player_id, "key": answer_key(self.table_id, rid)}
            ).scalar()
        return dict(old) if old is not None else None

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

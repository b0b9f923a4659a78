"""A table's shared state: what every part of its runner reads and the inbox's steps change (one at a time).

The parts (:mod:`~tablegames.server.runner`) each receive this object; none keeps a copy of what is here.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tablegames.engine import Phase, Round, Table
from tablegames.randomness import LiveRandom, ProvablyFair
from tablegames.randomness.client_seeds import SeedEntry, SeedRound
from tablegames.rules import make_rules
from tablegames.server.core import PlayerInfo
from tablegames.server.db import GameTable
from tablegames.server.tables import OPEN, table_info
from tablegames.server.threads import on_any, on_worker

if TYPE_CHECKING:
    from tablegames.server.client import Connection
    from tablegames.server.core import TableHost


@dataclass
class Live:
    """The server's side of one engine round."""

    rnd: Round
    round_id: int | None = None
    seat_players: dict[int, int] = field(default_factory=dict)
    steps: int = 0
    pf: ProvablyFair | None = None
    betting_deadline: float | None = None
    turn_key: tuple[int, int, int] | None = None
    turn_deadline: float | None = None
    settled: bool = False
    recovered: bool = False
    result: dict[str, Any] | None = None
    client_seeds: list[tuple[int, str]] = field(default_factory=list)  # (seat, seed) combined into the deck
    # every committed seat, revealed or dropped (issue 20 defect 3: the record lists them)
    seed_entries: tuple[SeedEntry, ...] = ()


class TableState:
    """One table: its row and rules, the engine table (written only through its API), the live round, the
    seats and sockets (both replaced, never changed in place: the loop's thread reads them), the lease's fence,
    the next round's seeds and the answers kept for repeated requests."""

    def __init__(
        self,
        server: TableHost,
        row: GameTable,
        *,
        in_play: int,
        occupants: dict[int, PlayerInfo],
        rounds_played: int,
    ) -> None:
        self.server = server
        self.table_id = row.id
        self.row = row
        self.game = row.game
        self.rules = make_rules(row.game, row.rules, row.paytable)
        self.engine = Table(self.rules, seats=row.seats, source=LiveRandom())
        self.engine.count_from(rounds_played)
        self.in_play = in_play
        self.occupants = occupants  # copy-on-write
        self.live: Live | None = None
        # players who went on a break or excluded themselves while they played in the round (issue 26): their
        # seats are given up once it is settled (Recovery.return_wagers, RoundSteps.release_leaving)
        self.leaving: set[int] = set()
        self.conns: list[Connection] = []  # copy-on-write
        # Several processes (server/cluster.py): (table id, lease generation) checked by every write of this
        # table; once the lease is gone, where the table went (the owner, or {} if nobody holds it now)
        self.fence: tuple[int, int] | None = None
        self.moved_to: dict[str, Any] | None = None
        # client seeds (issue 11 defect 11): the next round's server seed, committed before any seed is taken
        self.next_pf: ProvablyFair | None = None
        # the players' seeds for the next round (that commitment's): committed first, revealed after every
        # commitment is in (issue 20 defect 3); made fresh with each next round's server seed
        self.seed_round = SeedRound()
        # idempotency (issue 11 defect 6): player -> request id -> answer; decision id -> (seat, action event)
        self.answers: OrderedDict[int, OrderedDict[str, dict[str, Any]]] = OrderedDict()
        self.decided: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()

    @on_any
    def info(self) -> dict[str, Any]:
        return table_info(self.row, {k: p.name for k, p in self.occupants.items()})

    @property
    def status(self) -> str:
        """``open``, or ``paused`` / ``closed`` by staff (issue 25): then no wager is taken."""
        return self.row.status or OPEN

    @on_any
    def seat_of(self, player_id: int) -> int | None:
        for seat, p in self.occupants.items():
            if p.player_id == player_id:
                return seat
        return None

    @on_worker
    def public_view(self) -> dict[str, Any]:
        """The table as anyone may see it (``GET /tables/{id}``)."""
        live = self.live
        return {**self.info(), "view": live.rnd.view(None) if live is not None else None}

    @on_worker
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

    @on_worker
    def deadline(self) -> float | None:
        """When betting closes or the turn times out, as the states show it."""
        live = self.live
        if live is None:
            return None
        if live.rnd.phase == Phase.BETTING and live.rnd.active_seats:
            return live.betting_deadline
        if live.rnd.phase == Phase.DECIDING:
            return live.turn_deadline
        return None

    @on_worker
    def turn_deadline(self) -> float | None:
        """The pending decision's deadline: a new turn (round, seat, event count) starts a fresh clock."""
        live = self.live
        seat = live.rnd.to_act if live is not None else None
        if live is None or seat is None:
            return None
        rnd = live.rnd
        key = (rnd.round_no, seat, len(rnd.history))
        if key != live.turn_key:
            live.turn_key = key
            live.turn_deadline = time.time() + self.server.config.turn_seconds
        return live.turn_deadline

    @on_worker
    def upcoming_pf(self) -> ProvablyFair | None:
        """The next round's provably fair server seed (made now if needed; its commitment is in every state as
        ``next_commitment``), or None when the table deals from a test source."""
        cfg = self.server.config
        if cfg.deck_factory is not None or cfg.source_factory is not None:
            return None
        if self.next_pf is None:
            self.next_pf = ProvablyFair(nonce=self.engine.round_no + 1)
            self.seed_round = SeedRound()  # a new commitment: its seeds are committed and revealed anew
        return self.next_pf

    @on_worker
    def refresh_meters(self) -> None:
        """Linked meters: the engine's meters = the committed values + this round's own contributions
        (:meth:`~tablegames.engine.Table.link_meters`). Reads only: called before a step is stored."""
        if not self.engine.meters or self.live is None:
            return
        self.engine.link_meters(self.server.meter_values(self.game))

"""Tables: their settings validated and stored, their runners opened (one per table), their limits changed.

:class:`TableService`'s methods block on the database (the routes call them on the REST threads)."""

from __future__ import annotations

import functools
import logging
import threading
import unicodedata
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from tablegames.rules import GAMES, registry
from tablegames.rules.parameters import quoted
from tablegames.server import audit
from tablegames.server.checks import check_amount
from tablegames.server.cluster import NotOwner
from tablegames.server.core import Config
from tablegames.server.db import (
    GameTable,
    Player,
    Seating,
)
from tablegames.server.errors import ApiError, FieldError
from tablegames.server.rulesets import Resolved, resolve, rule_set_of, table_card
from tablegames.server.transactions import Transactions

log = logging.getLogger("tablegames.server")
CONFIRMED_BY_MAX = 80  # the name a confirmation of a low house edge carries


def edge_confirmation(
    edges: Mapping[str, Fraction], floor: Fraction, confirmed_by: object, client: str
) -> dict[str, Any] | None:
    """The house-edge check of a new table (issue 20, defect 6), in one place: None when every wager's exact
    house edge (``edges``: the main wager's and each side bet's, as the analysis computes them) is at least
    ``floor``; else the record of who confirmed it (``confirmed_by``, a name), from where, and the edges
    below the floor; with no confirmation an ``edge_below_floor`` refusal naming the wagers.

    >>> edge_confirmation({"main": Fraction(1, 10)}, Fraction(0), None, "127.0.0.1") is None
    True
    >>> edge_confirmation({"main": Fraction(-1, 10)}, Fraction(0), "ana", "127.0.0.1")["edges"]
    {'main': '-1/10'}
    >>> edge_confirmation({"main": Fraction(-1, 10)}, Fraction(0), None, "127.0.0.1")
    Traceback (most recent call last):
    ...
    tablegames.server.errors.FieldError: this table would pay the players: the house edge of main is -10.0000% (-1/10), below the floor of 0.0000%; to open it anyway, send confirm_negative_edge: the name of who confirms it
    """
    below = {wager: edge for wager, edge in edges.items() if edge < floor}
    if not below:
        return None
    listed = ", ".join(f"{wager} is {float(edge):.4%} ({edge})" for wager, edge in below.items())
    if confirmed_by is None:
        raise FieldError(
            f"this table would pay the players: the house edge of {listed}, below the floor of {float(floor):.4%};"
            " to open it anyway, send confirm_negative_edge: the name of who confirms it",
            "confirm_negative_edge",
            "edge_below_floor",
        )
    if (
        not isinstance(confirmed_by, str)
        or not 1 <= len(confirmed_by.strip()) <= CONFIRMED_BY_MAX
        or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in confirmed_by)
    ):
        raise FieldError(
            f"confirm_negative_edge is the name of who confirms (1-{CONFIRMED_BY_MAX} characters)",
            "confirm_negative_edge",
            "bad_message",
        )
    return {
        "by": confirmed_by.strip(),
        "client": client,
        "floor": str(floor),
        "edges": {wager: str(edge) for wager, edge in below.items()},
    }


def shown_rules(game: str, options: dict[str, str], paytable: str | None) -> dict[str, str]:
    """A table's complete rule set as it shows it (made once per stored options: a state push shows it too)."""
    return dict(_shown(game, tuple(sorted(options.items())), paytable))


@functools.lru_cache(maxsize=256)
def _shown(
    game: str, options: tuple[tuple[str, str], ...], paytable: str | None
) -> tuple[tuple[str, str], ...]:
    definition = registry.get(game)
    return tuple(rule_set_of(definition, definition.make_rules(dict(options), paytable)).items())


ADMIN_TOKEN = "token:admin"  # the audit trail's name of the admin token (a named credential, issue 25)
OPEN, PAUSED, CLOSED = "open", "paused", "closed"  # a table's status (issue 25)
STATUS_OF = {"pause": PAUSED, "resume": OPEN, "close": CLOSED}  # POST /tables/{id}/{change}


def opened(session: Session, clock: Callable[[], float], actor: str, row: GameTable) -> None:
    """The audit entry of a table opened (in the transaction that adds its row): its settings and rule set."""
    after = {
        "name": row.name,
        "game": row.game,
        "seats": row.seats,
        "min_bet": row.min_bet,
        "max_bet": row.max_bet,
        "rule_set": row.rule_set,
        "paytable": row.paytable,
        "rules": row.rules,
        "edge_confirmation": row.edge_confirmation,
    }
    audit.append(session, clock, actor, "table.open", f"table:{row.id}", None, after)


def table_info(row: GameTable, occupants: dict[int, str] | None = None) -> dict[str, Any]:
    return {
        "table_id": row.id,
        "name": row.name,
        "game": row.game,
        "seats": row.seats,
        "min_bet": row.min_bet,
        "max_bet": row.max_bet,
        "rules": shown_rules(row.game, row.rules, row.paytable),
        "paytable": row.paytable,
        "rule_set": row.rule_set,
        "rule_summary": table_card(row.game, row.rules, row.paytable).summary,  # "standard rules" or changes
        "occupied": {str(k): v for k, v in sorted((occupants or {}).items())},
        "status": row.status or OPEN,
    }


class TableService:
    """The tables over the server's unit of work (``db``) and every table's runner in this process
    (``runners``, made by ``open_runner``). ``cluster``: the leases of several processes (server/cluster.py),
    set when the server starts on PostgreSQL; None: this process owns every table."""

    def __init__(
        self, db: Transactions, config: Config, node: str, open_runner: Callable[[GameTable], Any]
    ) -> None:
        self.db = db
        self.config = config
        self.node = node
        self.open_runner = open_runner
        self.runners: dict[int, Any] = {}  # table id -> TableRunner (replaced, not changed, once started)
        self.lock = threading.Lock()  # held to replace runners (one runner per table)
        self.cluster: Any = None

    def create_table(
        self,
        game: object,
        name: object,
        seats: object = 5,
        min_bet: object = 100,
        max_bet: object = 10_000,
        rules: object = None,
        paytable: object = None,
        game_file: object = None,
        rule_set: object = None,
        *,
        edge_confirmation: dict[str, Any] | None = None,
        actor: str = ADMIN_TOKEN,
    ) -> dict[str, Any]:
        """A new table (operator). ``edge_confirmation``: who opened it although a wager's house edge is below
        the floor (:func:`edge_confirmation`), stored with its row and logged once it exists. ``actor``: who,
        in the audit trail (entry ``table.open`` in the same transaction)."""
        info = self._create_table(
            game,
            name,
            seats,
            min_bet,
            max_bet,
            rules,
            paytable,
            game_file,
            rule_set,
            edge_confirmation,
            actor,
        )
        if edge_confirmation is not None:
            log.warning(
                "table %s (%r) opened with house edges below the floor %s: %s; confirmed by %r from %s",
                info["table_id"],
                info["name"],
                edge_confirmation["floor"],
                edge_confirmation["edges"],
                edge_confirmation["by"],
                edge_confirmation["client"],
            )
        return {**info, "edge_confirmation": edge_confirmation}

    def _create_table(
        self,
        game: object,
        name: object,
        seats: object,
        min_bet: object,
        max_bet: object,
        rules: object,
        paytable: object,
        game_file: object,
        rule_set: object,
        edge_confirmation: dict[str, Any] | None,
        actor: str,
    ) -> dict[str, Any]:
        row = new_table_row(game, name, seats, min_bet, max_bet, rules, paytable, game_file, rule_set)
        row.edge_confirmation = edge_confirmation
        if self.cluster is not None:  # leased: this process's if it holds less than its share (cluster.py)
            generation = None
            try:
                with self.db.tx() as s:
                    s.add(row)
                    s.flush()
                    opened(s, self.config.clock, actor, row)
                    generation = self.cluster.lease_new_table(s.connection(), row.id)
            except BaseException:
                if generation is not None:
                    self.cluster.forget_new_table(row.id)
                raise
            if generation is not None:
                self.cluster.adopt(row.id, generation)
            return table_info(row)
        with self.lock:  # one runner per table, even if sync_tables runs meanwhile
            with self.db.tx() as s:
                s.add(row)
                s.flush()
                opened(s, self.config.clock, actor, row)
            self.runners = {**self.runners, row.id: self.open_runner(row)}  # copy-on-write: readers iterate
        return table_info(row)

    def set_limits(
        self, table_id: int, min_bet: object, max_bet: object, actor: str = ADMIN_TOKEN
    ) -> dict[str, Any]:
        """Change a table's limits (operator); wagers already placed stay as they are. (Several processes: the
        owner's runner reads them within a second, ``cluster.py``.) In the audit trail as ``table.limits``."""
        runner = self.runners.get(table_id) if self.cluster is not None else self.runner(table_id)
        current = runner.row if runner is not None else self.table_row(table_id)
        lo = current.min_bet if min_bet is None else check_amount(min_bet, "min_bet")
        hi = current.max_bet if max_bet is None else check_amount(max_bet, "max_bet")
        if hi < lo:
            raise ApiError("bad_message", f"max_bet {hi} is below min_bet {lo}")
        with self.db.tx() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            before = {"min_bet": row.min_bet, "max_bet": row.max_bet}
            row.min_bet, row.max_bet = lo, hi
            audit.append(
                s,
                self.config.clock,
                actor,
                "table.limits",
                f"table:{table_id}",
                before,
                {"min_bet": lo, "max_bet": hi},
            )
        if runner is None:
            return self._tables_from_db(table_id)[0]
        runner.row.min_bet, runner.row.max_bet = lo, hi
        return runner.info()  # type: ignore[no-any-return]

    def set_status(self, table_id: int, change: str, actor: str, reason: object = "") -> dict[str, Any]:
        """Pause, resume or close a table (staff): a paused or closed table takes no new wager, so no new round
        starts; the round in play finishes. A closed table is not opened again. In the audit trail as
        ``table.pause`` / ``table.resume`` / ``table.close`` with the status before and after, in the same
        transaction. (Several processes: the owner's runner reads it within a second, ``cluster.py``.)"""
        status = STATUS_OF.get(change)
        if status is None:
            raise ApiError(
                "bad_message", f"a table's change is one of {', '.join(STATUS_OF)}, not {change!r}", 422
            )
        why = reason.strip() if isinstance(reason, str) else ""
        if len(why) > 500:
            raise ApiError("bad_message", "a reason is at most 500 characters", 422)
        runner = self.runners.get(table_id) if self.cluster is not None else self.runner(table_id)
        with self.db.tx() as s:
            row = s.get(GameTable, table_id)
            if row is None:
                raise ApiError("not_found", f"no table {table_id}", 404)
            before = row.status or OPEN
            if before == CLOSED:
                raise ApiError("conflict", f"table {table_id} is closed: open a new one", 409)
            if before == status:
                raise ApiError("conflict", f"table {table_id} is {status} already", 409)
            row.status = status
            audit.append(
                s, self.config.clock, actor, f"table.{change}", f"table:{table_id}",
                {"status": before}, {"status": status}, why,
            )  # fmt: skip
        if runner is None:
            return self._tables_from_db(table_id)[0]
        runner.row.status = status
        runner.status_changed()
        return runner.info()  # type: ignore[no-any-return]

    def table_row(self, table_id: int) -> GameTable:
        """The table's stored row, or ``not_found``."""
        with self.db.sessions() as s:
            row = s.get(GameTable, table_id)
        if row is None:
            raise ApiError("not_found", f"no table {table_id}", 404)
        return row

    def _tables_from_db(self, table_id: int | None = None) -> list[dict[str, Any]]:
        """The tables and who sits where, as stored (several processes: the lobby of any of them)."""
        with self.db.sessions() as s:
            q = select(GameTable).order_by(GameTable.id)
            rows = list(s.scalars(q if table_id is None else q.where(GameTable.id == table_id)))
            seats = s.execute(
                select(Seating.table_id, Seating.seat, Player.name).join(
                    Player, Player.id == Seating.player_id
                )
            ).all()
        occupants: dict[int, dict[int, str]] = {}
        for t, seat, name in seats:
            occupants.setdefault(int(t), {})[int(seat)] = name
        return [table_info(row, occupants.get(row.id)) for row in rows]

    def table_owner(self, table_id: int) -> dict[str, Any]:
        """``GET /tables/{id}/owner``: the process serving the table (this one on SQLite); a table nobody holds
        is taken by this process."""
        self.table_row(table_id)
        if self.cluster is None:
            return {"table_id": table_id, "node": self.node, "url": self.config.advertise, "generation": 0}
        owner = self.cluster.locate(table_id)
        if owner is None:
            raise ApiError("no_owner", f"table {table_id} has no owner right now; try again in a moment", 503)
        return {k: v for k, v in owner.items() if not k.startswith("_")}

    def list_tables(self) -> list[dict[str, Any]]:
        if self.cluster is not None:
            return self._tables_from_db()
        self.sync_tables()
        return [r.info() for r in list(self.runners.values())]

    def runner(self, table_id: int) -> Any:
        """The table's runner in this process; several processes: ``cluster.NotOwner`` when another one serves
        it (a table nobody holds is taken by this one)."""
        r = self.runners.get(table_id)
        if r is None and self.cluster is not None:
            self.table_row(table_id)
            owner = self.cluster.locate(table_id)
            r = self.runners.get(table_id)
            if r is None:
                if owner is None:
                    raise ApiError("no_owner", f"table {table_id} has no owner right now; try again", 503)
                raise NotOwner(owner)
        if r is None:
            self.sync_tables()
            r = self.runners.get(table_id)
        if r is None:
            raise ApiError("not_found", f"no table {table_id}", 404)
        return r

    def sync_tables(self) -> None:
        """Open tables created meanwhile by ``tablegames tables create`` (another process). (Several processes:
        the leases decide, ``cluster.py``.)"""
        if self.cluster is not None:
            return
        with self.lock:  # two requests for a new table must not open it twice
            with self.db.sessions() as s:
                rows = list(
                    s.scalars(select(GameTable).where(GameTable.id.not_in(list(self.runners) or [0])))
                )
            if rows:
                self.runners = {**self.runners, **{row.id: self.open_runner(row) for row in rows}}


def new_table_row(
    game: object,
    name: object,
    seats: object,
    min_bet: object,
    max_bet: object,
    rules: object,
    paytable: object,
    game_file: object = None,
    rule_set: object = None,
) -> GameTable:
    """:func:`table_settings`' row."""
    return table_settings(game, name, seats, min_bet, max_bet, rules, paytable, game_file, rule_set)[0]


def table_settings(
    game: object,
    name: object,
    seats: object,
    min_bet: object,
    max_bet: object,
    rules: object,
    paytable: object,
    game_file: object = None,
    rule_set: object = None,
) -> tuple[GameTable, Resolved]:
    """Validate a table's settings (``bad_rules`` / ``bad_message``) and build its row. The rules: ``rules``
    (a full or partial ``{name: value}`` rule set) on top of a game file's text ``game_file`` (then ``game`` may
    be omitted) or of RULES.md's; the row stores the complete rule set and its name (``rule_set``, default the
    game file's), issue 15; a refused value names its field (``FieldError``)."""
    if game_file is None and (not isinstance(game, str) or game not in GAMES):
        raise FieldError(f"unknown game {quoted(game)}; choose {', '.join(GAMES)}", "game")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise ApiError("bad_message", "a table name is 1-80 characters")
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 7:
        raise ApiError("bad_message", f"a table has 1-7 seats, got {seats!r}")
    lo = check_amount(min_bet, "min_bet")
    hi = check_amount(max_bet, "max_bet")
    if hi < lo:
        raise ApiError("bad_message", f"max_bet {hi} is below min_bet {lo}")
    got = resolve(game, rules, paytable, game_file, rule_set)
    row = GameTable(
        name=name.strip(),
        game=got.definition.key,
        seats=seats,
        min_bet=lo,
        max_bet=hi,
        rules=got.options,
        paytable=got.paytable,
        rule_set=got.name,
    )
    return row, got


def clear_seat(session: Session, table_id: int, player_id: int) -> None:
    session.execute(delete(Seating).where(Seating.table_id == table_id, Seating.player_id == player_id))

"""Tables: ``GET /tables``, ``POST /tables`` and ``PATCH /tables/{id}`` (operator), ``GET /tables/{id}`` (its
public view), ``GET /tables/{id}/history`` (its public results), ``POST /tables/{id}/bots`` and ``DELETE
/tables/{id}/bots/{seat}`` (practice bots: the operator, or a seated player on a practice server)."""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import Response
from pydantic import Field, StrictInt

from tablegames.rules.rulecard import RuleCard
from tablegames.server.checks import HISTORY_PAGE_MAX
from tablegames.server.contract import RoundView, TableInfo
from tablegames.server.contract.base import Closed
from tablegames.server.errors import ApiError
from tablegames.server.permissions import TABLE_BOTS, TABLE_LIMITS, TABLE_OPEN, TABLE_STATUS, Actor, check
from tablegames.server.queries import history
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    RowId,
    ServerDep,
    bearer,
    errors,
    json_off_loop,
    off_loop,
    read,
    staff_actor,
    staff_may,
)
from tablegames.server.routes.lab import read_off_loop, solver_of
from tablegames.server.routes.rounds import RoundSummary
from tablegames.server.rulesets import table_card
from tablegames.server.tables import edge_confirmation, table_settings

router = APIRouter(tags=["tables"], responses=COMMON_ERRORS)


class TableBody(Closed):
    game: str | None = None  # may be omitted with a game file (it names its game)
    name: str = Field(min_length=1, max_length=80)
    seats: StrictInt = 5
    min_bet: StrictInt = 100
    max_bet: StrictInt = 10_000
    rules: dict[str, str | int] = Field(default_factory=dict)  # a full or partial rule set (issue 15)
    paytable: str | None = None
    game_file: str | None = Field(None, max_length=65_536, description="a game file's text (TOML)")
    rule_set: str | None = Field(None, max_length=80, description="the rule set's name (default: the file's)")
    confirm_negative_edge: str | None = Field(
        None,
        max_length=80,
        description="who confirms opening a table whose exact house edge (of any wager) is below the server's "
        "floor (default 0: a table that pays the players); refused with edge_below_floor without it",
    )


class LimitsBody(Closed):
    min_bet: StrictInt | None = None
    max_bet: StrictInt | None = None


class TableOut(TableInfo):
    """A table as listed: the contract's ``TableInfo`` (the ``welcome`` message's ``table`` too)."""


class EdgeConfirmation(Out):
    """Who confirmed opening a table whose exact house edge is below the server's floor, and from where."""

    by: str
    client: str
    floor: str  # the floor, an exact fraction as text
    edges: dict[str, str]  # wager -> its exact house edge below the floor


class CreatedTable(TableOut):
    edge_confirmation: EdgeConfirmation | None = None  # who confirmed a house edge below the floor


class TableView(TableOut):
    view: RoundView | None  # the engine's view of the live round for an onlooker (None: no round yet)


@router.get("/tables", response_model=list[TableOut])
async def tables(request: Request, server: ServerDep) -> list[TableOut]:
    rows = await off_loop(request, server.tables.list_tables)
    return [TableOut.model_validate(r) for r in rows]


@router.post("/tables", status_code=201, response_model=CreatedTable, responses=errors(403, 503))
async def create_table(
    request: Request, server: ServerDep, actor: Annotated[Actor, staff_may(TABLE_OPEN)], body: TableBody
) -> CreatedTable:
    """A new table (operator). Its settings are read on the REST threads (a refused value: ``bad_rules`` naming
    the field); then the exact house edge of each of its wagers, as the Math lab solves it (off the event loop,
    cached per rule set), must be at least the server's floor, or the request must name who confirms it
    (``confirm_negative_edge``; recorded with the table and logged): else ``edge_below_floor``."""
    settings = (body.game, body.name, body.seats, body.min_bet, body.max_bet, body.rules, body.paytable)
    files = (body.game_file, body.rule_set)
    _, got = await read_off_loop(
        request, "POST /tables", functools.partial(table_settings, *settings, *files)
    )
    edges: dict[str, Fraction] = {}
    if server.config.min_house_edge > 0 or got.rules != got.definition.make_rules():
        # (the standard rule set of every registered game holds a positive edge on every wager at the meters'
        # resets: tests/analysis/test_standard_edges.py; so a table on it needs no solve)
        figures = await solver_of(request).analyze(got, None, {}, "operator")
        edges["main"] = Fraction(figures["house_edge_exact"])
        edges.update((bet["name"], Fraction(bet["house_edge_exact"])) for bet in figures["side_bets"])
    confirmation = await read_off_loop(
        request,
        "POST /tables",
        functools.partial(
            edge_confirmation,
            edges,
            server.config.min_house_edge,
            body.confirm_negative_edge,
            request.client.host if request.client else "unknown",
        ),
    )
    row = await off_loop(
        request,
        functools.partial(
            server.tables.create_table, *settings, *files, edge_confirmation=confirmation, actor=actor.name
        ),
    )
    return CreatedTable.model_validate(row)


@router.patch("/tables/{table_id}", response_model=TableOut, responses=errors(403, 404))
async def set_limits(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(TABLE_LIMITS)],
    table_id: RowId,
    body: LimitsBody,
) -> TableOut:
    return TableOut.model_validate(
        await off_loop(request, server.tables.set_limits, table_id, body.min_bet, body.max_bet, actor.name)
    )


@router.get("/tables/{table_id}", response_model=TableView, responses=errors(404))
async def table(request: Request, server: ServerDep, table_id: RowId) -> TableView:
    runner = await off_loop(request, server.tables.runner, table_id)
    return TableView.model_validate(await runner.call(runner.public_view))


class RuleRowOut(Out):
    label: str
    value: str


class RuleSectionOut(Out):
    title: str  # a pay table (with its name), a side bet's prizes, the meters, the game's rules
    rows: list[RuleRowOut]


class RuleChangeOut(Out):
    name: str  # the parameter (``--rule NAME=VALUE``)
    label: str
    value: str
    standard: str


class RuleCardOut(Out):
    """A table's pay tables and rules in a player's words, from the game's definition (``rules.rulecard``)."""

    table_id: int
    game: str
    title: str
    summary: str  # "standard rules", or the changes in one line
    sections: list[RuleSectionOut]
    changes: list[RuleChangeOut]


def _card_out(table_id: int, card: RuleCard) -> RuleCardOut:
    return RuleCardOut(
        table_id=table_id,
        game=card.game,
        title=card.title,
        summary=card.summary,
        sections=[
            RuleSectionOut(title=s.title, rows=[RuleRowOut(label=r.label, value=r.value) for r in s.rows])
            for s in card.sections
        ],
        changes=[
            RuleChangeOut(name=c.name, label=c.label, value=c.value, standard=c.standard)
            for c in card.changes
        ],
    )


@router.get("/tables/{table_id}/rules", response_model=RuleCardOut, responses=errors(404))
async def table_rules(request: Request, server: ServerDep, table_id: RowId) -> RuleCardOut:
    """The table's pay tables, prizes, meters and rules in a player's words, and how they differ from the
    game's standard rules (issue 24: one click away at every table and in the lobby)."""

    def card() -> RuleCardOut:
        row = server.tables.table_row(table_id)
        return _card_out(table_id, table_card(row.game, row.rules, row.paytable))

    return await off_loop(request, card)


class OwnerOut(Out):
    table_id: int
    node: str  # the process serving the table (``tablegames serve --node``)
    url: str  # where clients reach it (``--advertise``)
    generation: int  # its lease's generation (0: one process owns every table, SQLite)


@router.get("/tables/{table_id}/owner", response_model=OwnerOut, responses=errors(404, 503))
async def table_owner(request: Request, server: ServerDep, table_id: RowId) -> OwnerOut:
    """The process serving the table now (docs/server.md, "Several processes"); any process answers."""
    return OwnerOut.model_validate(await off_loop(request, server.tables.table_owner, table_id))


@router.get("/tables/{table_id}/history", response_model=list[RoundSummary], responses=errors(404))
async def table_history(
    request: Request,
    server: ServerDep,
    table_id: RowId,
    last: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ROW_ID, description="the next page: rounds below this round_id")
    ] = None,
) -> Response:
    """A table's public results, newest first: no balances (a player's are theirs: ``GET /history``)."""
    await off_loop(request, server.tables.table_row, table_id)  # not_found for an unknown table
    return await json_off_loop(
        request, read(server, history, None, last, before, table_id=table_id, show_balances=None)
    )


class BotBody(Closed):
    seat: StrictInt = Field(description="the empty seat the bot takes")


class BotOut(Out):
    """A practice bot seated or removed (server/bots.py)."""

    table_id: int
    seat: int
    name: str  # "[bot] <table>.<seat>": a name no person can register
    removed: bool  # removed now (false when seated, or when it leaves once its round is settled)


async def bot_actor(
    request: Request,
    server: ServerDep,
    x_admin_token: Annotated[str | None, Header()] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> tuple[str, int | None]:
    """Who seats or removes a bot, as the audit trail names them: staff who may (``table.bots``: a session or
    the admin token; server/permissions.py), or (a practice server, ``tablegames serve --practice-bots``) a
    player, who must sit at the table (checked by its runner)."""
    staff = await off_loop(request, staff_actor, server, authorization, x_admin_token)
    if staff is not None:
        return check(staff, TABLE_BOTS).name, None
    token = bearer(authorization)
    if server.config.practice_bots and token is not None:
        player = await off_loop(request, server.players.authenticate, token)
        return f"player:{player.player_id}", player.player_id
    raise ApiError(
        "forbidden",
        "seating bots needs a staff session or the admin token (X-Admin-Token), or on a practice server a seat "
        "at this table",
        403,
    )


BotActor = Annotated[tuple[str, int | None], Depends(bot_actor)]
"""(A dependency: checked before the body is read.)"""


@router.post(
    "/tables/{table_id}/bots", status_code=201, response_model=BotOut, responses=errors(403, 404, 409)
)
async def add_bot(
    request: Request,
    server: ServerDep,
    who: BotActor,
    table_id: RowId,
    body: BotBody,
) -> BotOut:
    """Seat a practice bot at an empty seat: it plays the exact strategy at the table's minimum wager, with
    play money bought in from the cashier (docs/server.md, "Practice bots"). Audited (``table.bot.add``)."""
    actor, player_id = who
    runner = await off_loop(request, server.tables.runner, table_id)
    return BotOut.model_validate(await runner.call(runner.add_bot, body.seat, actor, player_id))


@router.delete("/tables/{table_id}/bots/{seat}", response_model=BotOut, responses=errors(403, 404, 409))
async def remove_bot(
    request: Request,
    server: ServerDep,
    table_id: RowId,
    who: BotActor,
    seat: Annotated[int, Path(ge=1, le=1000)],
) -> BotOut:
    """Remove a seat's bot (its wallet cashed out): now, or once its round is settled (``removed`` false).
    Audited (``table.bot.remove``)."""
    actor, player_id = who
    runner = await off_loop(request, server.tables.runner, table_id)
    return BotOut.model_validate(await runner.call(runner.remove_bot, seat, actor, player_id))


# (last: its path would take the /bots paths above it)
class StatusBody(Closed):
    reason: str = Field(default="", max_length=500)


@router.post("/tables/{table_id}/{change}", response_model=TableOut, responses=errors(403, 404, 409))
async def set_status(
    request: Request,
    server: ServerDep,
    actor: Annotated[Actor, staff_may(TABLE_STATUS)],
    table_id: RowId,
    change: Literal["pause", "resume", "close"],
    body: StatusBody,
) -> TableOut:
    """Pause (no new round; the round in play finishes), resume or close a table (for good)."""
    return TableOut.model_validate(
        await off_loop(request, server.tables.set_status, table_id, change, actor.name, body.reason)
    )

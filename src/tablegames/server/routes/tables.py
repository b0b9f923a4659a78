"""Tables: ``GET /tables``, ``POST /tables`` and ``PATCH /tables/{id}`` (operator), ``GET /tables/{id}`` (its
public view), ``GET /tables/{id}/history`` (its public results)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictInt

from tablegames.server.queries import history
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    RowId,
    errors,
    json_off_loop,
    off_loop,
    read,
    server_of,
)
from tablegames.server.routes.rounds import RoundSummary
from tablegames.server.service import HISTORY_PAGE_MAX

router = APIRouter(tags=["tables"], responses=COMMON_ERRORS)


class TableBody(BaseModel):
    game: str | None = None  # may be omitted with a game file (it names its game)
    name: str = Field(min_length=1, max_length=80)
    seats: StrictInt = 5
    min_bet: StrictInt = 100
    max_bet: StrictInt = 10_000
    rules: dict[str, str | int] = Field(default_factory=dict)  # a full or partial rule set (issue 15)
    paytable: str | None = None
    game_file: str | None = Field(None, max_length=65_536, description="a game file's text (TOML)")
    rule_set: str | None = Field(None, max_length=80, description="the rule set's name (default: the file's)")


class LimitsBody(BaseModel):
    min_bet: StrictInt | None = None
    max_bet: StrictInt | None = None


class TableOut(Out):
    table_id: int
    name: str
    game: str
    seats: int
    min_bet: int
    max_bet: int
    rules: dict[str, str]  # the complete rule set
    paytable: str | None
    rule_set: str | None = None  # the rule set's name (a game file's, or given at creation)
    occupied: dict[str, str]  # seat -> player name


class TableView(TableOut):
    view: dict[str, Any] | None  # the engine's view of the live round for an onlooker (None: no round yet)


@router.get("/tables", response_model=list[TableOut])
async def tables(request: Request) -> list[TableOut]:
    rows = await off_loop(request, server_of(request).list_tables)
    return [TableOut.model_validate(r) for r in rows]


@router.post("/tables", status_code=201, response_model=TableOut, responses=errors(403))
async def create_table(
    request: Request, body: TableBody, x_admin_token: Annotated[str | None, Header()] = None
) -> TableOut:
    server = server_of(request)
    server.check_admin(x_admin_token)
    row = await off_loop(
        request,
        server.create_table,
        body.game,
        body.name,
        body.seats,
        body.min_bet,
        body.max_bet,
        body.rules,
        body.paytable,
        body.game_file,
        body.rule_set,
    )
    return TableOut.model_validate(row)


@router.patch("/tables/{table_id}", response_model=TableOut, responses=errors(403, 404))
async def set_limits(
    request: Request,
    table_id: RowId,
    body: LimitsBody,
    x_admin_token: Annotated[str | None, Header()] = None,
) -> TableOut:
    server = server_of(request)
    server.check_admin(x_admin_token)
    return TableOut.model_validate(
        await off_loop(request, server.set_limits, table_id, body.min_bet, body.max_bet)
    )


@router.get("/tables/{table_id}", response_model=TableView, responses=errors(404))
async def table(request: Request, table_id: RowId) -> TableView:
    runner = await off_loop(request, server_of(request).runner, table_id)
    return TableView.model_validate(await runner.call(runner.public_view))


class OwnerOut(Out):
    table_id: int
    node: str  # the process serving the table (``tablegames serve --node``)
    url: str  # where clients reach it (``--advertise``)
    generation: int  # its lease's generation (0: one process owns every table, SQLite)


@router.get("/tables/{table_id}/owner", response_model=OwnerOut, responses=errors(404, 503))
async def table_owner(request: Request, table_id: RowId) -> OwnerOut:
    """The process serving the table now (docs/server.md, "Several processes"); any process answers."""
    return OwnerOut.model_validate(await off_loop(request, server_of(request).table_owner, table_id))


@router.get("/tables/{table_id}/history", response_model=list[RoundSummary], responses=errors(404))
async def table_history(
    request: Request,
    table_id: RowId,
    last: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ROW_ID, description="the next page: rounds below this round_id")
    ] = None,
) -> Response:
    """A table's public results, newest first: no balances (a player's are theirs: ``GET /history``)."""
    server = server_of(request)
    await off_loop(request, server.table_row, table_id)  # not_found for an unknown table
    return await json_off_loop(
        request, read(server, history, None, last, before, table_id=table_id, show_balances=None)
    )

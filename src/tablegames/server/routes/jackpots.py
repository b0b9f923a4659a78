"""The linked jackpot meters: ``GET /jackpots`` (their values) and ``GET /jackpots/history`` (their entries)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from tablegames.server.checks import JACKPOT_PAGE_MAX
from tablegames.server.meters import jackpot_history, jackpots
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    ServerDep,
    json_off_loop,
    off_loop,
    read,
)

router = APIRouter(tags=["jackpots"], responses=COMMON_ERRORS)


class MeterValue(Out):
    game: str
    meter: str
    value: int  # cents
    reset: int
    share: str  # of every feeding wager, an exact fraction ("1/10")


class MeterEntry(Out):
    entry_id: int
    game: str
    meter: str
    kind: str  # seed | contribution | hit
    amount: int
    round_id: int | None
    time: str | None
    player: str | None
    hit_seq: int | None  # a hit's place in the meter's order of hits (1, 2, ...); None for other entries


@router.get("/jackpots", response_model=list[MeterValue])
async def get_jackpots(request: Request, server: ServerDep) -> list[MeterValue]:
    rows = await off_loop(request, read(server, jackpots))
    return [MeterValue.model_validate(r) for r in rows]


@router.get("/jackpots/history", response_model=list[MeterEntry])
async def get_jackpot_history(
    request: Request,
    server: ServerDep,
    game: str | None = None,
    meter: str | None = None,
    last: Annotated[int, Query(ge=1, le=JACKPOT_PAGE_MAX)] = 50,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ROW_ID, description="the next page: entries below this entry_id")
    ] = None,
) -> Response:
    return await json_off_loop(request, read(server, jackpot_history, game, meter, last, before))

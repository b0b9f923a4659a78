"""Finished rounds: ``GET /rounds/{id}`` (a round's full recall) and ``GET /history`` (a player's rounds)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response

from tablegames.server.checks import HISTORY_PAGE_MAX
from tablegames.server.contract import Event, FairnessRecord
from tablegames.server.errors import ApiError
from tablegames.server.queries import history, player_id_of, round_recall
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    RowId,
    ServerDep,
    bearer,
    errors,
    json_off_loop,
    viewer,
)

router = APIRouter(tags=["rounds"], responses=COMMON_ERRORS)


class RoundPlayerOut(Out):
    seat: int
    player: str
    staked: int
    returned: int
    net: int
    balance_before: int | None = None  # only the reader's own (an operator: everyone's)
    balance_after: int | None = None


class RoundSummary(Out):
    round_id: int
    table_id: int
    table: str
    game: str
    round_no: int
    rules: dict[str, str]  # the round's complete rule set (as it started)
    rule_set: str | None = None  # the name of its table's rule set
    status: str
    started: str | None
    settled_at: str | None
    recovered: bool
    players: list[RoundPlayerOut]
    house_net: int | None


class JackpotMove(Out):
    kind: str  # contribution | hit
    meter: str
    amount: int
    seat: int
    player: str | None


class RoundRecall(RoundSummary):
    events: list[Event]  # the round's events in order (docs/protocol.md)
    jackpot: list[JackpotMove]
    fairness: FairnessRecord | None  # the provably fair record (None: a test deck)


@router.get("/rounds/{round_id}", response_model=RoundRecall, responses=errors(404, 409))
async def get_round(
    request: Request,
    server: ServerDep,
    round_id: RowId,
    authorization: Annotated[str | None, Header()] = None,
    x_admin_token: Annotated[str | None, Header()] = None,
) -> Response:
    """A finished round's full recall; balances only the reader's own (an operator: all)."""

    def recall() -> dict[str, Any]:
        show = viewer(server, authorization, x_admin_token)
        with server.sessions() as s:
            return round_recall(s, round_id, show)

    return await json_off_loop(request, recall)


@router.get("/history", response_model=list[RoundSummary], responses=errors(401, 403, 404))
async def get_history(
    request: Request,
    server: ServerDep,
    player: str | None = None,
    last: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ROW_ID, description="the next page: rounds below this round_id")
    ] = None,
    authorization: Annotated[str | None, Header()] = None,
    x_admin_token: Annotated[str | None, Header()] = None,
) -> Response:
    """A player's rounds with their balances (their token; ``player`` may only name themself), or any
    player's / all rounds for an operator (``X-Admin-Token``). Newest first, a page at a time."""

    def rows() -> list[dict[str, Any]]:
        with server.sessions() as s:
            if server.players.is_admin(x_admin_token):
                return history(s, player, last, before)
            me = server.players.authenticate(bearer(authorization))
            if player and player_id_of(s, player) != me.player_id:
                raise ApiError("forbidden", "a player's history is theirs: you may read only your own", 403)
            return history(s, me.player_id, last, before, show_balances=me.player_id)

    return await json_off_loop(request, rows)

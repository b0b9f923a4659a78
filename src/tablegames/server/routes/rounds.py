"""Finished rounds: ``GET /rounds/{id}`` (a round's full recall), ``GET /history`` (a player's rounds) and
``GET /history/export`` (a player's hand history as a file, :mod:`tablegames.server.handhistory`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response

from tablegames.server.checks import HISTORY_PAGE_MAX
from tablegames.server.contract import Event, FairnessRecord
from tablegames.server.errors import ApiError
from tablegames.server.handhistory import EXPORT_MAX, MEDIA_TYPES, export, render
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
    off_loop,
    sees_everyone,
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
    rule_summary: str  # the round's rules in a player's words: "standard rules" or the changes (issue 24)


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
            if sees_everyone(server, authorization, x_admin_token):
                return history(s, player, last, before)
            me = server.players.authenticate(bearer(authorization))
            if player and player_id_of(s, player) != me.player_id:
                raise ApiError("forbidden", "a player's history is theirs: you may read only your own", 403)
            return history(s, me.player_id, last, before, show_balances=me.player_id)

    return await json_off_loop(request, rows)


_EXPORT_CONTENT = {
    media: {
        "schema": {
            "type": "string",
            "description": "one record per round and seat: JSON Lines of schemas/hand-history.schema.json, or "
            "CSV with a header row (amounts in cents)",
        }
    }
    for media in MEDIA_TYPES.values()
}


@router.get(
    "/history/export",
    response_class=Response,
    responses={
        200: {"description": "the hand history file", "content": _EXPORT_CONTENT},
        **errors(401, 403, 404),
    },
)
async def export_history(
    request: Request,
    server: ServerDep,
    format: Literal["jsonl", "csv"] = "jsonl",
    player: str | None = None,
    last: Annotated[int, Query(ge=1, le=EXPORT_MAX)] = 100,
    before: Annotated[
        int | None, Query(ge=1, le=MAX_ROW_ID, description="rounds below this round_id (the next file)")
    ] = None,
    authorization: Annotated[str | None, Header()] = None,
    x_admin_token: Annotated[str | None, Header()] = None,
) -> Response:
    """A player's hand history (issue 24), oldest round first: their own (their token; ``player`` may only
    name themself) or, for an operator (``X-Admin-Token``), the named player's. A download
    (``Content-Disposition: attachment``)."""

    def build() -> tuple[str, str]:
        with server.sessions() as s:
            # (the admin token with a player's own token and no name: that player's own file)
            mine = x_admin_token is not None and bearer(authorization) is not None and not player
            if sees_everyone(server, authorization, x_admin_token) and not mine:
                if not player:
                    raise ApiError("bad_request", "name the player whose hand history to export", 400)
                pid, name = player_id_of(s, player), player
            else:
                me = server.players.authenticate(bearer(authorization))
                if player and player_id_of(s, player) != me.player_id:
                    raise ApiError(
                        "forbidden", "a player's hand history is theirs: you may export only your own", 403
                    )
                pid, name = me.player_id, me.name
            records = export(s, pid, last, before)
        return render(records, format), name

    body, name = await off_loop(request, build)
    filename = f"hand-history-{''.join(c if c.isalnum() else '-' for c in name)}.{format}"
    return Response(
        body.encode(),
        media_type=MEDIA_TYPES[format],
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )

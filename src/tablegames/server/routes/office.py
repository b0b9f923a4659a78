"""The back office (issue 25): the page at ``/office`` and the reads only it needs: ``GET /audit`` (the trail, newest
first, filtered), ``GET /audit/export`` (CSV or JSON, every column with the hashes), ``GET /audit/verify`` (the
chain and the ledger's seals recomputed) and ``GET /players`` (a search, with balances). Each checks its action's
roles (server/permissions.py); the page draws what ``GET /staff/me`` says the role may do."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from sqlalchemy import select

from tablegames.server import audit, ledger_seal
from tablegames.server.db import Account, AuditEntry, Player
from tablegames.server.names import display_name, name_key
from tablegames.server.permissions import AUDIT_READ, PLAY_VIEW, Actor
from tablegames.server.routes.deps import (
    COMMON_ERRORS,
    MAX_ROW_ID,
    Out,
    ServerDep,
    errors,
    off_loop,
    staff_may,
)

router = APIRouter(tags=["office"], responses=COMMON_ERRORS)
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
AUDIT_PAGE_MAX = 500
EXPORT_MAX = 100_000


class AuditEntryOut(Out):
    id: int
    at: float
    actor: str
    action: str
    subject: str
    before: Any
    after: Any
    reason: str
    prev_hash: str
    hash: str


class VerifyOut(Out):
    ok: bool
    entries: int
    problem: str  # the first break of the chain, or of a sealed range of the ledger ("": none)
    sealed: int  # ledger transactions covered by seals
    unsealed: int  # after the last seal (not yet sealed: not a fault)


class PlayerRow(Out):
    name: str
    balance: int  # cents
    created_at: float
    suspended: bool


@router.get("/office", include_in_schema=False)
async def office_page() -> Any:
    page = STATIC_DIR / "office.html"
    if page.is_file():
        return FileResponse(page)
    return JSONResponse({"error": {"code": "not_found", "message": "no back office page installed"}}, 404)


def _entries(
    server: Any, actor: str | None, action: str | None, last: int, before: int | None
) -> list[dict[str, Any]]:
    with server.sessions() as s:
        q = select(AuditEntry).order_by(AuditEntry.id.desc()).limit(last)
        if actor:
            q = q.where(AuditEntry.actor == actor)
        if action:
            q = q.where(audit.action_is(action))
        if before is not None:
            q = q.where(AuditEntry.id < before)
        return [{c: getattr(e, c) for c in audit.COLUMNS} for e in s.scalars(q)]


Filter = Annotated[str | None, Query(max_length=80)]


@router.get("/audit", response_model=list[AuditEntryOut], responses=errors(401, 403))
async def audit_log(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(AUDIT_READ)],
    actor: Filter = None,
    action: Annotated[
        str | None, Query(max_length=40, description="an action or its prefix: table., adjust.")
    ] = None,
    last: Annotated[int, Query(ge=1, le=AUDIT_PAGE_MAX)] = 100,
    before: Annotated[int | None, Query(ge=1, le=MAX_ROW_ID)] = None,
) -> list[AuditEntryOut]:
    """The audit trail, newest first, a page at a time (``before``: entries below this id)."""
    rows = await off_loop(request, _entries, server, actor, action, last, before)
    return [AuditEntryOut.model_validate(r) for r in rows]


@router.get(
    "/audit/export",
    response_class=Response,
    responses={
        200: {
            "description": "the trail as a CSV or JSON file, oldest first (every column, the hashes too)",
            "content": {
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {
                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/AuditEntryOut"}}
                },
            },
        },
        **errors(401, 403),
    },
)
async def audit_export(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(AUDIT_READ)],
    format: Literal["csv", "json"] = "csv",
    actor: Filter = None,
    action: Annotated[str | None, Query(max_length=40)] = None,
) -> Response:
    """Every column, the hashes too, so that the file can be verified on its own (as ``tablegames audit
    export``)."""

    def build() -> bytes:
        with server.sessions() as s:
            rows = [r for _, r in zip(range(EXPORT_MAX), audit.export_rows(s, actor, action), strict=False)]
        if format == "json":
            return (json.dumps(rows, indent=1, ensure_ascii=False) + "\n").encode()
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=audit.COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: json.dumps(v) if k in ("before", "after") else v for k, v in r.items()})
        return buf.getvalue().encode()

    body = await off_loop(request, build)
    media = "application/json" if format == "json" else "text/csv"
    return Response(
        body, media_type=media, headers={"Content-Disposition": f'attachment; filename="audit.{format}"'}
    )


@router.get("/audit/verify", response_model=VerifyOut, responses=errors(401, 403))
async def audit_verify(
    request: Request, server: ServerDep, _reader: Annotated[Actor, staff_may(AUDIT_READ)]
) -> VerifyOut:
    """The chain and every seal of the ledger recomputed (as ``tablegames audit verify``)."""

    def check() -> VerifyOut:
        with server.sessions() as s:
            chain, books = audit.verify(s), ledger_seal.verify(s)
        return VerifyOut(
            ok=chain.ok and books.ok,
            entries=chain.entries,
            problem=chain.problem or books.problem,
            sealed=books.sealed,
            unsealed=books.unsealed,
        )

    return await off_loop(request, check)


@router.get("/players", response_model=list[PlayerRow], responses=errors(401, 403))
async def players(
    request: Request,
    server: ServerDep,
    _reader: Annotated[Actor, staff_may(PLAY_VIEW)],
    search: Annotated[str, Query(max_length=40, description="the start of a name (any case)")] = "",
    last: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[PlayerRow]:
    """Players whose name starts with ``search`` (by its look-alike key), with their balances."""

    def rows() -> list[PlayerRow]:
        shown = display_name(search) if search else None
        with server.sessions() as s:
            q = (  # (the balances in the same query: no read per player)
                select(Player.name, Account.balance, Player.created_at, Player.suspended)
                .join(Account, Account.id == Player.account_id)
                .order_by(Player.name)
                .limit(last)
            )
            if search:
                if shown is None:
                    return []
                q = q.where(Player.name_key.like(name_key(shown).replace("%", "") + "%"))
            return [
                PlayerRow(name=name, balance=int(balance), created_at=created, suspended=bool(suspended))
                for name, balance, created, suspended in s.execute(q)
            ]

    return await off_loop(request, rows)

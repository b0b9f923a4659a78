"""A player's wallet: ``POST /wallet/buy-in``, ``POST /wallet/cash-out``, ``GET /wallet``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import Field, StrictInt

from tablegames.server.contract.base import Closed
from tablegames.server.routes.deps import COMMON_ERRORS, Auth, Out, ServerDep, errors, off_loop

router = APIRouter(tags=["wallet"], responses={**COMMON_ERRORS, **errors(401)})


class MoneyBody(Closed):
    amount: StrictInt = Field(description="integer cents, > 0")
    request_id: str = Field(min_length=1, max_length=64)


class Moved(Out):
    balance: int
    transaction_id: int
    duplicate: bool


class EntryOut(Out):
    transaction_id: int
    kind: str
    amount: int
    round_id: int | None
    time: str | None


class WalletOut(Out):
    balance: int
    entries: list[EntryOut]


@router.post("/wallet/buy-in", response_model=Moved)
async def buy_in(request: Request, server: ServerDep, body: MoneyBody, p: Auth) -> Moved:
    return Moved.model_validate(
        await off_loop(request, server.wallets.cashier, p, "buy-in", body.amount, body.request_id)
    )


@router.post("/wallet/cash-out", response_model=Moved)
async def cash_out(request: Request, server: ServerDep, body: MoneyBody, p: Auth) -> Moved:
    return Moved.model_validate(
        await off_loop(request, server.wallets.cashier, p, "cash-out", body.amount, body.request_id)
    )


@router.get("/wallet", response_model=WalletOut)
async def wallet(
    request: Request, server: ServerDep, p: Auth, last: Annotated[int, Query(ge=1, le=500)] = 20
) -> WalletOut:
    return WalletOut.model_validate(await off_loop(request, server.wallets.wallet, p, last))

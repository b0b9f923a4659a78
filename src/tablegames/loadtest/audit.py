"""The money check after a load test: the ledger balances, nothing is left in play, every player's balance is
the buy-in plus the nets of the rounds it saw settled."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tablegames.loadtest.client import Player
from tablegames.loadtest.config import MoneyCheck


async def _final_balances(base: str, players: list[Player]) -> dict[int, int]:
    import httpx

    out: dict[int, int] = {}
    async with httpx.AsyncClient(
        base_url=base, timeout=60.0, limits=httpx.Limits(max_connections=20)
    ) as http:
        sem = asyncio.Semaphore(20)

        async def one(p: Player) -> None:
            async with sem:  # asked where the player played last (its table's owner)
                r = await http.get(f"{p.base or base}/me", headers={"Authorization": f"Bearer {p.token}"})
                out[p.index] = int(r.json()["balance"])

        await asyncio.gather(*(one(p) for p in players))
    return out


def open_rounds(database_url: str) -> int:
    """How many rounds of the server's database are not settled (nor void) yet."""
    from sqlalchemy import func, select

    from tablegames.server.db import SETTLED, RoundRow, make_engine

    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return int(
                conn.scalar(select(func.count(RoundRow.id)).where(RoundRow.status.not_in([SETTLED, "void"])))
                or 0
            )
    finally:
        engine.dispose()


async def wait_rounds_closed(database_url: str, timeout: float) -> int:
    """(Several processes, after the play.) Wait, at most ``timeout`` seconds, until every round is settled: a
    round of a killed process's table is recovered by its new owner with fresh betting and turn clocks, so it
    may be settled a minute after the clients stopped. Only then can a player's history and balance be read
    once for all (stop 31's race: a reconcile before that settlement and a balance read after it). The rounds
    still open when the time is up (the money check reports them)."""
    deadline = time.monotonic() + timeout
    while True:
        left = await asyncio.to_thread(open_rounds, database_url)
        if left == 0 or time.monotonic() >= deadline:
            return left
        await asyncio.sleep(0.5)


def check_money(database_url: str) -> MoneyCheck:
    """The ledger invariants on the server's database."""
    from sqlalchemy import func, select

    from tablegames.server import ledger
    from tablegames.server.db import (
        CASHIER,
        HOUSE,
        IN_PLAY,
        JACKPOT,
        SETTLED,
        WALLET,
        Account,
        RoundRow,
        make_engine,
    )

    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            from sqlalchemy.orm import Session

            with Session(bind=conn) as s:
                chk = ledger.check_ledger(s)
                by_kind = dict(
                    s.execute(select(Account.kind, func.sum(Account.balance)).group_by(Account.kind)).all()
                )
                unsettled = int(
                    s.scalar(select(func.count(RoundRow.id)).where(RoundRow.status.not_in([SETTLED, "void"])))
                    or 0
                )
                twice, paid_twice, open_in_play = _per_round(s)
    finally:
        engine.dispose()

    def k(name: str) -> int:
        return int(by_kind.get(name) or 0)

    return MoneyCheck(
        checked=True,
        accounts=chk.accounts,
        transactions=chk.transactions,
        mismatched=list(chk.mismatched),
        unbalanced=list(chk.unbalanced),
        total=chk.total,
        wallets=k(WALLET),
        house=k(HOUSE),
        cashier=k(CASHIER),
        in_play=k(IN_PLAY),
        meters=k(JACKPOT),
        unsettled_rounds=unsettled,
        settled_twice=twice,
        paid_twice=paid_twice,
        rounds_open_in_play=open_in_play,
    )


def _per_round(s: Any) -> tuple[list[int], list[str], list[int]]:
    """The books per round (issue 20): rounds whose stakes were taken twice (one ``stakes`` transaction per
    settlement), (round, player) pairs paid twice, and rounds whose in-play money (wagers in, stakes and returns
    out) does not sum to zero."""
    from sqlalchemy import text

    twice = [
        int(r)
        for (r,) in s.execute(
            text(
                "SELECT round_id FROM ledger_transactions WHERE kind = 'stakes' AND round_id IS NOT NULL "
                "GROUP BY round_id HAVING COUNT(*) > 1 ORDER BY round_id"
            )
        )
    ]
    paid = [
        f"round {r} player {p}"
        for r, p in s.execute(
            text(
                "SELECT round_id, player_id FROM ledger_transactions WHERE kind = 'payout' "
                "AND round_id IS NOT NULL GROUP BY round_id, player_id HAVING COUNT(*) > 1 ORDER BY round_id"
            )
        )
    ]
    open_in_play = [
        int(r)
        for (r,) in s.execute(
            text(
                "SELECT t.round_id FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id "
                "JOIN accounts a ON a.id = e.account_id WHERE a.kind = 'in_play' AND t.round_id IS NOT NULL "
                "GROUP BY t.round_id HAVING SUM(e.amount) <> 0 ORDER BY t.round_id"
            )
        )
    ]
    return twice, paid, open_in_play

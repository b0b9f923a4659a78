"""A player's wallet: buy-in and cash-out (idempotent by request id), and its ledger entries.

:class:`WalletService`'s methods block on the database (the routes call them on the REST threads)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from tablegames.server import ledger
from tablegames.server.checks import check_amount, check_request_id, idempotency_key, iso
from tablegames.server.core import PlayerInfo
from tablegames.server.db import (
    CASHIER,
    Entry,
    IdempotencyKey,
    LedgerTransaction,
)
from tablegames.server.errors import ApiError
from tablegames.server.protection import ProtectionService, record
from tablegames.server.transactions import Transactions


class WalletService:
    """Wallets over the server's unit of work (``db``); ``system``: the system accounts' ids by kind (the
    cashier's among them), filled when the server starts."""

    def __init__(
        self, db: Transactions, system: dict[str, int], protection: ProtectionService | None = None
    ) -> None:
        self.db = db
        self.system = system
        self.protection = protection  # deposit limits, breaks and exclusions (issue 26)

    def cashier(self, player: PlayerInfo, kind: str, amount: object, request_id: object) -> dict[str, Any]:
        """Buy-in (cashier -> wallet) or cash-out (wallet -> cashier), idempotent by request id."""
        rid = check_request_id(request_id, required=True)
        assert rid is not None
        key = idempotency_key(kind, rid)
        with self.db.sessions() as s:
            old = s.get(IdempotencyKey, (player.player_id, key))
            if old is not None:
                return {**old.response, "duplicate": True}
        cents = check_amount(amount)
        if cents > 10**12:
            raise ApiError("over_limit", "amount too large")
        at = None
        if kind == "buy-in" and self.protection is not None:  # a deposit: limits, breaks, exclusions
            at = self.protection.check_deposit(player, cents)
        try:
            with self.db.tx() as s:
                if at is not None:
                    record(s, player.player_id, at, "deposit", cents)
                src, dst = (
                    (self.system[CASHIER], player.account_id)
                    if kind == "buy-in"
                    else (player.account_id, self.system[CASHIER])
                )
                tx_id = ledger.transfer(s, kind, src, dst, cents, player_id=player.player_id)
                response = {"balance": ledger.balance(s, player.account_id), "transaction_id": tx_id}
                s.add(IdempotencyKey(player_id=player.player_id, request_id=key, response=response))
        except ledger.NotEnoughMoney:
            raise ApiError(
                "insufficient_funds",
                f"cannot cash out {cents} cents: the balance is {self.db.balance(player.account_id)}",
            ) from None
        except IntegrityError:  # the same request id raced in: answer as the first one did
            with self.db.sessions() as s:
                old = s.get(IdempotencyKey, (player.player_id, key))
                assert old is not None
                return {**old.response, "duplicate": True}
        return {**response, "duplicate": False}

    def wallet(self, player: PlayerInfo, last: int = 20) -> dict[str, Any]:
        with self.db.sessions() as s:
            rows = s.execute(
                select(
                    Entry.transaction_id,
                    Entry.kind,
                    Entry.amount,
                    LedgerTransaction.round_id,
                    LedgerTransaction.created_at,
                )
                .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
                .where(Entry.account_id == player.account_id)
                .order_by(Entry.id.desc())
                .limit(max(1, min(last, 500)))
            ).all()
            return {
                "balance": ledger.balance(s, player.account_id),
                "entries": [
                    {"transaction_id": t, "kind": k, "amount": a, "round_id": r, "time": iso(c)}
                    for t, k, a, r, c in rows
                ],
            }

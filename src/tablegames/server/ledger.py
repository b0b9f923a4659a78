"""The double-entry ledger in integer cents.

Every money movement is one :class:`~tablegames.server.db.LedgerTransaction` whose entries sum to zero. Balances
are updated with one conditional ``UPDATE`` per entry, so a wallet can never go below zero even with concurrent
writers (the database refuses, and the whole transaction is rolled back by the caller).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from tablegames.server.db import CASHIER, HOUSE, IN_PLAY, WALLET, Account, Entry, LedgerTransaction, now

SYSTEM_ACCOUNTS = {HOUSE: HOUSE, CASHIER: CASHIER, IN_PLAY: "in-play"}


class LedgerError(Exception):
    code = "ledger_error"


class NotEnoughMoney(LedgerError):
    code = "insufficient_funds"


@dataclass(frozen=True)
class Move:
    account_id: int
    amount: int  # signed
    kind: str


def system_account(session: Session, kind: str) -> int:
    """The id of the house / cashier / in-play account (created on first use)."""
    name = SYSTEM_ACCOUNTS[kind]
    acc_id = session.scalar(select(Account.id).where(Account.name == name))
    if acc_id is None:
        acc = Account(name=name, kind=kind, balance=0)
        session.add(acc)
        session.flush()
        acc_id = acc.id
    return int(acc_id)


def post(
    session: Session,
    kind: str,
    moves: Iterable[Move],
    *,
    round_id: int | None = None,
    player_id: int | None = None,
    memo: str = "",
) -> int:
    """Write one balanced transaction; returns its id (0 when every amount is zero). Raises :class:`NotEnoughMoney` if a wallet would go
    negative (the caller rolls back)."""
    moves = [m for m in moves if m.amount != 0]
    if sum(m.amount for m in moves) != 0:
        raise LedgerError(f"unbalanced transaction {kind}: {moves}")
    for m in moves:
        if isinstance(m.amount, bool) or not isinstance(m.amount, int):
            raise LedgerError(f"amounts are integer cents, got {m.amount!r}")
    if not moves:
        return 0  # nothing moves: no transaction is written
    tx_id = int(
        session.execute(
            insert(LedgerTransaction)
            .values(kind=kind, round_id=round_id, player_id=player_id, memo=memo[:200], created_at=now())
            .returning(LedgerTransaction.id)
        ).scalar_one()
    )
    # Debits first, in account order (a stable lock order on PostgreSQL).
    for m in sorted(moves, key=lambda m: (m.amount > 0, m.account_id)):
        stmt = update(Account).where(Account.id == m.account_id)
        if m.amount < 0:
            stmt = stmt.where((Account.kind.not_in([WALLET, IN_PLAY])) | (Account.balance >= -m.amount))
        result = session.execute(
            stmt.values(balance=Account.balance + m.amount).execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise NotEnoughMoney(f"not enough money in the account for {-m.amount} cents")
    session.info.setdefault("touched_accounts", set()).update(m.account_id for m in moves)  # balance cache
    session.execute(
        insert(Entry),
        [
            {"transaction_id": tx_id, "account_id": m.account_id, "amount": m.amount, "kind": m.kind}
            for m in moves
        ],
    )
    return tx_id


def transfer(
    session: Session,
    kind: str,
    source: int,
    dest: int,
    amount: int,
    *,
    round_id: int | None = None,
    player_id: int | None = None,
    memo: str = "",
) -> int:
    return post(
        session,
        kind,
        [Move(source, -amount, kind), Move(dest, amount, kind)],
        round_id=round_id,
        player_id=player_id,
        memo=memo,
    )


def balance(session: Session, account_id: int) -> int:
    return int(session.scalar(select(Account.balance).where(Account.id == account_id)) or 0)


@dataclass(frozen=True)
class LedgerCheck:
    accounts: int
    transactions: int
    mismatched: list[str]
    unbalanced: list[int]
    total: int

    @property
    def ok(self) -> bool:
        return not self.mismatched and not self.unbalanced and self.total == 0


def check_ledger(session: Session) -> LedgerCheck:
    """Every balance equals the sum of its entries, every transaction sums to zero, all accounts sum to zero."""
    sums = dict(
        session.execute(select(Entry.account_id, func.sum(Entry.amount)).group_by(Entry.account_id)).all()
    )
    mismatched = []
    total = 0
    accounts = session.execute(select(Account.id, Account.name, Account.balance)).all()
    for acc_id, name, bal in accounts:
        total += bal
        if int(sums.get(acc_id, 0) or 0) != bal:
            mismatched.append(f"{name}: balance {bal} != entries {sums.get(acc_id, 0)}")
    unbalanced = [
        int(tx)
        for tx, s in session.execute(
            select(Entry.transaction_id, func.sum(Entry.amount)).group_by(Entry.transaction_id)
        ).all()
        if int(s) != 0
    ]
    n_tx = int(session.scalar(select(func.count(LedgerTransaction.id))) or 0)
    return LedgerCheck(len(accounts), n_tx, mismatched, unbalanced, total)

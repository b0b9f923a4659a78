"""The double-entry ledger in integer cents.

Every money movement is one :class:`~tablegames.server.db.LedgerTransaction` whose entries sum to zero. Balances
are updated with one conditional ``UPDATE`` per entry, so a wallet can never go below zero even with concurrent
writers (the database refuses, and the whole transaction is rolled back by the caller).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Connection, bindparam, func, insert, or_, select, update
from sqlalchemy.orm import Session

from tablegames.server import rawsql
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


def _named_account(session: Session, name: str, kind: str) -> int:
    acc_id = session.scalar(select(Account.id).where(Account.name == name))
    if acc_id is None:
        acc = Account(name=name, kind=kind, balance=0)
        session.add(acc)
        session.flush()
        acc_id = acc.id
    return int(acc_id)


def system_account(session: Session, kind: str) -> int:
    """The id of the house / cashier / (older databases') shared in-play account (created on first use)."""
    return _named_account(session, SYSTEM_ACCOUNTS[kind], kind)


def table_in_play_account(session: Session, table_id: int) -> int:
    """The in-play account of one table (created on first use): the stakes of its open rounds. One per table, so
    the wagers of different tables never wait for each other's lock on a shared row."""
    return _named_account(session, f"in-play:table {table_id}", IN_PLAY)


@dataclass(frozen=True)
class Posting:
    """One ledger transaction to write: its moves (summing to zero) and what it is about."""

    kind: str
    moves: tuple[Move, ...]
    round_id: int | None = None
    player_id: int | None = None
    memo: str = ""

    @classmethod
    def transfer(
        cls,
        kind: str,
        source: int,
        dest: int,
        amount: int,
        *,
        round_id: int | None = None,
        player_id: int | None = None,
        memo: str = "",
    ) -> Posting:
        return cls(kind, (Move(source, -amount, kind), Move(dest, amount, kind)), round_id, player_id, memo)


# Prebuilt statements (compiled once, cached by SQLAlchemy): the ledger is on every wager and settlement.
_INSERT_TRANSACTIONS = insert(LedgerTransaction).returning(LedgerTransaction.id, sort_by_parameter_order=True)
_CREDIT = (
    update(Account)
    .where(Account.id == bindparam("account"))
    .values(balance=Account.balance + bindparam("delta", type_=BigInteger))
    .returning(Account.balance)
)
_DEBIT = (
    update(Account)
    .where(
        Account.id == bindparam("account"),
        or_(Account.kind.not_in([WALLET, IN_PLAY]), Account.balance >= bindparam("need", type_=BigInteger)),
    )
    .values(balance=Account.balance + bindparam("delta", type_=BigInteger))
    .returning(Account.balance)
)
_INSERT_ENTRIES = insert(Entry)
_BALANCE = select(Account.balance).where(Account.id == bindparam("account"))
_LOCK = (
    select(Account.id, Account.balance)
    .where(Account.id.in_(bindparam("accounts", expanding=True)))
    .order_by(Account.id.desc())
    .with_for_update(key_share=True)
)


def _one(executor: Session | Connection, stmt: Any, params: dict[str, Any]) -> Any:
    """The first column of the first row ``stmt`` returns (None: no row). On a Core connection (the table hot
    paths) on the driver's cursor (:mod:`~tablegames.server.rawsql`); a session keeps the ORM's ways (its
    autoflush first, an ORM ``UPDATE`` synchronizing the session's objects)."""
    if isinstance(executor, Connection):
        rows = rawsql.execute(executor, stmt, params)
        return rows[0][0] if rows else None
    return executor.execute(stmt, params).scalar()


def _insert_transactions(executor: Session | Connection, rows: list[dict[str, Any]]) -> list[int]:
    """Insert the transactions' rows; their ids, in the order of ``rows``."""
    if isinstance(executor, Connection):
        return [int(i) for i in rawsql.insert_returning(executor, _INSERT_TRANSACTIONS, rows)]
    return [int(i) for i in executor.execute(_INSERT_TRANSACTIONS, rows).scalars()]


def new_balances(executor: Session | Connection) -> dict[int, int]:
    """The balances this transaction set, by account: once it commits they are the committed balances (the
    server keeps them in its balance cache, so showing a balance needs no query)."""
    balances: dict[int, int] = executor.info.setdefault("new_balances", {})
    return balances


def post_all(executor: Session | Connection, postings: Sequence[Posting]) -> tuple[list[int], dict[int, int]]:
    """Write several balanced transactions at once: their ids (0 for one where nothing moves) and the new
    balance of every account they touched.

    The balances change by one conditional ``UPDATE`` per account (the net of all postings): a wallet or the
    in-play account that would go negative raises :class:`NotEnoughMoney` (the caller rolls back). Callers
    post last in their transaction, to hold the row locks of the busy accounts for as short a time as possible.
    """
    net: dict[int, int] = {}
    kept: list[tuple[int, Posting, list[Move]]] = []
    for i, p in enumerate(postings):
        for m in p.moves:
            if isinstance(m.amount, bool) or not isinstance(m.amount, int):
                raise LedgerError(f"amounts are integer cents, got {m.amount!r}")
        moves = [m for m in p.moves if m.amount != 0]
        if sum(m.amount for m in moves) != 0:
            raise LedgerError(f"unbalanced transaction {p.kind}: {moves}")
        if moves:
            kept.append((i, p, moves))
            for m in moves:
                net[m.account_id] = net.get(m.account_id, 0) + m.amount
    ids = [0] * len(postings)
    if not kept:
        return ids, {}
    stamp = now()
    rows = [
        {
            "kind": p.kind,
            "round_id": p.round_id,
            "player_id": p.player_id,
            "memo": p.memo[:200],
            "created_at": stamp,
        }
        for _, p, _ in kept
    ]
    new_ids = _insert_transactions(executor, rows)
    for (i, _, _), tx_id in zip(kept, new_ids, strict=True):
        ids[i] = tx_id
    entries = [
        {"transaction_id": tx_id, "account_id": m.account_id, "amount": m.amount, "kind": m.kind}
        for (_, _, moves), tx_id in zip(kept, new_ids, strict=True)
        for m in moves
    ]
    if isinstance(executor, Connection):
        rawsql.insert_rows(executor, _INSERT_ENTRIES, entries)
    else:
        executor.execute(_INSERT_ENTRIES, entries)
    balances: dict[int, int] = {}
    # Row locks in one global order, highest account id first: no two transactions can wait for each other
    # (PostgreSQL), and the busy system accounts (house, in-play, jackpot meters: the lowest ids, created first)
    # are locked last, so every other table waits for them as briefly as possible.
    for account, delta in sorted(net.items(), reverse=True):
        if delta < 0:
            new = _one(executor, _DEBIT, {"account": account, "delta": delta, "need": -delta})
            if new is None:
                raise NotEnoughMoney(f"not enough money in the account for {-delta} cents")
        else:
            new = _one(executor, _CREDIT, {"account": account, "delta": delta})
            if new is None:
                raise LedgerError(f"no account {account}")
        balances[account] = int(new)
    new_balances(executor).update(balances)
    return ids, balances


def post(
    executor: Session | Connection,
    kind: str,
    moves: Iterable[Move],
    *,
    round_id: int | None = None,
    player_id: int | None = None,
    memo: str = "",
) -> int:
    """Write one balanced transaction; returns its id (0 when every amount is zero). Raises :class:`NotEnoughMoney`
    if a wallet would go negative (the caller rolls back)."""
    ids, _ = post_all(executor, [Posting(kind, tuple(moves), round_id, player_id, memo)])
    return ids[0]


def transfer(
    session: Session | Connection,
    kind: str,
    source: int,
    dest: int,
    amount: int,
    *,
    round_id: int | None = None,
    player_id: int | None = None,
    memo: str = "",
) -> int:
    """One transaction moving ``amount`` from ``source`` to ``dest``; its id (see :func:`post`)."""
    posting = Posting.transfer(kind, source, dest, amount, round_id=round_id, player_id=player_id, memo=memo)
    return post_all(session, [posting])[0][0]


def lock_balances(executor: Session | Connection, account_ids: Iterable[int]) -> dict[int, int]:
    """Lock accounts for the rest of the transaction and read their balances as they stand now (committed).

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE`` (the lock of the ``UPDATE`` that :func:`post_all` will take,
    which the foreign-key checks of new entries do not wait for), in the global order, highest id first; a
    transaction waiting here sees the balance the holder committed. SQLite has no row locks: the caller's
    transaction must hold the database's write lock already (``BEGIN IMMEDIATE``, see ``Server.write``).
    """
    ids = sorted(set(account_ids), reverse=True)
    if not ids:
        return {}
    if isinstance(executor, Connection):
        rows: Iterable[Any] = rawsql.execute(executor, _LOCK, {"accounts": ids})
    else:
        rows = executor.execute(_LOCK, {"accounts": ids})
    out = {int(a): int(b) for a, b in rows}
    missing = set(ids) - set(out)
    if missing:
        raise LedgerError(f"no accounts {sorted(missing)}")
    return out


def balance(session: Session | Connection, account_id: int) -> int:
    return int(session.execute(_BALANCE, {"account": account_id}).scalar() or 0)


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

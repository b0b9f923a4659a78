"""the stakes of open rounds move from the shared in-play account to each table's own

Each table keeps the stakes of its open rounds in its own in-play account (``in-play:table <id>``); a database
from before that keeps them in the shared ``in-play`` account, and the server settles a round from its table's
account. Per table, the stakes its open (betting, deciding) rounds left in the shared account are moved, one
ledger transaction of kind ``in-play`` per table (what ``python -m tablegames.server.migrate`` did before the
schema was versioned: moves it made already are counted). Nothing happens on a database created since.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None

accounts = sa.table(
    "accounts", sa.column("id", sa.Integer), sa.column("name"), sa.column("kind"), sa.column("balance")
)
transactions = sa.table(
    "ledger_transactions",
    sa.column("id", sa.Integer),
    sa.column("kind"),
    sa.column("round_id"),
    sa.column("player_id"),
    sa.column("memo"),
    sa.column("created_at"),
)
entries = sa.table(
    "ledger_entries",
    sa.column("transaction_id"),
    sa.column("account_id"),
    sa.column("amount", sa.BigInteger),
    sa.column("kind"),
)
tables = sa.table("tables", sa.column("id", sa.Integer))
rounds = sa.table("rounds", sa.column("id"), sa.column("table_id"), sa.column("status"))
OPEN = ("betting", "deciding")


def _account(bind: sa.Connection, name: str) -> int | None:
    found = bind.scalar(sa.select(accounts.c.id).where(accounts.c.name == name))
    return None if found is None else int(found)


def upgrade() -> None:
    bind = op.get_bind()
    shared = _account(bind, "in-play")
    if shared is None:
        return
    left = (
        sa.select(sa.func.coalesce(sa.func.sum(entries.c.amount), 0))
        .select_from(entries.join(transactions, transactions.c.id == entries.c.transaction_id))
        .where(entries.c.account_id == shared)
    )
    for table_id in bind.scalars(sa.select(tables.c.id).order_by(tables.c.id)).all():
        memo = f"table {table_id}: stakes of open rounds"
        open_rounds = sa.select(rounds.c.id).where(rounds.c.table_id == table_id, rounds.c.status.in_(OPEN))
        staked = int(bind.scalar(left.where(transactions.c.round_id.in_(open_rounds))) or 0)
        done = int(
            bind.scalar(left.where(transactions.c.kind == "in-play", transactions.c.memo == memo)) or 0
        )
        amount = staked + done  # done: negative, what an earlier run moved out
        if amount <= 0:
            continue
        name = f"in-play:table {table_id}"
        own = _account(bind, name)
        if own is None:
            bind.execute(sa.insert(accounts).values(name=name, kind="in_play", balance=0))
            own = _account(bind, name)
        tx = bind.scalar(
            sa.insert(transactions)
            .values(kind="in-play", round_id=None, player_id=None, memo=memo, created_at=time.time())
            .returning(transactions.c.id)
        )
        bind.execute(
            sa.insert(entries),
            [
                {"transaction_id": tx, "account_id": shared, "amount": -amount, "kind": "in-play"},
                {"transaction_id": tx, "account_id": own, "amount": amount, "kind": "in-play"},
            ],
        )
        for account, delta in ((shared, -amount), (own, amount)):
            bind.execute(
                sa.update(accounts)
                .where(accounts.c.id == account)
                .values(balance=accounts.c.balance + sa.cast(delta, sa.BigInteger))
            )


def downgrade() -> None:  # the moves are ledger transactions: they stay (the books balance either way)
    pass

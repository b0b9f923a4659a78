"""One-off data migration: the stakes of open rounds from the shared in-play account to each table's own.

A database from before tables had their own in-play account keeps the stakes of its open (unsettled) rounds
in the shared ``in-play`` account, but the server settles a round from its table's account. Run this once on
such a database, with the server stopped, before starting the server on it::

    python -m tablegames.server.migrate DATABASE_URL

It moves, per table, the stakes its open rounds left in the shared account (one ``in-play`` transaction per
table), and does nothing on a database that needs nothing (every supported database created by the current
server: the shared account then never holds stakes).
"""

from __future__ import annotations

import logging
import sys

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tablegames.server import ledger
from tablegames.server.db import (
    BETTING,
    DECIDING,
    IN_PLAY,
    Entry,
    GameTable,
    LedgerTransaction,
    RoundRow,
    create_schema,
    make_engine,
)

log = logging.getLogger("tablegames.server")


def move_shared_stakes(database_url: str) -> dict[int, int]:
    """Move the open rounds' stakes from the shared in-play account to their tables' accounts; the cents
    moved, by table id (only the tables that had any)."""
    engine = make_engine(database_url)
    create_schema(engine)
    moved: dict[int, int] = {}
    try:
        with Session(engine) as s, s.begin():
            shared = ledger.system_account(s, IN_PLAY)
            for table_id in s.scalars(select(GameTable.id).order_by(GameTable.id)):
                open_rounds = select(RoundRow.id).where(
                    RoundRow.table_id == table_id, RoundRow.status.in_([BETTING, DECIDING])
                )
                memo = f"table {table_id}: stakes of open rounds"
                left = select(func.coalesce(func.sum(Entry.amount), 0)).join(
                    LedgerTransaction, LedgerTransaction.id == Entry.transaction_id
                )
                staked = s.scalar(
                    left.where(Entry.account_id == shared, LedgerTransaction.round_id.in_(open_rounds))
                )
                done = s.scalar(  # moved by an earlier run (negative: out of the shared account)
                    left.where(
                        Entry.account_id == shared,
                        LedgerTransaction.kind == "in-play",
                        LedgerTransaction.memo == memo,
                    )
                )
                amount = int(staked or 0) + int(done or 0)
                if amount > 0:
                    own = ledger.table_in_play_account(s, table_id)
                    ledger.transfer(s, "in-play", shared, own, amount, memo=memo)
                    moved[table_id] = amount
                    log.warning(
                        "moved %s cents of open stakes to table %s's in-play account", amount, table_id
                    )
    finally:
        engine.dispose()
    return moved


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tablegames.server.migrate DATABASE_URL", file=sys.stderr)
        return 2
    moved = move_shared_stakes(args[0])
    print(
        f"moved the stakes of open rounds of {len(moved)} table(s): {moved}" if moved else "nothing to move"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The ledger on its own: balanced transactions only, wallets never negative (also by a database CHECK), balances
equal to the sum of their entries."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tablegames.server import ledger
from tablegames.server.db import CASHIER, HOUSE, WALLET, Account, create_schema, make_engine, normalize_url


def test_normalize_url() -> None:
    assert normalize_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalize_url("postgresql+psycopg://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"
    assert normalize_url("data/t.sqlite3").startswith("sqlite:////")


def test_balanced_entries_and_no_negative_wallet(db_url: str) -> None:
    engine = make_engine(db_url)
    create_schema(engine)
    try:
        with Session(engine) as s, s.begin():
            house = ledger.system_account(s, HOUSE)
            cashier = ledger.system_account(s, CASHIER)
            w = Account(name="wallet:t", kind=WALLET, balance=0)
            s.add(w)
            s.flush()
            wallet = w.id
            ledger.transfer(s, "buy-in", cashier, wallet, 1_000)
            ledger.transfer(s, "wager", wallet, house, 400)
        with Session(engine) as s:
            assert ledger.balance(s, wallet) == 600
            with pytest.raises(ledger.LedgerError, match="unbalanced"):
                ledger.post(s, "bad", [ledger.Move(wallet, 10, "x"), ledger.Move(house, -9, "x")])
            s.rollback()
            with pytest.raises(ledger.LedgerError, match="integer cents"):
                ledger.post(s, "bad", [ledger.Move(wallet, 0.5, "x"), ledger.Move(house, -0.5, "x")])  # type: ignore[arg-type]
            s.rollback()
            with pytest.raises(ledger.NotEnoughMoney):
                ledger.transfer(s, "wager", wallet, house, 601)
            s.rollback()
            # the house may go below zero, a wallet may not even when written directly
            ledger.transfer(s, "payout", house, wallet, 5_000)
            s.commit()
            assert ledger.balance(s, house) == 400 - 5_000
        with Session(engine) as s:
            with pytest.raises(IntegrityError):
                s.execute(sa.update(Account).where(Account.id == wallet).values(balance=-1))
                s.flush()
            s.rollback()
            check = ledger.check_ledger(s)
            assert check.ok and check.transactions == 3 and ledger.balance(s, wallet) == 5_600
    finally:
        engine.dispose()

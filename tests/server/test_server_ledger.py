"""The ledger on its own: balanced transactions only, wallets never negative (also by a database CHECK), balances
equal to the sum of their entries."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tablegames.server import ledger, rawsql
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


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 5_000)).filter(lambda t: t[0] != t[1]),
        max_size=25,
    )
)
def test_any_sequence_of_transfers_keeps_the_books(moves: list[tuple[int, int, int]]) -> None:
    """Random transfers between two wallets, the house and the cashier: a transfer that would make a wallet
    negative is refused and changes nothing; the rest match a plain model; the books always balance."""
    engine = make_engine("sqlite://")
    create_schema(engine)
    try:
        with Session(engine) as s, s.begin():
            ids = [ledger.system_account(s, HOUSE), ledger.system_account(s, CASHIER)]
            for name in ("a", "b"):
                acc = Account(name=f"wallet:{name}", kind=WALLET, balance=0)
                s.add(acc)
                s.flush()
                ids.append(acc.id)
        model = dict.fromkeys(ids, 0)
        wallets = set(ids[2:])
        for src, dst, amount in moves:
            a, b = ids[src], ids[dst]
            with Session(engine) as s:
                try:
                    with s.begin():
                        ledger.transfer(s, "t", a, b, amount)
                except ledger.NotEnoughMoney:
                    assert a in wallets and model[a] < amount
                    continue
            assert a not in wallets or model[a] >= amount
            model[a] -= amount
            model[b] += amount
        with Session(engine) as s:
            assert {i: ledger.balance(s, i) for i in ids} == model
            assert ledger.check_ledger(s).ok
    finally:
        engine.dispose()


def test_post_all_writes_every_posting_with_the_net_balances_in_one_lock_order(db_url: str) -> None:
    """A settlement posts many transfers at once: each keeps its own transaction and entries, the balances move
    by their net, and the accounts are locked highest id first (one global order: no deadlock between tables;
    the busy system accounts, created first, last)."""
    engine = make_engine(db_url)
    create_schema(engine)
    try:
        with Session(engine) as s, s.begin():
            house = ledger.system_account(s, HOUSE)
            cashier = ledger.system_account(s, CASHIER)
            wallets = []
            for name in ("a", "b", "c"):
                acc = Account(name=f"wallet:{name}", kind=WALLET, balance=0)
                s.add(acc)
                s.flush()
                wallets.append(acc.id)
            for w in wallets:
                ledger.transfer(s, "buy-in", cashier, w, 1_000)
        a, b, c = wallets
        Posting = ledger.Posting
        postings = [
            Posting.transfer("wager", a, house, 300),
            Posting.transfer("wager", b, house, 200),
            Posting.transfer("payout", house, a, 0),  # nothing moves: no transaction
            Posting.transfer("payout", house, b, 700),
            Posting.transfer("envy", house, c, 50),
        ]
        # (a table's connection runs the ledger's statements on the driver's cursor: rawsql traces them)
        with rawsql.traced() as trace, engine.begin() as conn:
            ids, balances = ledger.post_all(conn, postings)
        updated = [int(p["account"]) for q, p in trace if q.lstrip().upper().startswith("UPDATE ACCOUNTS")]
        assert ids[2] == 0 and all(ids[i] > 0 for i in (0, 1, 3, 4)) and len(set(ids)) == 5
        assert balances == {a: 700, b: 1_500, c: 1_050, house: 500 - 750}
        touched = sorted(balances, reverse=True)
        assert [i for i in updated if i in balances] == touched, "accounts must be locked highest id first"
        with Session(engine) as s:
            assert {i: ledger.balance(s, i) for i in balances} == balances
            check = ledger.check_ledger(s)
            assert check.ok and check.transactions == 3 + 4
        # a wallet whose net would go negative refuses the whole batch
        refused = [Posting.transfer("wager", a, house, 500), Posting.transfer("wager", a, b, 201)]
        with engine.connect() as conn, pytest.raises(ledger.NotEnoughMoney), conn.begin():
            ledger.post_all(conn, refused)
        with Session(engine) as s:
            assert ledger.balance(s, a) == 700 and ledger.check_ledger(s).transactions == 7
    finally:
        engine.dispose()

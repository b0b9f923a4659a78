"""Each table keeps the stakes of its open rounds in its own in-play account (wagers at different tables never
wait for one shared row). A database from before that keeps them in the shared in-play account: the schema
migration 0002 (``tablegames db upgrade``, or the server's start) moves them to the table's account, and the
server then settles the round from there on start, with the books intact."""

from __future__ import annotations

import itertools
import time
from contextlib import ExitStack

import sqlalchemy as sa
from fastapi.testclient import TestClient

from server_harness import ADMIN, Harness
from tablegames.randomness import SeededRandom
from tablegames.server import migrate
from tablegames.server.app import create_app
from tablegames.server.db import SETTLED, make_engine


def _app(url: str, seed: int, seconds: float = 30.0) -> object:
    counter = itertools.count(seed)
    return create_app(
        url,
        betting_seconds=seconds,
        turn_seconds=seconds,
        admin_token=ADMIN,
        source_factory=lambda: SeededRandom(next(counter)),
    )


def _accounts(h: Harness) -> dict[str, int]:
    with h.server.sessions() as s:
        rows = s.execute(sa.text("SELECT name, balance FROM accounts WHERE kind = 'in_play'")).all()
    return {str(n): int(b) for n, b in rows}


def test_wagers_go_to_the_tables_own_account_and_old_shared_stakes_are_migrated_then_settled(
    db_url: str,
) -> None:
    with ExitStack() as stack:
        h = Harness(stack.enter_context(TestClient(_app(db_url, 1))), stack)  # type: ignore[arg-type]
        t1, t2 = h.table("final-count"), h.table("final-count")
        (ta, ha), (tb, _) = h.player("ann", 10_000), h.player("bob", 10_000)
        a, b = h.seated(ta, t1), h.seated(tb, t2)
        round_id = a.request(type="wager", wagers={"main": 700})["round_id"]
        assert b.request(type="wager", wagers={"main": 300})["type"] == "ack"
        accounts = _accounts(h)
        assert accounts[f"in-play:table {t1}"] == 700 and accounts[f"in-play:table {t2}"] == 300
        assert accounts["in-play"] == 0
    # make it an older database: ann's stake was booked to the shared in-play account, the schema unversioned
    engine = make_engine(db_url)
    with engine.begin() as c:
        c.execute(sa.text("DROP TABLE alembic_version"))
        ids = dict(c.execute(sa.text("SELECT name, id FROM accounts WHERE kind = 'in_play'")).all())
        own, shared = ids[f"in-play:table {t1}"], ids["in-play"]
        c.execute(
            sa.text("UPDATE ledger_entries SET account_id = :s WHERE account_id = :o"),
            {"s": shared, "o": own},
        )
        c.execute(sa.text("UPDATE accounts SET balance = 0 WHERE id = :o"), {"o": own})
        c.execute(sa.text("UPDATE accounts SET balance = 700 WHERE id = :s"), {"s": shared})
    assert migrate.upgrade(engine) == (None, migrate.head())
    in_play = "SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'in-play'"
    with engine.connect() as c:
        moved = c.execute(sa.text(in_play)).scalar_one()
        balances = dict(c.execute(sa.text("SELECT name, balance FROM accounts WHERE kind = 'in_play'")).all())
    assert moved == 1 and balances[f"in-play:table {t1}"] == 700 and balances["in-play"] == 0
    assert migrate.upgrade(engine) == (migrate.head(), migrate.head())  # once: nothing is left to move
    with engine.connect() as c:
        assert c.execute(sa.text(in_play)).scalar_one() == 1
    engine.dispose()
    with ExitStack() as stack:
        # (nobody comes back: the resumed rounds time out on 0.3 s clocks)
        h = Harness(stack.enter_context(TestClient(_app(db_url, 50, 0.3))), stack)  # type: ignore[arg-type]
        # both open rounds resumed, were finished by the timeout defaults and settled from their own accounts
        deadline = time.time() + 30
        while set(_accounts(h).values()) != {0}:
            assert time.time() < deadline, _accounts(h)
            time.sleep(0.1)
        h.check_ledger()
        with h.server.sessions() as s:
            status, net = s.execute(
                sa.text(
                    "SELECT r.status, p.net FROM rounds r JOIN round_players p ON p.round_id = r.id WHERE r.id = :r"
                ),
                {"r": round_id},
            ).one()
            moved = s.execute(
                sa.text("SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'in-play'")
            ).scalar_one()
        assert status == SETTLED and moved == 1
        assert h.balance(ha) == 10_000 + int(net)
        assert h.totals()["in_play"] == 0 and sum(h.totals().values()) == 0

"""What a server keeps of what other processes write (server/caches.py, revision 0010's triggers), on two
``Server``s of one PostgreSQL schema: a balance or a meter another server changed is dropped from the cache and
read anew; a break taken through the other server refuses the next wager at once, even while this server still
keeps the guard from before (the wager's transaction reads it again); with the listener gone nothing is used
from the caches, and after its reconnection nothing kept from before. Then the cache's bookkeeping alone (a
read never overwrites a newer change) and the revision's triggers (added on PostgreSQL, removed by its
downgrade; nothing on SQLite)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from alembic import command

from server_harness import WS, Harness, eventually
from tablegames.rules import registry
from tablegames.server import ledger, migrate
from tablegames.server.caches import BalanceCache, parse_notice
from tablegames.server.db import HOUSE, make_engine
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(120)
FAST = Limits(ws_rate=10_000.0, ws_burst=10_000.0, http_rate=10_000.0, http_burst=10_000.0)


def two_servers(make_server: Callable[..., Harness], db_url: str) -> tuple[Harness, Harness]:
    if not db_url.startswith("postgresql"):
        pytest.skip("several servers share a PostgreSQL database only")
    a, b = make_server(limits=FAST), make_server(limits=FAST)
    for h in (a, b):
        eventually(lambda h=h: h.server.db.cache.live, "the listener listens")  # type: ignore[misc]
    return a, b


def account_of(h: Harness, name: str) -> int:
    with h.server.sessions() as s:
        return int(
            s.execute(sa.text("SELECT account_id FROM players WHERE name = :n"), {"n": name}).scalar_one()
        )


def test_a_balance_changed_through_one_server_is_read_anew_by_the_other(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    a, b = two_servers(make_server, db_url)
    _, ann = a.player("ann", buy_in=10_000)
    acc = account_of(a, "ann")
    assert b.server.balances([acc]) == {acc: 10_000}
    assert b.server.db.cache.values[acc] == 10_000  # kept: the next push reads nothing
    r = a.client.post("/wallet/buy-in", json={"amount": 2_500, "request_id": "more"}, headers=ann)
    assert r.status_code == 200, r.text
    assert a.server.db.cache.values[acc] == 12_500  # the writer's own commit stored it
    eventually(lambda: acc not in b.server.db.cache.values, "the other server drops the balance")
    assert b.server.balances([acc]) == {acc: 12_500}
    assert b.server.db.cache.values[acc] == 12_500


def test_a_meter_moved_through_one_server_is_read_anew_by_the_other(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    a, b = two_servers(make_server, db_url)
    game = next(d.key for d in registry.DEFINITIONS if d.meters(d.make_rules()))
    name, meter = next(iter(a.server.meter_accounts(game).items()))
    before = b.server.meter_values(game)[name]
    assert b.server.db.cache.values[meter] == before
    with a.server.write() as c:  # a settlement's contribution to the meter, as a table of server a posts it
        ledger.post_all(c, [ledger.Posting.transfer("contribution", a.server.system[HOUSE], meter, 77)])
    assert a.server.meter_values(game)[name] == before + 77
    # (not "the meter left b's cache": b's own reads may put the new value back before a check sees it gone)
    eventually(
        lambda: b.server.meter_values(game)[name] == before + 77, "the other server reads the meter anew"
    )
    assert b.server.db.cache.values.get(meter, before + 77) == before + 77


def test_a_break_taken_through_one_server_refuses_the_next_wager_at_the_other_at_once(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    a, b = two_servers(make_server, db_url)
    table = a.table("final-count")
    token, ann = a.player("ann", buy_in=10_000)
    ws = a.seated(token, table)
    ack = ws.request(type="wager", wagers={"main": 500})
    assert ack["type"] == "ack", ack
    result = ws.until(lambda m: m["type"] == "round_result" or (m["type"] == "state" and m["decision"]))
    while (
        result["type"] != "round_result"
    ):  # (the round dealt at once: played out, the next one takes wagers)
        assert ws.request(type="act", action="stand")["type"] == "ack"
        result = ws.until(lambda m: m["type"] == "round_result" or (m["type"] == "state" and m["decision"]))
    with a.server.sessions() as s:
        pid = int(s.execute(sa.text("SELECT id FROM players WHERE name = 'ann'")).scalar_one())
    guards = a.server.protection.guards
    assert guards.get(pid, a.server.config.clock() + 1)[0] is not None  # server a keeps ann's guard
    # server a's notices of ann's guard are held back: it keeps the guard from before the break
    a.server.db.on_players[:] = [lambda _pid: None]
    a.server.db.on_players_elsewhere[:] = []  # (else it closes her socket here too: the next test)
    r = b.client.post("/protection/break", json={"period": "1d"}, headers=ann)
    assert r.status_code == 200, r.text
    assert guards.get(pid, a.server.config.clock() + 1)[0] is not None  # still kept (stale)
    balance = a.balance(ann)
    refused = ws.request(type="wager", wagers={"main": 500})
    assert refused["type"] == "error" and refused["code"] == "on_break", refused
    assert a.balance(ann) == balance  # nothing was written
    a.check_ledger()


def ann_wagered_at_a(a: Harness) -> tuple[int, dict[str, str], WS, WS]:
    """Ann and Bob seated at a Final Count table of server a, Ann's 500 wagered and the betting still open (Bob
    has not wagered): (the table, Ann's headers, her socket, his)."""
    table = a.table("final-count", seats=2)
    token, ann = a.player("ann", buy_in=10_000)
    bob_token, _ = a.player("bob", buy_in=10_000)
    ws, bob = a.seated(token, table), a.seated(bob_token, table)
    assert ws.request(type="wager", wagers={"main": 500})["type"] == "ack"
    assert a.balance(ann) == 9_500
    return table, ann, ws, bob


def wager_returned_and_seat_given_up(a: Harness, ann: dict[str, str], table: int) -> None:
    """Server a returns Ann's wager and gives her seat up (Bob keeps his)."""
    eventually(lambda: a.balance(ann) == 10_000, "server a returns her wager")
    eventually(
        lambda: {t["table_id"]: t for t in a.client.get("/tables").json()}[table]["occupied"] == {"2": "bob"},
        "server a gives her seat up",
    )


def test_a_break_taken_through_one_server_closes_the_sockets_and_frees_the_seats_at_the_other(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    """Issue 26 across processes: Ann plays at a table of server a and takes a break through server b (the
    proxy's round-robin sent her request there). Server a tells her socket and closes it, returns her wager of the
    round still open for betting (Bob, seated, has not wagered) and gives her seat up, as a break taken through
    itself does; Bob, who is not away, keeps his seat and plays on alone."""
    a, b = two_servers(make_server, db_url)
    table, ann, ws, bob = ann_wagered_at_a(a)
    r = b.client.post("/protection/break", json={"period": "1d"}, headers=ann)
    assert r.status_code == 200, r.text
    told = ws.until(lambda m: m["type"] == "error" and m.get("request_id") is None)
    assert told["code"] == "on_break" and "on a break until" in told["message"]
    wager_returned_and_seat_given_up(a, ann, table)
    assert bob.request(type="wager", wagers={"main": 300})["type"] == "ack"  # he plays on: dealt at once
    bob.until(lambda m: m["type"] == "state" and m["round"] is not None and m["round"]["phase"] != "betting")
    assert a.client.get("/protection", headers=ann).json()["exclusion"]["kind"] == "break"
    a.check_ledger()


def test_a_break_whose_notice_was_lost_is_acted_on_once_the_listener_listens_again(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    """The notice of Ann's break (taken through server b) does not reach server a's handler, as when it is sent
    while a's listener has no connection: her socket at a stays open. Once a's listener listens again (its
    connection killed, it reconnects), a's tables look again at their players: her socket is told and closed, her
    wager returned and her seat given up."""
    a, b = two_servers(make_server, db_url)
    table, ann, ws, _ = ann_wagered_at_a(a)
    a.server.db.on_players_elsewhere[:] = []  # the notice is lost
    r = b.client.post("/protection/break", json={"period": "1w"}, headers=ann)
    assert r.status_code == 200, r.text
    ws.ws.send_json({"type": "ping", "request_id": "still-open"})
    answer = ws.until(lambda m: m.get("request_id") == "still-open" or m["type"] == "error")
    assert answer["type"] == "pong", answer  # still open at a: nothing told her there
    assert a.balance(ann) == 9_500
    changes = a.server.db.changes
    assert changes is not None
    with b.server.sessions() as s, s.begin():
        s.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": changes.listener.backend_pid})
    told = ws.until(lambda m: m["type"] == "error" and m.get("request_id") is None)
    assert told["code"] == "on_break", told
    wager_returned_and_seat_given_up(a, ann, table)
    a.check_ledger()


def test_without_the_listener_nothing_kept_is_used_and_after_it_reconnects_nothing_from_before(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    a, b = two_servers(make_server, db_url)
    _, ann = a.player("ann", buy_in=10_000)
    acc = account_of(a, "ann")
    assert b.server.balances([acc]) == {acc: 10_000} and acc in b.server.db.cache.values
    changes = b.server.db.changes
    assert changes is not None
    # the listener's connection killed: it gives it up (drops everything), reconnects, drops everything again
    resets: list[bool] = []
    b.server.db.on_reset.append(resets.append)
    with a.server.sessions() as s, s.begin():
        s.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": changes.listener.backend_pid})
    eventually(lambda: changes.listener.connections == 2 and b.server.db.cache.live, "reconnected")
    assert resets[:2] == [False, True]
    assert acc not in b.server.db.cache.values
    # the listener stopped: no notice will come, yet every balance is read as committed
    changes.listener.stop()
    eventually(lambda: not b.server.db.cache.live, "the cache is given up")
    assert b.server.balances([acc]) == {acc: 10_000}
    r = a.client.post("/wallet/buy-in", json={"amount": 2_500, "request_id": "more"}, headers=ann)
    assert r.status_code == 200, r.text
    assert b.server.balances([acc]) == {acc: 12_500}
    assert not b.server.protection.guards.live


def test_a_read_never_overwrites_a_newer_change() -> None:
    lock = threading.Lock()
    cache = BalanceCache(lock, live=True)
    token = cache.token()
    cache.forget([1])  # another process changed account 1 while the read was under way
    with lock:
        cache.committed({2: 20})  # this process changed account 2 meanwhile
    cache.keep(token, {1: 5, 2: 6, 3: 7})  # what the read found
    assert cache.values == {2: 20, 3: 7}
    token = cache.token()
    cache.reset(True)
    cache.keep(token, {4: 8})
    assert cache.values == {}
    cache.reset(False)
    assert cache.get([1]) == ({}, [1])
    cache.keep(cache.token(), {1: 5})
    assert cache.values == {}
    assert parse_notice("a b c") is None and parse_notice("s o p 12") == ("s", "o", "p", 12)


TRIGGERS = sa.text(
    "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
    " JOIN pg_namespace n ON n.oid = c.relnamespace"
    " WHERE t.tgname = 'tablegames_notice' AND n.nspname = current_schema()"
)


def test_revision_0010_adds_the_triggers_on_postgresql_and_its_downgrade_removes_them(db_url: str) -> None:
    engine = make_engine(db_url)
    pg = engine.dialect.name == "postgresql"

    def triggers() -> set[str]:
        if not pg:
            return set()
        with engine.connect() as c:
            return {str(t) for t in c.execute(TRIGGERS).scalars()}

    try:
        assert migrate.upgrade(engine) == (None, migrate.head())
        assert triggers() == ({"accounts", "player_limits", "exclusions"} if pg else set())
        with engine.begin() as c:
            command.downgrade(migrate._config(c), "0009")
        assert migrate.current(engine) == "0009" and triggers() == set()
        assert migrate.upgrade(engine) == ("0009", migrate.head())
        assert len(triggers()) == (3 if pg else 0)
    finally:
        engine.dispose()

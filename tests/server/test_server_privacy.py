"""Issue 11, defects 12 and 3: look-alike names are one name; a player's history (with balances) is theirs and an
operator's, a table's public results show no balances; history comes a bounded page at a time."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from test_server_support import play_round

from server_harness import ADMIN, Harness
from tablegames.server.app import create_app
from tablegames.server.db import Player, make_engine
from tablegames.server.errors import ApiError

pytestmark = pytest.mark.timeout(180)

BALANCES = {"balance_before", "balance_after"}


def test_look_alike_names_are_one_name(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    c = h.client
    first = c.post("/players", json={"name": "Ann"})
    assert first.status_code == 201 and first.json()["name"] == "Ann"  # shown as typed
    for same in ("ann", "ANN", "aNN", "\uff41\uff4e\uff4e", "Ann.", " ann ", "Ann_", "ann-"):
        r = c.post("/players", json={"name": same})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", (same, r.text)
    assert c.post("/players", json={"name": "Bill"}).status_code == 201
    for same in ("BI11", "bi1l", "biII", "BILL"):  # 1 / l / I look alike
        assert c.post("/players", json={"name": same}).json()["error"]["code"] == "name_taken", same
    assert c.post("/players", json={"name": "r0m"}).status_code == 201
    assert c.post("/players", json={"name": "rorn"}).json()["error"]["code"] == "name_taken"  # rn / m, 0 / o
    # other scripts (Cyrillic a, Greek Alpha), invisible characters: not names at all
    for foreign in ("\u0430nn", "\u0391nn", "an\u200bn", "a\tnn", "\u202eann"):
        r = c.post("/players", json={"name": foreign})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name", foreign
    assert c.post("/players", json={"name": "Anna"}).status_code == 201  # a different name is fine
    with h.server.sessions() as s:
        rows = s.execute(sa.select(Player.name, Player.name_key).order_by(Player.id)).all()
    assert [tuple(r) for r in rows] == [("Ann", "ann"), ("Bill", "blll"), ("r0m", "rom"), ("Anna", "anna")]


def test_racing_registrations_of_one_name_make_one_player(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    variants = ["Zed", "zed", "ZED", "zed.", "Zed_", "ZeD", "zED", "\uff5aed"]

    def register(name: str) -> str:
        try:
            h.server.players.register(name)
        except ApiError as exc:
            return exc.code
        return "ok"

    with ThreadPoolExecutor(max_workers=len(variants)) as pool:
        outcomes = list(pool.map(register, variants))
    assert outcomes.count("ok") == 1 and outcomes.count("name_taken") == len(variants) - 1, outcomes
    h.check_ledger()


def _two_rounds(h: Harness) -> tuple[int, dict[str, str], dict[str, str], list[int]]:
    table = h.table("final-count", seats=3)
    tok_a, hdr_a = h.player("ann", 20_000)
    tok_b, hdr_b = h.player("bob", 30_000)
    a, b = h.ws(tok_a, table), h.ws(tok_b, table)
    a.request(type="sit", seat=1)
    b.request(type="sit", seat=2)
    ids = []
    for _ in range(2):
        res = play_round({1: a, 2: b}, {1: {"main": 500}, 2: {"main": 700}}, choose=lambda s, st: "stand")
        ids.append(int(res[1]["round_id"]))
    return table, hdr_a, hdr_b, ids


def _balance_keys(rows: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Player name -> the balance fields shown for them anywhere in ``rows``."""
    out: dict[str, set[str]] = {}
    for r in rows:
        for p in r["players"]:
            out.setdefault(p["player"], set()).update(BALANCES & set(p))
    return out


def test_history_is_the_players_own_and_public_results_show_no_balances(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    c = h.client
    table, hdr_a, hdr_b, ids = _two_rounds(h)
    # anonymous, a forged token: no history at all
    for headers in ({}, {"Authorization": "Bearer forged-token-xyz"}):
        r = c.get("/history", headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        r = c.get("/history", params={"player": "ann"}, headers=headers)
        assert r.status_code == 401
    # a player: her rounds, her balances, not bob's
    mine = c.get("/history", headers=hdr_a).json()
    assert [r["round_id"] for r in mine] == ids[::-1]
    assert _balance_keys(mine) == {"ann": BALANCES, "bob": set()}
    ann = mine[-1]["players"][0]
    assert ann["balance_before"] == 20_000 and ann["balance_after"] == 20_000 + ann["net"]
    assert c.get("/history", params={"player": "ANN"}, headers=hdr_a).json() == mine  # herself, by her key
    r = c.get("/history", params={"player": "bob"}, headers=hdr_a)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert _balance_keys(c.get("/history", headers=hdr_b).json()) == {"ann": set(), "bob": BALANCES}
    # an operator: anyone's, with every balance
    admin = {"X-Admin-Token": ADMIN}
    every = c.get("/history", headers=admin).json()
    assert [r["round_id"] for r in every] == ids[::-1] and _balance_keys(every) == {
        "ann": BALANCES,
        "bob": BALANCES,
    }
    assert c.get("/history", params={"player": "bob"}, headers=admin).json() == every
    # the table's public results and an anonymous recall: results, no balances
    public = c.get(f"/tables/{table}/history").json()
    assert [r["round_id"] for r in public] == ids[::-1] and _balance_keys(public) == {
        "ann": set(),
        "bob": set(),
    }
    assert [p["net"] for p in public[0]["players"]] == [p["net"] for p in every[0]["players"]]
    assert c.get("/tables/999/history").json()["error"]["code"] == "not_found"
    recall = c.get(f"/rounds/{ids[0]}").json()
    assert recall["events"] and _balance_keys([recall]) == {"ann": set(), "bob": set()}
    assert _balance_keys([c.get(f"/rounds/{ids[0]}", headers=hdr_b).json()]) == {
        "ann": set(),
        "bob": BALANCES,
    }
    assert _balance_keys([c.get(f"/rounds/{ids[0]}", headers=admin).json()]) == {
        "ann": BALANCES,
        "bob": BALANCES,
    }


def test_history_comes_a_bounded_page_at_a_time(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    c = h.client
    table = h.table("final-count", seats=1)
    tok, hdr = h.player("pat", 50_000)
    ws = h.seated(tok, table)
    for _ in range(5):
        play_round({1: ws}, {1: {"main": 100}}, choose=lambda s, st: "stand")
    everything = c.get("/history", headers=hdr).json()
    assert len(everything) == 5
    pages: list[list[int]] = []
    before: int | None = None
    while True:
        params: dict[str, int] = {"last": 2} if before is None else {"last": 2, "before": before}
        page = [r["round_id"] for r in c.get("/history", params=params, headers=hdr).json()]
        if not page:
            break
        pages.append(page)
        before = page[-1]
    assert pages == [[r["round_id"] for r in everything][i : i + 2] for i in (0, 2, 4)]
    public = [
        r["round_id"]
        for r in c.get(f"/tables/{table}/history", params={"last": 3, "before": pages[0][1]}).json()
    ]
    assert public == [r["round_id"] for r in everything][2:5]
    for path in ("/history", f"/tables/{table}/history"):
        r = c.get(path, params={"last": 101}, headers=hdr)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_message"
    # the jackpot history pages by entry id the same way
    entries = c.get("/jackpots/history", params={"last": 200}).json()
    assert len(entries) >= 4 and [e["entry_id"] for e in entries] == sorted(
        (e["entry_id"] for e in entries), reverse=True
    )
    second = c.get("/jackpots/history", params={"last": 2, "before": entries[1]["entry_id"]}).json()
    assert second == entries[2:4]
    assert c.get("/jackpots/history", params={"last": 201}).status_code == 422


def test_an_existing_database_gains_the_name_key(db_url: str, make_server: Callable[..., Harness]) -> None:
    """A database made before names had keys: the column and its unique index are added on start, old players
    keep their names and tokens (two old look-alikes both stay), and a new look-alike is refused."""
    with TestClient(create_app(db_url, admin_token=ADMIN)):
        pass  # the current schema
    engine = make_engine(db_url)
    tokens = {"ann": "token-of-old-ann-" + "x" * 30, "Ann": "token-of-old-Ann-" + "y" * 30}
    with engine.begin() as conn:  # back to the old schema: no name_key, not versioned (no alembic_version)
        conn.execute(sa.text("DROP TABLE alembic_version"))
        conn.execute(sa.text("DROP INDEX players_look_alike_key"))
        conn.execute(sa.text("ALTER TABLE players DROP COLUMN name_key"))
        for name, token in tokens.items():
            acc = conn.execute(
                sa.text("INSERT INTO accounts (name, kind, balance) VALUES (:n, 'wallet', 0) RETURNING id"),
                {"n": f"wallet:{name}"},
            ).scalar_one()
            conn.execute(
                sa.text(
                    "INSERT INTO players (name, token_hash, account_id, created_at) VALUES (:n, :t, :a, 0)"
                ),
                {"n": name, "t": hashlib.sha256(token.encode()).hexdigest(), "a": acc},
            )
    engine.dispose()
    h = make_server()
    for name, token in tokens.items():
        me = h.client.get("/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200 and me.json()["name"] == name
    assert h.client.post("/players", json={"name": "ANN"}).json()["error"]["code"] == "name_taken"
    assert h.client.post("/players", json={"name": "cy"}).status_code == 201
    with h.server.sessions() as s:
        keys = dict(s.execute(sa.select(Player.name, Player.name_key)).all())
    assert keys["ann"] == "ann" and keys["Ann"].startswith("ann#") and keys["cy"] == "cy"
    h.check_ledger()

"""REST: players and tokens, wallets (idempotent buy-in / cash-out, bad amounts), tables (admin), jackpots, spec."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server_harness import ADMIN, Harness
from tablegames.rules import registry

pytestmark = pytest.mark.timeout(120)


def test_register_and_token_checked_on_every_request(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    c = h.client
    r = c.post("/players", json={"name": "ann"})
    assert r.status_code == 201
    body = r.json()
    assert body["name"] == "ann" and body["balance"] == 0 and len(body["token"]) >= 40
    assert c.post("/players", json={"name": "ann"}).json()["error"]["code"] == "name_taken"
    assert c.post("/players", json={"name": "<script>"}).json()["error"]["code"] == "bad_name"
    me = c.get("/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200 and me.json()["name"] == "ann"
    for headers in ({}, {"Authorization": "Bearer forged-token"}, {"Authorization": body["token"]}):
        r = c.get("/me", headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        r = c.post("/wallet/buy-in", json={"amount": 100, "request_id": "x"}, headers=headers)
        assert r.status_code == 401
    # the token is stored only as a hash
    with h.server.sessions() as s:
        from sqlalchemy import select

        from tablegames.server.db import Player

        stored = s.scalar(select(Player.token_hash))
    assert stored != body["token"] and len(stored) == 64


def test_buy_in_and_cash_out_are_idempotent_ledger_entries(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    _, hdr = h.player("bob", buy_in=0)
    c = h.client
    r1 = c.post("/wallet/buy-in", json={"amount": 5000, "request_id": "b1"}, headers=hdr).json()
    r2 = c.post("/wallet/buy-in", json={"amount": 5000, "request_id": "b1"}, headers=hdr).json()
    assert r1["balance"] == 5000 and not r1["duplicate"]
    assert r2["balance"] == 5000 and r2["duplicate"] and r2["transaction_id"] == r1["transaction_id"]
    r3 = c.post("/wallet/cash-out", json={"amount": 1500, "request_id": "c1"}, headers=hdr).json()
    assert r3["balance"] == 3500
    over = c.post("/wallet/cash-out", json={"amount": 3501, "request_id": "c2"}, headers=hdr)
    assert over.status_code == 400 and over.json()["error"]["code"] == "insufficient_funds"
    assert h.balance(hdr) == 3500
    w = c.get("/wallet", headers=hdr).json()
    assert [e["amount"] for e in w["entries"]] == [-1500, 5000]
    assert h.totals()["wallet"] == 3500 and h.totals()["cashier"] == -3500
    h.check_ledger()


def test_bad_amounts_change_nothing(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    _, hdr = h.player("cy", buy_in=1000)
    bad: list[Any] = [-100, 0, 10.5, 10.0, "100", None, True]
    for amount in bad:
        for path in ("/wallet/buy-in", "/wallet/cash-out"):
            r = h.client.post(path, json={"amount": amount, "request_id": "z"}, headers=hdr)
            assert r.status_code in (400, 422) and r.json()["error"]["code"] == "bad_amount", (amount, r.text)
    r = h.client.post(
        "/wallet/buy-in", content=b"{not json", headers={**hdr, "Content-Type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_json"
    assert h.balance(hdr) == 1000
    h.check_ledger()


def test_tables_need_the_admin_token_and_valid_rules(make_server: Callable[..., Harness]) -> None:
    h = make_server(demo_tables=True)
    c = h.client
    tables = c.get("/tables").json()
    assert [t["game"] for t in tables] == list(registry.GAMES)  # a demo table of every registered game
    body = {"game": "one-eyed-flush", "name": "Tournament", "seats": 7, "rules": {"ties": "tournament"}}
    assert c.post("/tables", json=body).json()["error"]["code"] == "forbidden"
    assert c.post("/tables", json=body, headers={"X-Admin-Token": "nope"}).status_code == 403
    r = c.post("/tables", json=body, headers={"X-Admin-Token": ADMIN})
    assert r.status_code == 201 and r.json()["rules"]["ties"] == "tournament" and r.json()["seats"] == 7
    new = int(r.json()["table_id"])  # after a demo table of every registered game
    bad = [
        {**body, "game": "poker"},
        {**body, "rules": {"ties": "sometimes"}},
        {**body, "seats": 8},
        {**body, "seats": 0},
        {**body, "min_bet": 500, "max_bet": 100},
        {**body, "paytable": "../etc/passwd"},
    ]
    for b in bad:
        r = c.post("/tables", json=b, headers={"X-Admin-Token": ADMIN})
        assert r.status_code in (400, 422), b
        assert r.json()["error"]["code"] in {"bad_rules", "bad_message"}
    assert len(c.get("/tables").json()) == len(registry.GAMES) + 1
    one = c.get(f"/tables/{new}").json()
    assert one["name"] == "Tournament" and one["view"] is None
    assert c.get("/tables/99").json()["error"]["code"] == "not_found"
    # limits: an operator action too
    assert c.patch(f"/tables/{new}", json={"max_bet": 20_000}).status_code == 403
    r = c.patch(f"/tables/{new}", json={"min_bet": 500, "max_bet": 20_000}, headers={"X-Admin-Token": ADMIN})
    assert r.status_code == 200 and (r.json()["min_bet"], r.json()["max_bet"]) == (500, 20_000)
    r = c.patch(f"/tables/{new}", json={"max_bet": 100}, headers={"X-Admin-Token": ADMIN})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_message"
    r = c.patch(f"/tables/{new}", json={"min_bet": -5}, headers={"X-Admin-Token": ADMIN})
    assert r.json()["error"]["code"] == "bad_amount"
    assert next(t for t in c.get("/tables").json() if t["table_id"] == new)["max_bet"] == 20_000


def test_jackpots_are_seeded_from_the_house_and_spec_is_served(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    meters = {(m["game"], m["meter"]): m for m in h.client.get("/jackpots").json()}
    assert meters[("let-it-ride", "mega")]["value"] == 5_000_000  # R-LIR-7 reset values
    assert meters[("let-it-ride", "major")]["value"] == 500_000
    assert meters[("let-it-ride", "minor")]["value"] == 50_000
    assert meters[("one-eyed-flush", "one-eyed-flush")]["value"] == 500_000  # R-OEF-9
    assert meters[("let-it-ride", "mega")]["share"] == "1/10"
    hist = h.client.get("/jackpots/history", params={"game": "let-it-ride", "meter": "mega"}).json()
    assert [(e["kind"], e["amount"]) for e in hist] == [("seed", 5_000_000)]
    totals = h.totals()
    assert totals["house"] == -(5_000_000 + 500_000 + 50_000 + 500_000)
    spec = h.client.get("/openapi.json").json()
    for path in (
        "/players",
        "/wallet/buy-in",
        "/wallet/cash-out",
        "/tables",
        "/rounds/{round_id}",
        "/history",
    ):
        assert path in spec["paths"]
    assert h.client.get("/rounds/1").json()["error"]["code"] == "not_found"
    admin = {"X-Admin-Token": ADMIN}
    assert (
        h.client.get("/history", params={"player": "nobody"}, headers=admin).json()["error"]["code"]
        == "not_found"
    )
    h.check_ledger()


def test_racing_requests_open_a_table_created_elsewhere_once(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    """REST handlers run on threads now (issue 11): requests racing for a table that another process created
    must all get the one runner the server keeps (a second one would hold players the server cannot reach)."""
    from concurrent.futures import ThreadPoolExecutor

    from typer.testing import CliRunner

    from tablegames.cli import app

    h = make_server()
    out = CliRunner().invoke(app, ["tables", "create", "final-count", "--database", db_url])
    assert out.exit_code == 0, out.output
    with ThreadPoolExecutor(max_workers=8) as pool:
        runners = list(pool.map(lambda _: h.server.tables.runner(1), range(16)))
    assert all(r is h.server.runners[1] for r in runners)
    assert [t["table_id"] for t in h.client.get("/tables").json()] == [1]


def test_every_list_of_meters_is_in_the_games_order(make_server: Callable[..., Harness]) -> None:
    """A game's meters come in one order everywhere (the lobby's, a table's state, the read behind both): the
    definition's. On PostgreSQL an unordered read returns rows in the order they were last written, so the
    meters rewritten last-first came back reversed (the page's meters changed places between renders)."""
    import sqlalchemy as sa

    from tablegames.server.db import Meter
    from tablegames.server.meters import meter_accounts

    h = make_server()
    games = [d for d in registry.DEFINITIONS if len(d.meters(d.make_rules())) > 1]
    assert games  # a game with several meters
    with h.server.sessions() as s:
        ids = s.execute(sa.select(Meter.id).order_by(Meter.id.desc())).scalars().all()
        for meter_id in ids:  # each row written again, the last first
            s.execute(sa.update(Meter).where(Meter.id == meter_id).values(reset_cents=Meter.reset_cents))
        s.commit()
    lobby = h.client.get("/jackpots").json()
    for d in games:
        order = [m.name for m in d.meters(d.make_rules())]
        with h.server.sessions() as s:
            assert list(meter_accounts(s, d.key)) == order
        assert [m["meter"] for m in lobby if m["game"] == d.key] == order
        token, _ = h.player(f"p-{d.key}", buy_in=0)
        state = h.ws(token, h.table(d.key)).seen_or_next(lambda m: m["type"] == "state")
        assert list(state["meters"]) == order

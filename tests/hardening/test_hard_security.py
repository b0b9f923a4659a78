"""Security basics: random tokens checked on every request, nobody acts for another player, operator actions need
the admin credential, bounded body and message sizes."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import pytest
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect
from test_hard_support import harness, make_app

from server_harness import ADMIN
from tablegames.server.db import Player
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(120)

AUTHED = [
    ("get", "/me", None),
    ("get", "/wallet", None),
    ("post", "/wallet/buy-in", {"amount": 100, "request_id": "x"}),
    ("post", "/wallet/cash-out", {"amount": 100, "request_id": "y"}),
]


@pytest.fixture
def h(tmp_path: Any) -> Any:
    with harness(make_app(f"sqlite:///{tmp_path / 'sec.sqlite3'}")) as hh:
        yield hh


def test_tokens_are_random_long_and_stored_only_as_hashes(h: Any) -> None:
    tokens = [h.player(f"p{i}", buy_in=0)[0] for i in range(25)]
    assert len(set(tokens)) == 25
    assert min(len(t) for t in tokens) >= 40  # 32 random bytes, URL-safe
    assert len({t[:8] for t in tokens}) == 25  # no shared prefix pattern
    with h.server.sessions() as s:
        hashes = {p.name: p.token_hash for p in s.scalars(select(Player))}
    for i, t in enumerate(tokens):
        assert hashes[f"p{i}"] == hashlib.sha256(t.encode()).hexdigest()
        assert t not in hashes.values()


@pytest.mark.parametrize(("method", "path", "body"), AUTHED)
def test_every_player_request_checks_the_token(h: Any, method: str, path: str, body: Any) -> None:
    token, headers = h.player("ann", buy_in=10_000)
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    for hdrs in ({}, {"Authorization": "Bearer " + secrets.token_urlsafe(32)}, {"Authorization": "Bearer " + forged},
                 {"Authorization": token}, {"Authorization": "Bearer "}):  # fmt: skip
        r = getattr(h.client, method)(path, headers=hdrs, **({"json": body} if body else {}))
        assert r.status_code == 401, (hdrs, r.text)
        assert r.json()["error"]["code"] == "unauthorized"
    assert h.balance(headers) == 10_000  # nothing moved
    ok = getattr(h.client, method)(path, headers=headers, **({"json": body} if body else {}))
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("query", ["", "?token=", "?token=forged-token-123"])
def test_websocket_refuses_a_missing_or_forged_token(h: Any, query: str) -> None:
    tid = h.table("final-count", seats=3)
    with h.client.websocket_connect(f"/ws/tables/{tid}{query}") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == "unauthorized"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_a_player_can_never_act_or_wager_for_another(h: Any) -> None:
    tid = h.table("one-eyed-flush", seats=2)
    (ta, ha), (tb, hb) = h.player("ann"), h.player("bob")
    a, b = h.seated(ta, tid), h.seated(tb, tid)
    # a wager names no seat: a "seat" field cannot place bob's wager
    ack = a.request(type="wager", wagers={"main": 500}, seat=2)
    assert ack["type"] == "ack" and ack["seat"] == 1
    st = b.state()
    assert st["round"]["seats"][1]["wagers"] == {}
    assert h.balance(hb) == 100_000
    b.request(type="wager", wagers={"main": 700})
    st = a.state()
    assert st["round"]["phase"] == "deciding" and st["round"]["to_act"] == 1
    # ann acts, naming bob's seat: refused; bob acts out of turn: refused; nothing changes
    err = a.request(type="act", action="stand", seat=2)
    assert err["type"] == "error" and err["code"] == "not_your_turn"
    err = b.request(type="act", action="stand")
    assert err["type"] == "error" and err["code"] == "not_your_turn"
    err = b.request(type="act", action="stand", seat=1)
    assert err["type"] == "error" and err["code"] == "not_your_turn"
    assert a.state()["round"]["to_act"] == 1
    # ann cannot make bob leave, and her cash-out only touches her own wallet
    assert a.request(type="leave")["code"] == "in_round"
    r = h.client.post("/wallet/cash-out", json={"amount": 1000, "request_id": "c"}, headers=ha)
    assert r.status_code == 200 and h.balance(hb) == 100_000 - 700
    assert b.state()["seat"] == 2


def test_operator_actions_need_the_admin_credential(h: Any) -> None:
    token, _ = h.player("ann", buy_in=0)
    body = {"game": "final-count", "name": "mine", "seats": 3}
    for hdrs in ({}, {"X-Admin-Token": ""}, {"X-Admin-Token": ADMIN + "x"}, {"X-Admin-Token": token},
                 {"Authorization": f"Bearer {token}"}, {"X-Admin-Token": ADMIN[:-1]}):  # fmt: skip
        r = h.client.post("/tables", json=body, headers=hdrs)
        assert r.status_code == 403, (hdrs, r.text)
        assert r.json()["error"]["code"] == "forbidden"
    assert all(t["name"] != "mine" for t in h.client.get("/tables").json())
    created = h.client.post("/tables", json=body, headers={"X-Admin-Token": ADMIN})
    assert created.status_code == 201
    tid = created.json()["table_id"]
    # changing a table's limits is an operator action too
    for hdrs in (
        {},
        {"X-Admin-Token": ADMIN + "x"},
        {"X-Admin-Token": token},
        {"Authorization": f"Bearer {token}"},
    ):
        r = h.client.patch(f"/tables/{tid}", json={"min_bet": 1, "max_bet": 10**9}, headers=hdrs)
        assert r.status_code == 403, (hdrs, r.text)
    table = next(t for t in h.client.get("/tables").json() if t["table_id"] == tid)
    assert (table["min_bet"], table["max_bet"]) == (100, 10_000)
    r = h.client.patch(f"/tables/{tid}", json={"min_bet": 200}, headers={"X-Admin-Token": ADMIN})
    assert r.status_code == 200 and r.json()["min_bet"] == 200


def test_request_bodies_are_bounded(h: Any) -> None:
    limit = Limits().max_body_bytes
    r = h.client.post(
        "/players", content=b'{"name": "' + b"a" * limit + b'"}', headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    r = h.client.post(
        "/tables", json={"game": "final-count", "name": "x" * limit}, headers={"X-Admin-Token": ADMIN}
    )
    assert r.status_code == 413
    assert all(t["name"] != "x" * limit for t in h.client.get("/tables").json())


def test_websocket_messages_are_bounded(h: Any) -> None:
    limit = Limits().max_ws_message_bytes
    tid = h.table("final-count", seats=3)
    token, headers = h.player("ann")
    s = h.seated(token, tid)
    big = '{"type": "wager", "request_id": "big", "wagers": {"main": 100}, "pad": "' + "x" * limit + '"}'
    s.ws.send_text(big)
    err = s.until(lambda m: m["type"] == "error")
    assert err["code"] == "too_large"
    with pytest.raises(WebSocketDisconnect) as closed:
        s.recv()
    assert closed.value.code == 1009
    assert h.balance(headers) == 100_000  # the oversized wager was never applied

"""Adjustments with dual control (issue 25): up to $2,000 applied at once, above it pending until a second
named staff member approves or rejects it; nobody decides their own, the admin token never approves; every step
in the audit trail with the balance before and after, in the change's own transaction (fail closed); the books
hold to the cent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from server_harness import ADMIN, Harness
from tablegames.server import audit
from tablegames.server.db import Adjustment, AuditEntry
from tablegames.server.ledger import check_ledger
from tablegames.server.permissions import Actor

pytestmark = pytest.mark.timeout(300)


def balance(h: Harness, headers: dict[str, str]) -> int:
    return int(h.client.get("/me", headers=headers).json()["balance"])


def trail(h: Harness) -> list[tuple[str, str, Any, Any]]:
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(AuditEntry.actor, AuditEntry.action, AuditEntry.before, AuditEntry.after)
            .where(AuditEntry.action.like("adjust.%"))
            .order_by(AuditEntry.id)
        ).all()
    return [tuple(r) for r in rows]  # type: ignore[misc]


@pytest.fixture
def h(make_server: Callable[..., Harness]) -> Harness:
    return make_server()


def test_up_to_the_threshold_applied_at_once_and_idempotent(h: Harness) -> None:
    olga = h.staff("Olga", "operator")
    _, pia = h.player("Pia", buy_in=10_000)
    body = {"amount": 200_000, "reason": "goodwill: table fault on round 7", "request_id": "adj-1"}
    r = h.client.post("/players/Pia/adjustments", json=body, headers=olga)
    assert r.status_code == 201, r.text
    got = r.json()
    assert got["status"] == "applied" and got["duplicate"] is False and got["transaction_id"] is not None
    assert balance(h, pia) == 210_000
    again = h.client.post("/players/Pia/adjustments", json=body, headers=olga).json()
    assert again["duplicate"] is True and again["id"] == got["id"] and balance(h, pia) == 210_000
    debit = {"amount": -10_000, "reason": "paid twice by mistake", "request_id": "adj-2"}
    assert h.client.post("/players/Pia/adjustments", json=debit, headers=olga).json()["status"] == "applied"
    assert balance(h, pia) == 200_000
    assert trail(h) == [
        ("staff:Olga", "adjust.apply", {"player": "Pia", "balance": 10_000},
         {"player": "Pia", "balance": 210_000, "amount": 200_000, "transaction_id": got["transaction_id"],
          "requested_by": "staff:Olga"}),
        ("staff:Olga", "adjust.apply", {"player": "Pia", "balance": 210_000},
         {"player": "Pia", "balance": 200_000, "amount": -10_000, "transaction_id": got["transaction_id"] + 1,
          "requested_by": "staff:Olga"}),
    ]  # fmt: skip
    with h.server.sessions() as s:
        assert check_ledger(s).ok


def test_above_the_threshold_it_waits_for_a_second_staff_member(h: Harness) -> None:
    olga, otto = h.staff("Olga", "operator"), h.staff("Otto", "operator")
    sue, aud = h.staff("Sue", "supervisor"), h.staff("Aud", "auditor")
    _, pia = h.player("Pia", buy_in=0)
    body = {"amount": 250_000, "reason": "jackpot paid short", "request_id": "big"}
    pending = h.client.post("/players/Pia/adjustments", json=body, headers=olga).json()
    assert pending["status"] == "pending" and pending["transaction_id"] is None and balance(h, pia) == 0
    listed = h.client.get("/adjustments", params={"status": "pending"}, headers=aud).json()
    assert [a["id"] for a in listed] == [pending["id"]]
    url = f"/adjustments/{pending['id']}"
    refusals = [
        (olga, 403, "their own"),  # nobody approves their own
        ({"X-Admin-Token": ADMIN}, 403, "admin token"),  # a shared credential is no second person
        (aud, 403, "auditor"),  # an auditor changes nothing
    ]
    for headers, status, words in refusals:
        r = h.client.post(f"{url}/approve", json={}, headers=headers)
        assert r.status_code == status and words in r.json()["error"]["message"], r.text
    assert balance(h, pia) == 0
    done = h.client.post(f"{url}/approve", json={"reason": "checked the meter log"}, headers=sue).json()
    assert done["status"] == "applied" and done["decided_by"] == "staff:Sue" and balance(h, pia) == 250_000
    assert h.client.post(f"{url}/approve", json={}, headers=otto).status_code == 409  # decided already
    assert [(a, act) for a, act, *_ in trail(h)] == [
        ("staff:Olga", "adjust.request"),
        ("staff:Sue", "adjust.apply"),
    ]
    assert trail(h)[1][3]["requested_by"] == "staff:Olga"
    with h.server.sessions() as s:
        assert check_ledger(s).ok


def test_a_rejection_needs_a_reason_and_moves_nothing(h: Harness) -> None:
    olga, otto = h.staff("Olga", "operator"), h.staff("Otto", "operator")
    _, pia = h.player("Pia", buy_in=500_000)
    body = {"amount": -300_000, "reason": "chargeback", "request_id": "cb"}
    pending = h.client.post("/players/Pia/adjustments", json=body, headers=olga).json()
    url = f"/adjustments/{pending['id']}/reject"
    assert h.client.post(url, json={}, headers=otto).status_code == 422
    r = h.client.post(url, json={"reason": "the bank reversed it"}, headers=otto).json()
    assert r["status"] == "rejected" and r["decision_reason"] == "the bank reversed it"
    assert balance(h, pia) == 500_000
    assert [act for _, act, *_ in trail(h)] == ["adjust.request", "adjust.reject"]


def test_bad_requests_change_nothing(h: Harness) -> None:
    olga = h.staff("Olga", "operator")
    _, pia = h.player("Pia", buy_in=1_000)
    cases = [
        ("Pia", {"amount": 0, "reason": "x", "request_id": "a"}, 422),
        ("Pia", {"amount": 1.5, "reason": "x", "request_id": "b"}, 422),
        ("Pia", {"amount": 100, "reason": "", "request_id": "c"}, 422),
        ("Pia", {"amount": 100, "reason": "x"}, 422),
        ("Pia", {"amount": 100, "reason": "x", "request_id": "d", "extra": 1}, 422),
        ("Nobody", {"amount": 100, "reason": "x", "request_id": "e"}, 404),
        ("Pia", {"amount": -5_000, "reason": "more than she has", "request_id": "f"}, 400),
    ]
    for who, body, status in cases:
        r = h.client.post(f"/players/{who}/adjustments", json=body, headers=olga)
        assert r.status_code == status, (body, r.text)
    with h.server.sessions() as s:
        assert s.scalar(sa.select(sa.func.count()).select_from(Adjustment)) == 0
    assert balance(h, pia) == 1_000 and trail(h) == []


def test_an_adjustment_whose_audit_entry_cannot_be_written_does_not_happen(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, pia = h.player("Pia", buy_in=1_000)

    def failing(*args: object, **kw: object) -> object:
        raise RuntimeError("the audit insert failed")

    monkeypatch.setattr(audit, "append", failing)
    with pytest.raises(RuntimeError):
        h.server.adjustments.request(Actor("staff:Olga", "operator"), "Pia", 500, "test", "r1")
    monkeypatch.undo()
    assert balance(h, pia) == 1_000
    with h.server.sessions() as s:
        assert s.scalar(sa.select(sa.func.count()).select_from(Adjustment)) == 0
        assert check_ledger(s).ok


def test_the_threshold_is_the_servers(make_server: Callable[..., Harness]) -> None:
    h = make_server(dual_control_cents=0)
    olga = h.staff("Olga", "operator")
    h.player("Pia", buy_in=0)
    r = h.client.post(
        "/players/Pia/adjustments", json={"amount": 1, "reason": "x", "request_id": "1"}, headers=olga
    )
    assert r.json()["status"] == "pending"


def test_a_suspended_account_is_refused_everywhere_until_reinstated(h: Harness) -> None:
    """Issue 25: an operator suspends a player's account: their socket is closed, every request refused
    (``suspended``), the change audited with its reason; reinstated, they play again. Others may not."""
    olga, sue = h.staff("Olga", "operator"), h.staff("Sue", "supervisor")
    table = h.table("final-count")
    token, pia = h.player("Pia", buy_in=1_000)
    ws = h.seated(token, table)
    body = {"suspended": True, "reason": "chargeback under review"}
    assert h.client.put("/players/Pia/suspension", json=body, headers=sue).status_code == 403
    assert h.client.put("/players/Pia/suspension", json={"suspended": True}, headers=olga).status_code == 422
    r = h.client.put("/players/Pia/suspension", json=body, headers=olga)
    assert r.status_code == 200 and r.json() == {"name": "Pia", "suspended": True}, r.text
    closed = ws.until(lambda m: m["type"] == "error" and m["code"] == "suspended")
    assert "suspended" in closed["message"]
    for method, path in (("GET", "/me"), ("GET", "/wallet"), ("GET", "/protection")):
        refused = h.client.request(method, path, headers=pia)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "suspended", (
            path,
            refused.text,
        )
    assert h.client.put("/players/Pia/suspension", json=body, headers=olga).status_code == 409
    listed = h.client.get("/players", params={"search": "Pia"}, headers=olga).json()
    assert [(p["name"], p["suspended"]) for p in listed] == [("Pia", True)]
    back = {"suspended": False, "reason": "cleared"}
    assert h.client.put("/players/Pia/suspension", json=back, headers=olga).json()["suspended"] is False
    assert h.client.get("/me", headers=pia).status_code == 200
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(AuditEntry.actor, AuditEntry.action, AuditEntry.reason)
            .where(AuditEntry.subject == "player:Pia")
            .order_by(AuditEntry.id)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("staff:Olga", "player.suspend", "chargeback under review"),
        ("staff:Olga", "player.reinstate", "cleared"),
    ]

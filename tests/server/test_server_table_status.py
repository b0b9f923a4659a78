"""Staff pause, resume and close tables (issue 25): a paused table takes no wager, so no new round starts while
the round in play finishes and settles; its players are told (``table_status``, ``betting_open`` false) and the
lobby shows it; a closed table is never opened again; every change is an audit entry with before and after."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from server_harness import ADMIN, Harness
from tablegames.server.db import AuditEntry
from tablegames.server.ledger import check_ledger

pytestmark = pytest.mark.timeout(300)


def test_a_paused_table_finishes_its_round_and_starts_no_other(make_server: Callable[..., Harness]) -> None:
    h = make_server(turn_seconds=60)
    sue = h.staff("Sue", "supervisor")
    table = h.table("final-count", seats=2)
    token, _ = h.player("Pia")
    ws = h.ws(token, table)
    assert ws.request(type="sit", seat=1)["type"] == "ack"
    assert ws.request(type="wager", wagers={"main": 500})["type"] == "ack"
    st = ws.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] != "betting")
    r = h.client.post(f"/tables/{table}/pause", json={"reason": "dealer change"}, headers=sue)
    assert r.status_code == 200 and r.json()["status"] == "paused", r.text
    paused = ws.until(lambda m: m["type"] == "state" and m.get("table_status") == "paused")
    assert paused["betting_open"] is False
    if st["round"]["phase"] == "deciding":  # the round in play goes on to its settlement
        assert ws.request(type="act", action=st["round"]["legal_actions"][0])["type"] == "ack"
    ws.until(lambda m: m["type"] == "round_result")
    refused = ws.request(type="wager", wagers={"main": 500})
    assert refused["type"] == "error" and refused["code"] == "table_paused", refused
    assert [t["status"] for t in h.client.get("/tables").json() if t["table_id"] == table] == ["paused"]
    assert h.client.post(f"/tables/{table}/pause", json={}, headers=sue).status_code == 409  # already
    assert h.client.post(f"/tables/{table}/resume", json={}, headers=sue).json()["status"] == "open"
    ws.until(lambda m: m["type"] == "state" and m.get("table_status") == "open" and m["betting_open"])
    assert ws.request(type="wager", wagers={"main": 500})["type"] == "ack"
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(
                AuditEntry.actor, AuditEntry.action, AuditEntry.before, AuditEntry.after, AuditEntry.reason
            )
            .where(AuditEntry.subject == f"table:{table}", AuditEntry.action != "table.open")
            .order_by(AuditEntry.id)
        ).all()
        assert check_ledger(s).ok
    assert [tuple(r) for r in rows] == [
        ("staff:Sue", "table.pause", {"status": "open"}, {"status": "paused"}, "dealer change"),
        ("staff:Sue", "table.resume", {"status": "paused"}, {"status": "open"}, ""),
    ]


def test_a_closed_table_stays_closed_and_only_staff_who_may_change_it(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    aud = h.staff("Aud", "auditor")
    table = h.table("three-card-poker")
    assert h.client.post(f"/tables/{table}/close", json={}, headers=aud).status_code == 403
    _, pia = h.player("Pia", buy_in=0)
    assert h.client.post(f"/tables/{table}/close", json={}, headers=pia).status_code == 403
    assert (
        h.client.post(f"/tables/{table}/close", json={}, headers={"X-Admin-Token": ADMIN}).status_code == 200
    )
    for change in ("resume", "pause", "close"):
        r = h.client.post(f"/tables/{table}/{change}", json={}, headers={"X-Admin-Token": ADMIN})
        assert r.status_code == 409 and "closed" in r.json()["error"]["message"], r.text
    assert (
        h.client.post(f"/tables/{table}/reopen", json={}, headers={"X-Admin-Token": ADMIN}).status_code == 422
    )
    assert h.client.post("/tables/999999/pause", json={}, headers={"X-Admin-Token": ADMIN}).status_code == 404


def test_bots_stop_wagering_at_a_paused_table(make_server: Callable[..., Harness]) -> None:
    """Practice bots play until staff pause their table, then wager no more (and the table logs no error)."""
    h = make_server(bot_seconds=0.0)
    table = h.table("three-card-poker", seats=2)
    token, _ = h.player("Pia", buy_in=0)
    ws = h.ws(token, table)  # a watcher: the bots play while somebody looks
    for seat in (1, 2):
        assert (
            h.client.post(
                f"/tables/{table}/bots", json={"seat": seat}, headers={"X-Admin-Token": ADMIN}
            ).status_code
            == 201
        )
    ws.until(lambda m: m["type"] == "round_result")
    assert (
        h.client.post(f"/tables/{table}/pause", json={}, headers={"X-Admin-Token": ADMIN}).status_code == 200
    )
    ws.until(lambda m: m["type"] == "state" and m.get("table_status") == "paused")

    def rounds() -> int:
        with h.server.sessions() as s:
            return int(
                s.execute(
                    sa.text("SELECT COUNT(*) FROM rounds WHERE table_id = :t"), {"t": table}
                ).scalar_one()
            )

    settled = rounds()
    time.sleep(0.5)  # (bot_seconds 0: unpaused bots would open several rounds meanwhile)
    # at most the round that was in play when the pause came is added
    assert rounds() <= settled + 1
    after = rounds()
    time.sleep(0.5)
    assert rounds() == after

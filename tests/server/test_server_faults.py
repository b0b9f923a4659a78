"""A database failure during settlement: nothing of it is written, the table is told, and the settlement is
retried until it is written, once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from server_harness import Harness
from tablegames.server import ledger, push

pytestmark = pytest.mark.timeout(120)


def test_settlement_failure_writes_nothing_and_is_retried_once(
    make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = make_server()
    table = h.table("final-count")
    tok, hdr = h.player("flo", 10_000)
    ws = h.ws(tok, table)
    ws.request(type="sit")
    monkeypatch.setattr(push, "RETRY_SECONDS", 0.3)
    real = ledger.post_all
    failures = []

    def flaky(executor: Any, postings: Any) -> Any:
        if any(p.kind == "payout" for p in postings) and not failures:
            failures.append("payout")
            real(executor, [p for p in postings if p.kind != "payout"])  # written, then the database fails
            raise OperationalError("UPDATE accounts", {}, Exception("database is locked"))
        return real(executor, postings)

    monkeypatch.setattr(ledger, "post_all", flaky)
    ack = ws.request(type="wager", wagers={"main": 1_000})
    st = ws.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] != "betting")
    if st["round"]["phase"] == "deciding":
        assert ws.request(type="act", action="stand")["type"] == "ack"
    notice = ws.until(lambda m: m["type"] in ("round_result", "error"))
    assert (
        notice["type"] == "error" and notice["code"] == "server_error" and "settlement" in notice["message"]
    )
    result = ws.until(lambda m: m["type"] in ("round_result", "error"))
    assert result["type"] == "round_result" and failures == ["payout"]
    with h.server.sessions() as s:
        stakes = s.execute(
            sa.text("SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'stakes' AND round_id = :r"),
            {"r": ack["round_id"]},
        ).scalar_one()
        status = s.execute(
            sa.text("SELECT status FROM rounds WHERE id = :r"), {"r": ack["round_id"]}
        ).scalar_one()
    assert stakes == 1 and status == "settled"
    net = result["results"][0]["net"]
    assert h.balance(hdr) == 10_000 + net == result["balance"]
    assert h.totals()["in_play"] == 0
    h.check_ledger()

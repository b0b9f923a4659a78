"""Bad input over the WebSocket: each gets an ``error`` with a clear message and code, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server_harness import WS, Harness

pytestmark = pytest.mark.timeout(120)


def snapshot(h: Harness, ws: WS) -> tuple[Any, ...]:
    st = ws.next_state()
    return (st["round"], st["seq"], st["occupants"], st["balance"], h.totals())


def expect(ws: WS, code: str, **msg: Any) -> dict[str, Any]:
    reply = ws.request(**msg)
    assert reply["type"] == "error", reply
    assert reply["code"] == code, reply
    assert reply["message"]
    return reply


def test_missing_or_forged_token_and_unknown_table(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    table = h.table("final-count")
    tok, _ = h.player("val")
    for token in (None, "forged", tok[:-2] + "xx"):
        ws = h.ws(token, table, wait=False)
        m = ws.recv()
        assert m["type"] == "error" and m["code"] == "unauthorized" and "token" in m["message"]
    bad = h.client.websocket_connect(f"/ws/tables/999?token={tok}")
    with bad as conn:
        m = conn.receive_json()
    assert m["type"] == "error" and m["code"] == "not_found"


def test_malformed_messages_and_bad_wagers_change_nothing(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    table = h.table("one-eyed-flush", min_bet=200, max_bet=5_000)
    tok, hdr = h.player("mal", 3_000)
    ws = h.ws(tok, table)
    # not seated yet
    expect(ws, "not_seated", type="wager", wagers={"main": 500})
    expect(ws, "not_seated", type="act", action="stand")
    expect(ws, "not_seated", type="leave")
    for seat in (0, 6, "1", True, 1.5):
        expect(ws, "bad_seat", type="sit", seat=seat)
    assert ws.request(type="sit", seat=3)["type"] == "ack"
    expect(ws, "already_seated", type="sit", seat=4)
    before = snapshot(h, ws)
    ws.send_text("{not json")
    assert ws.until(lambda m: m["type"] == "error")["code"] == "bad_json"
    ws.send_text("[1, 2, 3]")
    assert ws.until(lambda m: m["type"] == "error")["code"] == "bad_json"
    ws.send_text('"hello"')
    assert ws.until(lambda m: m["type"] == "error")["code"] == "bad_json"
    expect(ws, "unknown_type", type="fly")
    expect(ws, "unknown_type", type=None)
    ws.send(wagers={"main": 500})  # no type at all
    assert ws.until(lambda m: m["type"] == "error")["code"] == "unknown_type"
    # wagers
    ws.send(type="wager", wagers={"main": 500})  # no request id
    assert ws.until(lambda m: m["type"] == "error")["code"] == "bad_message"
    expect(ws, "bad_message", type="wager", wagers=[500])
    expect(ws, "bad_message", type="wager", wagers={})
    for amount in (-500, 0, 250.5, 300.0, "500", None, True):
        expect(ws, "bad_amount", type="wager", wagers={"main": amount})
    expect(ws, "under_limit", type="wager", wagers={"main": 199})
    expect(ws, "over_limit", type="wager", wagers={"main": 5_001})
    expect(ws, "over_limit", type="wager", wagers={"main": 500, "flip": 5_001}, options={"flip": "7"})
    expect(ws, "insufficient_funds", type="wager", wagers={"main": 3_001})
    expect(ws, "insufficient_funds", type="wager", wagers={"main": 2_500, "flip": 600}, options={"flip": "7"})
    expect(ws, "bad_wager", type="wager", wagers={"bets": 500})
    expect(ws, "side_bet_without_main", type="wager", wagers={"jackpot": 100})
    expect(ws, "bad_wager", type="wager", wagers={"main": 500, "jackpot": 200})  # fixed at 100 (R-OEF-9)
    expect(ws, "bad_wager", type="wager", wagers={"main": 500, "flip": 100})  # flip needs an outcome
    expect(ws, "bad_wager", type="wager", wagers={"main": 500, "flip": 100}, options={"flip": "eleven"})
    expect(ws, "bad_message", type="wager", wagers={"main": 500}, options={"flip": "7"})
    expect(ws, "wrong_phase", type="act", action="stand")
    assert snapshot(h, ws) == before
    assert h.balance(hdr) == 3_000
    h.check_ledger()


def test_acting_out_of_turn_or_for_another_seat_changes_nothing(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    table = h.table("one-eyed-flush")
    tok_a, _ = h.player("amy")
    tok_b, _ = h.player("bo")
    tok_c, _ = h.player("cat")
    tok_d, _ = h.player("dan")
    d = h.ws(tok_d, table)
    a, b, c = h.ws(tok_a, table), h.ws(tok_b, table), h.ws(tok_c, table)
    a.request(type="sit", seat=1)
    b.request(type="sit", seat=2)
    a.request(type="wager", wagers={"main": 500})
    b.request(type="wager", wagers={"main": 500})  # everyone seated has wagered: the deal
    st = b.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    assert st["round"]["to_act"] == 1
    before = snapshot(h, b)
    expect(b, "not_your_turn", type="act", action="stand")
    expect(b, "not_your_turn", type="act", action="stand", seat=1)  # acting for another seat
    expect(a, "not_your_turn", type="act", action="stand", seat=2)
    expect(a, "unknown_action", type="act", action="fold")
    expect(a, "unknown_action", type="act", action="")
    expect(a, "bad_index", type="act", action="discard 3")
    expect(a, "bad_index", type="act", action="discard -1")
    expect(a, "bad_message", type="act")
    expect(a, "betting_closed", type="wager", wagers={"jackpot": 100})
    expect(a, "in_round", type="leave")
    expect(c, "not_seated", type="act", action="stand")
    c.request(type="sit")
    expect(c, "betting_closed", type="wager", wagers={"main": 500})
    expect(d, "seat_taken", type="sit", seat=1)
    after = snapshot(h, b)
    assert after[0] == before[0] and after[1] == before[1] and after[3:] == before[3:]
    assert after[2] == {**before[2], "3": "cat"}  # cat sat down meanwhile
    # the right seat can still act
    assert a.request(type="act", action="stand")["type"] == "ack"
    h.check_ledger()

"""Requests answered once (issue 11 defects 6 and 7).

6. Two sockets of one Let It Ride player sent ``pull`` with the same request id: both were applied (bet 1 *and*
   bet 2 pulled). An ``act`` names the decision it answers (the state's ``decision``); a repeated request id, or a
   decision already taken, is answered as a duplicate and changes nothing.
7. Request ids of 56-64 characters failed on PostgreSQL (prefixed into a 64-character column) with a retryable
   ``server_error``: every id of 1-64 characters works on both databases, over the WebSocket and REST, and a
   longer one is a clear ``bad_message``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server_harness import WS, Harness

pytestmark = pytest.mark.timeout(120)


def lir_turn(h: Harness) -> tuple[WS, WS, dict[str, Any], dict[str, str]]:
    """A one-seat Let It Ride table; the player has two sockets, wagered, and it is their first decision."""
    table = h.table("let-it-ride", seats=1)
    tok, headers = h.player("lia")
    a = h.seated(tok, table)
    b = h.ws(tok, table)
    assert a.request(type="wager", wagers={"bets": 500})["type"] == "ack"
    st = b.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    assert st["round"]["stage"] == 1 and st["decision"] == f"{st['round_id']}:{st['seq']}"
    return a, b, st, headers


def answer(ws: WS, rid: str) -> dict[str, Any]:
    return ws.until(lambda m: m["type"] in ("ack", "error") and m.get("request_id") == rid)


def bets_up(ws: WS) -> list[str]:
    st = ws.state()
    return list(st["round"]["bets_up"]["1"])


def test_the_same_pull_from_two_sockets_is_applied_once(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    a, b, st, _ = lir_turn(h)
    pull = {"type": "act", "action": "pull", "request_id": "pull-1", "decision": st["decision"]}
    a.send(**pull)
    b.send(**pull)  # the same request, from the player's other socket, before either is answered
    first, second = answer(a, "pull-1"), answer(b, "pull-1")
    assert first["type"] == second["type"] == "ack"
    # whichever socket's copy the table takes first is applied; the other is answered as its duplicate
    assert sorted((first["duplicate"], second["duplicate"])) == [False, True]
    dup = second if second["duplicate"] else first
    assert second["event"] == first["event"] and dup["decision"] == st["decision"]
    assert bets_up(a) == ["2", "$"]  # bet 1 pulled, bet 2 still up: one pull applied
    now = a.state()
    assert now["round"]["stage"] == 2 and now["decision"] != st["decision"]
    # a stale decision (the step moved on), under a new request id: a duplicate, nothing changes
    stale = a.request(type="act", action="pull", decision=st["decision"])
    assert stale["type"] == "ack" and stale["duplicate"] is True and stale["event"] == first["event"]
    # the first request id again, now naming the open decision: still the first answer
    again = b.request(type="act", action="pull", request_id="pull-1", decision=now["decision"])
    assert again["type"] == "ack" and again["duplicate"] is True and again["decision"] == st["decision"]
    assert bets_up(b) == ["2", "$"]
    # a decision that is neither open nor taken, and an act naming none, are refused
    assert a.request(type="act", action="pull", decision="9999:1")["code"] == "stale_decision"
    assert a.request(type="act", action="pull", decision=None)["code"] == "bad_message"
    assert bets_up(a) == ["2", "$"]
    # the open decision is taken once
    ride = a.request(type="act", action="ride", decision=now["decision"])
    assert ride["type"] == "ack" and ride["duplicate"] is False
    result = a.until(lambda m: m["type"] == "round_result")
    recall = h.client.get(f"/rounds/{result['round_id']}").json()
    actions = [(e["action"], e["by"]) for e in recall["events"] if e["type"] == "action"]
    assert actions == [("pull", "player"), ("ride", "player")]
    pulled = [
        (e["wager"], e["part"])
        for e in recall["events"]
        if e["type"] == "settled" and e["outcome"] == "pulled"
    ]
    assert pulled == [("bets", "1")]  # the wager's one name, and which of its bets (issue 12)
    h.check_ledger()


def test_a_decision_taken_by_the_timeout_is_a_duplicate_for_the_player(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server(turn_seconds=0.3)
    a, _, st, _ = lir_turn(h)
    a.until(lambda m: m["type"] == "state" and m["decision"] not in (None, st["decision"]))  # timed out
    late = a.request(type="act", action="ride", decision=st["decision"])
    assert late["type"] == "ack" and late["duplicate"] is True
    assert late["event"] == {"type": "action", "seat": 1, "action": "pull", "by": "timeout"}
    assert bets_up(a) == ["2", "$"]


@pytest.mark.parametrize("length", [1, 56, 63, 64])
def test_request_ids_of_1_to_64_characters_work_on_every_database(
    make_server: Callable[..., Harness], length: int
) -> None:
    h = make_server()
    table = h.table("final-count", seats=2)
    tok, headers = h.player("rid", buy_in=0)
    rid = "é" * length  # characters, not bytes: the limit is the same on both databases
    for path in ("/wallet/buy-in", "/wallet/cash-out"):
        for duplicate in (False, True):
            r = h.client.post(path, json={"amount": 5000, "request_id": rid}, headers=headers)
            assert r.status_code == 200, r.text
            assert r.json()["duplicate"] is duplicate
    assert h.balance(headers) == 0
    h.client.post("/wallet/buy-in", json={"amount": 5000, "request_id": "in"}, headers=headers)
    ws = h.seated(tok, table)
    for duplicate in (False, True):
        ack = ws.request(type="wager", request_id=rid, wagers={"main": 100})
        assert ack["type"] == "ack", ack
        assert ack["duplicate"] is duplicate and ack["request_id"] == rid
    assert h.balance(headers) == 4900
    h.check_ledger()


def test_an_over_long_or_control_character_request_id_is_a_clear_bad_message(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    table = h.table("final-count", seats=2)
    tok, headers = h.player("long")
    ws = h.seated(tok, table)
    for rid in ("x" * 65, "y" * 300, "nul\x00id", "bell\x07"):
        r = h.client.post("/wallet/buy-in", json={"amount": 100, "request_id": rid}, headers=headers)
        assert r.status_code in (400, 422) and r.json()["error"]["code"] == "bad_message", r.text
        ws.send(type="wager", request_id=rid, wagers={"main": 100})
        err = ws.until(lambda m: m["type"] == "error")
        assert err["code"] == "bad_message" and "request_id" in err["message"]
    assert h.balance(headers) == 100_000
    assert ws.state()["round_id"] is None  # no round opened
    h.check_ledger()


def test_a_forgotten_request_id_is_a_duplicate_also_when_its_repeat_would_pass(
    make_server: Callable[..., Harness],
) -> None:
    """A wager's and an act's stored answer is looked up only when the message fails (server/protocol.py): a
    request id answered before (a restart, a takeover: here this process forgets its answers) whose repeat
    would be taken now is still answered as its duplicate, since the key stored with the first answer rolls the
    second back, and nothing changes."""
    h = make_server()
    table = h.table("let-it-ride", seats=1)
    tok, headers = h.player("lia")
    a = h.seated(tok, table)
    wager = a.request(type="wager", wagers={"bets": 500}, request_id="w-1")
    st = a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    pull = a.request(type="act", action="pull", decision=st["decision"], request_id="p-1")
    assert wager["duplicate"] is pull["duplicate"] is False
    a.request(type="act", action="ride", decision=a.state()["decision"])
    a.until(lambda m: m["type"] == "round_result" and m["round_id"] == wager["round_id"])
    answers = h.server.runners[table].state.answers
    answers.clear()
    balance = h.balance(headers)
    assert a.request(type="wager", wagers={"bets": 500}, request_id="w-1") == {**wager, "duplicate": True}
    assert h.balance(headers) == balance and a.state()["round_id"] == wager["round_id"]  # no new round
    assert a.request(type="wager", wagers={"bets": 500}, request_id="w-2")["duplicate"] is False
    st = a.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    answers.clear()
    assert a.request(type="act", action="pull", decision=st["decision"], request_id="p-1") == {
        **pull,
        "duplicate": True,
    }
    now = a.state()
    assert now["decision"] == st["decision"] and bets_up(a) == ["1", "2", "$"]  # nothing pulled
    h.check_ledger()

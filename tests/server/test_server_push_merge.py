"""Issue 28: while a round is decided, a decision's ``state`` goes at once to the sockets of the seat that decided
and of the seat to act now; the table's other sockets (the other players, the onlookers) get one ``state`` for the
decisions made within ``DECISION_PUSH_SECONDS``, with every event since their last (server/push.py,
``Pusher.decided``). Nothing is lost, nothing is sent twice, and the round's end goes to everyone at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server_harness import WS, Harness
from tablegames.server import push

Message = dict[str, Any]


def _states(ws: WS, after: int) -> list[Message]:
    return [m for m in ws.log[after:] if m["type"] == "state"]


def _acted(state: Message) -> list[int]:
    """The seats whose decisions the state's new events are (in order)."""
    return [e["seat"] for e in state["events"] if "action" in e and "seat" in e]


@pytest.mark.timeout(60)
def test_a_decision_goes_at_once_to_who_decided_and_who_is_next_and_merged_to_the_rest(
    make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a window no slow test run outlasts between two decisions (the merge is then certain)
    monkeypatch.setattr(push, "DECISION_PUSH_SECONDS", 3.0)
    h = make_server(betting_seconds=600.0)
    table = h.table("three-card-poker", seats=3, min_bet=100, max_bet=1_000)
    a, b, c = (h.seated(h.player(name)[0], table) for name in ("ann", "bob", "cy"))
    watch = WS(h.client, None, table, h.stack, watch=True)
    watch.until(lambda m: m["type"] == "state")
    for ws in (a, b, c):
        assert ws.request(type="wager", wagers={"ante": 100})["type"] == "ack"
    dealt = {}
    for ws in (a, b, c, watch):
        dealt[id(ws)] = ws.until(
            lambda m: m["type"] == "state" and (m["round"] or {}).get("phase") == "deciding"
        )
    assert dealt[id(a)]["round"]["to_act"] == 1 and [dealt[id(ws)]["seat"] for ws in (a, b, c)] == [1, 2, 3]
    mark = {id(ws): len(ws.log) for ws in (a, b, c, watch)}

    # ann decides: her socket and bob's (to act now) get the state at once
    assert a.request(type="act", action="play")["type"] == "ack"
    mine = a.until(lambda m: m["type"] == "state")
    assert _acted(mine) == [1] and mine["round"]["to_act"] == 2
    turn = b.until(lambda m: m["type"] == "state")
    assert _acted(turn) == [1] and turn["round"]["to_act"] == 2
    # bob decides at once: cy, to act now, gets one state with both decisions (none was pushed to her for ann's)
    assert b.request(type="act", action="play")["type"] == "ack"
    hers = c.until(lambda m: m["type"] == "state" and m["round"]["to_act"] == 3)
    assert _states(c, mark[id(c)]) == [hers]
    assert _acted(hers) == [1, 2]
    # the onlooker, whom neither decision concerned, gets one merged state for both, within the window
    merged = watch.until(lambda m: m["type"] == "state")
    assert _acted(merged) == [1, 2] and merged["round"]["to_act"] == 3 and merged["seq"] == hers["seq"]
    assert _states(watch, mark[id(watch)]) == [merged]

    # cy decides last: the round is over and every socket gets its end at once, then the result
    assert c.request(type="act", action="play")["type"] == "ack"
    for ws in (a, b, c, watch):
        ws.until(lambda m: m["type"] == "round_result")
        states = _states(ws, mark[id(ws)])
        final = states[-1]
        assert final["round"]["phase"] != "deciding"
        # every event of the round reached every socket once, in order: what it had at the deal plus the rest
        events = [e for s in states for e in s["events"]]
        assert len(events) == final["seq"] - dealt[id(ws)]["seq"], (ws, states)
        assert [e["seat"] for e in events if "action" in e and "seat" in e] == [1, 2, 3]
    # ann got bob's decision in the merged push of the window (with the onlooker's), not at once; bob got no
    # state but his turn, his own decision and the end
    first, second, _ = _states(a, mark[id(a)])
    assert (first["seq"], second["seq"]) == (mine["seq"], merged["seq"]) and _acted(second) == [2]
    assert [s["seq"] for s in _states(b, mark[id(b)])][:2] == [turn["seq"], hers["seq"]]
    assert len(_states(b, mark[id(b)])) == 3

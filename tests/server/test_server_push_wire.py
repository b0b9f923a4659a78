"""Issue 28: a table's ``state`` push is encoded once per table on its thread (server/wire.py, server/push.py).

- The part every socket shares is encoded once and each socket's own part spliced on; sockets whose own part is
  the same (one player's two sockets, two onlookers) get the very same text, the others their own; every text is
  a whole ``state`` of the protocol's contract, as the socket receives it.
- Every change is in the next push (nothing of a push is kept for the next one).
- The JSON is the standard library's, value for value: integer keys, non-ASCII names, integers over 64 bits;
  a client's message is refused or accepted exactly as ``json.loads`` would.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import tablegames.server.push as push_module
from server_harness import WS, Harness
from tablegames.server.client import Connection, send_all
from tablegames.server.contract import ServerMessage
from tablegames.server.core import PlayerInfo
from tablegames.server.wire import decode, encode, encode_strict, splice, splice_encoded

SERVER = TypeAdapter(ServerMessage)


class Recorder:
    """Every batch the pusher hands to the event loop (the real send still happens)."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[Connection, str]]] = []
        self.lock = threading.Lock()

    def __call__(self, messages: list[tuple[Connection, str]]) -> None:
        with self.lock:
            self.batches.append(list(messages))
        send_all(messages)

    def wait(self, pred: Callable[[list[tuple[Connection, str]]], bool]) -> list[tuple[Connection, str]]:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with self.lock:
                for batch in self.batches:
                    if pred(batch):
                        return batch
            time.sleep(0.01)
        raise AssertionError("no such push")


def _states(batch: list[tuple[Connection, str]]) -> dict[Connection, str]:
    return {c: text for c, text in batch if json.loads(text)["type"] == "state"}


def test_sockets_with_the_same_view_share_one_text(
    make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = make_server()
    table = h.table("let-it-ride", seats=3)
    token_a, _ = h.player("Ann")
    token_b, _ = h.player("Bo")
    a1 = h.seated(token_a, table)
    a2 = h.ws(token_a, table)  # Ann's second socket
    s1 = WS(h.client, None, table, h.stack, watch=True)
    s1.until(lambda m: m["type"] == "state")
    s2 = WS(h.client, None, table, h.stack, watch=True)
    s2.until(lambda m: m["type"] == "state")
    recorder = Recorder()
    monkeypatch.setattr(push_module, "send_all", recorder)

    b = h.seated(token_b, table)  # the table changed: one push to all five sockets
    conns = list(h.server.runners[table].state.conns)
    batch = recorder.wait(lambda batch: len(_states(batch)) == 5)
    states = _states(batch)
    by_name: dict[str, list[str]] = {}
    for c, text in states.items():
        by_name.setdefault(c.player.name if not c.player.spectator else "", []).append(text)
    assert {k: len(v) for k, v in by_name.items()} == {"Ann": 2, "Bo": 1, "": 2}
    assert by_name["Ann"][0] is by_name["Ann"][1]  # one text, not two equal ones
    assert by_name[""][0] is by_name[""][1]
    assert len({by_name["Ann"][0], by_name["Bo"][0], by_name[""][0]}) == 3
    seats = {name: json.loads(texts[0])["seat"] for name, texts in by_name.items()}
    assert seats["Ann"] is not None and seats["Bo"] is not None and seats["Ann"] != seats["Bo"]
    assert seats[""] is None
    for texts in by_name.values():
        message = json.loads(texts[0])
        SERVER.validate_python(message)  # a whole state of the contract
        assert message["occupants"] == {str(seats["Ann"]): "Ann", str(seats["Bo"]): "Bo"}
    assert {c for c in conns} == set(states)
    # what each socket received is that text
    for ws, name in ((a1, "Ann"), (a2, "Ann"), (b, "Bo"), (s1, ""), (s2, "")):
        got = ws.seen_or_next(lambda m: m["type"] == "state" and len(m["occupants"]) == 2)
        assert got == json.loads(by_name[name][0])


def test_every_change_is_in_the_next_push(
    make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = make_server()
    table = h.table("final-count", seats=3)
    token_a, _ = h.player("Ann")
    token_b, _ = h.player("Bo")
    a = h.seated(token_a, table)
    b = h.seated(token_b, table)
    recorder = Recorder()
    monkeypatch.setattr(push_module, "send_all", recorder)
    name, amount = "main", 100
    ack = a.request(type="wager", wagers={name: amount})
    assert ack["type"] == "ack", ack
    seat_a = a.state()["seat"]

    def shows_wager(batch: list[tuple[Connection, str]]) -> bool:
        for text in _states(batch).values():
            rnd = json.loads(text)["round"]
            if rnd and any(s["seat"] == seat_a and s["wagers"] for s in rnd["seats"]):
                return True
        return False

    batch = recorder.wait(shows_wager)
    for c, text in _states(batch).items():
        message = json.loads(text)
        mine = [s for s in message["round"]["seats"] if s["seat"] == seat_a]
        assert mine and mine[0]["wagers"] == {name: amount}, c.player.name
    # Bo's own balance and view come with his push, not Ann's
    assert b.state()["balance"] == h.balance({"Authorization": f"Bearer {token_b}"})


@pytest.mark.parametrize(
    "value",
    [
        {"type": "state", "seat": None, "meters": {"a": 1}, "x": [1.5, 0.001, True, None]},
        {"occupants": {1: "Zoë", 2: "李"}},  # integer keys become strings, as json.dumps does
        {"big": 2**70, "neg": -(2**65)},  # over 64 bits: the standard library's encoder
        {"tuple": (1, 2), "nested": {"a": {"b": []}}},
    ],
)
def test_encode_is_json_dumps_value_for_value(value: dict[Any, Any]) -> None:
    assert json.loads(encode(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize(
    "text",
    ['{"type": "ping"}', '{"n": NaN}', '{"n": 123456789012345678901234567890}', '["\\ud800"]', "[1e400]"],
)
def test_decode_accepts_what_json_loads_accepts(text: str) -> None:
    got, want = decode(text), json.loads(text)
    assert repr(got) == repr(want)  # the same types too (an int stays an int)


@pytest.mark.parametrize("text", ["{", "", "{'a': 1}", b"\xff\xfe", "[1,]"])
def test_decode_refuses_what_json_loads_refuses(text: str | bytes) -> None:
    with pytest.raises((ValueError, UnicodeDecodeError)):
        json.loads(text)
    with pytest.raises((ValueError, UnicodeDecodeError)):
        decode(text)


def test_splice_is_the_merged_object() -> None:
    head = {"type": "state", "seq": 3, "meters": {"x": 1}}
    own = {"seat": 2, "events": [{"k": "v"}], "balance": 500}
    assert json.loads(splice(encode(head).encode(), own)) == {**head, **own}
    assert json.loads(splice(b"{}", own)) == own
    assert json.loads(splice(encode(head).encode(), {})) == head


def test_send_all_keeps_each_sockets_order() -> None:
    one = Connection(PlayerInfo(1, "a", 1))
    two = Connection(PlayerInfo(2, "b", 2))
    send_all([(one, "1"), (two, "x"), (one, "2"), (two, "y")])
    got = {c: [c.queue.get_nowait() for _ in range(c.queue.qsize())] for c in (one, two)}
    assert got == {one: ["1", "2"], two: ["x", "y"]}
    one.close()
    send_all([(one, "3"), (two, "z")])  # a closed socket gets nothing more
    assert one.queue.get_nowait() is None and one.queue.empty()
    assert two.queue.get_nowait() == "z"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
KEYS = st.sampled_from(["seat", "round", "events", "balance", "ünï", 'q"uote'])


@settings(max_examples=200, deadline=None)
@given(
    head=st.dictionaries(st.text(max_size=4), JSON, max_size=3),
    fields=st.dictionaries(KEYS, JSON, max_size=3),
    more=st.dictionaries(st.sampled_from(["view", "events", "x"]), JSON, max_size=3),
)
def test_splice_encoded_is_splice(head: dict[str, Any], fields: dict[str, Any], more: dict[str, Any]) -> None:
    """Values encoded apart and spliced (a push's views and events) give the text of the whole encoded at once."""
    head = {k: v for k, v in head.items() if k not in fields and k not in more}
    fields = {k: v for k, v in fields.items() if k not in more}
    encoded = {k: encode_strict(v) for k, v in more.items()}
    assert splice_encoded(encode_strict(head), fields, encoded) == splice(
        encode_strict(head), {**fields, **more}
    )

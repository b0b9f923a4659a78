"""Secrecy: over a whole multi-round session at a table of every registered game (several seats, an onlooker, a
reconnect), every message each client received is checked against the engine's full history of the round: no
card reached a client before that client was allowed to see it (never the deck order, the dealer's face-down
cards, or another player's face-down cards), and no text derived from a card either (a hand's description,
total or category: issue 11 defect 9, a One Eyed Flush bust told every seat ``"No Pair (28)"``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from test_server_support import every_wager, play_round, rigged_deck

from secrecy import RULE_DATA, allowed, cards_in, leaked_texts, strings_in
from server_harness import WS, Harness
from tablegames.rules import GAMES, registry

pytestmark = pytest.mark.timeout(180)

NOT_DERIVED = frozenset({"name", "message", "player", "occupants", "table", "source"}) | RULE_DATA


def choose_for(seat: int, st: dict[str, Any]) -> str:
    """Seats 1, 3 and 4 take the last, the first and a middle legal action: every decision gets taken."""
    legal: list[str] = st["round"]["legal_actions"]
    return {1: legal[-1], 3: legal[0]}.get(seat, legal[len(legal) // 2])


def leaks(events: list[dict[str, Any]], seat: int | None, k: int, message: Any) -> set[str]:
    """Texts derived from another seat's cards in ``message`` while ``seat`` could not see them yet."""
    shown = strings_in(message, NOT_DERIVED)
    if isinstance(message, dict) and seat is not None and message.get("round"):  # its own hand is its own
        shown -= strings_in((message["round"].get("hands") or {}).get(str(seat), {}), NOT_DERIVED)
    return leaked_texts(events, seat, k, shown)


def check_log(h: Harness, log: list[dict[str, Any]], histories: dict[int, list[dict[str, Any]]]) -> int:
    """Check one client's messages; returns how many messages carried cards."""
    context: tuple[int | None, int | None, int] = (None, None, 0)  # round id, seat, seq
    with_cards = 0
    for m in log:
        if m["type"] == "state":
            context = (m["round_id"], m["seat"], m["seq"])
            if m["round_id"] is not None and m["round"] and m["round"]["phase"] != "settled":
                round_id = m["round_id"]
                if round_id not in histories:
                    histories[round_id] = h.client.get(f"/rounds/{round_id}").json()["events"]
                told = leaks(histories[round_id], m["seat"], m["seq"], m)
                assert not told, f"seat {m['seat']} was told {told} at event {m['seq']} of round {round_id}"
        found = cards_in(m)
        if not found:
            continue
        with_cards += 1
        round_id, seat, seq = context
        if m["type"] == "round_result":
            round_id, seq = m["round_id"], 10**9
        assert round_id is not None, m
        if round_id not in histories:
            histories[round_id] = h.client.get(f"/rounds/{round_id}").json()["events"]
        ok = allowed(histories[round_id], seat, seq)
        leaked = found - ok
        assert not leaked, f"seat {seat} got {sorted(leaked)} at event {seq} of round {round_id}: {m}"
    return with_cards


def test_no_card_reaches_a_client_before_it_may_see_it(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    logs: list[list[dict[str, Any]]] = []
    seen_own_hidden = 0
    for game in GAMES:
        table = h.table(game)
        wagers, options, _ = every_wager(registry.get(game), 300)
        socks: dict[int, WS] = {}
        tokens: dict[int, str] = {}
        for seat in (1, 3, 4):
            tok, _ = h.player(f"{game[:3]}{seat}")
            tokens[seat] = tok
            socks[seat] = h.ws(tok, table)
            socks[seat].request(type="sit", seat=seat)
            socks[seat].request(type="hints", on=True)
        tok_o, _ = h.player(f"{game[:3]}-onlooker")
        onlooker = h.ws(tok_o, table)
        for rnd in range(3):
            if rnd == 1:
                # seat 3 drops and reconnects between rounds: it gets its seat back
                logs.append(socks[3].log)
                socks[3].ws.close()
                socks[3] = h.ws(tokens[3], table)
                assert socks[3].log[0]["type"] == "welcome" and socks[3].log[0]["seat"] == 3
                socks[3].request(type="hints", on=True)
            results = play_round(
                socks, dict.fromkeys(socks, wagers), dict.fromkeys(socks, options), choose=choose_for
            )
            assert len(results[1]["results"]) == 3
        for ws in socks.values():
            logs.append(ws.log)
        onlooker.next_state()
        logs.append(onlooker.log)
    histories: dict[int, list[dict[str, Any]]] = {}
    total = 0
    for log in logs:
        total += check_log(h, log, histories)
    assert total > 50
    # the check can fail: a client does see its own face-down cards before the end, others' stay hidden
    for log in logs:
        for m in log:
            if m["type"] == "state" and m["round"] and m["round"]["phase"] == "deciding" and m["seat"]:
                own = next(s for s in m["round"]["seats"] if s["seat"] == m["seat"])
                others = [s for s in m["round"]["seats"] if s["seat"] != m["seat"] and s["cards"]]
                if any(own["cards"]) and any(c is None for s in others for c in s["cards"]):
                    seen_own_hidden += 1  # it sees its own cards while another's are hidden from it
    assert seen_own_hidden > 10


def test_reconnect_mid_round_gets_the_seat_and_the_current_state_back(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    table = h.table("one-eyed-flush")
    tok_a, _ = h.player("ria")
    tok_b, _ = h.player("sam")
    a, b = h.ws(tok_a, table), h.ws(tok_b, table)
    a.request(type="sit", seat=1)
    b.request(type="sit", seat=2)
    a.request(type="wager", wagers={"main": 500})
    b.request(type="wager", wagers={"main": 500})
    st = b.until(lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding")
    mine = st["round"]["seats"][1]["cards"]
    assert all(mine) and not any(st["round"]["seats"][0]["cards"])
    b.ws.close()
    again = h.ws(tok_b, table)
    welcome, state = again.log[0], again.log[1]
    assert welcome["seat"] == 2
    assert state["round"]["seats"][1]["cards"] == mine and state["round_id"] == st["round_id"]
    assert state["events"] and state["seq"] == len(state["events"])  # the round so far, as seat 2 sees it
    assert not any(state["round"]["seats"][0]["cards"])
    a.request(type="act", action="stand")
    again.until(lambda m: m["type"] == "state" and m["round"]["to_act"] == 2)
    assert again.request(type="act", action="stand")["type"] == "ack"
    assert again.until(lambda m: m["type"] == "round_result")["round_id"] == st["round_id"]


# R-OEF-6: seat 1 (5d Jd As) discards the 5d and draws the Qc: No Pair (21) after a draw, a bust, while
# seat 2 has still to decide. The deal: seat 1, seat 2, dealer, three times; then the draw.
BUST_DECK = ["5d", "Jc", "3d", "Jd", "Ks", "Kd", "As", "4d", "7h", "Qc"]


def test_a_bust_tells_the_other_seats_nothing_of_the_hand(make_server: Callable[..., Harness]) -> None:
    """Issue 11 defect 9: the bust is public (the wager is lost at once), the busted hand is not: its
    description reaches only its own seat until the dealer shows the cards."""
    deck = rigged_deck(BUST_DECK)
    h = make_server(deck_factory=lambda table_id: deck)
    table = h.table("one-eyed-flush")
    tok_a, _ = h.player("bust-a")
    tok_b, _ = h.player("bust-b")
    tok_o, _ = h.player("bust-o")
    a, b, onlooker = h.ws(tok_a, table), h.ws(tok_b, table), h.ws(tok_o, table)
    a.request(type="sit", seat=1)
    b.request(type="sit", seat=2)
    a.request(type="wager", wagers={"main": 500})
    b.request(type="wager", wagers={"main": 500})
    a.until(
        lambda m: m["type"] == "state" and m["round"]["phase"] == "deciding" and m["round"]["to_act"] == 1
    )
    assert a.request(type="act", action="discard 0")["type"] == "ack"
    for ws in (a, b, onlooker):
        st = ws.until(lambda m: m["type"] == "state" and m["round"] is not None and m["round"]["to_act"] == 2)
        assert st["round"]["seats"][0]["out"] is True  # the bust itself is public
    mid_b = json.dumps([m for m in b.log if m["type"] != "round_result"])
    mid_o = json.dumps(onlooker.log)
    # seat 2's own hand (also a No Pair) is described to it (view "hands", shared contract 2); seat 1's is not
    assert "No Pair (21)" not in mid_b and "(21)" not in mid_b
    assert not [m for m in b.log if m["type"] == "state" and "1" in ((m["round"] or {}).get("hands") or {})]
    assert "No Pair" not in mid_o and "(21)" not in mid_o
    busts = [e for m in b.log if m["type"] == "state" for e in m["events"] if e["type"] == "settled"]
    assert [(e["seat"], e["outcome"], e["detail"]) for e in busts] == [(1, "bust", "")]
    # the busted seat itself sees its own hand described
    own = [e for m in a.log if m["type"] == "state" for e in m["events"] if e["type"] == "settled"]
    assert [(e["seat"], e["outcome"], e["detail"]) for e in own] == [(1, "bust", "No Pair (21)")]
    assert b.request(type="act", action="stand")["type"] == "ack"
    result = b.until(lambda m: m["type"] == "round_result")
    recall = h.client.get(f"/rounds/{result['round_id']}").json()
    assert any(e["type"] == "settled" and e["detail"] == "No Pair (21)" for e in recall["events"])
    histories: dict[int, list[dict[str, Any]]] = {}
    for log in (a.log, b.log, onlooker.log):
        check_log(h, log, histories)

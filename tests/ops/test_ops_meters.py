"""Linked meters across processes (issue 16): two ``tablegames serve`` processes on one PostgreSQL database; a
contribution settled at a table on process A shows on a socket connected to a table of the same game on process
B within 1 s (LISTEN/NOTIFY, server/notify.py and server/meters.py), at the database's value."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from ops_support import Player, create_table

from tablegames.loadtest.cluster import Cluster
from tablegames.rules import registry

pytestmark = pytest.mark.timeout(120)

LINKED = next(d for d in registry.DEFINITIONS if d.meters(d.make_rules()))  # a game with a linked meter


def _wagers() -> dict[str, int]:
    rules = LINKED.make_rules()
    wagers = {LINKED.main_wager.name: 100}
    for w in LINKED.side_bets:  # every fixed side bet (the meter's own among them), none that needs an option
        fixed = w.fixed_cents(rules)
        if fixed is not None and w.option is None:
            wagers[w.name] = fixed
    return wagers


def test_a_contribution_on_one_process_shows_on_another_within_one_second(
    make_cluster: Callable[..., Cluster],
) -> None:
    cluster = make_cluster(2, betting_seconds=5.0, turn_seconds=0.5)
    a, b = cluster.nodes
    t1 = create_table(a.url, LINKED.key)
    t2 = create_table(a.url, LINKED.key)
    ann = Player(a.url, "ann")
    bob = Player(b.url, "bob")
    ann.join(t1, a.url)  # ann plays at table 1 on process A
    first = bob.join(t2, b.url)  # bob watches table 2 of the same game on process B
    before = dict(first["meters"])
    assert before, "the game has linked meters"
    jackpots_before = {
        m["meter"]: m["value"] for m in httpx.get(f"{b.url}/jackpots").json() if m["game"] == LINKED.key
    }

    ann.send(type="wager", request_id="w1", wagers=_wagers())
    ann.until(lambda m: m["type"] == "ack" and m.get("request_id") == "w1")
    result = ann.until(lambda m: m["type"] == "round_result", timeout=30)  # turns time out into the defaults
    settled_at = time.monotonic()
    after = {m["meter"]: m["value"] for m in httpx.get(f"{a.url}/jackpots").json() if m["game"] == LINKED.key}
    assert after != jackpots_before, "the round moved a meter"
    assert result["meters"] == {k: after[k] for k in result["meters"]}

    seen: dict[str, Any] = bob.until(lambda m: m["type"] == "state" and m["meters"] != before, timeout=5)
    took = time.monotonic() - settled_at
    assert seen["meters"] == {k: after[k] for k in seen["meters"]}  # the database's values, on process B
    assert took < 1.0, f"process B showed the new meters {took:.2f} s after the settlement on A"
    ann.close()
    bob.close()


def _play_out(p: Player, request_id: str) -> dict[str, Any]:
    """Wager, then take the first legal action on each of the player's turns; the round's result."""
    p.send(type="wager", request_id=request_id, wagers=_wagers())
    while True:
        m = p.until(lambda m: m["type"] in ("state", "round_result"), timeout=30)
        if m["type"] == "round_result":
            return m
        rnd = m.get("round")
        if rnd and rnd["phase"] == "deciding" and rnd["to_act"] == m["seat"] and rnd["legal_actions"]:
            p.send(type="act", request_id=f"{request_id}-{len(p.messages)}", action=rnd["legal_actions"][0],
                   decision=m["decision"])  # fmt: skip


def test_a_table_in_the_middle_of_a_round_follows_the_other_process_too(
    make_cluster: Callable[..., Cluster],
) -> None:
    """Bob's round on process B waits for his decision while Ann's round on A settles: B's state shows the
    meter as the database has it (plus Bob's own round's contribution) within 1 s, not at his next step."""
    cluster = make_cluster(2, betting_seconds=5.0, turn_seconds=30.0)
    a, b = cluster.nodes
    t1 = create_table(a.url, LINKED.key)
    t2 = create_table(a.url, LINKED.key)
    ann = Player(a.url, "ann")
    bob = Player(b.url, "bob")
    ann.join(t1, a.url)
    bob.join(t2, b.url)
    bob.send(type="wager", request_id="bw", wagers=_wagers())
    waiting = bob.until(lambda m: m["type"] == "state" and (m.get("round") or {}).get("phase") == "deciding")
    shown = dict(waiting["meters"])  # the database's value plus Bob's own contribution
    db = {m["meter"]: m["value"] for m in httpx.get(f"{b.url}/jackpots").json() if m["game"] == LINKED.key}
    own = {k: shown[k] - db[k] for k in shown}
    _play_out(ann, "aw")
    settled_at = time.monotonic()
    after = {m["meter"]: m["value"] for m in httpx.get(f"{a.url}/jackpots").json() if m["game"] == LINKED.key}
    assert after != db
    seen = bob.until(lambda m: m["type"] == "state" and m["meters"] != shown, timeout=5)
    took = time.monotonic() - settled_at
    assert seen["meters"] == {k: after[k] + own[k] for k in shown}
    assert (seen.get("round") or {}).get("phase") == "deciding"  # still Bob's turn: no step of his moved it
    assert took < 1.0, f"process B showed the new meters {took:.2f} s after the settlement on A"
    ann.close()
    bob.close()

"""Simultaneous jackpot hits at tables owned by two different processes of a cluster (issue 16): the linked
meter is paid once and reset once, in one order, by construction (the settlement locks the meter's row and
settles the round at its value, issue 11: ``settle.py``, ``engine/replay.py`` ``at_meters``). Each node deals
the One Eyed Flush J♥ J♠ K♦ (R-OEF-9: 100% of the meter) and holds every settlement paying a hit for half a
second before its commit, so the two hits overlap."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
from cluster_support import Cluster, Player, create_table, ledger_ok, money
from sqlalchemy.orm import Session

from tablegames.server import ledger
from tablegames.server.db import HOUSE, Account

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

OEF = "one-eyed-flush"
BUY_IN = 1_000_000
DECK = "Jh,2c,Js,3c,Kd,4c"  # one seat: seat, dealer, seat, dealer, seat, dealer
RESET, CONTRIBUTION = 500_000, 10  # the meter's reset; 1/10 of the $1 jackpot wager
SCRIPT = str(Path(__file__).with_name("stacked_node.py"))


def top_up(cluster: Cluster, cents: int) -> None:
    """The house adds ``cents`` to the meter (each process drops the meter's balance it keeps on the notice of
    revision 0010's trigger: server/caches.py)."""
    with Session(cluster.engine) as s, s.begin():
        meter = s.query(Account.id).filter(Account.name == f"jackpot:{OEF}:{OEF}").scalar()
        house = s.query(Account.id).filter(Account.kind == HOUSE).scalar()
        ledger.transfer(s, "seed", house, meter, cents, memo="test top-up")


def test_simultaneous_hits_at_tables_of_two_processes_pay_the_meter_once_and_reset_once(
    start_cluster: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLUSTER_DECK", DECK)
    cluster: Cluster = start_cluster(3, script=SCRIPT)  # type: ignore[operator]
    entry = cluster.nodes[0]
    tables = [create_table(entry.base, OEF, f"OEF {i}", seats=1) for i in range(3)]
    owned = cluster.wait_owned(tables)
    assert len(set(owned.values())) == 3  # one table per process
    top_up(cluster, 400)
    before = money(cluster)
    # two tables at two processes, neither of them the entry the players come through
    chosen = [t for t in tables if owned[t] != entry.name]
    players = [Player(entry.base, f"p{i}", BUY_IN) for i in range(2)]
    for p, t in zip(players, chosen, strict=True):
        p.connect(entry.base, t)
        assert p.redirects == [cluster.node(owned[t]).base]
        assert p.request(type="sit")["type"] == "ack"
        assert p.request(type="wager", wagers={"main": 500, "jackpot": 100})["type"] == "ack"
        p.until(lambda m: m["type"] == "state" and bool(m["round"]) and m["round"]["phase"] == "deciding")
    barrier = threading.Barrier(2)
    results: dict[int, dict[str, object]] = {}
    errors: list[BaseException] = []

    def go(i: int, p: Player) -> None:
        try:
            barrier.wait(timeout=30)
            assert p.request(type="act", action="stand")["type"] == "ack"
            results[i] = p.until(lambda m: m["type"] == "round_result")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(i, p)) for i, p in enumerate(players)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    hits = [results[i]["jackpot_hits"] for i in range(2)]
    assert all(isinstance(h, list) and len(h) == 1 for h in hits), hits
    amounts = sorted((h[0]["amount"] for h in hits), reverse=True)  # type: ignore[index]
    assert amounts == [RESET + 400 + CONTRIBUTION, RESET + CONTRIBUTION]  # the meter once, then the reset
    assert sorted(h[0]["hit_seq"] for h in hits) == [1, 2]  # type: ignore[index]
    for n in cluster.nodes:  # every process reads the meter at its reset
        value = {m["meter"]: m["value"] for m in httpx.get(f"{n.base}/jackpots").json()}[OEF]
        assert value == RESET
    history = httpx.get(f"{cluster.nodes[1].base}/jackpots/history", params={"game": OEF}).json()
    paid = sorted((e for e in history if e["kind"] == "hit"), key=lambda e: e["hit_seq"])
    assert [(e["hit_seq"], -e["amount"]) for e in paid] == [(1, amounts[0]), (2, amounts[1])]
    for i, p in enumerate(players):
        me = httpx.get(f"{cluster.nodes[2].base}/me", headers=p.headers).json()
        assert me["balance"] == BUY_IN + results[i]["results"][0]["net"]  # type: ignore[index]
        p.close()
    after = money(cluster)
    assert after["jackpot"] - before["jackpot"] == -400  # the meter is back at its reset, once
    assert after["in_play"] == 0 and sum(after.values()) == 0
    ledger_ok(cluster)

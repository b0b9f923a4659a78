"""Issue 11, defect 3 and its class, event-loop stalls: with 400 stored rounds, sixty clients hammering the history
endpoints of a real ``tablegames serve`` (each from a loopback address of its own, as sixty anonymous clients
would) must not hold up the table's WebSocket: every ping is answered within 200 ms. (Before, the handlers ran
their database work on the event loop: a ping waited 3.6 s.) On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hard_serve import tablegames_serve
from test_hard_support import postgres_url
from websockets.sync.client import connect as ws_connect

from server_harness import ADMIN
from tablegames.server.app import create_app
from tablegames.server.db import SETTLED, RoundPlayer, RoundRow, make_engine

pytestmark = pytest.mark.timeout(300)

ROUNDS = 400
CLIENTS = 60
PING_BOUND = 0.200

HAMMER = r"""
import asyncio, collections, json, sys, time
import httpx

port, seconds, clients, admin, table, top = sys.argv[1:7]
paths = ["/history?last=100", "/jackpots/history?last=200", f"/tables/{table}/history?last=100",
         "/history?last=100&player=p1"]
statuses = collections.Counter()


async def client(c, i):
    n = i
    while time.monotonic() < end:
        path = paths[n % len(paths)] if n % 5 else f"/rounds/{int(top) - n % 300}"
        r = await c.get(path, headers={"X-Admin-Token": admin})
        statuses[r.status_code] += 1
        n += 1


async def main():
    global end
    # every client is made before the clock starts: making sixty (each loads its TLS context) takes seconds on a
    # loaded box, and clients made after the end would send nothing
    cs = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60,
                            transport=httpx.AsyncHTTPTransport(local_address=f"127.0.{10 + i // 200}.{i % 200 + 1}"))
          for i in range(int(clients))]
    end = time.monotonic() + float(seconds)
    print("go", flush=True)
    try:
        await asyncio.wait_for(asyncio.gather(*(client(c, i) for i, c in enumerate(cs))), float(seconds) + 60)
    finally:
        for c in cs:
            await c.aclose()


end = 0.0
asyncio.run(main())
print(json.dumps(dict(statuses)), flush=True)
"""


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'stall.sqlite3'}"
        return
    with postgres_url() as url:
        if url is None:
            pytest.skip("TABLEGAMES_TEST_POSTGRES_URL is not set")
        yield url


def _seed(url: str) -> tuple[int, str, int]:
    """A table, three players and ``ROUNDS`` settled rounds of realistic size; (table id, a token, top id)."""
    with TestClient(create_app(url, admin_token=ADMIN)) as c:
        table = c.post(
            "/tables",
            json={"game": "final-count", "name": "busy", "seats": 3},
            headers={"X-Admin-Token": ADMIN},
        ).json()["table_id"]
        players = [c.post("/players", json={"name": f"p{i}"}).json() for i in range(3)]
    engine = make_engine(url)
    events: list[dict[str, Any]] = [
        {"type": "card_dealt", "to": f"seat {k % 3 + 1}", "position": k, "card": "Th", "visible_to": "all"}
        for k in range(60)
    ]
    with engine.begin() as conn:
        for n in range(1, ROUNDS + 1):
            rid = conn.execute(
                sa.insert(RoundRow).returning(RoundRow.id),
                {
                    "table_id": table,
                    "round_no": n,
                    "game": "final-count",
                    "rules": {"ties": "push"},
                    "status": SETTLED,
                    "deck": list(range(52)),
                    "seat_players": {str(s + 1): p["player_id"] for s, p in enumerate(players)},
                    "events": events,
                    "result": {"house_net": 0},
                    "recovered": False,
                    "started_at": 1.0e9 + n,
                    "settled_at": 1.0e9 + n + 1,
                },
            ).scalar_one()
            conn.execute(
                sa.insert(RoundPlayer),
                [
                    {
                        "round_id": rid,
                        "seat": s + 1,
                        "player_id": p["player_id"],
                        "staked": 500,
                        "returned": 500,
                        "net": 0,
                        "balance_before": 10_000,
                        "balance_after": 10_000,
                    }
                    for s, p in enumerate(players)
                ],
            )
        top = int(conn.execute(sa.select(sa.func.max(RoundRow.id))).scalar_one())
    engine.dispose()
    return int(table), str(players[0]["token"]), top


def test_a_ping_is_answered_within_200_ms_while_rest_is_hammered(database: str, tmp_path: Path) -> None:
    table, token, top = _seed(database)
    with (
        tablegames_serve(tmp_path, database=database) as port,
        ws_connect(f"ws://127.0.0.1:{port}/ws/tables/{table}?token={token}", open_timeout=30) as ws,
    ):
        assert json.loads(ws.recv(timeout=30))["type"] == "welcome"

        def ping(rid: str) -> float:
            t = time.perf_counter()
            ws.send(json.dumps({"type": "ping", "request_id": rid}))
            while True:
                m = json.loads(ws.recv(timeout=30))
                if m["type"] == "pong" and m.get("request_id") == rid:
                    return time.perf_counter() - t

        assert ping("warm-up") < 5
        hammer = subprocess.Popen(
            [sys.executable, "-c", HAMMER, str(port), "6", str(CLIENTS), ADMIN, str(table), str(top)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert hammer.stdout is not None and hammer.stdout.readline().strip() == "go"
            time.sleep(1.0)  # every client is busy by now
            waits = []
            for k in range(25):
                waits.append(ping(f"p{k}"))
                time.sleep(0.1)
            out, _ = hammer.communicate(timeout=120)
        finally:
            if hammer.poll() is None:
                hammer.kill()
        statuses = {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}
    print(f"ping max {max(waits) * 1000:.1f} ms, median {sorted(waits)[12] * 1000:.1f} ms; REST {statuses}")
    assert hammer.returncode == 0
    # Every ping but one within the bound (a single scheduling hiccup of a loaded 2-core box is not a stall; on a
    # loop blocked by REST work most pings wait seconds), and none near a second.
    assert sorted(waits)[-2] < PING_BOUND, f"ping waits (s): {sorted(waits)[-5:]}; REST answers {statuses}"
    assert max(waits) < 1.0, f"ping waits (s): {sorted(waits)[-5:]}; REST answers {statuses}"
    assert statuses.get(200, 0) >= 40, statuses  # it really hammered (56+ answers on a loaded box)
    assert set(statuses) <= {200}, statuses

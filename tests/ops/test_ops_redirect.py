"""The load test's players follow the cluster's redirect (issue 16's contract): a WebSocket to a process that
does not own the table gets ``{"type": "redirect", "url": <owner>}`` and close code 4307, and the player
reconnects to the owner (same path), gets its seat and plays on; the books stay right."""

from __future__ import annotations

import asyncio
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from ops_support import ADMIN

from tablegames.loadtest.audit import _final_balances
from tablegames.loadtest.client import Client
from tablegames.loadtest.cluster import Cluster
from tablegames.loadtest.config import LoadConfig, Stats
from tablegames.loadtest.process import _free_port
from tablegames.loadtest.run import _setup

pytestmark = pytest.mark.timeout(90)


async def _scenario(owner: str, database: str) -> tuple[Stats, list[Any], dict[int, int], list[str]]:
    from websockets.asyncio.server import ServerConnection, serve

    cfg = LoadConfig(clients=2, tables=1, duration=3.0, servers=1, database=database, ramp=0.2)
    cfg.validate()
    assert cfg.reconnect
    players = await _setup(owner, ADMIN, cfg)
    asked: list[str] = []

    async def not_the_owner(ws: ServerConnection) -> None:  # what a non-owner does (the contract)
        assert ws.request is not None
        asked.append(ws.request.path)
        await ws.send(json.dumps({"type": "redirect", "url": owner, "table_id": players[0].table_id}))
        await ws.close(code=4307, reason="not the owner")

    port = _free_port()
    async with serve(not_the_owner, "127.0.0.1", port):
        stats, start, stop_at = Stats(), asyncio.Event(), [math.inf]
        players[0].base = f"http://127.0.0.1:{port}"
        clients = [
            Client(
                p, "ws" + p.base[4:] + f"/ws/tables/{p.table_id}?token={p.token}", stats, cfg, start, stop_at
            )
            for p in players
        ]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        deadline = time.monotonic() + 30
        while not all(c.p.seat is not None for c in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        stop_at[0] = time.monotonic() + cfg.duration
        start.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    balances = await _final_balances(owner, players)
    return stats, players, balances, asked


def test_players_follow_a_redirect_to_the_owner(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    with Cluster(database, 1, ADMIN, tmp_path / "logs", betting_seconds=2.0, turn_seconds=5.0) as cluster:
        owner = cluster.nodes[0].url
        stats, players, balances, asked = asyncio.run(_scenario(owner, database))
    first = players[0]
    assert asked == [f"/ws/tables/{first.table_id}?token={first.token}"]  # the same path, on the non-owner
    assert stats.redirects == 1 and stats.reconnects == 0 and stats.resumed == 1
    assert first.base == owner  # the player ended on the owner
    assert stats.error_count() == 0, (stats.errors, stats.failures)
    assert first.rounds_played >= 1  # and played there
    for p in players:
        assert balances[p.index] == p.expected_balance  # buy-in + the nets of its rounds

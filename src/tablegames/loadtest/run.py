"""The load test's orchestration: set up over REST, play for the duration, finish the open rounds, check."""

from __future__ import annotations

import asyncio
import math
import os
import secrets
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from tablegames.loadtest.audit import _final_balances, check_money
from tablegames.loadtest.client import Client, Player
from tablegames.loadtest.config import BET, LoadConfig, LoadReport, LoadTestError, MoneyCheck, Stats, T
from tablegames.loadtest.process import ServerProcess, _cpu


async def _setup(base: str, admin: str, cfg: LoadConfig) -> list[Player]:
    """Create the tables and players, buy them in (REST)."""
    import httpx

    run_id = secrets.token_hex(3)
    per_table = math.ceil(cfg.clients / cfg.tables)
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=base, timeout=60.0, limits=limits) as http:
        tables: list[tuple[int, str]] = []
        for t in range(cfg.tables):
            game = cfg.games[t % len(cfg.games)]
            r = await http.post(
                "/tables",
                json={
                    "game": game,
                    "name": f"load {run_id} {t + 1}",
                    "seats": per_table,
                    "min_bet": BET,
                    "max_bet": 100 * BET,
                },
                headers={"X-Admin-Token": admin},
            )
            if r.status_code != 201:
                raise LoadTestError(f"creating a table failed: {r.status_code} {r.text}")
            tables.append((int(r.json()["table_id"]), game))
        sem = asyncio.Semaphore(20)

        async def make(i: int) -> Player:
            table_id, game = tables[i % cfg.tables]
            async with sem:
                r = await http.post("/players", json={"name": f"lt{run_id}-{i}"})
                if r.status_code != 201:
                    raise LoadTestError(f"registering a player failed: {r.status_code} {r.text}")
                body = r.json()
                p = Player(i, body["name"], body["token"], table_id, game, int(body["player_id"]))
                r = await http.post(
                    "/wallet/buy-in",
                    json={"amount": cfg.buy_in, "request_id": f"load-{run_id}"},
                    headers={"Authorization": f"Bearer {p.token}"},
                )
                if r.status_code != 200:
                    raise LoadTestError(f"buy-in failed: {r.status_code} {r.text}")
                p.expected_balance = int(r.json()["balance"])
                return p

        return list(await asyncio.gather(*(make(i) for i in range(cfg.clients))))


async def play(
    base: str, admin: str, cfg: LoadConfig, server_pid: int | None = None
) -> tuple[Stats, list[Player], dict[int, int], float]:
    """Set up, play for ``cfg.duration`` seconds, finish the open rounds; (stats, players, balances, elapsed)."""
    players = await _setup(base, admin, cfg)
    stats = Stats()
    start = asyncio.Event()
    stop_at = [math.inf]
    ws_base = "ws" + base[4:]
    clients = [
        Client(p, f"{ws_base}/ws/tables/{p.table_id}?token={p.token}", stats, cfg, start, stop_at)
        for p in players
    ]
    tasks = [asyncio.create_task(c.run()) for c in clients]
    # Everyone connects and sits before the clock starts.
    deadline = time.monotonic() + cfg.connect_timeout
    while time.monotonic() < deadline and not all(c.p.seat is not None for c in clients):
        failed = [t for t in tasks if t.done()]
        if failed:
            break
        await asyncio.sleep(0.05)
    for t in tasks:
        if t.done() and t.exception() is not None:
            raise LoadTestError(f"a client failed while connecting: {t.exception()!r}")
    if not all(c.p.seat is not None for c in clients):
        raise LoadTestError("not every client could take a seat in time")
    t0 = time.monotonic()
    cpu0 = (_cpu(server_pid) if server_pid else None, _cpu(None))
    stop_at[0] = t0 + cfg.duration
    start.set()
    sampled = False
    hard = stop_at[0] + cfg.grace + cfg.betting_seconds + cfg.turn_seconds
    pending = set(tasks)
    while pending and time.monotonic() < hard:
        done, pending = await asyncio.wait(pending, timeout=max(0.01, min(0.25, hard - time.monotonic())))
        if not sampled and time.monotonic() >= stop_at[0]:
            sampled = True
            import psutil

            cpu1 = (_cpu(server_pid) if server_pid else None, _cpu(None))
            if cpu0[0] is not None and cpu1[0] is not None:
                stats.server_cpu = round(cpu1[0] - cpu0[0], 2)
            if cpu0[1] is not None and cpu1[1] is not None:
                stats.client_cpu = round(cpu1[1] - cpu0[1], 2)
            stats.load_average = tuple(round(x, 2) for x in psutil.getloadavg())
        for t in done:
            exc = t.exception()
            if exc is not None:
                stats.disconnects += 1
                stats.failures[f"{type(exc).__name__}: {exc}"[:200]] += 1
    for t in pending:
        stats.timeouts += 1
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    elapsed = time.monotonic() - t0
    await asyncio.sleep(0.2)
    balances = await _final_balances(base, players)
    return stats, players, balances, elapsed


def run_load_test(cfg: LoadConfig, log_dir: Path | None = None) -> LoadReport:
    """Run one bounded load test (see the module doc)."""
    cfg.validate()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    server: ServerProcess | None = None
    database = cfg.database
    try:
        if cfg.url is None:
            tmp = tempfile.TemporaryDirectory(prefix="tablegames-load-")
            if database is None:
                database = str(Path(tmp.name) / "load.sqlite")
            admin = cfg.admin_token or secrets.token_urlsafe(18)
            server = ServerProcess(
                database,
                admin,
                cfg.betting_seconds,
                cfg.turn_seconds,
                Path(log_dir or tmp.name) / "server.log",
            )
            server.wait_ready()
            base = server.url
        else:
            base = cfg.url
            admin = cfg.admin_token or os.environ.get("TABLEGAMES_ADMIN_TOKEN", "")
            if not admin:
                raise LoadTestError("--url needs the admin token (--admin-token or TABLEGAMES_ADMIN_TOKEN)")
        pid = server.proc.pid if server is not None else None
        stats, players, balances, elapsed = _run_async(play(base, admin, cfg, pid))
        if server is not None:
            server.stop()
        money = check_money(database) if database is not None else MoneyCheck()
        for p in players:
            got = balances.get(p.index)
            if got != p.expected_balance:
                money.player_mismatches.append(
                    f"{p.name}: balance {got} != buy-in + nets of its rounds {p.expected_balance}"
                )
        return LoadReport(cfg, _describe_db(database), elapsed, stats, money, base)
    finally:
        if server is not None:
            server.stop()
        if tmp is not None:
            tmp.cleanup()


def _run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run the clients on uvloop when it is installed (less of the machine for the measuring side)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def _describe_db(url: str | None) -> str:
    if url is None:
        return "(server's own; not checked)"
    if url.startswith("postgres"):
        return "postgresql"
    return "sqlite"

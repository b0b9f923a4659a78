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

from tablegames.loadtest.audit import _final_balances, check_money, wait_rounds_closed
from tablegames.loadtest.client import Client, Player
from tablegames.loadtest.cluster import Cluster
from tablegames.loadtest.config import BET, LoadConfig, LoadReport, LoadTestError, MoneyCheck, Stats, T
from tablegames.loadtest.process import ServerProcess, _cpu


def _homes(cfg: LoadConfig, base: str, cluster: Cluster | None) -> list[tuple[str, str]]:
    """Table number t -> (where its players' REST goes, where the table is created and its sockets go): with
    several processes table t is played on process t mod N (before leases exist that keeps each table on one
    process; with leases that process owns it, as its creator and its first socket's, and a socket that lands
    anywhere else is redirected). REST goes through the proxy when there is one (any process answers it), else
    to the table's process."""
    if cluster is None:
        return [(base, base)] * cfg.tables
    nodes = cluster.nodes
    out = []
    for t in range(cfg.tables):
        node = nodes[t % len(nodes)]
        out.append((cluster.proxy_url or node.url, node.advertise))
    return out


async def _post(http: Any, url: str, **kw: Any) -> Any:
    """POST, waiting out a ``429`` (registration is limited per client address: 100 at once, then 2/s)."""
    for _ in range(120):
        r = await http.post(url, **kw)
        if r.status_code != 429:
            return r
        await asyncio.sleep(min(5.0, float(r.headers.get("Retry-After", "1"))))
    return r


async def _setup(base: str, admin: str, cfg: LoadConfig, cluster: Cluster | None = None) -> list[Player]:
    """Create the tables and players, buy them in (REST)."""
    import httpx

    homes = _homes(cfg, base, cluster)

    run_id = secrets.token_hex(3)
    per_table = math.ceil(cfg.clients / cfg.tables)
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=base, timeout=60.0, limits=limits) as http:
        tables: list[tuple[int, str]] = []
        for t in range(cfg.tables):
            game = cfg.games[t % len(cfg.games)]
            r = await http.post(
                f"{homes[t][1]}/tables",  # on the process that is to play it (whether a lease goes to its
                # creator or to its first socket, that is the one)
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
            rest, home = homes[i % cfg.tables]
            async with sem:
                r = await _post(http, f"{rest}/players", json={"name": f"lt{run_id}-{i}"})
                if r.status_code != 201:
                    raise LoadTestError(f"registering a player failed: {r.status_code} {r.text}")
                body = r.json()
                p = Player(i, body["name"], body["token"], table_id, game, int(body["player_id"]), base=home)
                r = await _post(
                    http,
                    f"{rest}/wallet/buy-in",
                    json={"amount": cfg.buy_in, "request_id": f"load-{run_id}"},
                    headers={"Authorization": f"Bearer {p.token}"},
                )
                if r.status_code != 200:
                    raise LoadTestError(f"buy-in failed: {r.status_code} {r.text}")
                p.expected_balance = int(r.json()["balance"])
                return p

        return list(await asyncio.gather(*(make(i) for i in range(cfg.clients))))


async def play(
    base: str, admin: str, cfg: LoadConfig, server_pid: int | None = None, cluster: Cluster | None = None
) -> tuple[Stats, list[Player], dict[int, int], float]:
    """Set up, play for ``cfg.duration`` seconds, finish the open rounds; (stats, players, balances, elapsed).
    With ``cluster``: the tables spread over its processes, one killed at ``cfg.kill_one_at``."""
    players = await _setup(base, admin, cfg, cluster)
    stats = Stats()
    start = asyncio.Event()
    stop_at = [math.inf]
    clients = [
        Client(
            p,
            "ws" + (p.base or base)[4:] + f"/ws/tables/{p.table_id}?token={p.token}",
            stats,
            cfg,
            start,
            stop_at,
            fallbacks=_fallbacks(cluster, p.base) or [base],  # (--url: the same server, once it is back)
        )
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
    pids = list(cluster.pids.values()) if cluster is not None else [server_pid] if server_pid else []
    cpu_start = {pid: _cpu(pid) for pid in pids}
    cpu0 = (_sum(cpu_start.values()) if pids else None, _cpu(None))
    stop_at[0] = t0 + cfg.duration
    start.set()
    killer = None
    cpu_killed: dict[int, float | None] = {}
    if cluster is not None and cfg.kill_one_at is not None:
        killer = asyncio.create_task(_kill_one(cluster, cfg, t0, players, stats, cpu_killed))
    soak = None
    if cluster is not None and cfg.chaos:
        from tablegames.loadtest.chaos import Chaos

        chaos = Chaos(cluster, cfg, stats)
        soak = asyncio.create_task(_soak(chaos, t0))
    sampled = False
    hard = stop_at[0] + cfg.grace + cfg.betting_seconds + cfg.turn_seconds
    pending = set(tasks)
    while pending and time.monotonic() < hard:
        done, pending = await asyncio.wait(pending, timeout=max(0.01, min(0.25, hard - time.monotonic())))
        if not sampled and time.monotonic() >= stop_at[0]:
            sampled = True
            import psutil

            cpu_now = {pid: cpu_killed.get(pid, _cpu(pid)) for pid in pids}
            cpu1 = (_sum(cpu_now.values()) if pids else None, _cpu(None))
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
    if killer is not None:
        killer.cancel()
        await asyncio.gather(killer, return_exceptions=True)
    if soak is not None:  # every process runs again before the books are read (a restart waits at most 60 s)
        await asyncio.gather(soak, return_exceptions=True)
    elapsed = time.monotonic() - t0
    await asyncio.sleep(0.2)
    if cluster is not None:
        # a process was killed: its recovered rounds settle on fresh clocks; once they are, a player who missed
        # a round's result (a kill, a fault) finds it in their history
        stats.rounds_left_open = await wait_rounds_closed(
            cluster.database, cfg.grace + cfg.betting_seconds + 4 * cfg.turn_seconds
        )
        sem = asyncio.Semaphore(10)

        async def reconcile(c: Client) -> None:
            async with sem:
                await c.reconcile()

        await asyncio.gather(*(reconcile(c) for c in clients))
    balances = await _final_balances(base, players)
    return stats, players, balances, elapsed


async def _soak(chaos: Any, t0: float) -> None:
    try:
        await chaos.run(t0)
    finally:
        await chaos.heal()


def _sum(values: Any) -> float | None:
    got = [v for v in values if v is not None]
    return sum(got) if got else None


def _fallbacks(cluster: Cluster | None, home: str) -> list[str]:
    """Where a player whose connection dropped tries again: the proxy's round-robin, else every node after its
    own in turn (any process redirects it to the table's owner)."""
    if cluster is None:
        return []
    if cluster.proxy_url is not None:
        return [cluster.proxy_url]
    urls = [n.url for n in cluster.nodes]
    k = urls.index(home) if home in urls else -1
    return urls[k + 1 :] + urls[: k + 1]


async def _kill_one(
    cluster: Cluster,
    cfg: LoadConfig,
    t0: float,
    players: list[Player],
    stats: Stats,
    cpu_killed: dict[int, float | None],
) -> None:
    """SIGKILL, ``cfg.kill_one_at`` seconds into the play, the last process that players are on (its CPU time
    taken just before)."""
    assert cfg.kill_one_at is not None
    await asyncio.sleep(max(0.0, t0 + cfg.kill_one_at - time.monotonic()))
    hosting = [n for n in cluster.nodes if n.alive and any(p.base == n.advertise for p in players)]
    victim = hosting[-1] if hosting else cluster.nodes[-1]
    if victim.proc is not None:
        cpu_killed[victim.proc.pid] = _cpu(victim.proc.pid)
    stats.expected_reconnects = sum(1 for p in players if p.base == victim.advertise)
    await asyncio.to_thread(cluster.kill, victim.name)
    stats.killed, stats.killed_at = victim.name, round(time.monotonic() - t0, 2)


def run_load_test(cfg: LoadConfig, log_dir: Path | None = None) -> LoadReport:
    """Run one bounded load test (see the module doc)."""
    cfg.validate()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    server: ServerProcess | None = None
    database = cfg.database
    cluster: Cluster | None = None
    try:
        if cfg.servers:
            tmp = tempfile.TemporaryDirectory(prefix="tablegames-load-")
            if database is None:
                database = f"sqlite:///{Path(tmp.name) / 'load.sqlite'}"
            admin = cfg.admin_token or secrets.token_urlsafe(18)
            cluster = Cluster(
                database,
                cfg.servers,
                admin,
                Path(log_dir or tmp.name),
                betting_seconds=cfg.betting_seconds,
                turn_seconds=cfg.turn_seconds,
                proxy=cfg.proxy,
            ).start()
            base = cluster.base
        elif cfg.url is None:
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
                cpus=cfg.server_cpus,
            )
            server.wait_ready()
            base = server.url
        else:
            base = cfg.url
            admin = cfg.admin_token or os.environ.get("TABLEGAMES_ADMIN_TOKEN", "")
            if not admin:
                raise LoadTestError("--url needs the admin token (--admin-token or TABLEGAMES_ADMIN_TOKEN)")
        pid = server.proc.pid if server is not None else None
        stats, players, balances, elapsed = _run_async(play(base, admin, cfg, pid, cluster))
        if server is not None:
            server.stop()
        if cluster is not None:
            cluster.stop()
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
        if cluster is not None:
            cluster.stop()
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

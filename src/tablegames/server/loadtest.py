"""Load test of the table server through its public protocol (docs/protocol.md): REST for set-up, one
WebSocket per simulated player for play.

:func:`run_load_test` starts the server itself when no URL is given (``uvicorn`` in a subprocess on
127.0.0.1, a temporary SQLite file or the given database URL), creates the tables with the admin token,
registers the players, buys them in, seats them, and plays real rounds until the duration is over. Every
request that changes something (a wager, a decision) is timed from the moment it is sent to its ``ack``.
Afterwards it checks the money: every account balance equals the sum of its entries, every transaction sums to
zero, the accounts together sum to zero (players + house + jackpot meters + cashier + in-play: money is neither
created nor lost), nothing is left in play, and every player's final balance equals the buy-in plus the nets of
the rounds that player saw settled.

Safety: loopback only (any other host is refused), at most :data:`MAX_CLIENTS` clients, :data:`MAX_TABLES`
tables and :data:`MAX_DURATION` seconds, and it always stops by itself (a hard deadline cancels every client).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import math
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from tablegames.rules import GAMES

T = TypeVar("T")

MAX_CLIENTS = 1000
MAX_TABLES = 200
MAX_DURATION = 600.0
MAX_SEATS = 7
BET = 100
# A player's socket sends at most this many messages a second (bursts of SEND_BURST): under the server's
# documented WebSocket limit (30/s, bursts of 120: server/limits.py), so a fast table never has its requests
# dropped as ``rate_limited``.
SEND_RATE = 25.0
SEND_BURST = 60.0


class LoadTestError(Exception):
    """A refused or failed load test (bad arguments, a server that did not start, ...)."""


def _loopback_host(host: str | None) -> bool:
    if host is None or host == "":
        return False
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_loopback_url(url: str) -> str:
    """The server URL without a trailing slash, if its host is a loopback address; else LoadTestError.

    >>> check_loopback_url("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    >>> check_loopback_url("http://example.com")
    Traceback (most recent call last):
    ...
    tablegames.server.loadtest.LoadTestError: refusing a non-loopback host 'example.com': the load test only runs against this machine
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise LoadTestError(f"the server URL must be http://127.0.0.1:PORT, got {url!r}")
    if not _loopback_host(parts.hostname):
        raise LoadTestError(
            f"refusing a non-loopback host {parts.hostname!r}: the load test only runs against this machine"
        )
    return url.rstrip("/")


def check_loopback_database(url: str) -> str:
    """A database URL is allowed if it is a file (SQLite) or a server on a loopback address / a local socket.

    >>> check_loopback_database("postgresql://bench@127.0.0.1:5432/bench")
    'postgresql://bench@127.0.0.1:5432/bench'
    >>> check_loopback_database("postgresql://u@db.example.com/x")
    Traceback (most recent call last):
    ...
    tablegames.server.loadtest.LoadTestError: refusing database host 'db.example.com': the load test only uses this machine
    """
    if "://" not in url or url.startswith("sqlite"):
        return url
    parts = urlsplit(url)
    host = parts.hostname
    if host is None or host == "" or host.startswith("/"):
        return url  # a local Unix socket
    if not _loopback_host(host):
        raise LoadTestError(f"refusing database host {host!r}: the load test only uses this machine")
    return url


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of ``values`` (None when empty).

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50), percentile([1.0, 2.0], 99), percentile([], 50)
    (3.0, 2.0, None)
    """
    if not values:
        return None
    ordered = sorted(values)
    k = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[k - 1]


@dataclass
class LoadConfig:
    clients: int = 20
    tables: int = 4
    duration: float = 10.0
    url: str | None = None
    database: str | None = None
    games: tuple[str, ...] = tuple(GAMES)
    admin_token: str | None = None
    seed: int = 0
    buy_in: int = 1_000_000
    side_bets: float = 0.3
    betting_seconds: float = 10.0
    turn_seconds: float = 30.0
    grace: float = 30.0
    think: float = 0.0
    ramp: float = 2.0  # players start at random moments over this many seconds (no thundering herd)
    connect_timeout: float = 60.0

    def validate(self) -> None:
        if not 1 <= self.clients <= MAX_CLIENTS:
            raise LoadTestError(f"--clients must be 1..{MAX_CLIENTS}, got {self.clients}")
        if not 1 <= self.tables <= MAX_TABLES:
            raise LoadTestError(f"--tables must be 1..{MAX_TABLES}, got {self.tables}")
        if self.tables > self.clients:
            raise LoadTestError(f"{self.tables} tables need at least as many clients, got {self.clients}")
        if math.ceil(self.clients / self.tables) > MAX_SEATS:
            raise LoadTestError(
                f"{self.clients} clients over {self.tables} tables is more than {MAX_SEATS} seats a table"
            )
        if not 0 < self.duration <= MAX_DURATION:
            raise LoadTestError(f"--duration must be in (0, {MAX_DURATION:g}] seconds, got {self.duration}")
        if not 0 <= self.think <= 60:
            raise LoadTestError(f"--think must be 0..60 seconds, got {self.think}")
        if not self.games or any(g not in GAMES for g in self.games):
            raise LoadTestError(f"games must be among {', '.join(GAMES)}, got {', '.join(self.games)}")
        if self.url is not None:
            self.url = check_loopback_url(self.url)
        if self.database is not None:
            check_loopback_database(self.database)


@dataclass
class Stats:
    """What the clients saw."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"wager": [], "act": []})
    errors: Counter[str] = field(default_factory=Counter)
    rounds: set[tuple[int, int]] = field(default_factory=set)
    rounds_in_window: set[tuple[int, int]] = field(default_factory=set)
    requests: int = 0
    messages: int = 0
    disconnects: int = 0
    server_cpu: float | None = None  # CPU seconds of the server process during the measured window
    client_cpu: float | None = None  # CPU seconds of this (client) process during the window
    load_average: tuple[float, ...] = ()
    failures: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0

    def error_count(self) -> int:
        return sum(self.errors.values()) + self.disconnects + self.timeouts


@dataclass
class MoneyCheck:
    """The ledger after the run (``checked`` False when no database was reachable)."""

    checked: bool = False
    accounts: int = 0
    transactions: int = 0
    mismatched: list[str] = field(default_factory=list)
    unbalanced: list[int] = field(default_factory=list)
    total: int = 0
    wallets: int = 0
    house: int = 0
    cashier: int = 0
    in_play: int = 0
    meters: int = 0
    unsettled_rounds: int = 0
    player_mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        ledger_ok = not self.checked or (
            not self.mismatched
            and not self.unbalanced
            and self.total == 0
            and self.in_play == 0
            and self.unsettled_rounds == 0
        )
        return ledger_ok and not self.player_mismatches


@dataclass
class LoadReport:
    config: LoadConfig
    database: str
    elapsed: float
    stats: Stats
    money: MoneyCheck
    server_url: str

    @property
    def rounds(self) -> int:
        return len(self.stats.rounds_in_window)

    def latency(self, kind: str | None = None) -> dict[str, float | None]:
        values = (
            self.stats.latencies[kind]
            if kind is not None
            else [v for vs in self.stats.latencies.values() for v in vs]
        )
        return {
            "count": float(len(values)),
            "p50_ms": _ms(percentile(values, 50)),
            "p95_ms": _ms(percentile(values, 95)),
            "p99_ms": _ms(percentile(values, 99)),
            "max_ms": _ms(max(values) if values else None),
        }

    @property
    def ok(self) -> bool:
        return self.stats.error_count() == 0 and self.money.ok

    def to_dict(self) -> dict[str, Any]:
        m = self.money
        return {
            "clients": self.config.clients,
            "tables": self.config.tables,
            "duration_s": self.config.duration,
            "think_s": self.config.think,
            "ramp_s": self.config.ramp,
            "games": list(self.config.games),
            "database": self.database,
            "server": self.server_url,
            "elapsed_s": round(self.elapsed, 3),
            "rounds": self.rounds,
            "rounds_per_s": round(self.rounds / self.config.duration, 3),
            "requests": self.stats.requests,
            "messages_received": self.stats.messages,
            "latency": self.latency(),
            "latency_wager": self.latency("wager"),
            "latency_act": self.latency("act"),
            "errors": dict(self.stats.errors),
            "disconnects": self.stats.disconnects,
            "client_failures": dict(self.stats.failures),
            "server_cpu_s": self.stats.server_cpu,
            "client_cpu_s": self.stats.client_cpu,
            "load_average": list(self.stats.load_average),
            "timeouts": self.stats.timeouts,
            "money": {
                "checked": m.checked,
                "ok": m.ok,
                "accounts": m.accounts,
                "transactions": m.transactions,
                "mismatched_balances": m.mismatched,
                "unbalanced_transactions": m.unbalanced,
                "sum_of_all_accounts": m.total,
                "wallets": m.wallets,
                "house": m.house,
                "cashier": m.cashier,
                "in_play": m.in_play,
                "jackpot_meters": m.meters,
                "unsettled_rounds": m.unsettled_rounds,
                "player_mismatches": m.player_mismatches,
            },
            "ok": self.ok,
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


# --- the simulated players --------------------------------------------------------------------------


@dataclass
class Player:
    index: int
    name: str
    token: str
    table_id: int
    game: str
    player_id: int = 0
    seat: int | None = None
    expected_balance: int = 0
    rounds_played: int = 0


def _wagers(game: str, rng: random.Random, side: float) -> tuple[dict[str, int], dict[str, str]]:
    """One round's wagers for ``game`` (the main wager, sometimes the side bets)."""
    if game == "let-it-ride":
        w = {"bets": BET}
        if rng.random() < side:
            w["bonus"] = BET
        if rng.random() < side:
            w["progressive"] = 100
        return w, {}
    if game == "one-eyed-flush":
        w = {"main": BET}
        opts: dict[str, str] = {}
        if rng.random() < side:
            w["jackpot"] = 100
        if rng.random() < side:
            w["flip"] = BET
            opts["flip"] = rng.choice(["ten-value", "one-eyed", *map(str, range(1, 10))])
        return w, opts
    return {"main": BET}, {}


class Client:
    """One player on one WebSocket: wagers every round, decides when it is its turn (a random legal action
    after an optional thinking time), and times every request to its acknowledgement.

    A reader task keeps the latest ``state``; the actor decides only on a state that is newer than the answer
    to its previous request, so it never acts on stale information (a refusal is counted as an error).
    """

    def __init__(
        self,
        player: Player,
        ws_url: str,
        stats: Stats,
        cfg: LoadConfig,
        start: asyncio.Event,
        stop_at: list[float],
    ) -> None:
        self.p = player
        self.ws_url = ws_url
        self.stats = stats
        self.cfg = cfg
        self.start = start
        self.stop_at = stop_at
        self.rng = random.Random(cfg.seed * 1_000_003 + player.index)
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        self.states = 0  # number of state messages received
        self.changed = asyncio.Event()
        self.answers: dict[str, dict[str, Any]] = {}
        self.my_round: int | None = None
        self.results: set[int] = set()
        self.counter = 0
        self._tokens = SEND_BURST
        self._tokens_at = time.monotonic()

    # --- the reader ---------------------------------------------------------------------------------

    async def _reader(self) -> None:
        async for raw in self.ws:
            self.stats.messages += 1
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                self.state = msg
                self.states += 1
            elif kind in ("ack", "error"):
                rid = msg.get("request_id")
                if isinstance(rid, str):
                    self.answers[rid] = {**msg, "_states": self.states, "_at": time.perf_counter()}
                elif kind == "error":
                    self.stats.errors[str(msg.get("code"))] += 1
            elif kind == "round_result":
                self._result(msg)
            elif kind == "welcome":
                self.p.seat = msg.get("seat")
            self.changed.set()

    async def _until(self, test: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``test()`` holds (re-checked after every message); False on timeout."""
        deadline = time.monotonic() + timeout
        while not test():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            if test():
                return True
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return test()
        return True

    # --- requests -----------------------------------------------------------------------------------

    async def _request(self, kind: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Send one request, wait for its answer and for the state that follows it; the answer (or None)."""
        self.counter += 1
        rid = f"{kind[0]}{self.p.index}-{self.counter}"
        self.stats.requests += 1
        sent = await self._send({"type": kind, "request_id": rid, **payload})
        if not await self._until(lambda: rid in self.answers, self.cfg.grace):
            self.stats.errors[f"no_answer_{kind}"] += 1
            return None
        answer = self.answers.pop(rid)
        if answer["type"] == "error":
            self.stats.errors[str(answer.get("code"))] += 1
            await self._fresh_state()
            return None
        if kind in self.stats.latencies:
            self.stats.latencies[kind].append(answer["_at"] - sent)
        if answer.get("duplicate"):
            self.stats.errors["duplicate_ack"] += 1
        # every accepted request is followed by a state push
        if not await self._until(lambda: self.states > answer["_states"], 5.0):
            await self._fresh_state()
        return answer

    async def _send(self, msg: dict[str, Any]) -> float:
        """Send one message, paced to :data:`SEND_RATE` (a token bucket); the time it was sent (latencies are
        measured from then, not from before the pacing)."""
        while True:
            now = time.monotonic()
            self._tokens = min(SEND_BURST, self._tokens + (now - self._tokens_at) * SEND_RATE)
            self._tokens_at = now
            if self._tokens >= 1:
                break
            await asyncio.sleep((1 - self._tokens) / SEND_RATE)
        self._tokens -= 1
        sent = time.perf_counter()
        await self.ws.send(json.dumps(msg))
        return sent

    async def _fresh_state(self) -> None:
        seen = self.states
        await self._send({"type": "state"})
        await self._until(lambda: self.states > seen, self.cfg.grace)

    # --- the player -----------------------------------------------------------------------------------

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        async with connect(self.ws_url, max_size=2**22, open_timeout=self.cfg.connect_timeout) as ws:
            self.ws = ws
            reader = asyncio.create_task(self._reader())
            try:
                await self._play()
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader

    async def _play(self) -> None:
        if not await self._until(lambda: self.state is not None, self.cfg.connect_timeout):
            raise LoadTestError("no state after connecting")
        if self.p.seat is None:
            answer = await self._request("sit", {})
            if answer is None:
                raise LoadTestError("could not take a seat")
            self.p.seat = answer.get("seat")
        await self.start.wait()
        if self.cfg.ramp > 0:
            await asyncio.sleep(self.rng.uniform(0, self.cfg.ramp))
        await self._fresh_state()
        while True:
            step = self._next()
            if step == "done":
                return
            if not isinstance(step, tuple):
                await self._wait_change()
                continue
            if self.cfg.think > 0:
                # a player's thinking time (uniform 0.5-1.5 x the mean), then decide on the latest state
                await asyncio.sleep(self.cfg.think * (0.5 + self.rng.random()))
                step = self._next()
                if not isinstance(step, tuple):
                    continue
            kind, payload = step
            answer = await self._request(kind, payload)
            if answer is not None and kind == "wager":
                self.my_round = answer.get("round_id")

    async def _wait_change(self) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), 1.0)

    def _stopping(self) -> bool:
        return time.monotonic() >= self.stop_at[0]

    def _result(self, msg: dict[str, Any]) -> None:
        self.results.add(int(msg["round_id"]))
        key = (self.p.table_id, int(msg["round_id"]))
        self.stats.rounds.add(key)
        if time.monotonic() <= self.stop_at[0]:
            self.stats.rounds_in_window.add(key)
        for r in msg.get("results", []):
            if r.get("seat") == self.p.seat and r.get("player_id", self.p.player_id) == self.p.player_id:
                self.p.expected_balance += int(r["net"])
                self.p.rounds_played += 1

    def _next(self) -> tuple[str, dict[str, Any]] | str | None:
        """The next request from the latest state: (kind, payload), None (wait) or "done"."""
        state = self.state
        seat = self.p.seat
        if state is None or seat is None:
            return None
        rnd = state.get("round")
        mine = None
        if rnd is not None:
            mine = next((s for s in rnd["seats"] if s["seat"] == seat), None)
        if self.my_round is not None and self.my_round not in self.results:
            # my round is not settled yet: act when it is my turn, else wait
            if (
                rnd is not None
                and state.get("round_id") == self.my_round
                and rnd["phase"] == "deciding"
                and rnd["to_act"] == seat
                and rnd["legal_actions"]
            ):
                # the act names the decision it answers (a repeated or stale one changes nothing)
                return "act", {
                    "action": self.rng.choice(rnd["legal_actions"]),
                    "decision": state.get("decision"),
                }
            return None
        if not state.get("betting_open"):
            return None
        if mine is not None and mine["wagers"] and rnd is not None and rnd["phase"] == "betting":
            return None  # already in this round (its ack is on the way)
        if self._stopping():
            # never open a new round now; join one that others opened so it is dealt at once
            opened = rnd is not None and rnd["phase"] == "betting" and any(s["wagers"] for s in rnd["seats"])
            if not opened:
                return "done"
        wagers, options = _wagers(self.p.game, self.rng, self.cfg.side_bets)
        payload: dict[str, Any] = {"wagers": wagers}
        if options:
            payload["options"] = options
        return "wager", payload


# --- orchestration ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``tablegames`` table server in a subprocess on 127.0.0.1 (uvicorn)."""

    def __init__(
        self, database: str, admin_token: str, betting_seconds: float, turn_seconds: float, log_path: Path
    ) -> None:
        self.database = database
        self.admin_token = admin_token
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = {**os.environ, "TABLEGAMES_ADMIN_TOKEN": admin_token}
        self.log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tablegames.server.loadtest import serve_main; serve_main()",
                database,
                str(self.port),
                str(betting_seconds),
                str(turn_seconds),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise LoadTestError(f"the server exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                if httpx.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise LoadTestError(f"the server did not answer within {timeout:g} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        self.log.flush()
        text = self.log_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()


def serve_main() -> None:
    """Subprocess entry: ``DATABASE PORT BETTING_SECONDS TURN_SECONDS`` (admin token from the environment)."""
    from tablegames.server.app import create_app, run
    from tablegames.server.connections import ConnectionLimits
    from tablegames.server.limits import HardeningMiddleware, Limits

    database, port, betting, turn = sys.argv[1:5]
    app: Any = create_app(
        database,
        betting_seconds=float(betting),
        turn_seconds=float(turn),
        admin_token=os.environ["TABLEGAMES_ADMIN_TOKEN"],
        limits=Limits(register_burst=MAX_CLIENTS),  # every client registers from 127.0.0.1 at once
    )
    # every client's sockets come from one address too
    connections = ConnectionLimits(max_connections_per_address=2 * MAX_CLIENTS + 100, max_connections=4096)
    if not any(m.cls is HardeningMiddleware for m in app.user_middleware):
        app = HardeningMiddleware(app)
    # uvicorn re-raises the SIGTERM it caught once it has shut down: end with a normal exit (runs finally blocks)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if os.environ.get("TABLEGAMES_LOADTEST_GCLOG"):  # diagnostics: log every garbage collection over 20 ms
        import gc

        started: list[float] = []

        def gc_log(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                started[:] = [time.perf_counter()]
            elif started and (ms := (time.perf_counter() - started[0]) * 1000) > 20:
                print(f"gc gen {info.get('generation')}: {ms:.0f} ms", flush=True)

        gc.callbacks.append(gc_log)
    profile = os.environ.get("TABLEGAMES_LOADTEST_PROFILE")
    if not profile:
        run(app, host="127.0.0.1", port=int(port), connections=connections)
        return
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        run(app, host="127.0.0.1", port=int(port), connections=connections)
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


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


async def _final_balances(base: str, players: list[Player]) -> dict[int, int]:
    import httpx

    out: dict[int, int] = {}
    async with httpx.AsyncClient(
        base_url=base, timeout=60.0, limits=httpx.Limits(max_connections=20)
    ) as http:
        sem = asyncio.Semaphore(20)

        async def one(p: Player) -> None:
            async with sem:
                r = await http.get("/me", headers={"Authorization": f"Bearer {p.token}"})
                out[p.index] = int(r.json()["balance"])

        await asyncio.gather(*(one(p) for p in players))
    return out


def _cpu(pid: int | None) -> float | None:
    import psutil

    try:
        t = psutil.Process(pid).cpu_times()
    except (psutil.Error, ValueError):
        return None
    return float(t.user + t.system)


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


def check_money(database_url: str) -> MoneyCheck:
    """The ledger invariants on the server's database."""
    from sqlalchemy import func, select

    from tablegames.server import ledger
    from tablegames.server.db import (
        CASHIER,
        HOUSE,
        IN_PLAY,
        JACKPOT,
        SETTLED,
        WALLET,
        Account,
        RoundRow,
        make_engine,
    )

    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            from sqlalchemy.orm import Session

            with Session(bind=conn) as s:
                chk = ledger.check_ledger(s)
                by_kind = dict(
                    s.execute(select(Account.kind, func.sum(Account.balance)).group_by(Account.kind)).all()
                )
                unsettled = int(
                    s.scalar(select(func.count(RoundRow.id)).where(RoundRow.status.not_in([SETTLED, "void"])))
                    or 0
                )
    finally:
        engine.dispose()

    def k(name: str) -> int:
        return int(by_kind.get(name) or 0)

    return MoneyCheck(
        checked=True,
        accounts=chk.accounts,
        transactions=chk.transactions,
        mismatched=list(chk.mismatched),
        unbalanced=list(chk.unbalanced),
        total=chk.total,
        wallets=k(WALLET),
        house=k(HOUSE),
        cashier=k(CASHIER),
        in_play=k(IN_PLAY),
        meters=k(JACKPOT),
        unsettled_rounds=unsettled,
    )


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

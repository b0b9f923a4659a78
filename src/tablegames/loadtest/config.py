"""The load test's bounds and safety checks (loopback only), its configuration and its report."""

from __future__ import annotations

import ipaddress
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from tablegames.rules import GAMES

T = TypeVar("T")

MAX_CLIENTS = 1000
MAX_TABLES = 200
MAX_DURATION = 600.0
MAX_SEATS = 7
MAX_SERVERS = 8  # --servers
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
    tablegames.loadtest.config.LoadTestError: refusing a non-loopback host 'example.com': the load test only runs against this machine
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
    tablegames.loadtest.config.LoadTestError: refusing database host 'db.example.com': the load test only uses this machine
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
    # several processes (issue 16): 0 = one server started as before; N >= 1 = N `tablegames serve` processes
    servers: int = 0
    proxy: bool = False  # HAProxy in front of them (the players' sockets and REST go through it)
    kill_one_at: float | None = None  # SIGKILL one process this many seconds into the play
    # players follow redirects and reconnect after a drop (the default, issue 20: also against a --url server,
    # under faults the load test did not cause); off: a dropped connection is a failed client
    reconnect: bool = True
    reconnect_seconds: float = 30.0  # a player that cannot get back within this time fails
    # the chaos soak (issue 20, loadtest/chaos.py): random SIGKILLs (restarted after a while), SIGSTOP/SIGCONT
    # pauses of the --servers processes, about one every ``chaos_every`` seconds, none in the last
    # ``chaos_quiet`` seconds of the play
    chaos: bool = False
    chaos_every: float = 6.0
    chaos_quiet: float = 8.0
    # the one server the test starts pinned to these CPUs (``serve --cpus``, server/affinity.py); None: not pinned
    server_cpus: frozenset[int] | None = None

    def validate(self) -> None:
        self._validate_servers()
        self._validate()

    def _validate_servers(self) -> None:
        if not 0 <= self.servers <= MAX_SERVERS:
            raise LoadTestError(f"--servers must be 1..{MAX_SERVERS}, got {self.servers}")
        if self.servers and self.url is not None:
            raise LoadTestError("--servers starts its own processes: it cannot be used with --url")
        if self.servers > 1 and not (self.database or "").startswith("postgres"):
            raise LoadTestError(
                "--servers N > 1 needs --database postgresql+psycopg://... (one database for all)"
            )
        if self.proxy and not self.servers:
            raise LoadTestError("--proxy needs --servers N")
        if self.kill_one_at is not None:
            if self.servers < 2:
                raise LoadTestError(
                    "--kill-one-at needs --servers 2 or more (someone must take the tables over)"
                )
            if not 0 < self.kill_one_at < self.duration:
                raise LoadTestError(
                    f"--kill-one-at must be within the play, 0 < s < {self.duration:g}, got {self.kill_one_at}"
                )
        if self.chaos:
            if self.servers < 2:
                raise LoadTestError("--chaos needs --servers 2 or more (someone must take the tables over)")
            if self.kill_one_at is not None:
                raise LoadTestError("--chaos kills processes itself: it cannot be used with --kill-one-at")
            if not 0.5 <= self.chaos_every <= 600:
                raise LoadTestError(f"--chaos-every must be 0.5..600 seconds, got {self.chaos_every:g}")
            if not 0 <= self.chaos_quiet < self.duration:
                raise LoadTestError(
                    f"the chaos's quiet end must be shorter than the play ({self.duration:g} s), got "
                    f"{self.chaos_quiet:g}"
                )
        if self.servers:
            self.reconnect = True

    def _validate(self) -> None:
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
        if self.server_cpus is not None:
            if self.url is not None or self.servers:
                raise LoadTestError(
                    "--server-cpus pins the one server the test starts: not with --url or --servers"
                )
            from tablegames.server.affinity import check_cpus

            try:
                self.server_cpus = check_cpus(self.server_cpus)
            except ValueError as exc:
                raise LoadTestError(f"--server-cpus: {exc}") from None


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
    acked_in_window: int = 0  # wagers and decisions acknowledged during the measured window (CPU per request)
    # several processes: sockets that dropped and were opened again, redirects followed, resumed sessions,
    # rounds counted from a player's history (settled while it was away)
    reconnects: int = 0
    redirects: int = 0
    resumed: int = 0
    results_from_history: int = 0
    expected_reconnects: int = 0  # the players of the killed process's tables
    killed: str | None = None  # the process killed, and when (seconds into the play)
    killed_at: float | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)  # the chaos's faults, in order (chaos.Fault)
    results_reconciled: int = 0  # rounds a player never saw settled, counted from its history at the end
    rounds_left_open: int = 0  # (several processes) rounds not settled when the wait for them ran out

    def error_count(self) -> int:
        missing = max(
            0, self.expected_reconnects - self.reconnects
        )  # a player of a killed node that never came back
        return sum(self.errors.values()) + self.disconnects + self.timeouts + missing


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
    # per round (issue 20): rounds whose stakes were taken more than once (settled twice), players paid twice
    # for one round, and rounds whose money in play did not all come out again
    settled_twice: list[int] = field(default_factory=list)
    paid_twice: list[str] = field(default_factory=list)
    rounds_open_in_play: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        ledger_ok = not self.checked or (
            not self.mismatched
            and not self.unbalanced
            and self.total == 0
            and self.in_play == 0
            and self.unsettled_rounds == 0
            and not self.settled_twice
            and not self.paid_twice
            and not self.rounds_open_in_play
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
        if (
            self.config.chaos
        ):  # faults cause refusals (unavailable, moved, ...): the books and the players decide
            return self.money.ok and self.stats.disconnects == 0 and self.stats.timeouts == 0
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
            "server_cpus": sorted(self.config.server_cpus) if self.config.server_cpus is not None else None,
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
            "requests_in_window": self.stats.acked_in_window,
            "server_cpu_ms_per_request": (
                round(1000 * self.stats.server_cpu / self.stats.acked_in_window, 3)
                if self.stats.server_cpu is not None and self.stats.acked_in_window
                else None
            ),
            "client_cpu_s": self.stats.client_cpu,
            "load_average": list(self.stats.load_average),
            "timeouts": self.stats.timeouts,
            "servers": self.config.servers,
            "proxy": self.config.proxy,
            "cluster": {
                "killed": self.stats.killed,
                "killed_at_s": self.stats.killed_at,
                "reconnects": self.stats.reconnects,
                "expected_reconnects": self.stats.expected_reconnects,
                "redirects": self.stats.redirects,
                "resumed": self.stats.resumed,
                "results_from_history": self.stats.results_from_history,
                "results_reconciled": self.stats.results_reconciled,
                "rounds_left_open": self.stats.rounds_left_open,
                "chaos": self.config.chaos,
                "faults": list(self.stats.faults),
            },
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
                "rounds_settled_twice": m.settled_twice,
                "players_paid_twice": m.paid_twice,
                "rounds_open_in_play": m.rounds_open_in_play,
            },
            "ok": self.ok,
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


# --- the simulated players --------------------------------------------------------------------------

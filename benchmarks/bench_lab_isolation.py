"""The Math lab must not starve the tables (issue 20, defect 2): a table's acknowledgement latency while the lab
is hammered, against the same server idle.

One ``tablegames serve`` process (``loadtest.process.ServerProcess``, SQLite) serves the players of a
``tablegames loadtest --url`` run (``BENCH_ISOLATION_CLIENTS`` players over ``BENCH_ISOLATION_TABLES`` tables,
thinking ``BENCH_ISOLATION_THINK`` s between actions), ``BENCH_ISOLATION_DURATION`` s at a time:

1. idle: only the players;
2. hammered: meanwhile ``BENCH_ISOLATION_HAMMERS`` lab clients, each from an address of its own (127.0.1.x, so
   the per-client quota does not hold them back: every solve slot and queue place stays taken), post distinct
   One Eyed Flush structural rule sets to ``POST /lab/analyze`` back to back (a refused one, ``busy``, is sent
   again after its ``Retry-After``).

The two alternate ``BENCH_ISOLATION_ROUNDS`` times (the machine's other load falls on both alike); it prints
the idle p99, the hammered p99 and their ratio (target: within 2x), ``GET /health``'s p99 (polled
every 50 ms from another address), the lab's answers (solved, cached, refused), and the peak resident memory
of the server process and of its children (the lab's solver processes).

``python -m benchmarks lab_isolation`` or ``python benchmarks/bench_lab_isolation.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 2.0


def _structural_rule_sets() -> list[dict[str, str]]:
    """Distinct One Eyed Flush rule sets that each change a structural number (a full re-solve each)."""
    from tablegames.rules import registry

    d = registry.get("one-eyed-flush")
    rules = d.make_rules()
    numbers = [p for p in d.parameters if p.kind == "int" and p.structural and p.listed][:3]
    ranges = []
    for p in numbers:
        v = int(p.get(rules))
        lo = max(v - 3, p.low if p.low is not None else v - 3)
        hi = min(v + 3, p.high if p.high is not None else v + 3)
        ranges.append([(p.name, str(w)) for w in range(int(lo), int(hi) + 1)])
    combos = [dict(c) for c in itertools.product(*ranges)]
    out = []
    for c in combos:
        try:
            d.make_rules(c)
        except Exception:  # a cross-field check: skip that combination
            continue
        out.append(c)
    return out


def _hammer(base: str, address: str, rule_sets: Iterator[dict[str, str]], stop: threading.Event,
            tally: Counter[str]) -> None:  # fmt: skip
    import httpx

    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=base, transport=transport, timeout=120.0) as http:
        for rules in rule_sets:
            if stop.is_set():
                return
            try:
                r = http.post("/lab/analyze", json={"game": "one-eyed-flush", "rules": rules})
            except httpx.HTTPError:
                tally["transport errors"] += 1
                time.sleep(0.2)
                continue
            if r.status_code == 200:
                tally["cached" if r.json().get("cached") else "solved"] += 1
                continue
            tally[f"{r.status_code} {r.json().get('error', {}).get('code', '?')}"] += 1
            wait = float(r.headers.get("retry-after", "0.5") or 0.5)
            stop.wait(min(max(wait, 0.1), 2.0))


class _Probe(threading.Thread):
    """``GET /health`` every 50 ms from an address of its own, its latencies kept; the server's peak memory."""

    def __init__(self, base: str, pid: int) -> None:
        super().__init__(daemon=True)
        self.base, self.pid = base, pid
        self.stop = threading.Event()
        self.latencies: list[float] = []
        self.peak = (0.0, 0.0)

    def run(self) -> None:
        import httpx

        transport = httpx.HTTPTransport(local_address="127.0.2.1")
        with httpx.Client(base_url=self.base, transport=transport, timeout=30.0) as http:
            while not self.stop.wait(0.05):
                t = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    http.get("/health")
                self.latencies.append(time.perf_counter() - t)
                rss = _rss_mb(self.pid)
                self.peak = (max(self.peak[0], rss[0]), max(self.peak[1], rss[1]))


def _rss_mb(pid: int) -> tuple[float, float]:
    """(the process's resident memory, its children's together) in MB."""
    import psutil

    p = psutil.Process(pid)
    children = 0
    for c in p.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            children += c.memory_info().rss
    return p.memory_info().rss / 2**20, children / 2**20


def _run(url: str, admin: str, clients: int, tables: int, duration: float, think: float) -> list[float]:
    """One ``loadtest --url`` run: every acknowledgement's latency (seconds), and its errors counted in."""
    from tablegames.loadtest import LoadConfig, run_load_test

    cfg = LoadConfig(
        clients=clients, tables=tables, duration=duration, think=think, url=url, admin_token=admin,
        games=("final-count",),
    )  # fmt: skip
    report = run_load_test(cfg)
    errors = report.stats.error_count()
    if errors:
        print(f"  (a run had {errors} errors: {dict(report.stats.errors)})", flush=True)
    return [v for vs in report.stats.latencies.values() for v in vs]


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else float("nan")


def _line(label: str, acks: list[float], health: list[float]) -> str:
    return (
        f"{label:<9} acks {len(acks):6d}  p50 {_p(acks, 50):7.1f} ms  p99 {_p(acks, 99):7.1f} ms  "
        f"max {_p(acks, 100):7.1f} ms  |  /health p99 {_p(health, 99):7.1f} ms"
    )


def main() -> None:
    import psutil

    from tablegames.loadtest.process import ServerProcess

    duration = float(os.environ.get("BENCH_ISOLATION_DURATION", "15"))
    rounds = int(os.environ.get("BENCH_ISOLATION_ROUNDS", "3"))
    think = float(os.environ.get("BENCH_ISOLATION_THINK", "0.25"))
    clients = int(os.environ.get("BENCH_ISOLATION_CLIENTS", "20"))
    tables = int(os.environ.get("BENCH_ISOLATION_TABLES", "4"))
    hammers = int(os.environ.get("BENCH_ISOLATION_HAMMERS", "8"))
    print(
        f"lab isolation: {clients} players / {tables} tables, {rounds} x ({duration:g} s idle, {duration:g} s "
        f"hammered), think {think:g} s; {hammers} lab clients; {psutil.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.1f}' for x in psutil.getloadavg())}",
        flush=True,
    )
    rule_sets = _structural_rule_sets()
    streams = [itertools.cycle(rule_sets[i::hammers] or rule_sets) for i in range(hammers)]
    admin = secrets.token_urlsafe(18)
    acks: dict[str, list[float]] = {"idle": [], "hammered": []}
    health: dict[str, list[float]] = {"idle": [], "hammered": []}
    peak: dict[str, tuple[float, float]] = {}
    tally: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="tablegames-bench-lab-") as tmp:
        server = ServerProcess(str(Path(tmp) / "bench.sqlite"), admin, 5.0, 30.0, Path(tmp) / "server.log")
        try:
            server.wait_ready()
            for _ in range(rounds):  # interleaved: the machine's other load falls on both alike
                for phase in ("idle", "hammered"):
                    stop = threading.Event()
                    threads = []
                    if phase == "hammered":
                        for i, stream in enumerate(streams):
                            address = f"127.0.1.{i + 1}"
                            t = threading.Thread(
                                target=_hammer, args=(server.url, address, stream, stop, tally)
                            )
                            t.start()
                            threads.append(t)
                        time.sleep(2.0)  # the lab busy before the players start
                    probe = _Probe(server.url, server.proc.pid)
                    probe.start()
                    try:
                        acks[phase] += _run(server.url, admin, clients, tables, duration, think)
                    finally:
                        stop.set()
                        probe.stop.set()
                        for t in threads:
                            t.join(timeout=150)
                        probe.join()
                    health[phase] += probe.latencies
                    was = peak.get(phase, (0.0, 0.0))
                    peak[phase] = (max(was[0], probe.peak[0]), max(was[1], probe.peak[1]))
        finally:
            server.stop()
    for phase in ("idle", "hammered"):
        print(_line(phase, acks[phase], health[phase]), flush=True)
    print(f"lab answers while hammered: {dict(tally)}", flush=True)
    print(
        f"peak memory: server {peak['idle'][0]:.0f} MB idle, {peak['hammered'][0]:.0f} MB hammered; its children "
        f"(lab solver processes, forkserver) {peak['hammered'][1]:.0f} MB hammered",
        flush=True,
    )
    base, hot = _p(acks["idle"], 99), _p(acks["hammered"], 99)
    ratio = hot / base
    verdict = "MET" if ratio <= TARGET_RATIO else "MISSED"
    print(
        f"table ack p99 idle {base:.1f} ms, lab hammered {hot:.1f} ms: {ratio:.2f}x (target <= {TARGET_RATIO:g}x: "
        f"{verdict}); /health p99 {_p(health['idle'], 99):.1f} -> {_p(health['hammered'], 99):.1f} ms; "
        f"load average now {' '.join(f'{x:.1f}' for x in psutil.getloadavg())}",
        flush=True,
    )


if __name__ == "__main__":
    main()

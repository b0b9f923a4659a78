"""Several server processes on one PostgreSQL database (issue 16): rounds/s and actions/s at a p99 under 100 ms
with 1, 2 and 4 ``tablegames serve`` processes and with one of them SIGKILLed mid-run, as ratios to one process;
and the CPU milliseconds one process spends per action (the figure to push down).

For each process count the load climbs a ladder of players (``BENCH_CLUSTER_LEVELS``, 5 players a table, each
thinking ``BENCH_CLUSTER_THINK`` s on average) until the p99 from a request to its ack reaches 100 ms or a run has
errors; the best rung under the target is the figure. Each process count also takes the reference load
without thinking time (capacity: actions/s whatever the latency). The kill-one run repeats the best rung of the
largest process count with its last process that has players SIGKILLed a third of the way in (the books must
still balance). The issue's reference point is measured too: one process, 50 players at 8 tables, no thinking
time (``tablegames loadtest --clients 50 --tables 8 --duration 15``).

Environment: ``BENCH_CLUSTER_DURATION`` (s, default 15), ``BENCH_CLUSTER_THINK`` (s, 0.5),
``BENCH_CLUSTER_LEVELS`` (players, ``10,20,40,80,160,320``), ``BENCH_CLUSTER_SERVERS`` (``1,2,4``),
``BENCH_CLUSTER_PROXY`` (1: through HAProxy), ``TABLEGAMES_TEST_POSTGRES_URL`` (else .ci/start-postgres).
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.bench_server import _postgres_url, _Schema

TARGET_P99_MS = 100.0
PER_TABLE = 5


def _run(base: str, **kw: Any) -> dict[str, Any]:
    from tablegames.loadtest import LoadConfig, LoadTestError, run_load_test

    schema = _Schema(base)
    try:
        cfg = LoadConfig(database=schema.url, betting_seconds=10.0, **kw)
        try:
            out = run_load_test(cfg).to_dict()
        except LoadTestError as exc:
            return {"failed": str(exc)[:300], **kw}
    finally:
        schema.drop()
    duration = float(kw["duration"])
    out["actions_per_s"] = round(out["requests_in_window"] / duration, 1)
    return out


def _errors(d: dict[str, Any]) -> int:
    return sum(d["errors"].values()) + d["disconnects"] + d["timeouts"]


def _line(label: str, d: dict[str, Any]) -> str:
    if "failed" in d:
        return f"{label:<30} FAILED: {d['failed']}"
    lat = d["latency"]
    cpu = d["server_cpu_ms_per_request"]
    return (
        f"{label:<30} rounds/s {d['rounds_per_s']:7.2f}  actions/s {d['actions_per_s']:7.1f}  p50 {lat['p50_ms']:7.1f}"
        f"  p99 {lat['p99_ms']:7.1f} ms  server CPU {cpu if cpu is not None else '-'} ms/action  errors "
        f"{_errors(d)}  books {'ok' if d['money']['ok'] else 'FAILED'}"
    )


def _ok(d: dict[str, Any]) -> bool:
    return "failed" not in d and d["ok"] and (d["latency"]["p99_ms"] or 0) < TARGET_P99_MS


def main() -> None:
    import psutil

    from tablegames.loadtest.proxy import haproxy_binary

    duration = float(os.environ.get("BENCH_CLUSTER_DURATION", "15"))
    think = float(os.environ.get("BENCH_CLUSTER_THINK", "0.5"))
    levels = [int(x) for x in os.environ.get("BENCH_CLUSTER_LEVELS", "10,20,40,80,160,320").split(",")]
    counts = [int(x) for x in os.environ.get("BENCH_CLUSTER_SERVERS", "1,2,4").split(",")]
    proxy = os.environ.get("BENCH_CLUSTER_PROXY", "0") == "1"
    if proxy and haproxy_binary() is None:
        print("cluster: BENCH_CLUSTER_PROXY=1 but haproxy is not installed (.ci/system-deps); direct instead")
        proxy = False
    base = _postgres_url()
    if base is None:
        print("cluster: skipped (no TABLEGAMES_TEST_POSTGRES_URL and no local cluster)")
        return
    print(
        f"server processes on one PostgreSQL: ladder {levels} players ({PER_TABLE} a table, think {think:g} s), "
        f"{duration:g} s each, {'through haproxy' if proxy else 'direct'}; {psutil.cpu_count()} cores, load "
        f"average {' '.join(f'{x:.1f}' for x in psutil.getloadavg())}",
        flush=True,
    )
    ref = _run(base, clients=50, tables=8, duration=duration, think=0.0, servers=1)
    ref["tables"] = 8
    print(_line("1 process, 50/8, no thinking", ref), flush=True)
    if "failed" not in ref:
        print(
            f"  reference: {ref['actions_per_s']} actions/s at p99 {ref['latency']['p99_ms']} ms, "
            f"{ref['server_cpu_ms_per_request']} CPU ms per action (server process)",
            flush=True,
        )
    saturated: dict[int, dict[str, Any]] = {}
    for (
        n
    ) in counts:  # the same no-thinking load over n processes: capacity, and what a process costs per action
        d = ref if n == 1 else _run(base, clients=50, tables=8, duration=duration, think=0.0, servers=n)
        saturated[n] = d
        if n != 1:
            print(_line(f"{n} processes, 50/8, no thinking", d), flush=True)
    one_sat = saturated.get(1)
    if one_sat is not None and "failed" not in one_sat and one_sat["actions_per_s"]:
        print(
            "  no thinking, as ratios to one process: "
            + ", ".join(
                f"{n}: {d['actions_per_s'] / one_sat['actions_per_s']:.2f}x actions/s (p99 {d['latency']['p99_ms']} ms)"
                for n, d in saturated.items()
                if "failed" not in d
            ),
            flush=True,
        )
    best: dict[int, dict[str, Any]] = {}
    for n in counts:
        for clients in levels:
            d = _run(base, clients=clients, tables=max(1, clients // PER_TABLE), duration=duration, think=think,
                     servers=n, proxy=proxy)  # fmt: skip
            print(_line(f"{n} process{'es' if n > 1 else ''}, {clients} players", d), flush=True)
            if not _ok(d):
                break
            best[n] = d
    one = best.get(1)
    for n in counts:
        d = best.get(n)
        if d is None:
            print(f"{n} process(es): no rung met p99 < {TARGET_P99_MS:g} ms")
            continue
        ratio = (
            f"  = {d['rounds_per_s'] / one['rounds_per_s']:.2f}x rounds/s, "
            f"{d['actions_per_s'] / one['actions_per_s']:.2f}x actions/s of one process"
            if one and one["rounds_per_s"] and one["actions_per_s"]
            else ""
        )
        print(
            f"{n} process(es) at p99 < {TARGET_P99_MS:g} ms: {d['clients']} players, {d['rounds_per_s']} rounds/s, "
            f"{d['actions_per_s']} actions/s (p99 {d['latency']['p99_ms']} ms){ratio}",
            flush=True,
        )
    top = max((n for n in counts if n >= 2 and n in best), default=None)
    if top is not None:
        d = best[top]
        k = _run(base, clients=d["clients"], tables=d["tables"], duration=duration, think=think, servers=top,
                 proxy=proxy, kill_one_at=round(duration / 3, 1))  # fmt: skip
        print(_line(f"{top} processes, one killed", k), flush=True)
        if "failed" not in k:
            c = k["cluster"]
            ratio = (
                f"{k['rounds_per_s'] / one['rounds_per_s']:.2f}x rounds/s, "
                f"{k['actions_per_s'] / one['actions_per_s']:.2f}x actions/s of one process; "
                if one and one["rounds_per_s"] and one["actions_per_s"]
                else ""
            )
            print(
                f"  kill-one: {c['killed']} killed at {c['killed_at_s']} s; {ratio}reconnects "
                f"{c['reconnects']}/{c['expected_reconnects']}, books {'ok' if k['money']['ok'] else 'FAILED'}"
                f"{'' if k['ok'] else ' (a server without leases and failover?)'}",
                flush=True,
            )
    if one:
        print(
            f"single process: {one['server_cpu_ms_per_request']} CPU ms per action at {one['clients']} players"
        )


if __name__ == "__main__":
    main()

"""Table server under load, on SQLite and on PostgreSQL (``TABLEGAMES_TEST_POSTGRES_URL``, or a local cluster
started with ``.ci/start-postgres``), through the WebSocket API; two runs per database:

- ``throughput`` (issue 28): 50 players over 8 tables who never think (``--think 0``) for
  ``BENCH_SERVER_FAST_DURATION`` seconds (default 15). Goal: 1,000 actions (wagers and decisions acknowledged)
  a second per process at p99 < 50 ms, at most 0.8 server CPU ms per action on SQLite and 2.5 ms on PostgreSQL
  (tables fenced, as several processes run them). Each figure is printed with its ratio to the goal (actions/s:
  the measured over the goal, higher is better; p99 and CPU: the goal over the measured, higher is better: 1.0x
  or more meets it). CPU is the server process's during the measured window (everyone seated), per action.
- ``latency`` (issue 7): ``BENCH_SERVER_CLIENTS`` players over ``BENCH_SERVER_TABLES`` tables (default 200 /
  30), each thinking ``BENCH_SERVER_THINK`` seconds on average (default 1.0) before a wager or a decision, like
  a person at a table, for ``BENCH_SERVER_DURATION`` seconds (default 30). Target: p99 from an action sent to
  its acknowledgement under 100 ms, no errors; the baseline is a light load (20 players over 3 tables) in the
  same process.

Both check the ledger afterwards. The throughput run is made twice: with the server as ``serve`` starts it, then
pinned to one CPU (``serve --cpus``, this process's last; the players run on the others), unless
``BENCH_SERVER_PIN`` is ``no`` or ``yes`` (only one of them). Environment: ``BENCH_SERVER_RUNS``
(``throughput,latency``), ``BENCH_SERVER_DATABASES`` (``sqlite,postgresql``) and the ones above.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

TARGET_P99_MS = 100.0
# issue 28's goal for the think-0 load, per server process
GOAL_ACTIONS_PER_S = 1000.0
GOAL_P99_MS = 50.0
GOAL_CPU_MS = {"sqlite": 0.8, "postgresql": 2.5}


def _postgres_url() -> str | None:
    url = os.environ.get("TABLEGAMES_TEST_POSTGRES_URL")
    if url:
        return url
    script = Path(__file__).resolve().parent.parent / ".ci" / "start-postgres"
    if not script.exists():
        return None
    try:
        out = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stdout.splitlines():
        if line.startswith("export TABLEGAMES_TEST_POSTGRES_URL="):
            return line.split("=", 1)[1].strip().strip("'\"")
    return None


class _Schema:
    """A fresh PostgreSQL schema for one run (dropped afterwards)."""

    def __init__(self, base: str) -> None:
        import sqlalchemy as sa

        self.name = f"bench_{secrets.token_hex(5)}"
        self.engine = sa.create_engine(base)
        with self.engine.begin() as c:
            c.execute(sa.text(f"CREATE SCHEMA {self.name}"))
        sep = "&" if "?" in base else "?"
        self.url = f"{base}{sep}options={quote(f'-csearch_path={self.name}')}"

    def drop(self) -> None:
        import sqlalchemy as sa

        with self.engine.begin() as c:
            c.execute(sa.text(f"DROP SCHEMA {self.name} CASCADE"))
        self.engine.dispose()


def _run(
    clients: int,
    tables: int,
    duration: float,
    think: float,
    database: str | None,
    cpus: frozenset[int] | None = None,
) -> dict[str, Any]:
    from tablegames.loadtest import LoadConfig, run_load_test

    cfg = LoadConfig(
        clients=clients,
        tables=tables,
        duration=duration,
        think=think,
        database=database,
        betting_seconds=10.0,
        server_cpus=cpus,
    )
    return run_load_test(cfg).to_dict()


def _line(label: str, d: dict[str, Any]) -> str:
    lat = d["latency"]
    errors = sum(d["errors"].values()) + d["disconnects"] + d["timeouts"]
    return (
        f"{label:<34} rounds/s {d['rounds_per_s']:7.2f}  p50 {lat['p50_ms']:8.1f} ms  p95 {lat['p95_ms']:8.1f} ms"
        f"  p99 {lat['p99_ms']:8.1f} ms  max {lat['max_ms']:8.1f} ms  requests {d['requests']:6d}"
        f"  errors {errors}  ledger {'ok' if d['money']['ok'] else 'FAILED'}"
    )


def throughput_figures(d: dict[str, Any], database: str) -> dict[str, tuple[float | None, float | None]]:
    """The think-0 run's figures against issue 28's goal: name -> (measured, ratio to the goal; 1.0 or more
    meets it).

    >>> f = throughput_figures({"requests_in_window": 6000, "duration_s": 15.0, "latency": {"p99_ms": 100.0},
    ...                         "server_cpu_ms_per_request": 1.6}, "sqlite")
    >>> f["actions_per_s"], f["p99_ms"], f["cpu_ms_per_action"]
    ((400.0, 0.4), (100.0, 0.5), (1.6, 0.5))
    """
    actions = d["requests_in_window"] / d["duration_s"] if d["duration_s"] else None
    p99 = d["latency"]["p99_ms"]
    cpu = d["server_cpu_ms_per_request"]

    def ratio(good: float | None, bad: float | None) -> float | None:
        return round(good / bad, 3) if good is not None and bad else None

    return {
        "actions_per_s": (None if actions is None else round(actions, 1), ratio(actions, GOAL_ACTIONS_PER_S)),
        "p99_ms": (p99, ratio(GOAL_P99_MS, p99)),
        "cpu_ms_per_action": (cpu, ratio(GOAL_CPU_MS[database], cpu)),
    }


def pinned_cpu() -> frozenset[int] | None:
    """The CPU the pinned throughput run's server gets (``serve --cpus``): this process's last, so the players
    run on the others; None with a single CPU (nothing to keep apart) or without Linux's thread affinity."""
    from tablegames.server.affinity import allowed_cpus

    cpus = allowed_cpus()
    if len(cpus) < 2 or not hasattr(os, "sched_setaffinity"):
        return None
    return frozenset({max(cpus)})


def _throughput(name: str, url: str | None, cpus: frozenset[int] | None = None) -> None:
    """The think-0 run (issue 28), printed with each figure's ratio to the goal; ``cpus``: the server pinned to
    them (``serve --cpus``), else as ``serve`` starts it."""
    import psutil

    from tablegames.server.affinity import cpu_list

    duration = float(os.environ.get("BENCH_SERVER_FAST_DURATION", "15"))
    d = _run(50, 8, duration, 0.0, url, cpus)
    how = "not pinned" if cpus is None else f"pinned to CPU {cpu_list(cpus)}"
    name_how = f"{name} ({how})"
    print(_line(f"{name_how}: think 0, 50 players / 8 tables", d), flush=True)
    f = throughput_figures(d, name)

    def show(key: str, unit: str, goal: str) -> str:
        value, r = f[key]
        return f"{value} {unit} ({'n/a' if r is None else f'{r:.2f}x'} the goal {goal})"

    errors = sum(d["errors"].values()) + d["disconnects"] + d["timeouts"]
    print(
        f"{name_how}: think 0: {show('actions_per_s', 'actions/s', f'{GOAL_ACTIONS_PER_S:,.0f}/s')}; "
        f"p99 {show('p99_ms', 'ms', f'< {GOAL_P99_MS:g} ms')}; "
        f"server CPU {show('cpu_ms_per_action', 'ms/action', f'<= {GOAL_CPU_MS[name]:g} ms')}; "
        f"errors {errors}; ledger {'ok' if d['money']['ok'] else 'FAILED'}; load average now "
        f"{' '.join(f'{x:.1f}' for x in psutil.getloadavg())}",
        flush=True,
    )


def main() -> None:
    import psutil

    runs = os.environ.get("BENCH_SERVER_RUNS", "throughput,latency").split(",")
    duration = float(os.environ.get("BENCH_SERVER_DURATION", "30"))
    think = float(os.environ.get("BENCH_SERVER_THINK", "1.0"))
    clients = int(os.environ.get("BENCH_SERVER_CLIENTS", "200"))
    tables = int(os.environ.get("BENCH_SERVER_TABLES", "30"))
    wanted = os.environ.get("BENCH_SERVER_DATABASES", "sqlite,postgresql").split(",")
    print(
        f"table server load ({', '.join(runs)}): think 0: 50 players / 8 tables; latency: {clients} players / "
        f"{tables} tables, {duration:g} s, think {think:g} s; "
        f"{psutil.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in psutil.getloadavg())}",
        flush=True,
    )
    dbs: list[tuple[str, str | None]] = []
    if "sqlite" in wanted:
        dbs.append(("sqlite", None))
    if "postgresql" in wanted:
        pg = _postgres_url()
        if pg is None:
            print("postgresql: skipped (no TABLEGAMES_TEST_POSTGRES_URL and no local cluster)")
        else:
            dbs.append(("postgresql", pg))
    # the think-0 run as ``serve`` starts the server, then pinned to one CPU (``serve --cpus``), unless
    # BENCH_SERVER_PIN says only one of them (``no`` or ``yes``)
    pin = os.environ.get("BENCH_SERVER_PIN", "both")
    pins: list[frozenset[int] | None] = [] if pin == "yes" else [None]
    cpu = pinned_cpu()
    if pin in ("both", "yes") and cpu is not None:
        pins.append(cpu)
    if "throughput" in runs:
        for name, base in dbs:
            schema = _Schema(base) if base is not None else None
            try:
                for cpus in pins:
                    _throughput(name, schema.url if schema is not None else None, cpus)
            finally:
                if schema is not None:
                    schema.drop()
    if "latency" not in runs:
        return
    for name, base in dbs:
        schema = _Schema(base) if base is not None else None
        try:
            url = schema.url if schema is not None else None
            light = _run(20, 3, min(duration, 10.0), think, url)
            print(_line(f"{name}: baseline 20 players / 3 tables", light), flush=True)
            if schema is not None:
                schema.drop()
                schema = _Schema(base) if base is not None else None
                url = schema.url if schema is not None else None
            full = _run(clients, tables, duration, think, url)
            print(_line(f"{name}: {clients} players / {tables} tables", full), flush=True)
        finally:
            if schema is not None:
                schema.drop()
        p99 = full["latency"]["p99_ms"]
        base_p99 = light["latency"]["p99_ms"]
        errors = sum(full["errors"].values()) + full["disconnects"] + full["timeouts"]
        verdict = (
            "MET" if p99 is not None and p99 < TARGET_P99_MS and errors == 0 and full["ok"] else "MISSED"
        )
        ratio = f"{p99 / base_p99:.1f}x the baseline p99" if p99 and base_p99 else "n/a"
        print(
            f"{name}: target p99 < {TARGET_P99_MS:g} ms with no errors: {verdict} (p99 {p99} ms, {ratio}; "
            f"errors {dict(full['errors']) or 0}; load average now "
            f"{' '.join(f'{x:.1f}' for x in psutil.getloadavg())})",
            flush=True,
        )


if __name__ == "__main__":
    main()

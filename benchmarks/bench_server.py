"""Table server under load (issue 7): 200 players over 30 tables through the WebSocket API, on SQLite and on
PostgreSQL (``TABLEGAMES_TEST_POSTGRES_URL``, or a local cluster started with ``.ci/start-postgres``).

Target: p99 latency from an action sent to its acknowledgement under 100 ms, no errors, and the ledger intact
afterwards. Each player thinks ``BENCH_SERVER_THINK`` seconds on average (default 1.0) before a wager or a
decision, like a person at a table; the baseline is a light load (20 players over 3 tables) in the same process.

Environment: ``BENCH_SERVER_DURATION`` (s, default 30), ``BENCH_SERVER_THINK`` (s, default 1.0),
``BENCH_SERVER_CLIENTS`` / ``BENCH_SERVER_TABLES`` (default 200 / 30), ``BENCH_SERVER_DATABASES``
(``sqlite,postgresql``).
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

TARGET_P99_MS = 100.0


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


def _run(clients: int, tables: int, duration: float, think: float, database: str | None) -> dict[str, Any]:
    from tablegames.loadtest import LoadConfig, run_load_test

    cfg = LoadConfig(
        clients=clients,
        tables=tables,
        duration=duration,
        think=think,
        database=database,
        betting_seconds=10.0,
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


def main() -> None:
    import psutil

    duration = float(os.environ.get("BENCH_SERVER_DURATION", "30"))
    think = float(os.environ.get("BENCH_SERVER_THINK", "1.0"))
    clients = int(os.environ.get("BENCH_SERVER_CLIENTS", "200"))
    tables = int(os.environ.get("BENCH_SERVER_TABLES", "30"))
    wanted = os.environ.get("BENCH_SERVER_DATABASES", "sqlite,postgresql").split(",")
    print(
        f"table server load: {clients} players / {tables} tables, {duration:g} s, think {think:g} s; "
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

"""The table server in a subprocess on 127.0.0.1 (uvicorn), as production serves it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tablegames.loadtest.config import MAX_CLIENTS, LoadTestError


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``tablegames`` table server in a subprocess on 127.0.0.1 (uvicorn)."""

    def __init__(
        self,
        database: str,
        admin_token: str,
        betting_seconds: float,
        turn_seconds: float,
        log_path: Path,
        cpus: frozenset[int] | None = None,
    ) -> None:
        self.database = database
        self.admin_token = admin_token
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        from tablegames.server.affinity import cpu_list

        env = {**os.environ, "TABLEGAMES_ADMIN_TOKEN": admin_token}
        self.log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tablegames.loadtest.process import serve_main; serve_main()",
                database,
                str(self.port),
                str(betting_seconds),
                str(turn_seconds),
                *([cpu_list(cpus)] if cpus else []),
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
    """Subprocess entry: ``DATABASE PORT BETTING_SECONDS TURN_SECONDS [CPUS]`` (admin token from the environment;
    ``CPUS``: pinned to them, as ``0,2``)."""
    from tablegames.server.affinity import parse_cpus
    from tablegames.server.app import create_app, run
    from tablegames.server.connections import ConnectionLimits
    from tablegames.server.limits import HardeningMiddleware, Limits

    database, port, betting, turn = sys.argv[1:5]
    cpus = parse_cpus(sys.argv[5]) if len(sys.argv) > 5 else None
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
        run(app, host="127.0.0.1", port=int(port), connections=connections, cpus=cpus)
        return
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        run(app, host="127.0.0.1", port=int(port), connections=connections, cpus=cpus)
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


def _cpu(pid: int | None) -> float | None:
    import psutil

    try:
        t = psutil.Process(pid).cpu_times()
    except (psutil.Error, ValueError):
        return None
    return float(t.user + t.system)

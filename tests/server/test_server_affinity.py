"""Issue 28: a server process pinned to CPUs (``serve --cpus``, ``loadtest --server-cpus``, server/affinity.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablegames.cli import app
from tablegames.server.affinity import allowed_cpus, check_cpus, cpu_list, parse_cpus

linux = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="thread affinity is Linux's")


@given(st.frozensets(st.integers(0, 300), min_size=1, max_size=40))
def test_a_cpu_list_reads_back_as_written(cpus: frozenset[int]) -> None:
    assert parse_cpus(cpu_list(cpus)) == cpus


@pytest.mark.parametrize(
    ("text", "cpus"), [("0", {0}), ("0,2-3", {0, 2, 3}), (" 1 , 4-5", {1, 4, 5}), ("2-2", {2})]
)
def test_cpu_lists(text: str, cpus: set[int]) -> None:
    assert parse_cpus(text) == cpus


@pytest.mark.parametrize("text", ["", "a", "1,", "-1", "1-", "3-1", "0-99999", "1.5"])
def test_bad_cpu_lists_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="bad CPU list"):
        parse_cpus(text)


@linux
def test_a_cpu_this_process_may_not_use_is_refused_and_nothing_changes() -> None:
    before = os.sched_getaffinity(0)
    outside = max(allowed_cpus()) + 1
    with pytest.raises(ValueError, match=f"CPU {outside} is not one this process may run on"):
        check_cpus({min(allowed_cpus()), outside})
    with pytest.raises(ValueError, match="no CPU given"):
        check_cpus(set())
    assert os.sched_getaffinity(0) == before


def _probe(code: str, cpu: int) -> Any:
    """What ``code`` (``__CPU__``: ``cpu``) prints as JSON, run in a process of its own."""
    out = subprocess.run(
        [sys.executable, "-c", code.replace("__CPU__", str(cpu))],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


PROBE = """
import json, os, threading
from tablegames.server.affinity import pin_process
hold = threading.Event()
before = threading.Thread(target=hold.wait, daemon=True); before.start()  # a thread that exists when the process is pinned
pinned = pin_process({__CPU__})
after = threading.Thread(target=hold.wait, daemon=True); after.start()  # one started afterwards
seen = {int(t): [sorted(os.sched_getaffinity(int(t))), os.sched_getscheduler(int(t)) == os.SCHED_BATCH]
        for t in os.listdir("/proc/self/task")}
hold.set(); before.join(); after.join()
print(json.dumps({"pinned": sorted(pinned), "threads": seen}))
"""


@linux
def test_every_thread_is_pinned_those_before_and_those_after() -> None:
    """Run in a process of its own (pinning the test's own process would slow the rest of the run)."""
    cpu = max(allowed_cpus())
    got = _probe(PROBE, cpu)
    assert got["pinned"] == [cpu]
    assert len(got["threads"]) >= 3  # the main thread and both others
    # each pinned, and scheduled as a batch (none preempts the other on one core when it wakes it)
    assert all(seen == [[cpu], True] for seen in got["threads"].values()), got


@linux
def test_serve_refuses_a_cpu_it_may_not_use_before_it_touches_anything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = CliRunner().invoke(
        app, ["serve", "--data-dir", str(data), "--cpus", str(max(allowed_cpus()) + 1)]
    )
    assert result.exit_code == 2 and "--cpus: CPU" in result.output and "may run on" in result.output
    bad = CliRunner().invoke(app, ["serve", "--data-dir", str(data), "--cpus", "1-0"])
    assert bad.exit_code == 2 and "--cpus: bad CPU list '1-0'" in bad.output
    assert not data.exists()


def test_loadtest_pins_only_the_server_it_starts() -> None:
    result = CliRunner().invoke(
        app, ["loadtest", "--url", "http://127.0.0.1:9", "--server-cpus", "0"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 2 and "--server-cpus pins the one server the test starts" in result.output
    bad = CliRunner().invoke(app, ["loadtest", "--server-cpus", "x"], env={"COLUMNS": "200"})
    assert bad.exit_code == 2 and "--server-cpus: bad CPU list 'x'" in bad.output


RUN_PROBE = """
import json, os, uvicorn
from tablegames.server import app as server_app
seen = {}
def fake_run(app, **kw):  # where uvicorn would serve: every thread's CPUs then
    seen.update({int(t): [sorted(os.sched_getaffinity(int(t))), os.sched_getscheduler(int(t)) == os.SCHED_BATCH]
                 for t in os.listdir("/proc/self/task")})
uvicorn.run = fake_run
server_app.run(object(), host="127.0.0.1", port=9, cpus=frozenset({__CPU__}))
print(json.dumps(seen))
"""


@linux
def test_the_server_runs_pinned_when_told() -> None:
    """``app.run`` (``serve --cpus`` and the load test's server) pins the process before uvicorn serves."""
    cpu = max(allowed_cpus())
    seen = _probe(RUN_PROBE, cpu)
    assert seen and all(s == [[cpu], True] for s in seen.values()), seen


@linux
@pytest.mark.timeout(120)
def test_the_load_tests_server_process_runs_pinned(tmp_path: Path) -> None:
    """``loadtest --server-cpus``: every thread of the server process it starts is on that CPU while it serves."""
    from tablegames.loadtest.process import ServerProcess

    cpu = max(allowed_cpus())
    server = ServerProcess(
        str(tmp_path / "load.sqlite"), "token-" + "x" * 20, 5.0, 10.0, tmp_path / "log", cpus=frozenset({cpu})
    )
    try:
        server.wait_ready()
        tasks = Path(f"/proc/{server.proc.pid}/task")
        seen = {
            t.name: (sorted(os.sched_getaffinity(int(t.name))), os.sched_getscheduler(int(t.name)))
            for t in tasks.iterdir()
        }
    finally:
        server.stop()
    assert len(seen) >= 2 and all(s == ([cpu], os.SCHED_BATCH) for s in seen.values()), seen

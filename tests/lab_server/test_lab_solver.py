"""The Math lab's solves run in processes of their own (issue 20, defect 2): a bounded pool of lower-priority
solver processes started from a forkserver (never forked from the server), a quota per client address (429
``busy`` with ``Retry-After``), a dead solver process costs only its own requests, and the pool ends with the
server, leaving no process behind."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from fastapi.testclient import TestClient
from lab_support import CONVERTED, changed_rule_set
from solver_support import explode, lab_threads, wait_for_file, whoami

from server_harness import ADMIN
from tablegames.analysis.api import analyze_game
from tablegames.rules import registry
from tablegames.server.app import create_app
from tablegames.server.errors import ApiError
from tablegames.server.labsolver import LAB_NICE, LabSolver, figures, unless_gone
from tablegames.server.rulesets import Resolved, resolve

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """After each test, every solver process it started has ended (the pools were closed)."""
    yield
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("ForkServerProcess")]
    assert not _solvers()


def _gone(pid: int, within: float = 10.0) -> bool:
    """The process has ended (a zombie counts as ended) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def _solvers() -> list[psutil.Process]:
    """This process's descendants running at the solvers' lower priority."""
    base = os.nice(0)
    found = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.nice() >= min(19, base + LAB_NICE) and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except psutil.NoSuchProcess:
            pass
    return found


def _waiting(tmp_path: Path, tag: str) -> tuple[Resolved, Path, Path]:
    """A rule set whose (test) solve waits for a file: (resolved, its started file, its release file)."""
    d = registry.get("final-count")
    started, release = tmp_path / f"{tag}.started", tmp_path / f"{tag}.release"
    got = Resolved(d, d.make_rules(), {"started": str(started), "release": str(release)}, tag, {}, None)
    return got, started, release


def _until(path: Path, within: float = 60.0) -> int:
    deadline = time.monotonic() + within
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)
    return int(path.read_text())


def test_an_analyze_request_is_solved_in_a_lower_priority_process_that_ends_with_the_server(
    tmp_path: Path,
) -> None:
    """Regression (issue 20, defect 2): solves ran on threads of the server process, holding its GIL."""
    d = registry.get("final-count")
    options = changed_rule_set(d)
    before = {p.pid for p in _solvers()}
    with TestClient(create_app(f"sqlite:///{tmp_path / 'lab.sqlite3'}", admin_token=ADMIN)) as client:
        res = client.post("/lab/analyze", json={"game": d.key, "rules": options})
        assert res.status_code == 200, res.text
        assert res.json()["house_edge_exact"] == str(analyze_game(d.make_rules(options)).house_edge)
        solvers = [p for p in _solvers() if p.pid not in before]
        assert len(solvers) == 1  # one solve, one solver process (at most LAB_SOLVES)
        solver = solvers[0]
        assert solver.ppid() != os.getpid()  # from the forkserver, not a fork of the server
    assert _gone(solver.pid), "the solver process outlived the server"


def test_solver_processes_are_forked_from_a_forkserver_at_a_lower_priority() -> None:
    d = CONVERTED[0]
    got = resolve(d.key, {}, None, None, None)

    async def scenario() -> list[dict[str, Any]]:
        solver = LabSolver(solves=2, solve=whoami)
        try:
            return [await solver.analyze(got, bet, {}) for bet in (None, 100, 200)]
        finally:
            solver.close()

    answers = asyncio.run(scenario())
    pids = {a["pid"] for a in answers}
    assert os.getpid() not in pids and len(pids) <= 2  # at most LAB_SOLVES processes, reused
    assert all(a["ppid"] != os.getpid() for a in answers)
    assert all(a["nice"] >= min(19, os.nice(0) + LAB_NICE) for a in answers)
    assert all(_gone(pid) for pid in pids)


def test_closing_the_solver_ends_a_running_solve_and_its_process(tmp_path: Path) -> None:
    got, started, _release = _waiting(tmp_path, "long")

    async def scenario() -> tuple[int, BaseException | None]:
        solver = LabSolver(solves=1, solve=wait_for_file)
        task = asyncio.ensure_future(solver.analyze(got, None, {}))
        while not started.exists() or not started.read_text():
            await asyncio.sleep(0.02)
        pid = int(started.read_text())
        solver.close()  # the solve is still waiting for its release file (60 s)
        try:
            await asyncio.wait_for(task, 20)
        except (ApiError, asyncio.CancelledError) as exc:
            return pid, exc
        return pid, None

    pid, outcome = asyncio.run(scenario())
    assert outcome is not None  # the request did not get an answer from a solve that never finished
    assert _gone(pid, 5.0), "close() left the solver process running"


def test_a_killed_solver_process_costs_its_request_a_busy_and_the_next_solve_works(tmp_path: Path) -> None:
    got, started, _ = _waiting(tmp_path, "killed")
    again, started2, release2 = _waiting(tmp_path, "again")
    release2.write_text("go")

    async def scenario() -> tuple[int, ApiError, dict[str, Any]]:
        solver = LabSolver(solves=1, solve=wait_for_file)
        try:
            task = asyncio.ensure_future(solver.analyze(got, None, {}))
            pid = await asyncio.get_running_loop().run_in_executor(None, _until, started)
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(ApiError) as refused:
                await asyncio.wait_for(task, 30)
            return pid, refused.value, await asyncio.wait_for(solver.analyze(again, None, {}), 60)
        finally:
            solver.close()

    killed, refused, answer = asyncio.run(scenario())
    assert (refused.code, refused.status) == ("busy", 503)
    assert refused.headers == {"Retry-After": "2"}
    assert answer["pid"] != killed and _until(started2) == answer["pid"]  # a fresh solver process


def test_a_client_waits_for_at_most_its_quota_of_solves_the_excess_is_429_busy(tmp_path: Path) -> None:
    """Regression (issue 20, defect 2): one anonymous client could keep every solve slot and queue place."""
    release = threading.Event()

    def held(job: Any) -> dict[str, Any]:
        release.wait(30)
        return figures(job)

    d = CONVERTED[0]
    solver = LabSolver(solves=4, pending=8, per_client=2, executor=lab_threads, solve=held)
    app = create_app(f"sqlite:///{tmp_path / 'lab.sqlite3'}", admin_token=ADMIN)
    with TestClient(app) as one, TestClient(app, client=("127.0.0.2", 50000)) as two:
        app.state.lab = solver
        bodies = [{"game": d.key, "rules": changed_rule_set(d), "bet_cents": 100 * (i + 1)} for i in range(4)]
        held_requests = [
            threading.Thread(target=one.post, args=("/lab/analyze",), kwargs={"json": bodies[i]})
            for i in (0, 1)
        ]
        for t in held_requests:
            t.start()
        deadline = time.monotonic() + 10
        while len(solver.inflight) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(solver.inflight) == 2
        over = one.post("/lab/analyze", json=bodies[2])
        assert over.status_code == 429, over.text
        assert over.json()["error"]["code"] == "busy" and over.headers["retry-after"] == "2"
        assert one.post("/lab/analyze", json=bodies[0]).status_code == 429  # joining a solve counts too
        assert len(solver.inflight) == 2  # the refused request started nothing
        # another address is not held back by the first one's quota
        other = threading.Thread(target=two.post, args=("/lab/analyze",), kwargs={"json": bodies[3]})
        other.start()
        while len(solver.inflight) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(solver.inflight) == 3
        release.set()
        for t in [*held_requests, other]:
            t.join(30)
        assert solver.waiting == {}  # every request's place given back
        assert one.post("/lab/analyze", json=bodies[2]).status_code == 200  # admitted again


def test_a_failed_solve_is_a_server_error_and_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    d = registry.get("final-count")
    with TestClient(create_app(f"sqlite:///{tmp_path / 'lab.sqlite3'}", admin_token=ADMIN)) as client:
        client.app.state.lab = LabSolver(solve=explode)  # type: ignore[attr-defined]
        with caplog.at_level(logging.ERROR, logger="tablegames.server"):
            res = client.post("/lab/analyze", json={"game": d.key, "rules": {}})
        assert res.status_code == 500 and res.json()["error"]["code"] == "server_error"
        lines = [r for r in caplog.records if "lab solve failed" in r.getMessage()]
        assert len(lines) == 1 and "ZeroDivisionError: boom" in lines[0].getMessage()
        assert lines[0].exc_info is None  # one line, no traceback


def test_a_request_whose_client_went_away_gives_its_place_back_and_its_solve_carries_on() -> None:
    """The page aborts a request a newer edit made stale: that client's place in its quota is free at once
    (else switching games quickly got 429s), while the solve it started still answers the cache."""
    release = threading.Event()

    def held(job: Any) -> dict[str, Any]:
        release.wait(30)
        return {"pid": os.getpid()}

    d = CONVERTED[0]
    got = resolve(d.key, changed_rule_set(d), None, None, None)

    async def scenario() -> None:
        solver = LabSolver(solves=1, per_client=1, executor=lab_threads, solve=held)
        left = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await left.wait()
            return {"type": "http.disconnect"}

        try:
            first = asyncio.ensure_future(unless_gone(solver.analyze(got, None, {}, "c"), receive))
            await asyncio.sleep(0.1)
            assert solver.waiting == {"c": 1} and len(solver.inflight) == 1
            with pytest.raises(ApiError) as over:  # the quota is taken
                await solver.analyze(got, 100, {}, "c")
            assert over.value.status == 429
            left.set()  # the client goes away
            with pytest.raises(ApiError) as gone:
                await first
            assert gone.value.code == "gone" and solver.waiting == {}
            again = asyncio.ensure_future(solver.analyze(got, None, {}, "c"))  # admitted: shares the solve
            await asyncio.sleep(0.1)
            assert solver.waiting == {"c": 1} and len(solver.inflight) == 1
            release.set()
            assert (await again)["pid"] == os.getpid()
            assert (await solver.analyze(got, None, {}, "c"))["cached"]
        finally:
            release.set()
            solver.close()

    asyncio.run(scenario())


def test_a_solve_over_its_time_is_stopped_with_its_process(tmp_path: Path) -> None:
    """Nothing a client sends holds a solver process for ever: a solve still running after the limit is
    answered ``503 too_slow`` and its process ended (a Numba loop cannot be interrupted otherwise)."""
    got, started, _ = _waiting(tmp_path, "slow")  # never released: it would wait 60 s
    again, _, release2 = _waiting(tmp_path, "after")
    release2.write_text("go")

    async def scenario() -> tuple[int, ApiError, dict[str, Any]]:
        solver = LabSolver(solves=1, solve=wait_for_file, seconds=1.0)
        try:
            task = asyncio.ensure_future(solver.analyze(got, None, {}))
            pid = await asyncio.get_running_loop().run_in_executor(None, _until, started)
            with pytest.raises(ApiError) as stopped:
                await asyncio.wait_for(task, 30)
            assert not solver.inflight and not solver.cache  # nothing kept of it
            return pid, stopped.value, await asyncio.wait_for(solver.analyze(again, None, {}), 60)
        finally:
            solver.close()

    pid, stopped, answer = asyncio.run(scenario())
    assert (stopped.code, stopped.status) == ("too_slow", 503)
    assert _gone(pid, 5.0), "the solver process of a stopped solve still runs"
    assert answer["pid"] != pid  # the next solve in a fresh process

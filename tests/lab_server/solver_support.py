"""Solve functions for the lab solver's tests (issue 20, defect 2). The ones run in solver processes are
module-level functions of this importable module: a process pool pickles them by name."""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tablegames.server.labsolver import Job


def lab_threads(workers: int) -> Executor:
    """A thread pool in place of the solver processes (for tests of the solver's bookkeeping)."""
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lab")


def whoami(job: Job) -> dict[str, Any]:
    """Where a solve runs: its process, its parent and its niceness."""
    return {"pid": os.getpid(), "ppid": os.getppid(), "nice": os.nice(0), "game": job.game}


def wait_for_file(job: Job) -> dict[str, Any]:
    """Waits (at most 60 s) until the file named by the rule set's ``release`` entry exists; its pid first
    written to the file named by ``started``."""
    Path(job.rule_set["started"]).write_text(str(os.getpid()))
    release = Path(job.rule_set["release"])
    deadline = time.monotonic() + 60
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return {"pid": os.getpid()}


def explode(job: Job) -> dict[str, Any]:
    """A solve that fails with an error of no rule's."""
    raise ZeroDivisionError("boom")

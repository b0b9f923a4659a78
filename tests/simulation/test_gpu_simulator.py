"""Issue 28: the GPU path (``simulation.gpu``) under Numba's CUDA simulator returns what the CPU kernels
return for the same seed, bit for bit: every accumulator, outcome count, meter hit and seat-1 net of every
chunk, for every game, heads-up and at a full table with every side bet, meters hit often enough to grow the
hit buffers; and ``simulate --device gpu`` reports what ``--device cpu`` does.

The simulator runs the device functions' own Python source in Python (NumPy scalars), so it checks the
rebinding, the seeding, the per-thread state, the hit-buffer regrowth and the merge; Numba types the compiled
device code as it types the CPU kernels, and ``test_gpu_ptx.py`` compiles it. Each check runs in a fresh
process (``NUMBA_ENABLE_CUDASIM=1`` must be set before ``numba.cuda`` is imported)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablegames.rules import GAMES

SCRIPT = Path(__file__).with_name("gpu_simulator_check.py")


def simulated(*args: str) -> Any:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("game", GAMES)
def test_the_gpu_path_in_the_simulator_equals_the_cpu_kernels_bit_for_bit(game: str) -> None:
    cases = simulated(game)
    assert [c["case"] for c in cases][:3] == [
        "heads-up",
        "heads-up, seat 1's nets kept",
        "3 seats, every side bet",
    ]
    for c in cases:
        assert c["equal"] and all(c["equal"].values()), c
        assert c["chunks"] >= 2 and c["returned"] > 0  # several threads, money moved
        seats = 7 if c["case"].startswith("7 seats") else 3 if c["case"].startswith("3 seats") else 1
        assert c["wagers"] == seats * c["rounds"]
    for c in cases[3:]:  # the meters hit often: hits compared, and a hit buffer grew on the device
        assert c["hits"] > 0 and c["largest_chunk_hits"] > c["first_hit_buffer"], c


def test_simulate_device_gpu_in_the_simulator_reports_what_the_cpu_does() -> None:
    reports = simulated("final-count", "--cli")
    gpu, cpu = reports["gpu"], reports["cpu"]
    assert gpu.pop("device") == "gpu" and cpu.pop("device") == "cpu"
    assert gpu == cpu
    assert gpu["results"]["main"]["wagers"] == 4000

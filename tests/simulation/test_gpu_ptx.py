"""Issue 28: every game's GPU launcher compiles to PTX with Numba's CUDA target (and assembles with ``ptxas``),
where the CUDA toolkit is installed: the device code a run on a GPU would compile, checked without a GPU
(skipped without the toolkit). One fresh process per game (``gpu_ptx_check.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablegames.rules import GAMES

SCRIPT = Path(__file__).with_name("gpu_ptx_check.py")


@pytest.mark.parametrize("game", GAMES)
def test_the_gpu_launcher_compiles_to_ptx(game: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), game], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    assert out["entry"] and out["ptx_chars"] > 10_000
    if out["ptxas"] is not None:  # no unresolved call (a CPU-only helper) and valid PTX
        assert out["ptxas"]["returncode"] == 0, out["ptxas"]["stderr"]

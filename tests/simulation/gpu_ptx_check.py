"""Compile a game's GPU launcher (``simulation.gpu``) to PTX with Numba's CUDA target, and assemble it with
``ptxas`` when the CUDA toolkit has it: what a device run would compile, checked on a machine without a device.
Run as a script by ``test_gpu_ptx.py`` (a fresh process: it stands in a compute capability for the missing
device, see below).

``python tests/simulation/gpu_ptx_check.py GAME`` prints one JSON object: ``{"skip": reason}`` when Numba
finds no NVVM (no CUDA toolkit), else the PTX's size, its entry point and ``ptxas``'s verdict (or null
without ``ptxas``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

CC = (7, 5)
"""The compute capability compiled for (the oldest a CUDA 13 toolkit supports)."""


def main(game: str) -> dict[str, Any]:
    from numba import cuda, typeof
    from numba.cuda import dispatcher
    from numba.cuda.cudadrv import nvvm

    if not nvvm.is_available():
        return {"skip": "Numba finds no NVVM (no CUDA toolkit)"}
    # Numba asks the current device for its compute capability when it compiles a device function; there is
    # no device here, so it is told one.
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=CC)  # type: ignore[attr-defined]

    from tablegames.rules import make_rules
    from tablegames.simulation import gpu, make_job

    job = make_job(make_rules(game), 200, seats=2, strategy="basic", chunk_rounds=100)
    args = gpu.launch_args(gpu.chunk_arrays(job, [0, 1]), job.args)
    signature = tuple(typeof(a) for a in args)
    ptx, _ = cuda.compile_ptx(gpu.launcher(job).py_func, signature, cc=CC)
    out: dict[str, Any] = {"ptx_chars": len(ptx), "entry": ".entry" in ptx, "ptxas": None}
    ptxas = _ptxas()
    if ptxas is not None:
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "kernel.ptx"
            source.write_text(ptx)
            done = subprocess.run(
                [ptxas, f"-arch=sm_{CC[0]}{CC[1]}", str(source), "-o", str(Path(tmp) / "kernel.cubin")],
                capture_output=True,
                text=True,
            )
            out["ptxas"] = {"returncode": done.returncode, "stderr": done.stderr[-2000:]}
    return out


def _ptxas() -> str | None:
    """The toolkit's ``ptxas``: on the path, or under ``$CUDA_HOME`` / ``$CUDA_PATH`` or /usr/local/cuda."""
    found = shutil.which("ptxas")
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for home in (h for h in homes if h):
        if found is None and (Path(home) / "bin" / "ptxas").exists():
            found = str(Path(home) / "bin" / "ptxas")
    return found


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))

"""The GPU path under Numba's CUDA simulator against the CPU kernels, chunk by chunk: run as a script by
``test_gpu_simulator.py`` in a fresh process with ``NUMBA_ENABLE_CUDASIM=1`` (Numba reads the switch when
``numba.cuda`` is first imported, so it cannot be turned on inside the test session).

``python tests/simulation/gpu_simulator_check.py GAME`` prints one JSON object: per case, whether every
array of every chunk (accumulators, outcome counts, meter hits, seat 1's nets) is the CPU's, bit for bit,
with figures that show the case did something (rounds, hits, the chunks' largest hit count and the hit
buffer's first size); and, for ``--cli``, the ``simulate`` reports of ``--device gpu`` and ``--device cpu``.

During the device runs every call of a CPU-compiled function fails: the simulator runs the device functions'
own Python (the rebinding of ``simulation.gpu`` reached every function the kernel calls).
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

# The simulator computes in NumPy scalars: PCG64's 128-bit LCG wraps its uint64 words, as on the device,
# and NumPy says so each time.
warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

METER_RULES: dict[str, dict[str, str]] = {
    # a common hand takes a meter, so that short runs record many hits and grow the hit buffers
    "let-it-ride": {"progressive.tens-or-better": "minor", "progressive.two-pair": "major"},
    "one-eyed-flush": {"jackpot.meter-hand": "pair"},
}


@contextmanager
def no_cpu_calls() -> Iterator[None]:
    from numba.core.registry import CPUDispatcher

    def refuse(self: Any, *args: Any, **kw: Any) -> Any:
        raise AssertionError(f"the device path called the CPU-compiled {self.py_func.__qualname__}")

    saved = CPUDispatcher.__call__
    CPUDispatcher.__call__ = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        CPUDispatcher.__call__ = saved  # type: ignore[method-assign]


def cases(game: str) -> list[dict[str, Any]]:
    from tablegames.rules import registry

    sides = ",".join(w.name for w in registry.get(game).side_bets)
    out = [
        {"name": "heads-up", "rounds": 300, "seats": 1, "side": [], "chunk": 100},
        {
            "name": "heads-up, seat 1's nets kept",
            "rounds": 150,
            "seats": 1,
            "side": [],
            "chunk": 50,
            "keep": 1,
        },
        {"name": "3 seats, every side bet", "rounds": 150, "seats": 3, "side": [sides], "chunk": 50},
    ]
    if game in METER_RULES:
        out.append(
            {"name": "7 seats, meters hit often", "rounds": 160, "seats": 7, "side": [sides], "chunk": 80}
            | {"rules": METER_RULES[game], "keep": 1}
        )
    return out


def compare(game: str, case: dict[str, Any]) -> dict[str, Any]:
    from tablegames.rules import make_rules
    from tablegames.simulation import gpu, make_job, parse_side_bets
    from tablegames.simulation.job import run_chunks

    rules = make_rules(game, case.get("rules"))
    wagers = parse_side_bets(game, case["side"], rules, 500)
    job = make_job(
        rules, case["rounds"], case["seats"], wagers, strategy="basic", seed=11, chunk_rounds=case["chunk"]
    )
    keep = bool(case.get("keep"))
    cpu = run_chunks(job, list(range(job.chunks)), keep)
    with no_cpu_calls():
        dev = list(gpu.gpu_chunks(job, keep, batch=2))  # batches of 2 chunks: several launches
    fields = ["wager_acc", "seat_acc", "hist", "hits"] + (["seat1"] if keep else [])
    equal = {
        f: len(cpu) == len(dev)
        and all(np.array_equal(getattr(a, f), getattr(b, f)) for a, b in zip(cpu, dev, strict=True))
        for f in fields
    }
    equal["chunk"] = [(r.index, r.rounds) for r in cpu] == [(r.index, r.rounds) for r in dev]
    return {
        "case": case["name"],
        "equal": equal,
        "chunks": len(dev),
        "rounds": sum(r.rounds for r in dev),
        "wagers": int(sum(r.wager_acc[0, 0] for r in dev)),
        "returned": int(sum(r.wager_acc[0, 3] for r in dev)),
        "hits": sum(len(r.hits) for r in dev),
        "largest_chunk_hits": max(len(r.hits) for r in dev),
        "first_hit_buffer": 64 + job.chunk_rounds * job.seats // 256,
    }


def cli(game: str) -> dict[str, Any]:
    """``simulate GAME --device gpu`` and ``--device cpu``: the reports (the timing figures left out)."""
    from typer.testing import CliRunner

    from tablegames.cli import app

    out = {}
    for device in ("gpu", "cpu"):
        args = ["simulate", game, "-n", "2000", "--seats", "2", "--seed", "3", "--format", "json", "-q"]
        result = CliRunner().invoke(app, [*args, "--device", device])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        for key in ("elapsed_seconds", "rounds_per_second"):
            report.pop(key)
        out[device] = report
    return out


def main(argv: list[str]) -> None:
    from numba.core import config

    assert config.ENABLE_CUDASIM, "run with NUMBA_ENABLE_CUDASIM=1"
    game = argv[0]
    if argv[1:] == ["--cli"]:
        print(json.dumps(cli(game)))
        return
    print(json.dumps([compare(game, case) for case in cases(game)]))


if __name__ == "__main__":
    main(sys.argv[1:])

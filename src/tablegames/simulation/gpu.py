"""The simulation kernels on a CUDA device (Numba CUDA): the same chunks, streams and counts as on the CPU, bit
for bit (issue 28).

How it keeps the CPU's results exactly:

* **The same code.** A game's Numba kernel (its adapter's ``kernel()``) is compiled for the device from its own
  Python source, and so, recursively, is every compiled function it calls: the shared deal and accumulators
  (:mod:`tablegames.simulation.kernels`), the game's helpers and the rules' own functions it compiles
  (``kernels.compiled_rule``). Each becomes a CUDA device function with the functions it names rebound to
  their device versions; no rule is written again and nothing here names a game. What the CUDA target
  lacks is replaced by equals: the 128-bit multiply's LLVM intrinsic (``kernels.mulhi64``) by 32-bit limbs
  (``kernels.mulhi64_limbs``; the tests check the two equal), and the builtins ``min``/``max`` of two
  scalars (:data:`BUILTINS`). Numba types the device code as it types the CPU code (the same int64/uint64
  arithmetic), so every integer is the same.
* **The same streams.** One device thread plays one chunk, rounds ``0 .. n-1`` of it, from the chunk's own
  ``PCG64(SeedSequence(seed, spawn_key=(chunk,)))`` (:func:`tablegames.simulation.job.run_chunk`'s), with
  its own deck, scratch, accumulators and hit buffer. A thread whose hit buffer runs low stops where the CPU
  kernel would; the host grows the buffers and launches again, the thread going on from its state (the same
  random words, as on the CPU).
* **The same merge.** Each chunk comes back as its own ``ChunkResult`` and the tally adds them in chunk order
  by integer addition, exactly as for the CPU's (so the meters, the bankroll view and every count agree).

A device's parallelism is the number of chunks in flight (one thread each, ``BATCH`` chunks a launch).

A game without a Numba kernel (the round engine's, :mod:`tablegames.simulation.engine_kernel`) has no device
path: :class:`GpuError` names it (no silent fall back to the CPU).

Running on a device needs an NVIDIA GPU, its driver and the CUDA toolkit Numba's CUDA target uses (NVVM and
libdevice; see Numba's CUDA documentation); none is a dependency of this package. The device code is tested
under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``: the same Python source, run in Python) against the
CPU kernels, and compiled to PTX where the toolkit is installed (tests/simulation/test_gpu_*.py).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from tablegames.simulation import kernels
from tablegames.simulation.job import ChunkResult, Job, SimulationError, chunk_rng, hit_rows
from tablegames.simulation.strategy import kernel_of

BATCH = 1024
"""Chunks per launch (one device thread each): ``BATCH * kernels.SCRATCH`` int64 words of scratch (128 MB)."""
THREADS = 64
"""Threads per block."""


class GpuError(SimulationError):
    """A simulation that cannot run on a CUDA device (no device, or a kernel with no device path)."""


def _cuda() -> Any:
    """``numba.cuda`` (imported when first needed: the simulator's switch is read then)."""
    from numba import cuda

    return cuda


def available() -> bool:
    """Whether Numba finds a CUDA device (``numba.cuda.is_available()``; always under the simulator)."""
    try:
        cuda = _cuda()
    except Exception:  # pragma: no cover - a broken CUDA install: no device
        return False
    return bool(cuda.is_available())


def simulated() -> bool:
    """Whether Numba's CUDA simulator stands in for a device (``NUMBA_ENABLE_CUDASIM=1``)."""
    from numba.core import config

    return bool(getattr(config, "ENABLE_CUDASIM", 0))


def unsupported(game: object) -> str | None:
    """Why ``game``'s kernel has no device path, or None when it has one."""
    fn = kernel_of(game).kernel()
    if getattr(fn, "py_func", None) is None:
        return f"{_name(fn)} is not a Numba kernel: it has no GPU path"
    return None


def require(job: Job) -> None:
    """Raise :class:`GpuError` unless ``job`` can run on a device here (its kernel first, then the device)."""
    require_kernel(job)
    if not available():
        raise GpuError(NO_DEVICE)


NO_DEVICE = (
    "no CUDA device found (numba.cuda.is_available() is false): a GPU run needs an NVIDIA GPU, its driver "
    "and the CUDA toolkit Numba uses; nothing was run"
)


# --- the device functions ---------------------------------------------------------------------------------


def _name(fn: object) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', getattr(fn, '__name__', fn))}"


def _substitutes() -> dict[Any, Any]:
    """CPU-only compiled functions and their device equals."""
    return {kernels.mulhi64: kernels.mulhi64_limbs}


def _min2(a, b):  # type: ignore[no-untyped-def]
    """``min(a, b)`` (``a`` unless ``b`` is less)."""
    return b if b < a else a


def _max2(a, b):  # type: ignore[no-untyped-def]
    """``max(a, b)`` (``a`` unless ``b`` is greater)."""
    return b if b > a else a


BUILTINS = {"min": _min2, "max": _max2}
"""Builtins a compiled function may call that Numba's CUDA target (0.68) does not compile for scalars (its
``min``/``max`` overload takes ``*args``): bound, in a device function's names, to these two-argument equals
(called otherwise, the device compile fails on the number of arguments)."""


_DEVICE: dict[Any, Any] = {}
"""Device functions by the compiled (or builtin-replacing) function they were made from."""


def device_function(fn: Any) -> Any:
    """The CUDA device function of the compiled function ``fn`` (a Numba CPU dispatcher): its Python source
    compiled for the device, every compiled function it names replaced by its own device function."""
    found = _DEVICE.get(fn)
    if found is not None:
        return found
    cuda = _cuda()
    py = fn.py_func
    names = dict(py.__globals__)
    used = _code_names(py.__code__)
    for name in used & names.keys():
        names[name] = _on_device(names[name], f"{_name(py)} ({name})")
    for name in (used & BUILTINS.keys()) - names.keys():
        names[name] = _builtin(name)
    closure = py.__closure__
    if closure is not None:
        closure = tuple(
            types.CellType(_on_device(c.cell_contents, f"{_name(py)} (closure)")) for c in closure
        )
    own = types.FunctionType(py.__code__, names, py.__name__, py.__defaults__, closure)
    own.__qualname__, own.__module__, own.__doc__ = py.__qualname__, py.__module__, py.__doc__
    dev = cuda.jit(device=True)(own)
    _DEVICE[fn] = dev
    return dev


def _builtin(name: str) -> Any:
    fn = BUILTINS[name]
    found = _DEVICE.get(fn)
    if found is None:
        found = _DEVICE[fn] = _cuda().jit(device=True)(fn)
    return found


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def _on_device(value: Any, where: str) -> Any:
    from numba.core.dispatcher import Dispatcher
    from numba.core.extending import _Intrinsic

    with contextlib.suppress(TypeError):  # an unhashable value (an array, a dict) is no function
        value = _substitutes().get(value, value)
    if isinstance(value, Dispatcher):
        return device_function(value)
    if isinstance(value, _Intrinsic):
        raise GpuError(f"{where}: a CPU intrinsic with no device equivalent")
    return value


_LAUNCHERS: dict[tuple[Any, int], Any] = {}

_LAUNCHER = """
def chunks(ends, reached, decks, deck, rng, scratch, nseats, {args}, wager_acc, seat_acc, hist, hits, nhits,
           seat1, detail):
    i = cuda.grid(1)
    if i < ends.shape[0] and reached[i] < ends[i]:
        {call}
"""
_WITH_HITS = """r, n = body(reached[i], ends[i], decks, deck[i], rng[i], scratch[i], nseats, {args}, wager_acc[i],
                       seat_acc[i], hist[i], hits[i], nhits[i], seat1[i], detail)
        reached[i] = r
        nhits[i] = n"""
_NO_HITS = """reached[i] = body(reached[i], ends[i], decks, deck[i], rng[i], scratch[i], nseats, {args},
                          wager_acc[i], seat_acc[i], hist[i], seat1[i], detail)"""


def launcher(job: Job) -> Any:
    """The CUDA kernel playing ``job``'s chunks, one a thread: ``chunks[blocks, threads](...)`` with one row
    per chunk of each per-chunk array (see :func:`play_chunks`)."""
    require_kernel(job)
    kernel = kernel_of(job.game)
    fn = kernel.kernel()
    key = (fn, len(job.args))
    found = _LAUNCHERS.get(key)
    if found is not None:
        return found
    cuda = _cuda()
    args = ", ".join(f"a{i}" for i in range(len(job.args)))
    call = (_WITH_HITS if kernel.with_hits else _NO_HITS).format(args=args)
    scope: dict[str, Any] = {"cuda": cuda, "body": device_function(fn)}
    exec(compile(_LAUNCHER.format(args=args, call=call), f"<gpu launcher of {_name(fn)}>", "exec"), scope)
    found = cuda.jit(scope["chunks"])
    _LAUNCHERS[key] = found
    return found


def require_kernel(job: Job) -> None:
    """Raise :class:`GpuError` when ``job``'s kernel has no device path (whether or not there is a device)."""
    why = unsupported(job.game)
    if why is not None:
        raise GpuError(f"{job.game} cannot run on the GPU: {why}")


# --- running chunks ---------------------------------------------------------------------------------------


def chunk_arrays(job: Job, indices: list[int], keep_seat1: bool = False) -> dict[str, Any]:
    """The host arrays of a launch playing chunks ``indices`` of ``job`` (one row per chunk, one thread each):
    each chunk's rounds (``ends``) and the round reached, its deck, its ``PCG64`` stream's state (from
    :func:`~tablegames.simulation.job.chunk_rng`, as for the CPU), scratch, accumulators, hit buffer and seat 1's
    nets; no given decks and no detail (as a chunk is played)."""
    c = len(indices)
    spans = [job.chunk_span(i) for i in indices]
    ends = np.array([b - a for a, b in spans], dtype=np.int64)
    longest = int(ends.max()) if c else 0
    return {
        "ends": ends,
        "reached": np.zeros(c, dtype=np.int64),
        "decks": np.zeros((0, job.deal_cards), dtype=np.int64),
        "deck": np.tile(np.arange(52, dtype=np.int64), (c, 1)),
        "rng": np.stack([chunk_rng(job, i) for i in indices]),
        "scratch": np.zeros((c, kernels.SCRATCH), dtype=np.int64),
        "nseats": np.int64(job.seats),
        "wager_acc": np.zeros((c, len(job.wager_rows), 6), dtype=np.int64),
        "seat_acc": np.zeros((c, job.seats, 5), dtype=np.int64),
        "hist": np.zeros((c, job.hist_size), dtype=np.int64),
        "hits": np.zeros((c, hit_rows(job, longest), kernels.HIT_FIELDS), dtype=np.int64),
        "nhits": np.zeros(c, dtype=np.int64),
        "seat1": np.zeros((c, longest if keep_seat1 else 0), dtype=np.int64),
        "detail": np.zeros((0, 0, 0), dtype=np.int64),
    }


def launch_args(arrays: dict[str, Any], tables: tuple[Any, ...]) -> tuple[Any, ...]:
    """The launcher's arguments, in its order: ``arrays`` (:func:`chunk_arrays`'s, or their device copies)
    around the kernel's table arguments."""
    a = arrays
    head = (a["ends"], a["reached"], a["decks"], a["deck"], a["rng"], a["scratch"], a["nseats"])
    return (
        *head,
        *tables,
        a["wager_acc"],
        a["seat_acc"],
        a["hist"],
        a["hits"],
        a["nhits"],
        a["seat1"],
        a["detail"],
    )


def play_chunks(
    job: Job, indices: list[int], keep_seat1: bool = False, tables: tuple[Any, ...] | None = None
) -> list[ChunkResult]:
    """Play chunks ``indices`` of ``job`` on the device, one thread each: the ``ChunkResult`` of each, equal
    to :func:`tablegames.simulation.job.run_chunk`'s. ``tables``: :func:`table_args` (made when not given)."""
    cuda = _cuda()
    run = launcher(job)
    host = chunk_arrays(job, indices, keep_seat1)
    dev = {k: cuda.to_device(v) if isinstance(v, np.ndarray) else v for k, v in host.items()}
    args = tables if tables is not None else table_args(job)
    blocks = -(-len(indices) // THREADS)
    while True:
        run[blocks, THREADS](*launch_args(dev, args))
        if (dev["reached"].copy_to_host() >= host["ends"]).all():
            break
        # a hit buffer ran low: double them all; the threads go on from their state (the CPU kernel's way)
        h = dev["hits"].copy_to_host()
        dev["hits"] = cuda.to_device(np.concatenate([h, np.zeros_like(h)], axis=1))
    out = {k: v.copy_to_host() for k, v in dev.items() if k not in ("nseats", "decks", "detail")}
    results = []
    for j, i in enumerate(indices):
        start, end = job.chunk_span(i)
        n = end - start
        hits = out["hits"][j, : out["nhits"][j]].copy()
        hits[:, 0] += start + 1
        seat1 = out["seat1"][j, :n].copy() if keep_seat1 else None
        acc = (out["wager_acc"][j], out["seat_acc"][j], out["hist"][j])
        results.append(ChunkResult(i, n, *acc, hits=hits, seat1=seat1))
    return results


def table_args(job: Job) -> tuple[Any, ...]:
    """``job``'s kernel table arguments on the device (arrays copied there once, scalars as they are)."""
    cuda = _cuda()
    return tuple(
        cuda.to_device(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a for a in job.args
    )


def gpu_chunks(job: Job, keep_seat1: bool = False, batch: int = BATCH) -> Iterator[ChunkResult]:
    """Every chunk of ``job`` played on the device, ``batch`` a launch, in chunk order."""
    require(job)
    tables = table_args(job)
    for first in range(0, job.chunks, batch):
        indices = list(range(first, min(job.chunks, first + batch)))
        yield from play_chunks(job, indices, keep_seat1, tables)

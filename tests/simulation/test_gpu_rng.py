"""Issue 28: the device's 128-bit multiply (``kernels.mulhi64_limbs``, 32-bit limbs: a CUDA target has no
128-bit intrinsic) is the CPU's, and ``pcg64_next`` compiled with it in place of ``mulhi64`` (what
``simulation.gpu`` does on the device) draws NumPy's ``PCG64`` outputs exactly."""

from __future__ import annotations

import types

import numpy as np
from numba import njit

from tablegames.simulation import kernels


@njit(cache=False)
def _both(a, b):  # type: ignore[no-untyped-def]
    out = np.empty((a.shape[0], 2), dtype=np.uint64)
    for i in range(a.shape[0]):
        out[i, 0] = kernels.mulhi64(a[i], b[i])
        out[i, 1] = kernels.mulhi64_limbs(a[i], b[i])
    return out


def test_mulhi64_limbs_is_the_intrinsic_and_exact() -> None:
    rng = np.random.default_rng(28)
    edges = np.array(
        [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 0x2360ED051FC65DA4, 0x4385DF649FCCF645], dtype=np.uint64
    )
    a = np.concatenate([rng.integers(0, 2**64 - 1, 20_000, dtype=np.uint64, endpoint=True), edges.repeat(8)])
    b = np.concatenate(
        [rng.integers(0, 2**64 - 1, 20_000, dtype=np.uint64, endpoint=True), np.tile(edges, 8)]
    )
    out = _both(a, b)
    assert (out[:, 0] == out[:, 1]).all()
    exact = [(int(x) * int(y)) >> 64 for x, y in zip(a[-64:], b[-64:], strict=True)]
    assert out[-64:, 1].tolist() == exact


def test_pcg64_with_the_limbs_multiply_draws_numpys_outputs() -> None:
    py = kernels.pcg64_next.py_func
    names = {**py.__globals__, "mulhi64": kernels.mulhi64_limbs}
    step = njit(types.FunctionType(py.__code__, names, py.__name__))

    @njit
    def draws(state, n):  # type: ignore[no-untyped-def]
        out = np.empty(n, dtype=np.uint64)
        hi, lo = state[0], state[1]
        for i in range(n):
            hi, lo, out[i] = step(hi, lo, state[2], state[3])
        return out

    for seed in (0, 28, 2**40 + 7):
        bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(3,)))
        state = kernels.rng_state(bitgen)
        assert draws(state, 5000).tolist() == bitgen.random_raw(5000).tolist()

"""The Numba kernels' shared parts: the deal and the accumulators. Each game's kernel (many whole rounds per call,
every seat and wager, settled exactly as the round engine does) lives in its own kernel file, beside its adapter
(``GameDefinition.kernel``).

Each kernel plays rounds ``start .. end-1`` of one chunk and returns the round reached (and the number of
hits, for a kernel that records them); it stops early only when its hit buffer runs low, and the caller
grows it and calls again (deterministic: the same chunk always consumes the same random words).

Cards come either from given decks (``decks[r]`` in deal order: equivalence tests against the engine) or
from a partial Fisher–Yates shuffle driven by the 32-bit words of a NumPy ``PCG64`` stream (each 64-bit
output's low half, then its high half), drawn without bias by Lemire's multiply-and-reject method (R-0.1).
Only the prefix of the deck a round can use is shuffled. The kernels step the ``PCG64`` generator themselves
(:func:`pcg64_next`, bit for bit NumPy's: its 128-bit state in :data:`RNG_FIELDS` words, see
:func:`rng_state`), so no buffer of words is made, read or refilled.

The kernels are compiled without Numba's reference counting (``njit(_nrt=False)``) and so allocate no array:
their cards, class counts and per-seat values are views of a :data:`SCRATCH`-word array given by the caller
(:func:`scratch`). With reference counting on, an array passed to an inlined helper (``load_round``'s two
branches) kept an atomic increment and decrement of its count in the loop of rounds (LLVM merged the two
branches' decrements into one before Numba's pruning pass could pair them): 5–10 calls a round, about 85 ns of
a heads-up round's 105 (issue 28).

Deal order (R-0.2): card ``p`` (0, 1, 2) of seat ``s`` (0-based) is at position ``p * (S + 1) + s``, the
dealer's at ``p * (S + 1) + S``; a game's draws follow at ``3 * (S + 1)`` in seat order, then the dealer's.

Jackpot meters are sequential across rounds, so kernels only *record* meter hits (round, seat, meter and the
nets needed to correct the sums afterwards); :mod:`tablegames.simulation.meters` pays them exactly in order.

Accumulators (int64, merged by addition):

* ``wager_acc[w] = [wagers, units, staked, returned, sum of x^2 (high part, low 32 bits)]`` where ``x`` is the round's net of wager
  type ``w`` over all seats (``units``: sum of initial wagers, the denominator of the house edge);
* ``seat_acc[s] = [units, staked, returned, sum of x^2 (high, low)]`` with ``x`` the seat's net of the round;
* ``hist``: outcome counts (layout per game: its adapter's ``outcomes``).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit
from numba import types as nbtypes
from numba.extending import intrinsic

HIT_FIELDS = 6  # round, seat, meter, seat's progressive net (meter excluded), round's, seat's total net


SCRATCH = 16_000
"""int64 words of a kernel's scratch array: seven seats' cards and per-seat values, or a heads-up round's class
counts (One Eyed Flush: 4 x 63 x 63 at most); 128 kB, under the C allocator's default threshold for ``mmap``."""


def scratch() -> npt.NDArray[np.int64]:
    """A kernel's scratch array (one per call: the kernels release the GIL and may run in threads)."""
    return np.zeros(SCRATCH, dtype=np.int64)


_KERNEL_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}


def game_kernel(fn: Callable[..., Any]) -> Any:
    """A game's kernel compiled as the module says: cached, without the GIL and without reference counting
    (it allocates nothing: its arrays are views of the caller's :func:`scratch`)."""
    return njit(**_KERNEL_OPTIONS)(fn)


RNG_FIELDS = 6
"""The kernels' generator state (uint64): PCG64's 128-bit state (high, low), its increment (high, low), a
32-bit word left over from the last 64-bit output and whether there is one."""
_MULT_HI = np.uint64(0x2360ED051FC65DA4)  # PCG64's 128-bit multiplier (NumPy's PCG_DEFAULT_MULTIPLIER_128)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_MASK32 = np.uint64(0xFFFFFFFF)


@intrinsic
def _mulhi64(typingctx, a, b):  # type: ignore[no-untyped-def]
    """The high 64 bits of the 128-bit product of two uint64 (one ``mul`` instruction)."""
    sig = nbtypes.uint64(nbtypes.uint64, nbtypes.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i128 = ir.IntType(128)
        x = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(x, ir.Constant(i128, 64)), ir.IntType(64))

    return sig, codegen


mulhi64: Any = _mulhi64  # called in compiled code only (an intrinsic)

_SHIFT32 = np.uint64(32)


@njit(cache=True, nogil=True, inline="always")
def mulhi64_limbs(a, b):  # type: ignore[no-untyped-def]
    """:func:`mulhi64` by 32-bit limbs, with no 128-bit integer and no operation that wraps: what the device
    kernels (:mod:`tablegames.simulation.gpu`) call in its place (a CUDA target has no such intrinsic).

    >>> a, b = np.uint64(2**64 - 1), np.uint64(2**64 - 3)
    >>> int(mulhi64_limbs(a, b)) == (int(a) * int(b)) >> 64
    True
    """
    a0 = a & _MASK32
    a1 = a >> _SHIFT32
    b0 = b & _MASK32
    b1 = b >> _SHIFT32
    p01 = a0 * b1
    p10 = a1 * b0
    mid = ((a0 * b0) >> _SHIFT32) + (p01 & _MASK32) + (p10 & _MASK32)  # < 3 * 2**32
    return a1 * b1 + (p01 >> _SHIFT32) + (p10 >> _SHIFT32) + (mid >> _SHIFT32)


@njit(cache=True, nogil=True, inline="always")
def pcg64_next(hi, lo, inc_hi, inc_lo):  # type: ignore[no-untyped-def]
    """One step of NumPy's ``PCG64`` (128-bit LCG, XSL-RR output): ``(new hi, new lo, 64-bit output)``."""
    new_lo = lo * _MULT_LO
    new_hi = mulhi64(lo, _MULT_LO) + lo * _MULT_HI + hi * _MULT_LO
    lo2 = new_lo + inc_lo
    hi2 = new_hi + inc_hi + (np.uint64(1) if lo2 < new_lo else np.uint64(0))
    x = hi2 ^ lo2
    rot = hi2 >> np.uint64(58)
    out = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    return hi2, lo2, out


def rng_state(bitgen: np.random.PCG64) -> npt.NDArray[np.uint64]:
    """The kernels' generator state (:data:`RNG_FIELDS`) at ``bitgen``'s state: the kernels then draw the
    same 64-bit outputs as ``bitgen.random_raw()`` would.

    >>> bg = np.random.PCG64(5)
    >>> draws(rng_state(np.random.PCG64(5)), 3).tolist() == bg.random_raw(3).tolist()
    True
    """
    st = bitgen.state["state"]
    m = (1 << 64) - 1
    s, inc = int(st["state"]), int(st["inc"])
    return np.array([s >> 64, s & m, inc >> 64, inc & m, 0, 0], dtype=np.uint64)


@njit(cache=True, nogil=True)
def draws(rng, n):  # type: ignore[no-untyped-def]
    """The next ``n`` 64-bit outputs of the generator ``rng`` (which is advanced): tests and examples."""
    out = np.empty(n, dtype=np.uint64)
    hi, lo = rng[0], rng[1]
    for i in range(n):
        hi, lo, out[i] = pcg64_next(hi, lo, rng[2], rng[3])
    rng[0], rng[1] = hi, lo
    return out


@njit(cache=True, nogil=True, inline="always")
def deal_prefix(deck, k, rng):  # type: ignore[no-untyped-def]
    """Shuffle the first ``k`` places of ``deck`` (partial Fisher–Yates) with words of ``rng``."""
    hi, lo, inc_hi, inc_lo, spare, have = rng[0], rng[1], rng[2], rng[3], rng[4], rng[5]
    for i in range(k):
        n = np.uint64(52 - i)
        while True:
            if have != 0:
                w = spare
                have = np.uint64(0)
            else:
                hi, lo, x = pcg64_next(hi, lo, inc_hi, inc_lo)
                w = x & _MASK32
                spare = x >> np.uint64(32)
                have = np.uint64(1)
            m = w * n
            low = m & _MASK32
            if low >= n:
                break
            if low >= (np.uint64(4294967296) - n) % n:  # Lemire: reject the few biased values
                break
        j = i + np.int64(m >> np.uint64(32))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    rng[0], rng[1], rng[4], rng[5] = hi, lo, spare, have


@njit(cache=True, nogil=True, inline="always")
def load_round(r, k, decks, deck, rng, cards):  # type: ignore[no-untyped-def]
    """Put round ``r``'s first ``k`` cards into ``cards``: row ``r`` of the given ``decks`` when there are any,
    else a partial shuffle of ``deck`` drawn from ``rng``."""
    if decks.shape[0] > 0:
        for i in range(k):
            cards[i] = decks[r, i]
        return
    deal_prefix(deck, k, rng)
    for i in range(k):
        cards[i] = deck[i]


@njit(cache=True, nogil=True, inline="always")
def add_square(acc, i, j, x):  # type: ignore[no-untyped-def]
    """acc[i, j] (high part) and acc[i, j + 1] (low 32 bits) += x * x: exact, no int64 overflow in a chunk."""
    q = x * x
    acc[i, j] += q >> 32
    acc[i, j + 1] += q & 0xFFFFFFFF


@njit(cache=True, nogil=True, inline="always")
def add_square_times(acc, i, j, x, c):  # type: ignore[no-untyped-def]
    """``c`` times :func:`add_square` of ``x`` (the rounds of one class: the same integers, added at once)."""
    q = x * x
    acc[i, j] += c * (q >> 32)
    acc[i, j + 1] += c * (q & 0xFFFFFFFF)


def compiled_rule(rule: Callable[..., Any], *calls: Callable[..., Any]) -> Any:
    """A rules module's pure integer function compiled for a kernel (``njit(inline="always")``: one source of
    the rule, issue 21), the rules functions it ``calls`` compiled alike and bound in place of the plain ones
    (Numba compiles a call only to a compiled function; the rules layer imports no Numba).

    >>> from tablegames.rules.common import returned_at_odds
    >>> rule = compiled_rule(returned_at_odds)
    >>> rule(100, 3), rule.py_func(100, 3)
    (400, 400)
    """
    names = dict(rule.__globals__)
    names.update((c.__name__, njit(inline="always")(c)) for c in calls)
    own = types.FunctionType(rule.__code__, names, rule.__name__, rule.__defaults__, rule.__closure__)
    own.__doc__, own.__qualname__, own.__module__ = rule.__doc__, rule.__qualname__, rule.__module__
    return njit(inline="always")(own)

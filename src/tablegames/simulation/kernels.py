"""The Numba kernels' shared parts: the deal and the accumulators. Each game's kernel (many whole rounds per call,
every seat and wager, settled exactly as the round engine does) lives in its own kernel file, beside its adapter
(``GameDefinition.kernel``).

Each kernel plays rounds ``start .. end-1`` of one chunk and returns ``(round reached, buffer position,
number of hits)``; it stops early only when its random-word buffer or its hit buffer runs low, and the
caller refills and calls again (deterministic: the same chunk always consumes the same words).

Cards come either from given decks (``decks[r]`` in deal order: equivalence tests against the engine) or
from a partial Fisher–Yates shuffle driven by 32-bit words of a NumPy ``PCG64`` stream, drawn without bias by
Lemire's multiply-and-reject method (R-0.1).  Only the prefix of the deck a round can use is shuffled.

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
from numba import njit

HIT_FIELDS = 6  # round, seat, meter, seat's progressive net (meter excluded), round's, seat's total net


@njit(cache=True, nogil=True)
def deal_prefix(deck, k, buf, pos):  # type: ignore[no-untyped-def]
    """Shuffle the first ``k`` places of ``deck`` (partial Fisher–Yates); -1 when ``buf`` runs out."""
    nbuf = buf.shape[0]
    mask = np.uint64(0xFFFFFFFF)
    for i in range(k):
        n = np.uint64(52 - i)
        while True:
            if pos >= nbuf:
                return -1
            m = np.uint64(buf[pos]) * n
            pos += 1
            low = m & mask
            if low >= n:
                break
            if low >= (np.uint64(4294967296) - n) % n:  # Lemire: reject the few biased values
                break
        j = i + np.int64(m >> np.uint64(32))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    return pos


@njit(cache=True, nogil=True, inline="always")
def load_round(r, k, decks, deck, buf, pos, cards):  # type: ignore[no-untyped-def]
    """Put round ``r``'s first ``k`` cards into ``cards``: row ``r`` of the given ``decks`` when there are any,
    else a partial shuffle of ``deck`` from ``buf``. Returns the new buffer position; -1 when ``buf`` may not
    hold a whole deal (the caller refills it first), -2 when it ran out during the deal."""
    if decks.shape[0] > 0:
        for i in range(k):
            cards[i] = decks[r, i]
        return pos
    if pos + k > buf.shape[0]:
        return -1
    p = deal_prefix(deck, k, buf, pos)
    if p < 0:
        return -2
    for i in range(k):
        cards[i] = deck[i]
    return p


@njit(cache=True, nogil=True, inline="always")
def add_square(acc, i, j, x):  # type: ignore[no-untyped-def]
    """acc[i, j] (high part) and acc[i, j + 1] (low 32 bits) += x * x: exact, no int64 overflow in a chunk."""
    q = x * x
    acc[i, j] += q >> 32
    acc[i, j + 1] += q & 0xFFFFFFFF


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

"""The guard that keeps deterministic sources away from live tables."""

from __future__ import annotations

from typing import TypeVar

from tablegames.randomness.fairness import ProvablyFairRandom
from tablegames.randomness.sources import LiveRandom, NotLiveError, RandomSource

S = TypeVar("S", bound=RandomSource)


def require_live(source: S) -> S:
    """Return ``source`` if it may deal a live round, else raise :class:`NotLiveError`.

    Accepted: :class:`LiveRandom` (the OS cryptographic source), and a :class:`ProvablyFairRandom` whose
    server seed is *secret* — drawn by ``ServerSeed.generate()`` from :mod:`secrets` and not yet revealed —
    because then nobody but the server can predict the deck, and the server committed to it before the deal.
    Refused: :class:`SeededRandom`, the broken test sources, and a ``ProvablyFairRandom`` built from given
    bytes/hex (verification, replay) or whose seed has been revealed.

    >>> require_live(LiveRandom())
    LiveRandom()
    >>> from tablegames.randomness import SeededRandom
    >>> require_live(SeededRandom(7))
    Traceback (most recent call last):
    ...
    tablegames.randomness.sources.NotLiveError: SeededRandom(7) is a seeded source: a live table needs LiveRandom() \
or a ProvablyFairRandom with a secret server seed (ServerSeed.generate(), not yet revealed)
    """
    if type(source) is LiveRandom:
        return source
    if type(source) is ProvablyFairRandom and source.live:
        return source
    raise NotLiveError(
        f"{source!r} is a {source.kind} source: a live table needs LiveRandom() or a ProvablyFairRandom "
        "with a secret server seed (ServerSeed.generate(), not yet revealed)"
    )

"""Randomness: the only place the project draws random numbers for dealing.

Kinds of source, each its own type, which cannot be mixed up:

* :class:`LiveRandom` draws from the operating system's cryptographic source (``secrets``); it has no seed
  and cannot be given one.  Live tables use it.
* :class:`SeededRandom` is a deterministic generator for simulation, replay and tests: the same seed gives
  the same decks.  :func:`require_live` refuses it.
* :class:`ProvablyFairRandom` derives the deck from (server seed, client seed, round number) by HMAC-SHA256 so a
  player can verify the round afterwards (:mod:`tablegames.randomness.fairness`); live only while its server
  seed is secret.

All expose ``randbelow(n)``, an unbiased integer in ``[0, n)`` by rejection sampling, and
:func:`shuffle_deck` deals a complete 52-card deck by Fisher–Yates (R-0.1).  The statistical evidence is in
:mod:`tablegames.randomness.stats` (``tablegames rng-test``).

>>> a = shuffle_deck(SeededRandom(7)); b = shuffle_deck(SeededRandom(7))
>>> a == b, sorted(a) == list(range(52))
(True, True)
>>> shuffle_deck(require_live(LiveRandom())) != a
True
"""

from tablegames.randomness.fairness import (
    ProvablyFair,
    ProvablyFairRandom,
    RecordFormatError,
    RoundRecord,
    ServerSeed,
    derive_deck,
    fairness_record,
    load_record,
    verify_record,
)
from tablegames.randomness.guard import require_live
from tablegames.randomness.sources import (
    LiveRandom,
    NotLiveError,
    RandomSource,
    SeededRandom,
    shuffle_deck,
    shuffle_items,
)

__all__ = [
    "LiveRandom",
    "NotLiveError",
    "ProvablyFair",
    "ProvablyFairRandom",
    "RandomSource",
    "RecordFormatError",
    "RoundRecord",
    "SeededRandom",
    "ServerSeed",
    "derive_deck",
    "fairness_record",
    "load_record",
    "require_live",
    "shuffle_deck",
    "shuffle_items",
    "verify_record",
]

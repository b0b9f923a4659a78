"""Randomness: the only place the project draws random numbers for dealing.

Two kinds of source, which cannot be mixed up:

* :class:`LiveRandom` draws from the operating system's cryptographic source (``secrets``); it has no seed
  and cannot be given one.  Live tables use it.
* :class:`SeededRandom` is a deterministic generator for simulation, replay and tests: the same seed gives
  the same decks.

Both expose ``randbelow(n)``, an unbiased integer in ``[0, n)`` by rejection sampling, and
:func:`shuffle_deck` deals a complete 52-card deck by Fisher–Yates (R-0.1).

>>> a = shuffle_deck(SeededRandom(7)); b = shuffle_deck(SeededRandom(7))
>>> a == b, sorted(a) == list(range(52))
(True, True)
"""

from tablegames.randomness.sources import LiveRandom, RandomSource, SeededRandom, shuffle_deck

__all__ = ["LiveRandom", "RandomSource", "SeededRandom", "shuffle_deck"]

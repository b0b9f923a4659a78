"""Provably fair dealing's sources and commitments (steps 1-6 and 8 of the protocol in
:mod:`tablegames.randomness.fairness`): the server seed and its SHA-256 commitment, client seeds (a player's,
the table's combination, the default), and the HMAC-SHA256 byte stream that shuffles the deck.

>>> seed = ServerSeed(bytes(range(32)))
>>> derive_deck(seed, "player", 1) == derive_deck(seed.hex, "player", 1)
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from collections.abc import Iterable
from typing import ClassVar, Final, final

from tablegames.cards import Card
from tablegames.randomness.sources import RandomSource, shuffle_deck

SEED_BYTES: Final = 32
ALGORITHM: Final = "hmac-sha256-fisher-yates/1"
MAX_CLIENT_SEED: Final = 256
MAX_PLAYER_SEED: Final = 64

_FRESH: Final = object()


def commitment_of(server_seed: bytes) -> str:
    """The published commitment: SHA-256 of the server seed's bytes, lower-case hex."""
    return hashlib.sha256(server_seed).hexdigest()


def check_player_seed(seed: object) -> str:
    """A player's seed: a string of 1-:data:`MAX_PLAYER_SEED` characters without control characters.

    >>> check_player_seed("lucky 7")
    'lucky 7'
    >>> check_player_seed("x" * 65)
    Traceback (most recent call last):
    ...
    ValueError: a client seed is a string of 1-64 characters without control characters
    """
    if (
        not isinstance(seed, str)
        or not 1 <= len(seed) <= MAX_PLAYER_SEED
        or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in seed)
    ):
        raise ValueError(
            f"a client seed is a string of 1-{MAX_PLAYER_SEED} characters without control characters"
        )
    return seed


def combine_client_seeds(seeds: Iterable[tuple[int, str]]) -> str:
    """The round's one client seed from the seats' seeds: SHA-256 (hex) of the compact JSON ``[[seat, seed], ...]``
    in seat order (step 8 of the protocol).

    >>> combine_client_seeds([(3, "b"), (1, "a")]) == combine_client_seeds([(1, "a"), (3, "b")])
    True
    >>> len(combine_client_seeds([(1, "lucky")]))
    64
    """
    pairs = sorted((int(seat), check_player_seed(seed)) for seat, seed in seeds)
    if not pairs:
        raise ValueError("no client seeds to combine")
    text = json.dumps([[seat, seed] for seat, seed in pairs], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def default_client_seed(commitment: str) -> str:
    """The client seed used when the player gives none: the first 16 hex digits of the commitment."""
    return commitment[:16]


@final
class ServerSeed:
    """A 32-byte server seed.

    Only :meth:`generate` makes a *secret* seed (fresh bytes from :mod:`secrets`, never shown until
    :meth:`reveal`). A seed built from given bytes (for verification or replay) is not secret, and a
    :class:`ProvablyFairRandom` built from it is refused by ``require_live``.

    >>> s = ServerSeed.generate()
    >>> s.secret, len(s.commitment)
    (True, 64)
    >>> _ = s.reveal(); s.secret
    False
    """

    __slots__ = ("_fresh", "_revealed", "_value")

    def __init__(self, value: bytes, *, _origin: object = None) -> None:
        if not isinstance(value, bytes | bytearray) or len(value) != SEED_BYTES:
            raise ValueError(f"a server seed is exactly {SEED_BYTES} bytes")
        self._value = bytes(value)
        self._fresh = _origin is _FRESH
        self._revealed = False

    @classmethod
    def generate(cls) -> ServerSeed:
        """A fresh secret seed: 32 bytes from the OS cryptographic source."""
        return cls(secrets.token_bytes(SEED_BYTES), _origin=_FRESH)

    @classmethod
    def from_hex(cls, text: str) -> ServerSeed:
        """A (revealed, not secret) seed from 64 hex digits."""
        try:
            value = bytes.fromhex(text)
        except (ValueError, TypeError):
            raise ValueError(f"server seed is not hex: {text!r}") from None
        if len(value) != SEED_BYTES:
            raise ValueError(f"server seed must be {2 * SEED_BYTES} hex digits, got {len(text)}")
        return cls(value)

    @property
    def value(self) -> bytes:
        """The seed's bytes (the HMAC key). Secret until revealed: never log it before the round ends."""
        return self._value

    @property
    def hex(self) -> str:
        return self._value.hex()

    @property
    def commitment(self) -> str:
        return commitment_of(self._value)

    @property
    def secret(self) -> bool:
        """True while this seed came from :meth:`generate` and has not been revealed."""
        return self._fresh and not self._revealed

    def reveal(self) -> str:
        """Mark the seed as revealed (it can no longer deal a live round) and return its hex."""
        self._revealed = True
        return self.hex

    def __repr__(self) -> str:
        state = "secret" if self.secret else self.hex
        return f"ServerSeed(commitment={self.commitment[:16]}…, {state})"


def _server_seed(value: ServerSeed | bytes | str) -> ServerSeed:
    if isinstance(value, ServerSeed):
        return value
    if isinstance(value, str):
        return ServerSeed.from_hex(value)
    return ServerSeed(value)


def _check_client_seed(client_seed: object) -> str:
    if not isinstance(client_seed, str) or not 1 <= len(client_seed) <= MAX_CLIENT_SEED:
        raise ValueError(f"client seed must be a string of 1-{MAX_CLIENT_SEED} characters")
    return client_seed


def _check_nonce(nonce: object) -> int:
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"nonce (round number) must be an integer >= 0, got {nonce!r}")
    return nonce


class ProvablyFairRandom(RandomSource):
    """The deterministic byte stream of a provably fair round (steps 4–5 of the protocol above).

    ``shuffle_deck(ProvablyFairRandom(server_seed, client_seed, nonce))`` is the round's deck. It is its own
    kind of source (``kind == "provably-fair"``): deterministic like a seeded generator, and allowed for live
    play **only** while its server seed is secret — built by :meth:`ServerSeed.generate` and not yet revealed.
    ``require_live`` refuses it otherwise (e.g. when built from hex to verify or replay a round).
    """

    kind: ClassVar[str] = "provably-fair"

    def __init__(self, server_seed: ServerSeed | bytes | str, client_seed: str, nonce: int) -> None:
        self.server_seed = _server_seed(server_seed)
        self.client_seed = _check_client_seed(client_seed)
        self.nonce = _check_nonce(nonce)
        self._prefix = f"{client_seed}:{nonce}:".encode()
        self._counter = 0
        self._buffer = b""

    @property
    def live(self) -> bool:
        return self.server_seed.secret

    def _read(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = hmac.new(
                self.server_seed.value, self._prefix + str(self._counter).encode(), hashlib.sha256
            ).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def getrandbits(self, k: int) -> int:
        if k <= 0:
            return 0
        return int.from_bytes(self._read((k + 7) // 8), "big") & ((1 << k) - 1)

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"randbelow needs n > 0, got {n}")
        if n == 1:
            return 0
        b = (n - 1).bit_length()
        while True:
            r = self.getrandbits(b)
            if r < n:
                return r

    def __repr__(self) -> str:
        return (
            f"ProvablyFairRandom(commitment={self.server_seed.commitment[:16]}…, "
            f"client_seed={self.client_seed!r}, nonce={self.nonce})"
        )


def derive_deck(server_seed: ServerSeed | bytes | str, client_seed: str, nonce: int) -> tuple[Card, ...]:
    """The deck (deal order) that the seeds produce."""
    return shuffle_deck(ProvablyFairRandom(server_seed, client_seed, nonce))

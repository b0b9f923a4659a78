"""Players' client seeds at a table: committed first, revealed after every commitment is in (issue 20, defect 3).

The server (and so the operator) knows the round's server seed. A seat it controls that could choose its seed
after seeing another seat's would try seeds offline until the deck suits it. So a seed counts only if it was
fixed before any other seed of the round was known:

1. **Commit.** A player sends ``seed_hash`` = SHA-256 (hex) of the UTF-8 seed (:func:`seed_hash`), naming the
   round's server-seed commitment. It may be replaced while commitments are open.
2. **Reveal.** The player sends the seed itself; it must hash to the commitment. The first reveal of a round
   **closes** its commitments: from then on no seat may commit (or change its commitment) for that round. So
   every commitment that counts came before every seed that was shown (the rule :func:`seed_order_problems`
   checks on the record).
3. **The round opens** (its deck is drawn): the seeds of the seated players who revealed are combined
   (:func:`tablegames.randomness.commitment.combine_client_seeds`). A seat that committed and did not reveal in
   time is *dropped*: listed in the record with its hash and no seed, not combined.

What it leaves: a seat that commits may still choose not to reveal, so a party controlling k committing seats
can choose between at most 2**k decks (it cannot choose a deck); the record shows every dropped seat. A seed
must be unguessable (the page adds 128 random bits): its hash is public, and a guessable seed can be found
from it.

>>> book = SeedRound()
>>> book.commit(11, seed_hash("ann's seed 5f1c"))
0
>>> book.commit(12, seed_hash("bob's seed 9a0e"))
1
>>> book.reveal(11, "ann's seed 5f1c")
2
>>> book.commit(13, seed_hash("late"))
Traceback (most recent call last):
...
tablegames.randomness.client_seeds.SeedError: seeds_closed: a seed of this round was revealed: commitments for it are closed (commit against the next round's commitment)
>>> [(e.seat, e.seed) for e in book.entries({1: 11, 2: 12})]
[(1, "ann's seed 5f1c"), (2, None)]
>>> counted_seeds(book.entries({1: 11, 2: 12}))
[(1, "ann's seed 5f1c")]
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tablegames.randomness.commitment import check_player_seed

SEED_HASH_PATTERN: Final = "^[0-9a-f]{64}$"
_HASH = re.compile(SEED_HASH_PATTERN)


def seed_hash(seed: str) -> str:
    """A seed's commitment: SHA-256 of its UTF-8 bytes, lower-case hex.

    >>> seed_hash("lucky")
    'db9fbddbd7caeff7a326645c1bb47116eb3fd4ae3834bf5039fc5d47386786f5'
    """
    return hashlib.sha256(check_player_seed(seed).encode()).hexdigest()


def check_seed_hash(value: object) -> str:
    """A seed hash as sent: 64 lower-case hex digits."""
    if not isinstance(value, str) or not _HASH.match(value):
        raise ValueError("a seed_hash is the SHA-256 of the seed: 64 lower-case hex digits")
    return value


class SeedError(ValueError):
    """A commitment or reveal that does not fit the rule; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class SeedEntry:
    """One seat's seed in a round record: its commitment, the seed if revealed in time, and the positions of the
    commitment and the reveal in the round's sequence of seed events (0, 1, 2, ...)."""

    seat: int
    seed_hash: str
    seed: str | None
    committed: int
    revealed: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "seed_hash": self.seed_hash,
            "seed": self.seed,
            "committed": self.committed,
            "revealed": self.revealed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeedEntry:
        seed = data.get("seed")
        revealed = data.get("revealed")
        return cls(
            int(data["seat"]),
            str(data["seed_hash"]),
            None if seed is None else str(seed),
            int(data["committed"]),
            None if revealed is None else int(revealed),
        )


class SeedRound:
    """The client seeds of one round (one server-seed commitment), keyed by player: commit, then reveal.

    Not thread-safe: the table's serial executor owns it.
    """

    def __init__(self) -> None:
        self._events = 0
        self._hashes: dict[int, tuple[str, int]] = {}  # player -> (seed hash, position of the commitment)
        self._seeds: dict[int, tuple[str, int]] = {}  # player -> (seed, position of the reveal)

    @property
    def closed(self) -> bool:
        """True once a seed was revealed: no commitment may be made or changed any more."""
        return bool(self._seeds)

    def commit(self, player: int, hashed: str) -> int:
        """Commit ``player`` to the seed whose SHA-256 is ``hashed`` (or replace its commitment); its position.
        The same commitment again changes nothing."""
        hashed = check_seed_hash(hashed)
        mine = self._hashes.get(player)
        if mine is not None and mine[0] == hashed:
            return mine[1]
        if self.closed:
            raise SeedError(
                "seeds_closed",
                "a seed of this round was revealed: commitments for it are closed "
                "(commit against the next round's commitment)",
            )
        position = self._events
        self._events += 1
        self._hashes[player] = (hashed, position)
        return position

    def reveal(self, player: int, seed: str) -> int:
        """Reveal ``player``'s committed seed; its position. The same seed again changes nothing."""
        seed = check_player_seed(seed)
        mine = self._hashes.get(player)
        if mine is None:
            raise SeedError(
                "no_seed_hash",
                "commit first: send the seed's SHA-256 as seed_hash, and the seed after every seat committed",
            )
        if seed_hash(seed) != mine[0]:
            raise SeedError("seed_mismatch", f"SHA-256 of this seed is not your commitment {mine[0]}")
        shown = self._seeds.get(player)
        if shown is not None:
            return shown[1]
        position = self._events
        self._events += 1
        self._seeds[player] = (seed, position)
        return position

    def of(self, player: int) -> tuple[str, str | None] | None:
        """``player``'s (seed hash, seed or None until revealed), or None."""
        mine = self._hashes.get(player)
        if mine is None:
            return None
        shown = self._seeds.get(player)
        return mine[0], None if shown is None else shown[0]

    def entries(self, seats: Mapping[int, int]) -> tuple[SeedEntry, ...]:
        """The entries of the seated players (``seats``: seat -> player) who committed, in seat order."""
        out = []
        for seat, player in sorted(seats.items()):
            mine = self._hashes.get(player)
            if mine is None:
                continue
            shown = self._seeds.get(player)
            out.append(
                SeedEntry(
                    seat,
                    mine[0],
                    None if shown is None else shown[0],
                    mine[1],
                    None if shown is None else shown[1],
                )
            )
        return tuple(out)

    def snapshot(
        self,
    ) -> tuple[tuple[tuple[int, tuple[str, int]], ...], tuple[tuple[int, tuple[str, int]], ...]]:
        """Everything it holds (for tests: a repeated request must change nothing)."""
        return tuple(sorted(self._hashes.items())), tuple(sorted(self._seeds.items()))


def counted_seeds(entries: Iterable[SeedEntry]) -> list[tuple[int, str]]:
    """The (seat, seed) pairs that make the round's client seed: the revealed ones, in seat order."""
    return sorted((e.seat, e.seed) for e in entries if e.seed is not None)


def seed_order_problems(entries: Sequence[SeedEntry]) -> list[str]:
    """What is wrong with a record's seed entries (empty: nothing): each seed must hash to its commitment, each
    seat appear once, every position once, and **every commitment come before every reveal** (a seed committed
    after another seat's was shown could have been chosen to suit the deck)."""
    problems: list[str] = []
    seats = [e.seat for e in entries]
    for seat in sorted({s for s in seats if seats.count(s) > 1}):
        problems.append(f"client_seeds: seat {seat} is listed more than once")
    positions = [e.committed for e in entries] + [e.revealed for e in entries if e.revealed is not None]
    for pos in sorted({p for p in positions if positions.count(p) > 1}):
        problems.append(f"client_seeds: position {pos} is used by more than one commitment or reveal")
    for e in entries:
        if (e.seed is None) != (e.revealed is None):
            problems.append(
                f"client_seeds: seat {e.seat} has a seed without a reveal position, or the reverse"
            )
        elif e.seed is not None and seed_hash(e.seed) != e.seed_hash:
            problems.append(
                f"seat {e.seat}'s seed {e.seed!r} does not hash to its commitment {e.seed_hash} "
                f"(SHA-256 of it is {seed_hash(e.seed)})"
            )
    reveals = [(e.revealed, e.seat) for e in entries if e.revealed is not None]
    if reveals:
        first, by = min(reveals)
        for e in entries:
            if e.committed > first:
                problems.append(
                    f"out of order: seat {e.seat} committed its seed (position {e.committed}) after seat {by}'s "
                    f"seed was revealed (position {first}): it could have been chosen to suit the deck"
                )
    return problems


__all__ = [
    "SEED_HASH_PATTERN",
    "SeedEntry",
    "SeedError",
    "SeedRound",
    "check_seed_hash",
    "counted_seeds",
    "seed_hash",
    "seed_order_problems",
]

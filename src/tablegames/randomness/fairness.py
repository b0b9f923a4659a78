"""Provably fair rounds: commitment, HMAC-SHA256 deck derivation, the round record and its verification.

The protocol (an option of the table; see ``docs/compliance-gli19.md``):

1. Before the deal the server draws a **server seed**, 32 bytes from :mod:`secrets`
   (:meth:`ServerSeed.generate`), and publishes its **commitment**: the SHA-256 of those 32 bytes, in hex.
2. The player may supply a **client seed** (any string of 1–256 characters). If they do not, it defaults to
   :func:`default_client_seed` of the commitment — which is verifiable but gives no protection against a
   server that tries many server seeds; a player who wants that protection supplies their own.
3. The **nonce** is the round number (an int ≥ 0).
4. Byte stream: ``block_k = HMAC-SHA256(key=server_seed, msg=UTF-8(client_seed) + ":" + nonce + ":" + k)``
   for k = 0, 1, 2, … (nonce and k in decimal ASCII), concatenated.
5. Bounded integer ``randbelow(n)``: 0 if n = 1; else b = (n-1).bit_length(), read ceil(b/8) bytes of the
   stream as a big-endian integer, keep its low b bits; if the value is < n it is the result, else read again
   (rejection: unbiased).
6. Deck: start from index order 2c 2d 2h 2s 3c … As; for i = 51 down to 1, j = randbelow(i+1), swap
   positions i and j (Fisher–Yates, R-0.1). The result is the deal order.
7. After the round the server reveals the server seed. Anyone can recompute the commitment and the deck:
   ``tablegames verify ROUND.json``.
8. At a table several players may each give a seed (:data:`MAX_PLAYER_SEED` characters at most, no control
   characters), **committed first and revealed after every commitment is in**
   (:mod:`tablegames.randomness.client_seeds`): a seat first sends the SHA-256 of its seed, then the seed; the
   first reveal closes the round's commitments. The round's one client seed is :func:`combine_client_seeds` of
   the revealed seeds of the seated players, in seat order: the SHA-256 (hex) of the compact JSON
   ``[[seat, seed], ...]`` (the default seed when none was revealed). The record lists every committed seat
   (``client_seeds``: seat, seed hash, seed or null when not revealed in time, and the positions of the
   commitment and the reveal), and ``verify`` checks each seed against its hash, the combination, and that
   every commitment came before every reveal: no seat chose its seed after seeing another's.

>>> seed = ServerSeed(bytes(range(32)))
>>> seed.commitment
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> " ".join(map(str, derive_deck(seed, "player", 1)[:8]))
'2s Ac 8h 2h 9c 6c 9h 4h'
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablegames.cards import CARDS, Card, CardParseError, parse_card
from tablegames.randomness.client_seeds import (
    SEED_HASH_PATTERN,
    SeedEntry,
    counted_seeds,
    seed_order_problems,
)
from tablegames.randomness.commitment import (
    ALGORITHM,
    MAX_CLIENT_SEED,
    MAX_PLAYER_SEED,
    ProvablyFairRandom,
    ServerSeed,
    _check_client_seed,
    _check_nonce,
    _server_seed,
    check_player_seed,
    combine_client_seeds,
    commitment_of,
    default_client_seed,
    derive_deck,
)
from tablegames.randomness.commitment import SEED_BYTES as SEED_BYTES
from tablegames.randomness.sources import shuffle_deck

RECORD_FORMAT: Final = "tablegames.round/1"


class ProvablyFair:
    """One provably fair round, from commitment to reveal.

    >>> pf = ProvablyFair(nonce=7)           # fresh secret server seed
    >>> published = pf.commitment            # show this before the deal
    >>> pf.set_client_seed("lucky")          # optional, before the deal
    >>> deck = pf.deck()                     # deal from this order
    >>> rec = pf.record(game="a-game", round_id="r7", deck=deck, dealt=[(0, "seat 1"), (1, "dealer")])
    >>> verify_record(RoundRecord.from_json(rec)).ok, rec["fairness"]["commitment"] == published
    (True, True)
    """

    def __init__(
        self, nonce: int, client_seed: str | None = None, server_seed: ServerSeed | None = None
    ) -> None:
        self.server_seed = server_seed if server_seed is not None else ServerSeed.generate()
        self.nonce = _check_nonce(nonce)
        self._client_seed = None if client_seed is None else _check_client_seed(client_seed)
        self._dealt = False

    @property
    def commitment(self) -> str:
        return self.server_seed.commitment

    @property
    def client_seed(self) -> str:
        return self._client_seed if self._client_seed is not None else default_client_seed(self.commitment)

    def set_client_seed(self, client_seed: str) -> None:
        """The player's seed; only before the deal."""
        if self._dealt:
            raise RuntimeError("the client seed cannot change after the deal")
        self._client_seed = _check_client_seed(client_seed)

    def source(self) -> ProvablyFairRandom:
        """The round's random source (pass it through ``require_live`` at a live table)."""
        self._dealt = True
        return ProvablyFairRandom(self.server_seed, self.client_seed, self.nonce)

    def deck(self) -> tuple[Card, ...]:
        return shuffle_deck(self.source())

    def reveal(self) -> str:
        """Reveal the server seed (after the round); returns its hex."""
        return self.server_seed.reveal()

    def record(
        self,
        *,
        game: str,
        round_id: str | int,
        deck: Sequence[int],
        dealt: Iterable[DealtCard | tuple[int, str] | tuple[int, int | str, str] | Mapping[str, Any]],
    ) -> dict[str, Any]:
        """The round record (reveals the server seed); see :func:`fairness_record`."""
        return fairness_record(
            game=game,
            round_id=round_id,
            server_seed=self.server_seed,
            client_seed=self.client_seed,
            nonce=self.nonce,
            deck=deck,
            dealt=dealt,
        )


# --------------------------------------------------------------------------------------------- the record

CARD_PATTERN: Final = "^[2-9TJQKA][cdhs]$"

ROUND_RECORD_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tablegames.example/schemas/round-record-1.json",
    "title": "tablegames provably fair round record",
    "description": (
        "One dealt round: the seeds that determine its deck and the cards it dealt. Deal order = deck order: "
        "the card at deck position p is the p-th card dealt (burns and draws included)."
    ),
    "type": "object",
    "required": ["game", "round_id", "fairness", "deck", "dealt"],
    "properties": {
        "format": {"const": RECORD_FORMAT},
        "game": {"type": "string", "minLength": 1},
        "round_id": {"type": ["string", "integer"]},
        "fairness": {
            "type": "object",
            "required": ["commitment", "server_seed", "client_seed", "nonce"],
            "additionalProperties": False,
            "properties": {
                "algorithm": {"const": ALGORITHM},
                "commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                "server_seed": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                "client_seed": {"type": "string", "minLength": 1, "maxLength": MAX_CLIENT_SEED},
                "nonce": {"type": "integer", "minimum": 0},
            },
        },
        "client_seeds": {
            "type": "array",
            "maxItems": 7,
            "items": {
                "type": "object",
                "required": ["seat", "seed_hash", "seed", "committed", "revealed"],
                "additionalProperties": False,
                "properties": {
                    "seat": {"type": "integer", "minimum": 1, "maximum": 7},
                    "seed_hash": {"type": "string", "pattern": SEED_HASH_PATTERN},
                    "seed": {
                        "type": ["string", "null"],
                        "minLength": 1,
                        "maxLength": MAX_PLAYER_SEED,
                    },
                    "committed": {"type": "integer", "minimum": 0},
                    "revealed": {"type": ["integer", "null"], "minimum": 0},
                },
            },
        },
        "deck": {
            "type": "array",
            "minItems": 52,
            "maxItems": 52,
            "items": {"type": "string", "pattern": CARD_PATTERN},
        },
        "dealt": {
            "type": "array",
            "maxItems": 52,
            "items": {
                "type": "object",
                "required": ["position", "card", "to"],
                "properties": {
                    "position": {"type": "integer", "minimum": 0, "maximum": 51},
                    "card": {"type": "string", "pattern": CARD_PATTERN},
                    "to": {"type": "string", "minLength": 1},
                },
            },
        },
    },
}
"""JSON schema of a round record (``tablegames verify --schema`` prints it). Extra top-level keys and extra keys
in ``dealt`` entries are allowed (e.g. ``"face": "up"``); the ``fairness`` object is closed. A ``deck`` that
repeats a card is well-formed but fails verification (it cannot be what the seeds deal)."""


class RecordFormatError(ValueError):
    """A round record that cannot be read: the message names the problem."""


@dataclass(frozen=True)
class FairnessInfo:
    """The revealed seeds of a round."""

    commitment: str
    server_seed: str
    client_seed: str
    nonce: int


@dataclass(frozen=True)
class DealtCard:
    """One dealt card: its deck position (0 = first card dealt), the card, and who got it."""

    position: int
    card: Card
    to: str


@dataclass(frozen=True)
class RoundRecord:
    """A provably fair round as given by game recall (JSON: :data:`ROUND_RECORD_SCHEMA`).

    ``deck`` is the full 52-card order used (deal order = deck order); ``dealt`` lists the cards that were
    actually dealt, each at its position in ``deck``. Other top-level keys of the JSON are allowed and ignored.
    """

    game: str
    round_id: str | int
    fairness: FairnessInfo
    deck: tuple[Card, ...]
    dealt: tuple[DealtCard, ...]
    client_seeds: tuple[SeedEntry, ...] | None = None  # the players' committed seeds (step 8), if any

    def to_json(self) -> dict[str, Any]:
        seeds: dict[str, Any] = {}
        if self.client_seeds is not None:
            seeds["client_seeds"] = [e.to_json() for e in self.client_seeds]
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "round_id": self.round_id,
            "fairness": {
                "algorithm": ALGORITHM,
                "commitment": self.fairness.commitment,
                "server_seed": self.fairness.server_seed,
                "client_seed": self.fairness.client_seed,
                "nonce": self.fairness.nonce,
            },
            "deck": [str(c) for c in self.deck],
            "dealt": [{"position": d.position, "card": str(d.card), "to": d.to} for d in self.dealt],
            **seeds,
        }

    @classmethod
    def from_json(cls, data: Any) -> RoundRecord:
        """Validate (schema, then cross-field checks) and build; :class:`RecordFormatError` names the problem."""
        import jsonschema  # type: ignore[import-untyped]  # lazily: only verify needs it

        if isinstance(data, dict) and "fairness" in data and data["fairness"] is None:
            raise RecordFormatError("fairness is null: this round was not dealt by a provably fair table")
        if isinstance(data, dict) and isinstance(data.get("client_seeds"), list):
            for n, entry in enumerate(data["client_seeds"]):
                if isinstance(entry, dict) and "seed" in entry and "seed_hash" not in entry:
                    raise RecordFormatError(
                        f"client_seeds/{n}: a seed without its seed_hash and positions: a record from before "
                        "seeds were committed first (issue 20), whose order cannot be checked"
                    )
        validator = jsonschema.Draft202012Validator(ROUND_RECORD_SCHEMA)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            err = errors[0]
            where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            raise RecordFormatError(f"{where}: {err.message}")
        fair = data["fairness"]
        try:
            deck = tuple(parse_card(c) for c in data["deck"])
            dealt = tuple(DealtCard(d["position"], parse_card(d["card"]), d["to"]) for d in data["dealt"])
        except CardParseError as exc:  # pragma: no cover - the schema pattern already rejects these
            raise RecordFormatError(str(exc)) from None
        positions = [d.position for d in dealt]
        if len(set(positions)) != len(positions):
            dup = next(p for p in positions if positions.count(p) > 1)
            raise RecordFormatError(f"dealt: position {dup} is listed more than once")
        return cls(
            game=data["game"],
            round_id=data["round_id"],
            fairness=FairnessInfo(
                fair["commitment"], fair["server_seed"], fair["client_seed"], fair["nonce"]
            ),
            deck=deck,
            dealt=dealt,
            client_seeds=(
                None
                if data.get("client_seeds") is None
                else tuple(SeedEntry.from_json(e) for e in data["client_seeds"])
            ),
        )


def _dealt_entry(entry: object, deck: Sequence[Card]) -> DealtCard:
    if isinstance(entry, DealtCard):
        return entry
    if isinstance(entry, Mapping):
        position = int(entry["position"])
        card = entry.get("card", deck[position])
        return DealtCard(position, card if isinstance(card, Card) else _card(card), str(entry["to"]))
    if isinstance(entry, tuple) and len(entry) == 2:
        position = int(entry[0])
        return DealtCard(position, deck[position], str(entry[1]))
    if isinstance(entry, tuple) and len(entry) == 3:
        return DealtCard(int(entry[0]), _card(entry[1]), str(entry[2]))
    raise TypeError(
        f"a dealt entry is DealtCard, (position, to), (position, card, to) or a mapping: {entry!r}"
    )


def _card(value: object) -> Card:
    if isinstance(value, Card):
        return value
    if isinstance(value, int):
        return CARDS[value]
    return parse_card(str(value))


def fairness_record(
    *,
    game: str,
    round_id: str | int,
    server_seed: ServerSeed | bytes | str,
    client_seed: str,
    nonce: int,
    deck: Sequence[int],
    dealt: Iterable[DealtCard | tuple[int, str] | tuple[int, int | str, str] | Mapping[str, Any]],
    commitment: str | None = None,
    client_seeds: Sequence[SeedEntry | Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build the JSON round record that game recall shows and ``tablegames verify`` checks.

    ``deck`` is the full order used; each ``dealt`` entry is ``(position, to)`` (card taken from the deck),
    ``(position, card, to)``, a :class:`DealtCard` or a mapping with those keys. A :class:`ServerSeed` passed
    here is marked revealed (the record publishes it). ``commitment``, if given, must be the published one.
    ``client_seeds`` (:class:`SeedEntry` or their JSON), if given, must be in order (every commitment before
    every reveal, each seed hashing to its commitment) and their revealed seeds must combine into
    ``client_seed`` (step 8).
    The result validates against :data:`ROUND_RECORD_SCHEMA`.
    """
    seed = _server_seed(server_seed)
    if commitment is not None and commitment != seed.commitment:
        raise ValueError("the commitment given is not the SHA-256 of this server seed")
    cards = tuple(_card(c) for c in deck)
    if sorted(cards) != list(CARDS):
        raise ValueError("deck must be the full 52-card order used (each card once)")
    entries = tuple(_dealt_entry(e, cards) for e in dealt)
    seeds = (
        None
        if not client_seeds
        else tuple(
            sorted(
                (_seed_entry(e) for e in client_seeds),
                key=lambda e: e.seat,
            )
        )
    )
    if seeds is not None:
        problems = seed_order_problems(seeds)
        if problems:
            raise ValueError(problems[0])
        if _combined(seeds, seed.commitment) != client_seed:
            raise ValueError("the client seed is not the combination of the players' seeds")
    record = RoundRecord(
        game=game,
        round_id=round_id,
        fairness=FairnessInfo(
            seed.commitment, seed.reveal(), _check_client_seed(client_seed), _check_nonce(nonce)
        ),
        deck=cards,
        dealt=entries,
        client_seeds=seeds,
    )
    problem = _record_problem(record)
    if problem is not None:
        raise RecordFormatError(problem)
    return record.to_json()


def _record_problem(record: RoundRecord) -> str | None:
    """What :meth:`RoundRecord.from_json` would refuse in this record's JSON, checked on the values (the schema's
    checks that the inputs' own checks above do not make; a JSON Schema round trip cost ~0.9 ms a settlement).
    ``tests/randomness/test_rng_fairness.py`` proves it refuses what the schema round trip refuses."""
    if not isinstance(record.game, str) or not record.game:
        return "game: a non-empty string"
    if isinstance(record.round_id, bool) or not isinstance(record.round_id, str | int):
        return "round_id: a string or an integer"
    if len(record.dealt) > 52:
        return "dealt: at most 52 cards"
    seen: set[int] = set()
    for n, d in enumerate(record.dealt):
        if isinstance(d.position, bool) or not isinstance(d.position, int) or not 0 <= d.position <= 51:
            return f"dealt/{n}/position: an integer 0-51"
        if not isinstance(d.card, Card) or not isinstance(d.to, str) or not d.to:
            return f"dealt/{n}: a card and whom it went to (a non-empty string)"
        if d.position in seen:
            return f"dealt: position {d.position} is listed more than once"
        seen.add(d.position)
    if record.client_seeds is not None:
        if len(record.client_seeds) > 7:
            return "client_seeds: at most 7"
        for n, e in enumerate(record.client_seeds):
            if not _is_count(e.seat) or not 1 <= e.seat <= 7:
                return f"client_seeds/{n}/seat: an integer 1-7"
            if not isinstance(e.seed_hash, str) or _SEED_HASH.search(e.seed_hash) is None:
                return f"client_seeds/{n}/seed_hash: 64 hex digits"
            if e.seed is not None and (
                not isinstance(e.seed, str) or not 1 <= len(e.seed) <= MAX_PLAYER_SEED
            ):
                return f"client_seeds/{n}/seed: null or a string of 1-{MAX_PLAYER_SEED} characters"
            if not _is_count(e.committed) or (e.revealed is not None and not _is_count(e.revealed)):
                return f"client_seeds/{n}: committed and revealed are integers >= 0 (revealed may be null)"
    return None


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_SEED_HASH: Final = re.compile(SEED_HASH_PATTERN)  # (searched, as the schema's pattern is)


def _seed_entry(entry: object) -> SeedEntry:
    if isinstance(entry, SeedEntry):
        return entry
    if isinstance(entry, Mapping):
        return SeedEntry.from_json(entry)
    raise TypeError(
        f"a client_seeds entry is a SeedEntry or its JSON (seat, seed_hash, seed, committed, revealed): {entry!r}"
    )


def _combined(entries: Sequence[SeedEntry], commitment: str) -> str:
    """The client seed the entries make: their revealed seeds combined, or the default when none was."""
    counted = counted_seeds(entries)
    return combine_client_seeds(counted) if counted else default_client_seed(commitment)


# ------------------------------------------------------------------------------------------ verification


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify_record`: ``ok`` or a list of problems (first difference first)."""

    record: RoundRecord
    derived_deck: tuple[Card, ...]
    commitment_ok: bool
    first_deck_difference: int | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_record(record: RoundRecord) -> VerifyReport:
    """Prove the record's cards are exactly what its seeds produce, or say where they differ."""
    fair = record.fairness
    problems: list[str] = []
    seed = ServerSeed.from_hex(fair.server_seed)
    commitment_ok = hmac.compare_digest(seed.commitment, fair.commitment)
    if not commitment_ok:
        problems.append(
            f"commitment mismatch: SHA-256 of the revealed server seed is {seed.commitment}, "
            f"but the published commitment is {fair.commitment}"
        )
    if record.client_seeds is not None:
        problems.extend(seed_order_problems(record.client_seeds))
        try:
            combined: str | None = _combined(record.client_seeds, fair.commitment)
        except ValueError as exc:
            combined = None
            problems.append(f"client_seeds: {exc}")
        if combined is not None and combined != fair.client_seed:
            problems.append(
                f"the client seed {fair.client_seed!r} is not the combination of the players' revealed seeds "
                f"(SHA-256 of their [[seat, seed], ...] in seat order is {combined})"
            )
    derived = derive_deck(seed, fair.client_seed, fair.nonce)
    diffs = [p for p in range(52) if record.deck[p] != derived[p]]
    first = diffs[0] if diffs else None
    if first is not None:
        problems.append(
            f"deck differs first at position {first}: the record has {record.deck[first]}, "
            f"the seeds give {derived[first]} ({len(diffs)} of 52 positions differ)"
        )
    seen: set[Card] = set()
    repeated: list[Card] = []
    for c in record.deck:
        (repeated.append if c in seen else seen.add)(c)
    if repeated:
        problems.append(
            f"the recorded deck is not 52 distinct cards: {', '.join(map(str, repeated))} repeated, "
            f"{', '.join(str(c) for c in CARDS if c not in seen)} missing"
        )
    for n, d in enumerate(record.dealt):
        if d.card != derived[d.position]:
            problems.append(
                f"dealt card #{n} ({d.card} to {d.to}) sits at position {d.position}, "
                f"where the seeds put {derived[d.position]}"
            )
        elif d.card != record.deck[d.position]:
            problems.append(
                f"dealt card #{n} ({d.card} to {d.to}) is not the record's own deck card at position "
                f"{d.position} ({record.deck[d.position]})"
            )
    return VerifyReport(record, derived, commitment_ok, first, tuple(problems))


def load_record(path: str | Path) -> RoundRecord:
    """Read and validate a round record file; :class:`RecordFormatError` names what is wrong."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordFormatError(f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordFormatError("the file is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordFormatError(
            f"{p} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return RoundRecord.from_json(data)


__all__ = [
    "ALGORITHM",
    "MAX_PLAYER_SEED",
    "RECORD_FORMAT",
    "ROUND_RECORD_SCHEMA",
    "DealtCard",
    "FairnessInfo",
    "ProvablyFair",
    "ProvablyFairRandom",
    "RecordFormatError",
    "RoundRecord",
    "SeedEntry",
    "ServerSeed",
    "VerifyReport",
    "check_player_seed",
    "combine_client_seeds",
    "commitment_of",
    "default_client_seed",
    "derive_deck",
    "fairness_record",
    "load_record",
    "verify_record",
]

"""The provably fair record of a round (``fairness_record``: tablegames.randomness.fairness), as the recall
``GET /rounds/{id}`` carries it in ``fairness``: the revealed seeds, the deck and the cards dealt."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tablegames.randomness.client_seeds import SEED_HASH_PATTERN
from tablegames.randomness.commitment import ALGORITHM, MAX_CLIENT_SEED, MAX_PLAYER_SEED
from tablegames.randomness.fairness import RECORD_FORMAT
from tablegames.server.contract.base import Card, Closed

HEX64 = "^[0-9a-f]{64}$"


class Seeds(Closed):
    algorithm: Literal["hmac-sha256-fisher-yates/1"] = ALGORITHM
    commitment: str = Field(pattern=HEX64)
    server_seed: str = Field(pattern=HEX64)
    client_seed: str = Field(min_length=1, max_length=MAX_CLIENT_SEED)
    nonce: int = Field(ge=0)


class DealtEntry(Closed):
    position: int = Field(ge=0, le=51)
    card: Card
    to: str = Field(min_length=1)


class ClientSeedEntry(Closed):
    seat: int = Field(ge=1, le=7)
    seed_hash: str = Field(pattern=SEED_HASH_PATTERN)
    seed: str | None = Field(min_length=1, max_length=MAX_PLAYER_SEED)
    committed: int = Field(ge=0)
    revealed: int | None = Field(ge=0)


class FairnessRecord(Closed):
    """``tablegames verify`` reads it (its schema: ``ROUND_RECORD_SCHEMA``)."""

    format: Literal["tablegames.round/1"] = RECORD_FORMAT
    game: str = Field(min_length=1)
    round_id: int | str
    fairness: Seeds
    deck: list[Card] = Field(min_length=52, max_length=52)
    dealt: list[DealtEntry] = Field(max_length=52)
    client_seeds: list[ClientSeedEntry] | None = Field(None, max_length=7)

"""What every model of the contract shares: closed objects (``extra="forbid"``) and the card type."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tablegames.randomness.fairness import CARD_PATTERN


class Closed(BaseModel):
    """A JSON object of the contract: every field named, no other field allowed."""

    model_config = ConfigDict(extra="forbid")


Card = Annotated[str, Field(pattern=CARD_PATTERN, description='a card, "<rank><suit>" (e.g. "Th")')]
"""A card as the wire writes it; ``Card | None`` where the reader may not see it (yet)."""

Cents = Annotated[int, Field(description="an amount of money in cents")]

"""The engine's events as they leave it (``Event.to_dict`` / ``for_viewer``: tablegames.engine.events), one model
per event type, told apart by ``type``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tablegames.server.contract.base import Card, Cents, Closed


class RoundStartedEvent(Closed):
    type: Literal["round_started"]
    game: str
    round_no: int
    rules: dict[str, str]  # the round's complete rule set
    seats: list[int]
    source: str  # the random source's kind


class WagerPlacedEvent(Closed):
    type: Literal["wager_placed"]
    seat: int
    wager: str
    amount: Cents
    option: str | None = None


class JackpotContributionEvent(Closed):
    type: Literal["jackpot_contribution"]
    seat: int
    meter: str
    amount: Cents
    meter_after: Cents


class CardDealtEvent(Closed):
    """One card from deck position ``position`` to ``to``; ``card`` is null for a viewer who may not see it."""

    type: Literal["card_dealt"]
    to: str  # "seat N", "dealer", "community", "burn"
    position: int = Field(ge=0, le=51)
    card: Card | None
    visible_to: str  # "all", one seat's name ("seat N"), or "" (nobody)


class CardsRevealedEvent(Closed):
    type: Literal["cards_revealed"]
    owner: str
    cards: list[Card]


class ActionEvent(Closed):
    """A decision, by the player or by the server's timeout default."""

    type: Literal["action"]
    seat: int
    action: str
    by: Literal["player", "timeout", "bot"]


class CardDiscardedEvent(Closed):
    type: Literal["card_discarded"]
    owner: str
    card: Card | None
    visible_to: str


class HandEvent(Closed):
    type: Literal["hand"]
    owner: str
    hand: str


class SettledEvent(Closed):
    """One wager (or part of one) settled; ``detail`` is "" for a viewer who may not read it yet."""

    type: Literal["settled"]
    seat: int
    wager: str
    staked: Cents
    returned: Cents
    outcome: str
    detail: str
    meter: str | None
    meter_cents: Cents
    capped_from: Cents | None
    visible_to: str
    part: str


class JackpotHitEvent(Closed):
    type: Literal["jackpot_hit"]
    seat: int
    meter: str
    amount: Cents
    reset_to: Cents


class EnvyPaidEvent(Closed):
    """A neighbour bonus: ``seat`` paid for ``from_seat``'s hand (wire name ``envy_paid``)."""

    type: Literal["envy_paid"]
    seat: int
    from_seat: int
    hand: str
    amount: Cents


class RoundEndedEvent(Closed):
    type: Literal["round_ended"]
    net_by_seat: dict[str, int]
    house_net: Cents
    meters: dict[str, int]


EVENT_MODELS: tuple[type[Closed], ...] = (
    RoundStartedEvent,
    WagerPlacedEvent,
    JackpotContributionEvent,
    CardDealtEvent,
    CardsRevealedEvent,
    ActionEvent,
    CardDiscardedEvent,
    HandEvent,
    SettledEvent,
    JackpotHitEvent,
    EnvyPaidEvent,
    RoundEndedEvent,
)

Event = Annotated[
    RoundStartedEvent
    | WagerPlacedEvent
    | JackpotContributionEvent
    | CardDealtEvent
    | CardsRevealedEvent
    | ActionEvent
    | CardDiscardedEvent
    | HandEvent
    | SettledEvent
    | JackpotHitEvent
    | EnvyPaidEvent
    | RoundEndedEvent,
    Field(discriminator="type"),
]
"""Any event of a round, as the engine writes it (``type`` tells which)."""

"""A round as one viewer sees it (``Round.view``: tablegames.engine.view), the games' own keys included."""

from __future__ import annotations

from typing import Literal

from tablegames.server.contract.base import Card, Cents, Closed


class HandView(Closed):
    description: str  # from the cards this viewer sees only ("" when it may know nothing)
    total: int | None


class SeatView(Closed):
    seat: int
    wagers: dict[str, Cents]
    options: dict[str, str]
    cards: list[Card | None]  # null: a card this viewer may not see
    out: bool
    decided: bool
    staked: Cents
    returned: Cents | None  # null until the seat is settled


class WagerSpecView(Closed):
    name: str
    main: bool
    fixed_cents: Cents | None
    needs_option: bool
    cost_multiple: int
    requires: str | None
    title: str
    options: list[str]


class RoundView(Closed):
    """What one seat (or an onlooker) may see of a round now; the last keys are a game's own (null/absent for
    the other games): Let It Ride ``community``, ``stage``, ``bets_up``; One Eyed Flush ``flip_card``,
    ``wild_cards``; Three Card Poker ``played``; ``parts_up`` (the parts of a wager still holding chips)."""

    game: str
    round_no: int
    phase: Literal["betting", "deciding", "settled"]
    to_act: int | None
    legal_actions: list[str]
    seats: list[SeatView]
    dealer: list[Card | None]
    hands: dict[str, HandView]  # by seat number (as text)
    dealer_hand: HandView | None
    meters: dict[str, Cents]
    wager_specs: list[WagerSpecView]
    community: list[Card | None] | None = None
    stage: int | None = None
    bets_up: dict[str, list[str]] | None = None
    parts_up: dict[str, list[str]] | None = None
    flip_card: Card | None = None
    wild_cards: list[Card] | None = None
    played: list[int] | None = None

"""A game's flow, written in its rules module against the small interface a round offers it.

The engine's round (``tablegames.engine.base.Round``) is generic: it takes wagers, closes them, runs the
decisions in seat order and the automatic steps, and records every event. What is particular to a game (the
deal pattern, the legal actions, what a decision does, automatic steps such as Let It Ride's burn and turn,
the dealer's play, settlement, the extra view and the decision context) is the game's :class:`GameFlow`,
one object per round made by its definition (``GameDefinition.flow``). A flow changes the round only through
:class:`RoundOps` (draw a card to a place with a visibility, reveal, discard, record a hand result, settle a
wager, hit a meter, pay a neighbour bonus), which the engine's round implements; this layer imports nothing above it.

Places and visibilities are plain texts: a seat's place is :func:`seat_name`; ``visible_to`` is a place
(only that seat sees it), :data:`PUBLIC` (everyone) or ``""`` (nobody, until it is revealed).

>>> Action.parse("discard 2"), str(Action("ride")), seat_name(3)
(Action(name='discard', index=2), 'ride', 'seat 3')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tablegames.rules.definition import DecisionContext

DEALER = "dealer"
COMMUNITY = "community"
BURN = "burn"
PUBLIC = "all"


def seat_name(seat: int) -> str:
    """The place (and visibility) of seat ``seat``'s cards."""
    return f"seat {seat}"


@dataclass(frozen=True, order=True)
class Action:
    """A decision's name and, for an indexed decision, a card index (``discard 2``)."""

    name: str
    index: int | None = None

    def __str__(self) -> str:
        return self.name if self.index is None else f"{self.name} {self.index}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """``"ride"`` or ``"discard 1"`` -> Action (no legality check: the round does that)."""
        parts = text.strip().lower().split()
        if not parts:
            raise ValueError("empty action")
        if len(parts) == 1:
            return cls(parts[0])
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            return cls(parts[0], int(parts[1]))
        raise ValueError(f"cannot read action {text!r}")


class SeatOps(Protocol):
    """One seat of a round, as a flow reads and marks it."""

    seat: int
    wagers: dict[str, int]
    options: dict[str, str]
    cards: list[int]
    initial_cards: tuple[int, ...]
    decided: bool  # the seat has taken its decision at this stage
    out: bool  # busted or lost early: settled, nothing later changes it


class RoundOps(Protocol):
    """What a round offers its game's flow: its rules, seats and dealer's cards, and the steps that record
    events and move money (each records exactly one event)."""

    @property
    def rules(self) -> Any: ...

    @property
    def dealer(self) -> list[int]: ...

    @property
    def seats(self) -> Mapping[int, SeatOps]: ...

    @property
    def active_seats(self) -> Sequence[SeatOps]:
        """The seats with a wager, in seat order (they are dealt cards)."""

    @property
    def deciding_seats(self) -> Sequence[SeatOps]:
        """The seats with the main wager, in seat order (they take the decisions)."""

    @property
    def to_act(self) -> int | None: ...

    def draw(self, to: str, visible_to: str) -> int:
        """Deal the next card of the deck to place ``to``, seen by ``visible_to``; returns it."""

    def reveal(self, place: str, cards: Sequence[int]) -> None:
        """Turn ``cards`` of ``place`` face up for everyone."""

    def discard(self, place: str, card: int, visible_to: str) -> None:
        """``card`` leaves ``place`` (a discard or a burn), seen by ``visible_to``."""

    def hand_result(self, place: str, description: str) -> None:
        """Record what the hand at ``place`` is, for everyone."""

    def settle(
        self,
        state: SeatOps,
        wager: str,
        staked: int,
        returned: int,
        outcome: str,
        detail: str = "",
        *,
        meter: str | None = None,
        meter_cents: int = 0,
        capped_from: int | None = None,
        visible_to: str = PUBLIC,
        part: str = "",
    ) -> None:
        """Settle one wager (``part``: only these of the equal bets it is made of, space-separated):
        ``returned`` cents back to the seat (``meter_cents`` of them from ``meter``; ``capped_from``: what it
        would have returned without the payout cap)."""

    def pay_neighbour_bonus(self, state: SeatOps, from_seat: int, hand: str, cents: int) -> None:
        """A fixed bonus to ``state`` because ``from_seat`` made ``hand`` (no wager of its own)."""

    def hit_meter(self, state: SeatOps, meter: str) -> int:
        """Take 100% of ``meter`` for ``state`` and reset it; returns the amount, which the wager's
        :meth:`settle` then pays (``meter=``, ``meter_cents=``)."""


CardsView = Callable[[Sequence[int]], list[str | None]]
"""Cards as the viewer may see them (``None`` for a card it may not see)."""


class GameFlow(Protocol):
    """A game's steps for one round (see the module docstring)."""

    def deal(self, r: RoundOps) -> None:
        """Deal the round's cards (R-0.2: seat 1..N then dealer, one card at a time, unless the game says)."""

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        """The actions ``state`` may take now (it is its turn)."""

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        """Apply a legal decision (mark the seat ``decided`` when its decision at this stage is made)."""

    def auto_step(self, r: RoundOps) -> bool:
        """Take one automatic step before the next decision; True if something happened."""

    def dealer_play(self, r: RoundOps) -> None:
        """The dealer's play once every seat has decided."""

    def settle_all(self, r: RoundOps) -> None:
        """Settle every wager still open."""

    def context(self, r: RoundOps, state: SeatOps) -> DecisionContext:
        """What a bot or hint needs for ``state``'s decision (only what that seat may see), as the game's
        typed context (``GameDefinition.context_type``)."""

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        """The game's own keys of a view (community cards, the Flip Card...), cards through ``cards``."""


class BaseFlow:
    """Defaults for a flow: no automatic steps, nothing extra in the view."""

    def auto_step(self, r: RoundOps) -> bool:
        return False

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        return {}

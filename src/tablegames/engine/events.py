"""Immutable event records: every applied action and every automatic step of a round.

The list of a round's events is its history: it says every card as dealt (with its deck position and who
may see it), every wager, decision, jackpot contribution, hit, neighbour bonus and settlement.  Events can be
turned into JSON-ready dicts, and redacted for one viewer (never a card that viewer may not see yet).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from tablegames.cards import CARDS
from tablegames.rules.flow import BURN, COMMUNITY, DEALER, PUBLIC, seat_name


@dataclass(frozen=True)
class Event:
    """Base of all events. ``kind`` names the event type in JSON."""

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """A new JSON-ready dict. (An event keeps its dict and hands out copies, its lists and dicts copied too
        when they hold plain values only: a round's events are turned into dicts at its pushes and its
        settlement.)"""
        values = self.__dict__
        kept = values.get(_KEPT)
        if kept is not None:
            kept_data, kept_nested = kept
            copy = dict(kept_data)
            for name in kept_nested:
                copy[name] = copy[name].copy()
            return copy
        data: dict[str, Any] = {"type": self.kind}
        nested: list[str] = []
        keep = True
        for name in _field_names(type(self)):
            value = values[name]
            if type(value) not in _PLAIN:  # (a plain value is its own JSON)
                value = _jsonable(value)
                if isinstance(value, list | dict):
                    nested.append(name)
                    inner = value.values() if isinstance(value, dict) else value
                    keep = keep and all(type(v) in _PLAIN for v in inner)
            data[name] = value
        if keep:  # (a copy of it shares nothing mutable with it)
            object.__setattr__(self, _KEPT, (data, tuple(nested)))
            return self.to_dict()
        return data

    def for_viewer(self, seat: int | None) -> dict[str, Any]:
        """This event as ``seat`` may see it now (``None``: an onlooker who sees only public cards)."""
        return self.to_dict() if self.whole_to(seat) else self.redacted()

    def whole_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see all of this event while the round is open (else it sees
        :meth:`redacted`, the same for every such seat). True for every seat when :meth:`public`."""
        return True

    def public(self) -> bool:
        """Whether every viewer, an onlooker too, may see all of it while the round is open."""
        return True

    def redacted(self) -> dict[str, Any]:
        """This event as a seat that may not see all of it sees it (:meth:`whole_to`)."""
        return self.to_dict()


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_PLAIN = frozenset({str, int, bool, float, type(None)})
_KEPT = "_kept_dict"  # (not a field: equality, hashing and repr ignore it)


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _jsonable(value: object) -> object:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, frozenset):
        return sorted(_jsonable(v) for v in value)  # type: ignore[type-var]
    return value


@dataclass(frozen=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    game: str
    round_no: int
    rules: dict[str, str]
    seats: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class WagerPlaced(Event):
    kind: ClassVar[str] = "wager_placed"
    seat: int
    wager: str
    amount: int
    option: str | None = None


@dataclass(frozen=True)
class JackpotContribution(Event):
    kind: ClassVar[str] = "jackpot_contribution"
    seat: int
    meter: str
    amount: int
    meter_after: int


class _OneCard:
    """Mixin for an event that carries one card, seen only by ``visible_to`` until the round ends."""

    card: int
    visible_to: str

    def visible(self, seat: int | None) -> bool:
        return self.visible_to == PUBLIC or (seat is not None and self.visible_to == seat_name(seat))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = super().to_dict()  # type: ignore[misc]
        d["card"] = str(CARDS[self.card])
        return d

    def whole_to(self, seat: int | None) -> bool:
        return self.visible(seat)

    def public(self) -> bool:
        return self.visible_to == PUBLIC

    def redacted(self) -> dict[str, Any]:
        d = self.to_dict()
        d["card"] = None
        return d


@dataclass(frozen=True)
class CardDealt(_OneCard, Event):
    """One card from deck position ``position`` to ``to`` (``seat N``, dealer, community, burn).

    ``visible_to`` is ``"all"`` for a face-up card, else the one seat name that may look at it (``""``: nobody).
    """

    kind: ClassVar[str] = "card_dealt"
    to: str
    position: int
    card: int
    visible_to: str


@dataclass(frozen=True)
class CardsRevealed(Event):
    """Cards turned face up for everyone."""

    kind: ClassVar[str] = "cards_revealed"
    owner: str
    cards: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["cards"] = [str(CARDS[c]) for c in self.cards]
        return d


@dataclass(frozen=True)
class ActionTaken(Event):
    """A decision: by the player, a bot, or the server's timeout default (``by``)."""

    kind: ClassVar[str] = "action"
    seat: int
    action: str
    by: str = "player"


@dataclass(frozen=True)
class CardDiscarded(_OneCard, Event):
    """A card put aside face down (One Eyed Flush discard before a draw)."""

    kind: ClassVar[str] = "card_discarded"
    owner: str
    card: int
    visible_to: str


@dataclass(frozen=True)
class HandResult(Event):
    """The evaluated hand of a seat or the dealer, when it becomes public."""

    kind: ClassVar[str] = "hand"
    owner: str
    hand: str


@dataclass(frozen=True)
class Settled(Event):
    """One wager settled: ``returned`` cents go back to the player (0 on a loss), ``meter_cents`` of them
    taken from ``meter``, the rest from the house.

    ``visible_to`` says who may read ``detail`` (a hand description or total, derived from the cards) while the
    round is open: ``"all"`` or one seat name. A One Eyed Flush bust is settled mid-round while the hand is still
    face down (R-OEF-6): every seat sees the bust, only its own seat the hand (``"No Pair (28)"``).

    ``part``: of a wager made of several equal bets (``Wager.parts``), the parts this settlement covers,
    space-separated (Let It Ride's ``bets``: ``"1"`` when bet 1 is pulled, ``"2 $"`` for the bets still up at
    the showdown); ``""`` for a whole wager. The wager keeps its one name: the name it was placed under.
    """

    kind: ClassVar[str] = "settled"
    seat: int
    wager: str
    staked: int
    returned: int
    outcome: str
    detail: str = ""
    meter: str | None = None  # the meter that paid ``meter_cents`` of ``returned`` (R-LIR-7, R-OEF-9)
    meter_cents: int = 0
    capped_from: int | None = None  # the return before the payout cap (R-LIR-5), when the cap cut it
    visible_to: str = PUBLIC
    part: str = ""

    @property
    def net(self) -> int:
        return self.returned - self.staked

    def whole_to(self, seat: int | None) -> bool:
        return self.visible_to == PUBLIC or (seat is not None and self.visible_to == seat_name(seat))

    def public(self) -> bool:
        return self.visible_to == PUBLIC

    def redacted(self) -> dict[str, Any]:
        d = self.to_dict()
        d["detail"] = ""
        return d


@dataclass(frozen=True)
class JackpotHit(Event):
    kind: ClassVar[str] = "jackpot_hit"
    seat: int
    meter: str
    amount: int
    reset_to: int


@dataclass(frozen=True)
class NeighbourBonusPaid(Event):
    """A neighbour bonus: ``seat`` paid ``amount`` because ``from_seat`` made ``hand`` (no wager of its own;
    ``GameDefinition.neighbour_bonus`` titles it). Its wire name ``envy_paid`` is older."""

    kind: ClassVar[str] = "envy_paid"
    seat: int
    from_seat: int
    hand: str
    amount: int


@dataclass(frozen=True)
class RoundEnded(Event):
    kind: ClassVar[str] = "round_ended"
    net_by_seat: dict[int, int] = field(default_factory=dict)
    house_net: int = 0
    meters: dict[str, int] = field(default_factory=dict)


__all__ = [
    "BURN",
    "COMMUNITY",
    "DEALER",
    "PUBLIC",
    "ActionTaken",
    "CardDealt",
    "CardDiscarded",
    "CardsRevealed",
    "Event",
    "HandResult",
    "JackpotContribution",
    "JackpotHit",
    "NeighbourBonusPaid",
    "RoundEnded",
    "RoundStarted",
    "Settled",
    "WagerPlaced",
    "seat_name",
]

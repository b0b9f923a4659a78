"""A round as one viewer may see it now (:meth:`tablegames.engine.base.Round.view`): a JSON-ready dict with
every seat's wagers and the cards that viewer may see (``None`` for the others), the hands it may know of,
described by the game's definition from those cards only, the meters, the wagers a seat may place and the
game's own keys (its flow's ``extra_view``)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tablegames.cards import CARDS
from tablegames.engine.events import CardDealt, CardsRevealed, seat_name

if TYPE_CHECKING:
    from tablegames.engine.base import Round, SeatState
    from tablegames.engine.wagers import WagerSpec


def revealed_cards(rnd: Round) -> set[int]:
    """Every card turned face up for everyone so far."""
    out: set[int] = set()
    for e in rnd.history:
        if isinstance(e, CardsRevealed):
            out.update(e.cards)
    return out


_NAMES: tuple[str, ...] = tuple(str(c) for c in CARDS)


def _names(visible: Sequence[int | None]) -> list[str | None]:
    """Cards as seen (``None``: hidden) by their names."""
    return [None if c is None else _NAMES[c] for c in visible]


def _seat_entry(s: SeatState, visible: list[int | None]) -> dict[str, Any]:
    """A seat's entry of a view: its wagers and state, its cards as the viewer sees them."""
    return {
        "seat": s.seat,
        "wagers": dict(s.wagers),
        "options": dict(s.options),
        "cards": _names(visible),
        "out": s.out,
        "decided": s.decided,
        "staked": s.staked,
        "returned": s.returned if s.settled else None,
    }


def _wager_spec(w: WagerSpec) -> dict[str, Any]:
    """A wager a seat may place, as a view lists it."""
    return {
        "name": w.name,
        "main": w.main,
        "fixed_cents": w.fixed_cents,
        "needs_option": w.needs_option,
        "cost_multiple": w.cost_multiple,
        "requires": w.requires,
        "title": w.title,
        "options": list(w.options),
    }


def round_view(rnd: Round, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now (``None``: an onlooker): never a card it may not see, nor a word about one."""
    shown: dict[int, bool] = {}
    for e in rnd.history:
        if isinstance(e, CardDealt):
            shown[e.card] = rnd.card_visible(e, seat)
    visible_cards = {c for c, v in shown.items() if v} | revealed_cards(rnd)

    def seen(cs: Sequence[int]) -> list[int | None]:
        return [c if c in visible_cards else None for c in cs]

    def cards(cs: Sequence[int]) -> list[str | None]:
        return _names(seen(cs))

    def hand(visible: list[int | None]) -> dict[str, Any]:
        # from the cards this viewer sees only (unseen ones as None): never a word about a hidden card
        return {
            "description": rnd.definition.describe_hand(rnd.rules, visible),
            "total": rnd.definition.total(rnd.rules, visible),
        }

    seats_seen = {
        k: seen(s.cards) for k, s in rnd.seats.items()
    }  # (each seat's cards as this viewer sees them)
    hands = {
        str(s.seat): hand(seats_seen[s.seat])
        for s in rnd.active_seats
        if s.seat == seat or any(c is not None for c in seats_seen[s.seat])
    }
    dealer_seen = seen(rnd.dealer)
    dealer_shown = any(c is not None for c in dealer_seen)

    return {
        "game": rnd.table.game,
        "round_no": rnd.round_no,
        "phase": rnd.phase.value,
        "to_act": rnd.to_act,
        "legal_actions": [str(a) for a in rnd.legal_actions(seat)] if seat is not None else [],
        "seats": [_seat_entry(s, seats_seen[k]) for k, s in rnd.seats.items()],
        "dealer": _names(dealer_seen),
        "hands": hands,
        "dealer_hand": hand(dealer_seen) if dealer_shown else None,
        "meters": dict(rnd.table.meters),
        "wager_specs": [_wager_spec(w) for w in rnd.wager_specs()],
        **rnd.flow.extra_view(rnd, cards),
    }


def seen_whole(rnd: Round, seat: int | None, start: int = 0) -> list[bool]:
    """For each event of the history from ``start`` on, whether ``seat`` may see all of it now (every event,
    once the round is settled): :meth:`~tablegames.engine.base.Round.visible_history` gives it whole
    (``Event.to_dict``), else as every such seat sees it (``Event.redacted``). The one place that decides what
    a seat sees of the history."""
    from tablegames.engine.base import Phase

    events = rnd.history[start:]
    if rnd.phase == Phase.SETTLED:
        return [True] * len(events)
    return [e.whole_to(seat) for e in events]


def seen_whole_by_all(rnd: Round, start: int = 0) -> list[bool]:
    """For each event of the history from ``start`` on, whether every viewer may see all of it now (then
    :func:`seen_whole` is true for every seat)."""
    from tablegames.engine.base import Phase

    events = rnd.history[start:]
    if rnd.phase == Phase.SETTLED:
        return [True] * len(events)
    return [e.public() for e in events]


class _Read:
    """Per round: what the views read of its history, kept from push to push and brought up to date with the
    events since (the history only grows): each card's last deal, grouped by who sees it, the cards revealed,
    the hand descriptions worked out (a pure function of the round's rules and the cards), the wager specs."""

    __slots__ = ("events", "groups", "hands", "last", "revealed", "specs", "specs_of")

    def __init__(self) -> None:
        self.events = 0  # the history read so far
        self.last: dict[int, CardDealt] = {}  # card -> its (last) deal, as round_view reads them
        self.groups: dict[str, tuple[CardDealt, set[int]]] = {}  # visible_to -> (a deal, the cards)
        self.revealed: set[int] = set()
        self.hands: dict[tuple[int | None, ...], tuple[str, int | None]] = {}
        self.specs: list[dict[str, Any]] = []
        self.specs_of: object = None  # the specs' tuple they were made of

    def catch_up(self, rnd: Round) -> None:
        history = rnd.history
        if len(history) < self.events:  # (never: a history only grows) read it again
            self.__init__()  # type: ignore[misc]
        for e in history[self.events :]:
            if isinstance(e, CardDealt):
                card = e.card
                before = self.last.get(card)
                if before is not None:
                    self.groups[before.visible_to][1].discard(card)
                self.last[card] = e
                group = self.groups.get(e.visible_to)
                if group is None:
                    self.groups[e.visible_to] = (e, {card})
                else:
                    group[1].add(card)
            elif isinstance(e, CardsRevealed):
                self.revealed.update(e.cards)
        self.events = len(history)
        specs = rnd.wager_specs()
        if specs is not self.specs_of:
            self.specs = [_wager_spec(w) for w in specs]
            self.specs_of = specs


_READ: weakref.WeakKeyDictionary[Round, _Read] = weakref.WeakKeyDictionary()


def round_views(rnd: Round, viewers: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`round_view` for several viewers at once (a push: the seat of every socket), equal to it viewer by
    viewer (``tests/engine/test_engine_fast_views.py``).

    The view of an onlooker (who sees the public cards only) is worked out first; a seat's view is that view
    but for the cards only it sees (its *private* cards): a seat entry, hand, the dealer's cards, the game's
    own keys (its flow's ``extra_view``, asked again only if it read one of those cards) are worked out again
    where they hold one, else shared. The views share their parts (read them; don't change them). What the
    views read of the history (:class:`_Read`) is kept for the round's next pushes: a push reads only the events
    since the last."""
    order = list(dict.fromkeys(viewers))
    if not order:
        return {}
    from tablegames.engine.base import Phase

    read = _READ.get(rnd)
    if read is None:
        read = _READ[rnd] = _Read()
    read.catch_up(rnd)
    settled = rnd.phase == Phase.SETTLED
    public = set(read.revealed)  # the cards everyone sees
    private_groups: dict[str, set[int]] = {}  # the cards only one seat sees (``visible_to``: its name)
    for rep, cs in read.groups.values():
        if settled or rep.visible(None):
            public.update(cs)
        elif cs:
            private_groups[rep.visible_to] = cs
    hands_memo = read.hands
    definition, rules = rnd.definition, rnd.rules

    def hand(visible: list[int | None]) -> dict[str, Any]:
        key = tuple(visible)
        known = hands_memo.get(key)
        if known is None:
            known = hands_memo[key] = (
                definition.describe_hand(rules, visible),
                definition.total(rules, visible),
            )
        return {"description": known[0], "total": known[1]}

    def seen_by(visible: set[int]) -> Callable[[Sequence[int]], list[int | None]]:
        return lambda cs: [c if c in visible else None for c in cs]

    seats = list(rnd.seats.items())
    active = [s.seat for s in rnd.active_seats]
    to_act = rnd.to_act
    shared = {
        "game": rnd.table.game,
        "round_no": rnd.round_no,
        "phase": rnd.phase.value,
        "to_act": to_act,
    }
    meters = dict(rnd.table.meters)
    specs = read.specs

    # the onlooker's view's parts
    seen_public = seen_by(public)
    seats_seen = {k: seen_public(s.cards) for k, s in seats}
    entries = {k: _seat_entry(s, seats_seen[k]) for k, s in seats}
    shown = {k: any(c is not None for c in seats_seen[k]) for k in active}
    hands = {k: hand(seats_seen[k]) for k in active if shown[k]}
    dealer_seen = seen_public(rnd.dealer)
    dealer = _names(dealer_seen)
    dealer_hand = hand(dealer_seen) if any(c is not None for c in dealer_seen) else None
    asked: list[tuple[int, ...]] = []  # the cards the flow's extra_view read

    def public_cards(cs: Sequence[int]) -> list[str | None]:
        cs = tuple(cs)
        asked.append(cs)
        return _names(seen_public(cs))

    extra = rnd.flow.extra_view(rnd, public_cards)

    out: dict[int | None, dict[str, Any]] = {}
    for seat in order:
        private: set[int] = set()
        if seat is not None and private_groups:
            private = private_groups.get(seat_name(seat), private) - public
        view_entries, view_hands = entries, hands
        view_dealer, view_dealer_hand, view_extra = dealer, dealer_hand, extra
        if private:  # what this seat sees and an onlooker does not
            seen = seen_by(public | private)
            view_entries = dict(entries)
            view_hands = {}
            for k, s in seats:
                if not private.isdisjoint(s.cards):
                    mine = seen(s.cards)
                    view_entries[k] = _seat_entry(s, mine)
                    if k in shown:
                        view_hands[k] = hand(mine)
                elif k in hands:
                    view_hands[k] = hands[k]
            if not private.isdisjoint(rnd.dealer):
                dealer_mine = seen(rnd.dealer)
                view_dealer = _names(dealer_mine)
                view_dealer_hand = hand(dealer_mine)
            if not all(private.isdisjoint(cs) for cs in asked):  # (else it would read the same names)

                def cards(
                    cs: Sequence[int], seen: Callable[[Sequence[int]], list[int | None]] = seen
                ) -> list[str | None]:
                    return _names(seen(cs))

                view_extra = rnd.flow.extra_view(rnd, cards)
        out[seat] = {
            **shared,
            # (legal_actions is empty but for the seat to act)
            "legal_actions": [str(a) for a in rnd.legal_actions(seat)]
            if seat is not None and seat == to_act
            else [],
            "seats": list(view_entries.values()),
            "dealer": view_dealer,
            "hands": {
                str(k): view_hands[k] if k in view_hands else hand(seats_seen[k])
                for k in active
                if k == seat or k in view_hands
            },
            "dealer_hand": view_dealer_hand,
            "meters": meters,
            "wager_specs": specs,
            **view_extra,
        }
    return out

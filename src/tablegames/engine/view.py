"""A round as one viewer may see it now (:meth:`tablegames.engine.base.Round.view`): a JSON-ready dict with
every seat's wagers and the cards that viewer may see (``None`` for the others), the hands it may know of,
described by the game's definition from those cards only, the meters, the wagers a seat may place and the
game's own keys (its flow's ``extra_view``)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tablegames.cards import CARDS
from tablegames.engine.events import CardDealt, CardsRevealed

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


_HANDS: weakref.WeakKeyDictionary[Round, dict[tuple[int | None, ...], tuple[str, int | None]]] = (
    weakref.WeakKeyDictionary()
)  # per round: the hand descriptions worked out so far (a pure function of the round's rules and the cards)


def round_views(rnd: Round, viewers: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`round_view` for several viewers at once (a push: the seat of every socket), equal to it viewer by
    viewer (``tests/engine/test_engine_fast_views.py``). What does not depend on the viewer is worked out once
    and shared by the views (read them; don't change them), who sees a dealt card is asked of one event per
    ``visible_to``, and a hand's description is kept for the round's next pushes."""
    order = list(dict.fromkeys(viewers))
    if not order:
        return {}
    from tablegames.engine.base import Phase

    settled = rnd.phase == Phase.SETTLED
    last: dict[int, CardDealt] = {}  # card -> its (last) deal, as round_view reads them
    for e in rnd.history:
        if isinstance(e, CardDealt):
            last[e.card] = e
    revealed = revealed_cards(rnd)
    groups: dict[str, tuple[CardDealt, list[int]]] = {}  # visible_to -> (an event, its cards)
    for card, e in last.items():
        group = groups.get(e.visible_to)
        if group is None:
            groups[e.visible_to] = (e, [card])
        else:
            group[1].append(card)
    hands_memo = _HANDS.get(rnd)
    if hands_memo is None:
        hands_memo = _HANDS[rnd] = {}
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

    seats = list(rnd.seats.items())
    active = [s.seat for s in rnd.active_seats]
    shared = {
        "game": rnd.table.game,
        "round_no": rnd.round_no,
        "phase": rnd.phase.value,
        "to_act": rnd.to_act,
    }
    meters = dict(rnd.table.meters)
    specs = [_wager_spec(w) for w in rnd.wager_specs()]
    entries: dict[
        tuple[int, tuple[int | None, ...]], dict[str, Any]
    ] = {}  # (seat, its cards as seen) -> entry

    def seat_entry(k: int, s: SeatState, visible: list[int | None]) -> dict[str, Any]:
        key = (k, tuple(visible))
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _seat_entry(s, visible)
        return entry

    out: dict[int | None, dict[str, Any]] = {}
    for seat in order:
        visible_cards = set(revealed)
        for rep, cs in groups.values():
            if settled or rep.visible(seat):
                visible_cards.update(cs)

        def seen(cs: Sequence[int], visible_cards: set[int] = visible_cards) -> list[int | None]:
            return [c if c in visible_cards else None for c in cs]

        def cards(
            cs: Sequence[int], seen: Callable[[Sequence[int]], list[int | None]] = seen
        ) -> list[str | None]:
            return _names(seen(cs))

        seats_seen = {k: seen(s.cards) for k, s in seats}
        dealer_seen = seen(rnd.dealer)
        out[seat] = {
            **shared,
            "legal_actions": [str(a) for a in rnd.legal_actions(seat)] if seat is not None else [],
            "seats": [seat_entry(k, s, seats_seen[k]) for k, s in seats],
            "dealer": _names(dealer_seen),
            "hands": {
                str(k): hand(seats_seen[k])
                for k in active
                if k == seat or any(c is not None for c in seats_seen[k])
            },
            "dealer_hand": hand(dealer_seen) if any(c is not None for c in dealer_seen) else None,
            "meters": meters,
            "wager_specs": specs,
            **rnd.flow.extra_view(rnd, cards),
        }
    return out

"""A round as one viewer may see it now (:meth:`tablegames.engine.base.Round.view`): a JSON-ready dict with
every seat's wagers and the cards that viewer may see (``None`` for the others), the hands it may know of,
described by the game's definition from those cards only, the meters, the wagers a seat may place and the
game's own keys (its flow's ``extra_view``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tablegames.cards import CARDS
from tablegames.engine.events import CardDealt, CardsRevealed

if TYPE_CHECKING:
    from tablegames.engine.base import Round


def revealed_cards(rnd: Round) -> set[int]:
    """Every card turned face up for everyone so far."""
    out: set[int] = set()
    for e in rnd.history:
        if isinstance(e, CardsRevealed):
            out.update(e.cards)
    return out


def round_view(rnd: Round, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now (``None``: an onlooker): never a card it may not see, nor a word about one."""
    shown: dict[int, bool] = {}
    for e in rnd.history:
        if isinstance(e, CardDealt):
            shown[e.card] = rnd.card_visible(e, seat)
    visible_cards = {c for c, v in shown.items() if v} | revealed_cards(rnd)

    def seen(cs: Sequence[int]) -> list[int | None]:
        return [c if c in visible_cards else None for c in cs]

    def names(visible: Sequence[int | None]) -> list[str | None]:
        return [None if c is None else str(CARDS[c]) for c in visible]

    def cards(cs: Sequence[int]) -> list[str | None]:
        return names(seen(cs))

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
        "seats": [
            {
                "seat": s.seat,
                "wagers": dict(s.wagers),
                "options": dict(s.options),
                "cards": names(seats_seen[k]),
                "out": s.out,
                "decided": s.decided,
                "staked": s.staked,
                "returned": s.returned if s.settled else None,
            }
            for k, s in rnd.seats.items()
        ],
        "dealer": names(dealer_seen),
        "hands": hands,
        "dealer_hand": hand(dealer_seen) if dealer_shown else None,
        "meters": dict(rnd.table.meters),
        "wager_specs": [
            {
                "name": w.name,
                "main": w.main,
                "fixed_cents": w.fixed_cents,
                "needs_option": w.needs_option,
                "cost_multiple": w.cost_multiple,
                "requires": w.requires,
                "title": w.title,
                "options": list(w.options),
            }
            for w in rnd.wager_specs()
        ],
        **rnd.flow.extra_view(rnd, cards),
    }

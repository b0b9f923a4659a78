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
    revealed = revealed_cards(rnd)

    def seen(cs: Sequence[int]) -> list[int | None]:
        return [c if shown.get(c) or c in revealed else None for c in cs]

    def cards(cs: Sequence[int]) -> list[str | None]:
        return [None if c is None else str(CARDS[c]) for c in seen(cs)]

    def hand(cs: Sequence[int]) -> dict[str, Any]:
        # from the cards this viewer sees only (unseen ones as None): never a word about a hidden card
        visible = seen(cs)
        return {
            "description": rnd.definition.describe_hand(rnd.rules, visible),
            "total": rnd.definition.total(rnd.rules, visible),
        }

    hands = {
        str(s.seat): hand(s.cards)
        for s in rnd.active_seats
        if s.seat == seat or any(c is not None for c in seen(s.cards))
    }
    dealer_shown = any(c is not None for c in seen(rnd.dealer))

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
                "cards": cards(s.cards),
                "out": s.out,
                "decided": s.decided,
                "staked": s.staked,
                "returned": s.returned if s.settled else None,
            }
            for s in rnd.seats.values()
        ],
        "dealer": cards(rnd.dealer),
        "hands": hands,
        "dealer_hand": hand(rnd.dealer) if dealer_shown else None,
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

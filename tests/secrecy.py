"""What a viewer may know of a round, shared by the engine's and the server's secrecy tests: the cards it may
have seen after the first ``k`` events of the round's full history, and the texts the round derives from a
seat's cards (hand names, settlement details) that must not reach a viewer who cannot see that hand yet."""

from __future__ import annotations

import re
from typing import Any

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")

RULE_DATA = frozenset({"wild_cards", "rules", "paytable", "rule_set"})
"""Keys whose values are the table's rules (the wild cards a view lists), not cards dealt: never a secret."""


def cards_in(obj: Any) -> set[str]:
    """Every card string anywhere in a message."""
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        values = [v for k, v in obj.items() if k not in RULE_DATA]
        return set().union(*(cards_in(v) for v in values)) if values else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()


def strings_in(obj: Any, not_derived: frozenset[str] = frozenset()) -> set[str]:
    """Every string anywhere in a message, except under the keys ``not_derived`` (names, rules, ...)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        values = [v for k, v in obj.items() if k not in not_derived]
        return set().union(*(strings_in(v, not_derived) for v in values)) if values else set()
    if isinstance(obj, list):
        return set().union(*(strings_in(v, not_derived) for v in obj)) if obj else set()
    return set()


def allowed(events: list[dict[str, Any]], seat: int | None, k: int) -> set[str]:
    """Cards ``seat`` (None: an onlooker) may have seen after the first ``k`` events (all once it is over)."""
    if k >= len(events):
        return cards_in(events)
    me = f"seat {seat}" if seat is not None else None
    out: set[str] = set()
    for e in events[:k]:
        if e["type"] in ("card_dealt", "card_discarded") and e["visible_to"] in ("all", me):
            out.add(e["card"])
        elif e["type"] == "cards_revealed":
            out.update(e["cards"])
    return out


def derived_texts(events: list[dict[str, Any]], owner: str) -> set[str]:
    """The texts the round derives from ``owner``'s cards ("seat 2"): its settlement details and hand names."""
    out: set[str] = set()
    for e in events:
        if e["type"] == "settled" and f"seat {e['seat']}" == owner and e["detail"]:
            out.add(e["detail"])
        elif e["type"] == "hand" and e["owner"] == owner:
            out.add(e["hand"])
    return out


def public_texts(events: list[dict[str, Any]]) -> set[str]:
    """Texts no card decides: a wager's option (the Flip Card's outcome) and the details of a settlement made
    at once on a public decision with no card dealt between (a fold's "folded")."""
    out = {str(e["option"]) for e in events if e["type"] == "wager_placed" and e.get("option")}
    acting: int | None = None
    for e in events:
        if e["type"] == "action":
            acting = e["seat"]
        elif e["type"] == "settled" and e["seat"] == acting:
            out.add(e["detail"])
        else:
            acting = None
    return out


def leaked_texts(events: list[dict[str, Any]], seat: int | None, k: int, shown: set[str]) -> set[str]:
    """Texts derived from another seat's cards among ``shown`` while ``seat`` could not see them all yet (after
    the first ``k`` events of the full history ``events``). A short text (a total like ``"14"``) counts only
    as a whole string; texts of hands the viewer may know (its own, those it sees whole) may repeat."""
    if k >= len(events):
        return set()
    ok = allowed(events, seat, k)
    owners = {e["to"] for e in events if e["type"] == "card_dealt" and e["to"].startswith("seat ")}
    hidden: set[str] = set()
    known: set[str] = set()
    for owner in owners:
        cards = {e["card"] for e in events if e["type"] == "card_dealt" and e["to"] == owner}
        if owner == f"seat {seat}" or cards <= ok:
            known |= derived_texts(events, owner)
        else:
            hidden.add(owner)
    leaked: set[str] = set()
    known |= public_texts(events)
    for owner in hidden:
        for text in derived_texts(events, owner) - known:
            if any(t == text or (len(text) >= 6 and text in t) for t in shown):
                leaked.add(text)
    return leaked

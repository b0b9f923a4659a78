"""The rulings every game shares (RULES.md, common part, and the analysis assumptions), by id, and how a text
cites them (issue 22: the math report prints each cited ruling's text; a game's own rulings are its
definition's ``rulings``, in ``rules/<game>_rulings.py``).

>>> cited("ties: casino (R-OEF-3); one deck (R-0.1), again R-0.1")
['R-OEF-3', 'R-0.1']
>>> sorted(COMMON)[:2]
['R-0.1', 'R-0.2']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

COMMON: dict[str, str] = {
    "R-0.1": (
        "One standard 52-card deck, shuffled completely before every round by an unbiased Fisher–Yates "
        "shuffle from a cryptographically strong source (live play) or a seeded generator (simulation, "
        "replay). Cards removed during a round (burns, discards) do not return until the next round."
    ),
    "R-0.2": (
        "A table has 1–7 player seats and the dealer. Dealing order is seat 1 … seat N, then dealer, one "
        "card at a time. Decisions are taken in seat order."
    ),
    "R-0.3": (
        'Money is integral (cents). A win "X to 1" returns the wager plus X times it. "Y for 1" / "$Y" '
        "(fixed prizes) pays Y and the wager is not returned."
    ),
    "R-0.4": ("A player whose hand ends early (busts, forfeits) stays settled; nothing later changes it."),
    "R-0.5": (
        "Exact ties between cards: where discarding either of two cards has exactly the same expected "
        "value, the optimal player discards the card of higher point value, and among equal values the "
        "higher rank (K, Q, J, 10), as the One Eyed Flush dealer does (R-OEF-7); suits never decide. The "
        "exact analysis, hints, bots and the simulator all break ties this way, so every frequency they "
        "report (busts, draws, hands) is of the same game."
    ),
}

_ID = re.compile(r"\bR-(?:\d+\.\d+|[A-Z]+-\d+)\b")


def cited(text: str) -> list[str]:
    """The ruling ids ``text`` cites, in order of first mention."""
    return list(dict.fromkeys(_ID.findall(text)))


def texts(definition: Any) -> Mapping[str, str]:
    """Every ruling a game's report may cite: the common ones, the game's own (``definition.rulings``) and any
    other game's that one of those texts cites (R-0.5 names the One Eyed Flush dealer's R-OEF-7)."""
    from tablegames.rules import registry  # (the registry's games import this module)

    out = {**COMMON, **dict(getattr(definition, "rulings", {}))}
    others = {k: v for d in registry.DEFINITIONS for k, v in d.rulings.items()}
    pending = [r for text in out.values() for r in cited(text)]
    while pending:
        ruling = pending.pop()
        if ruling not in out and ruling in others:
            out[ruling] = others[ruling]
            pending += cited(others[ruling])
    return out


def sort_key(ruling: str) -> tuple[int, str, int]:
    """Common rulings first, then by game tag and number (R-OEF-2 before R-OEF-10)."""
    head, _, number = ruling[2:].rpartition("-")
    if not head:
        whole, _, part = ruling[2:].partition(".")
        return (0, whole, int(part or 0))
    return (1, head, int(number))

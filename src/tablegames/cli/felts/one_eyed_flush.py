"""One Eyed Flush on the terminal: wild cards marked ``*``; the dealer's row and the Flip Card above the seats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablegames.cards import parse_card
from tablegames.cli.felts import Row, TerminalFelt
from tablegames.rules import one_eyed_flush as oef


class OneEyedFlushFelt(TerminalFelt):
    def top_rows(
        self, view: Mapping[str, Any], hands: Mapping[str, str], rules: Any, settled: bool
    ) -> list[Row]:
        rows: list[Row] = [("Dealer", view["dealer"], hands.get("dealer", ""))]
        if view.get("flip_card"):
            flip = parse_card(view["flip_card"])
            wild = rules.wild if isinstance(rules, oef.OneEyedFlushRules) else oef.WILD_CARDS
            note = f"value {oef.point_value(flip)}" + (", wild" if oef.is_wild(flip, wild) else "")
            rows.append(("Flip Card", [view["flip_card"]], note))
        return rows

    def result_detail(
        self, event: Mapping[str, Any], events: Sequence[Mapping[str, Any]], detail: str
    ) -> str:
        if event["wager"] != "flip":
            return detail
        flip = next(
            (e["card"] for e in events if e["type"] == "card_dealt" and e["visible_to"] == "all"), None
        )
        return detail if flip is None else f"{event['detail']}, flipped {parse_card(flip).pretty}"


FELT = OneEyedFlushFelt()

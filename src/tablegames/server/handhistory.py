"""Hand histories (issue 24): a player's finished rounds as a file they keep.

One record per round and seat the player held, built from the round's recall (:func:`queries.round_recall`):
its rule set, the player's cards with the dealer's and the community's (never another seat's), the wagers,
the decisions (whose: the player, a bot, the timeout), every settlement, the balances and the provably-fair
record (``tablegames verify`` checks it). Two formats carry the same facts: JSON Lines (one
:class:`HandRecord` per line, its JSON Schema published as ``schemas/hand-history.schema.json``, version
:data:`SCHEMA_ID`) and CSV (one row per record, lists joined with ``"; "``, the rules and the fairness record
as compact JSON). Amounts are integer cents in both.

>>> events = [
...     {"type": "round_started", "game": "a-game", "round_no": 1, "rules": {}, "seats": [1], "source": "x"},
...     {"type": "wager_placed", "seat": 1, "wager": "ante", "amount": 500, "option": None},
...     {"type": "card_dealt", "to": "seat 1", "position": 0, "card": "As", "visible_to": "seat 1"},
...     {"type": "card_dealt", "to": "dealer", "position": 1, "card": "Kd", "visible_to": ""},
...     {"type": "action", "seat": 1, "action": "fold", "by": "player"},
...     {"type": "settled", "seat": 1, "wager": "ante", "staked": 500, "returned": 0, "outcome": "lose"},
... ]
>>> recall = {"round_id": 7, "table": "T", "game": "a-game", "rule_set": None, "rules": {},
...           "started": None, "settled_at": None, "events": events, "fairness": None,
...           "players": [{"seat": 1, "player": "ann", "staked": 500, "returned": 0, "net": -500}]}
>>> (rec,) = records_of(recall, "ann")
>>> rec.cards, [d.action for d in rec.decisions], rec.net
({'seat 1': ['As'], 'dealer': ['Kd']}, ['fold'], -500)
>>> to_csv([rec]).splitlines()[1].split(",")[:8]
['7', '', 'T', 'a-game', '', '1', 'ann', 'seat 1: As | dealer: Kd']
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from tablegames.rules.flow import COMMUNITY, DEALER, seat_name
from tablegames.server.db import Player
from tablegames.server.errors import ApiError
from tablegames.server.queries import history, round_recall

SCHEMA_ID: Final = "tablegames.hand-history/1"
EXPORT_MAX: Final = 1000  # rounds in one export (a request holds at most this many recalls)
FORMATS: Final = ("jsonl", "csv")
MEDIA_TYPES: Final = {"jsonl": "application/x-ndjson", "csv": "text/csv"}


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WagerRow(_Closed):
    """A wager the seat placed."""

    wager: str = Field(description="the wager's name in the game's definition (docs/protocol.md)")
    amount: int = Field(description="cents")
    option: str | None = Field(default=None, description="the wager's option, where it has one")


class DecisionRow(_Closed):
    """A decision at the seat, in order."""

    action: str = Field(
        description='as the protocol names it: "pull 1", "ride", "discard 2", "play", "fold", ...'
    )
    by: str = Field(description="who took it: player, bot or timeout (the server's default)")


class ResultRow(_Closed):
    """One settlement of one of the seat's wagers."""

    wager: str
    part: str = Field(
        "", description='the parts of a wager settled by part (Let It Ride: "1", "2 $"); "" whole'
    )
    staked: int = Field(description="cents")
    returned: int = Field(description="cents back to the player (0 on a loss)")
    outcome: str = Field(description="win, lose, push, ...")
    detail: str = Field(default="", description="the hand or total that decided it")
    meter: str | None = Field(default=None, description="the meter that paid meter_cents of returned")
    meter_cents: int = 0


class HandRecord(_Closed):
    """One finished round as one seat played it (amounts in cents, times ISO 8601 in UTC)."""

    schema_id: str = Field(default=SCHEMA_ID, description="this schema's id and version")
    round_id: int
    table: str
    game: str
    rule_set: str | None = Field(description="the table's named rule set, if it has one")
    rules: dict[str, Any] = Field(description="the complete rule set the round started with")
    started: str | None
    settled_at: str | None
    seat: int
    player: str
    cards: dict[str, list[str]] = Field(
        description='the cards of "seat N" (this seat), the "dealer" and the "community", in the order dealt; '
        "never another seat's"
    )
    hands: dict[str, str] = Field(description="the evaluated hands of this seat and the dealer")
    wagers: list[WagerRow]
    decisions: list[DecisionRow]
    results: list[ResultRow]
    staked: int
    returned: int
    net: int = Field(description="returned - staked")
    balance_before: int | None = None
    balance_after: int | None = None
    fairness: dict[str, Any] | None = Field(
        description="the provably-fair round record (tablegames verify checks it); null for a test deck"
    )


def schema() -> dict[str, Any]:
    """The JSON Schema of one JSON Lines record (``schemas/hand-history.schema.json``)."""
    body = HandRecord.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **body}


def records_of(recall: dict[str, Any], player: str) -> list[HandRecord]:
    """The records of ``player``'s seats in one round's ``recall`` (a finished round)."""
    out = []
    for p in recall["players"]:
        if p["player"] != player:
            continue
        seat = int(p["seat"])
        mine = seat_name(seat)
        owners = (mine, DEALER, COMMUNITY)
        cards: dict[str, list[str]] = {}
        hands: dict[str, str] = {}
        wagers, decisions, results = [], [], []
        for e in recall["events"]:
            kind = e["type"]
            if kind == "card_dealt" and e["to"] in owners and e.get("card"):
                cards.setdefault(e["to"], []).append(str(e["card"]))
            elif kind == "hand" and e["owner"] in (mine, DEALER):
                hands[e["owner"]] = str(e["hand"])
            elif kind == "wager_placed" and e["seat"] == seat:
                wagers.append(WagerRow(wager=e["wager"], amount=e["amount"], option=e.get("option")))
            elif kind == "action" and e["seat"] == seat:
                decisions.append(DecisionRow(action=e["action"], by=e.get("by", "player")))
            elif kind == "settled" and e["seat"] == seat:
                results.append(
                    ResultRow(
                        wager=e["wager"],
                        part=e.get("part", ""),
                        staked=e["staked"],
                        returned=e["returned"],
                        outcome=e["outcome"],
                        detail=e.get("detail", ""),
                        meter=e.get("meter"),
                        meter_cents=e.get("meter_cents", 0),
                    )
                )
        out.append(
            HandRecord(
                round_id=recall["round_id"],
                table=recall["table"],
                game=recall["game"],
                rule_set=recall.get("rule_set"),
                rules=recall["rules"] or {},
                started=recall.get("started"),
                settled_at=recall.get("settled_at"),
                seat=seat,
                player=player,
                cards=cards,
                hands=hands,
                wagers=wagers,
                decisions=decisions,
                results=results,
                staked=p["staked"],
                returned=p["returned"],
                net=p["net"],
                balance_before=p.get("balance_before"),
                balance_after=p.get("balance_after"),
                fairness=recall.get("fairness"),
            )
        )
    return out


def export(session: Session, player_id: int, last: int, before: int | None = None) -> list[HandRecord]:
    """The player's last ``last`` finished rounds (below round ``before``), oldest first, with their own
    balances."""
    if not 1 <= last <= EXPORT_MAX:
        raise ValueError(f"an export holds 1 to {EXPORT_MAX} rounds, not {last}")
    player = session.get(Player, player_id)
    if player is None:
        raise ApiError("not_found", f"no player {player_id}", 404)
    rows = history(session, player_id, last, before, show_balances=player_id)
    records: list[HandRecord] = []
    for row in reversed(rows):
        records += records_of(round_recall(session, row["round_id"], player_id), player.name)
    return records


def to_jsonl(records: Iterable[HandRecord]) -> str:
    return "".join(r.model_dump_json() + "\n" for r in records)


CSV_COLUMNS: Final = (
    "round_id",
    "settled_at",
    "table",
    "game",
    "rule_set",
    "seat",
    "player",
    "cards",
    "hands",
    "wagers",
    "decisions",
    "results",
    "staked",
    "returned",
    "net",
    "balance_before",
    "balance_after",
    "rules",
    "fairness",
)


def _row(r: HandRecord) -> list[str]:
    def opt(v: object) -> str:
        return "" if v is None else str(v)

    def part(x: ResultRow) -> str:
        return f"{x.wager}{' ' + x.part if x.part else ''} {x.outcome} {x.returned}" + (
            f" ({x.detail})" if x.detail else ""
        )

    return [
        str(r.round_id),
        opt(r.settled_at),
        r.table,
        r.game,
        opt(r.rule_set),
        str(r.seat),
        r.player,
        " | ".join(f"{owner}: {' '.join(cs)}" for owner, cs in r.cards.items()),
        " | ".join(f"{owner}: {h}" for owner, h in r.hands.items()),
        "; ".join(f"{w.wager} {w.amount}" + (f" {w.option}" if w.option else "") for w in r.wagers),
        "; ".join(d.action + ("" if d.by == "player" else f" ({d.by})") for d in r.decisions),
        "; ".join(part(x) for x in r.results),
        str(r.staked),
        str(r.returned),
        str(r.net),
        opt(r.balance_before),
        opt(r.balance_after),
        json.dumps(r.rules, separators=(",", ":"), sort_keys=True),
        "" if r.fairness is None else json.dumps(r.fairness, separators=(",", ":")),
    ]


def to_csv(records: Iterable[HandRecord]) -> str:
    """The records as CSV (a header row, then one row per record; amounts in cents)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in records:
        w.writerow(_row(r))
    return buf.getvalue()


def render(records: list[HandRecord], fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    return to_jsonl(records) if fmt == "jsonl" else to_csv(records)


SCHEMA_FILE: Final = "schemas/hand-history.schema.json"


def schema_text() -> str:
    """The published schema file's text (``python -m tablegames.server.handhistory`` writes it)."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - regenerates the published schema
    from pathlib import Path

    Path(SCHEMA_FILE).write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")

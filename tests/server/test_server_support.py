"""Helpers of the table-server tests (imported by conftest.py and the tests): rigged decks, a ledger check by URL,
a round driver. The recording WebSocket client and the server harness are in ``server_harness``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from server_harness import WS
from tablegames.cards import CARDS, parse_card
from tablegames.rules.definition import GameDefinition
from tablegames.server.db import make_engine
from tablegames.server.ledger import check_ledger

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"


def rigged_deck(first: Sequence[str]) -> list[int]:
    """A deck whose first cards are ``first`` (e.g. ``["Jh", "2c", ...]``), the rest in order."""
    head = [int(parse_card(c)) for c in first]
    return head + [int(c) for c in CARDS if int(c) not in head]


def ledger_ok(url: str) -> None:
    engine = make_engine(url)
    try:
        with engine.connect() as c, sa.orm.Session(bind=c) as s:
            check = check_ledger(s)
        assert check.ok, check
    finally:
        engine.dispose()


Chooser = Callable[[int, dict[str, Any]], str]


def first_legal(seat: int, state: dict[str, Any]) -> str:
    return str(state["round"]["legal_actions"][0])


def play_round(
    seated: dict[int, WS],
    wagers: dict[int, dict[str, int]],
    options: dict[int, dict[str, str]] | None = None,
    choose: Chooser = first_legal,
) -> dict[int, dict[str, Any]]:
    """Every seat wagers, then each seat acts when its turn comes (``choose``); returns each seat's
    ``round_result``. Every socket receives every state in the same order, so the driver follows the turns."""
    options = options or {}
    last: dict[str, Any] = {}
    for seat, ws in seated.items():
        ack = ws.request(type="wager", wagers=wagers[seat], options=options.get(seat, {}))
        assert ack["type"] == "ack", ack
        last = ack
    st_ws = list(seated.values())[-1]
    rid = last["round_id"]
    st = st_ws.until(
        lambda m: m["type"] == "state" and m["round_id"] == rid and m["round"]["phase"] != "betting"
    )
    while st["round"]["phase"] == "deciding":
        seat: int = st["round"]["to_act"]
        ws = seated[seat]
        seq: int = st["seq"]

        def my_turn(m: dict[str, Any], seat: int = seat, seq: int = seq) -> bool:
            return (
                m["type"] == "state"
                and m["round_id"] == rid
                and m["seq"] >= seq
                and m["round"]["phase"] == "deciding"
                and m["round"]["to_act"] == seat
            )

        mine = st if ws is st_ws else ws.until(my_turn)
        ack = ws.request(type="act", action=choose(seat, mine))
        assert ack["type"] == "ack", ack
        after: int = mine["seq"]
        st = ws.until(lambda m, after=after: m["type"] == "state" and m["seq"] > after)  # type: ignore[misc]
        st_ws = ws
    return {seat: ws.until(lambda m: m["type"] == "round_result") for seat, ws in seated.items()}


def every_wager(definition: GameDefinition, main: int = 500) -> tuple[dict[str, int], dict[str, str], int]:
    """A game's main wager of ``main`` cents and every side bet (its fixed amount, else 200 cents; its option's
    first choice), from its definition; with what they cost together."""
    rules = definition.make_rules()
    wagers: dict[str, int] = {}
    options: dict[str, str] = {}
    cost = 0
    for w in definition.wagers:
        fixed = w.fixed_cents(rules)
        wagers[w.name] = main if w.main else fixed if fixed is not None else 200
        cost += w.cost(wagers[w.name])
        if w.option is not None:
            options[w.name] = w.option.choices[0]
    return wagers, options, cost

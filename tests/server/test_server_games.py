"""``GET /games``: every registered game, read from the registry, in the shape docs/protocol.md gives."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tablegames.rules import registry
from tablegames.server.app import STATIC_DIR, create_app

GAME_KEYS = {
    "key",
    "title",
    "tagline",
    "felt",
    "wagers",
    "decisions",
    "meters",
    "rule_options",
    "paytables",
    "parameters",
    "neighbour_bonus",
}
WAGER_KEYS = {"name", "title", "main", "cost_multiple", "fixed_cents", "requires", "option", "parts", "feeds"}


@pytest.fixture
def games(tmp_path: Path) -> Iterator[list[dict[str, Any]]]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}")) as client:
        res = client.get("/games")
        assert res.status_code == 200
        yield res.json()


def test_every_registered_game_is_listed_in_registry_order(games: list[dict[str, Any]]) -> None:
    assert [g["key"] for g in games] == [d.key for d in registry.DEFINITIONS]
    for g in games:
        assert set(g) == GAME_KEYS
        d = registry.get(g["key"])
        assert (g["title"], g["tagline"]) == (d.title, d.tagline)


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_a_game_lists_its_definition(games: list[dict[str, Any]], definition: Any) -> None:
    g = next(x for x in games if x["key"] == definition.key)
    rules = definition.make_rules()
    assert [set(w) for w in g["wagers"]] == [WAGER_KEYS] * len(definition.wagers)
    assert [w["name"] for w in g["wagers"]] == [w.name for w in definition.wagers]
    assert [w["main"] for w in g["wagers"]].count(True) == 1
    for got, w in zip(g["wagers"], definition.wagers, strict=True):
        assert got["title"] == w.title
        assert got["cost_multiple"] == w.cost_multiple
        assert got["fixed_cents"] == w.fixed_cents(rules)
        assert got["requires"] == w.requires
        assert got["feeds"] == w.feeds
        assert [p["name"] for p in got["parts"]] == (
            list(w.parts) or ([w.name, *(n for n, _ in w.companions)] if w.companions else [])
        )
        if w.option is None:
            assert got["option"] is None
        else:
            assert got["option"] == {
                "name": w.option.name,
                "choices": list(w.option.choices),
                "help": w.option.help,
            }
    assert g["decisions"] == [
        {"name": x.name, "label": x.label, "indexed": x.indexed} for x in definition.decisions
    ]
    meters = definition.meters(rules)
    assert [m["name"] for m in g["meters"]] == [m.name for m in meters]
    for got, m in zip(g["meters"], meters, strict=True):
        assert got["reset_cents"] == m.reset_cents
        assert got["share"] == f"{m.share.numerator}/{m.share.denominator}"
        assert Fraction(got["share"]) == m.share
        assert got["title"]
        assert got["big"] is m.big
    assert g["neighbour_bonus"] == definition.neighbour_bonus
    assert g["rule_options"] == [
        {"name": o.name, "choices": list(o.choices), "help": o.help} for o in definition.rule_options
    ]
    assert g["paytables"] == list(definition.paytables)
    # the felt: the page's layout module under /static when it is there, else None (the page's default)
    if g["felt"] is not None:
        assert g["felt"] == "js/" + definition.felt
        assert (STATIC_DIR / g["felt"]).is_file()
    else:
        assert definition.felt is None or not (STATIC_DIR / "js" / definition.felt).is_file()


def test_the_openapi_spec_documents_the_games_response(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'openapi.sqlite3'}")
    spec = app.openapi()
    schema = spec["paths"]["/games"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array" and schema["items"]["$ref"].endswith("/GameOut")
    assert set(spec["components"]["schemas"]["GameOut"]["properties"]) == GAME_KEYS


def test_the_felts_read_parts_big_meters_and_the_neighbour_bonus_from_here(
    games: list[dict[str, Any]],
) -> None:
    """What the page's felts draw from ``GET /games`` instead of restating it (issue 23): Let It Ride's three
    bets as parts settled as "bets <part>", Three Card Poker's Play beside the Ante (settled as "play",
    R-TCP-2), the big meter of each game with meters, and Let It Ride's Envy Bonus (R-LIR-8) by title."""
    by_key = {g["key"]: g for g in games}
    lir, tcp, oef = by_key["let-it-ride"], by_key["three-card-poker"], by_key["one-eyed-flush"]
    assert lir["wagers"][0]["parts"] == [
        {"name": p, "title": p, "settles": f"bets {p}"} for p in ("1", "2", "$")
    ]
    assert tcp["wagers"][0]["parts"] == [
        {"name": "ante", "title": "Ante", "settles": "ante"},
        {"name": "play", "title": "Play", "settles": "play"},
    ]
    assert tcp["wagers"][1]["parts"] == [] and tcp["wagers"][1]["requires"] is None  # Pair Plus alone
    assert [m["name"] for m in lir["meters"] if m["big"]] == ["mega"]
    assert [m["name"] for m in oef["meters"] if m["big"]] == ["one-eyed-flush"]
    assert [w["name"] for w in lir["wagers"] if w["feeds"]] == ["progressive"]
    assert lir["neighbour_bonus"] == "Envy Bonus"
    assert [g["key"] for g in games if g["neighbour_bonus"]] == ["let-it-ride"]


def test_a_rounds_view_says_which_parts_hold_chips() -> None:
    """``parts_up`` (the view's generic key the felts read): Three Card Poker's Play once the seat played
    (R-TCP-2), never for a seat that folded; Let It Ride's bets still up after a pull (R-LIR-2)."""
    from tablegames.engine import Action, Table
    from tablegames.randomness import SeededRandom
    from tablegames.rules import make_rules

    tcp = Table(make_rules("three-card-poker"), seats=2, source=SeededRandom(5)).new_round()
    for seat in (1, 2):
        tcp.place_wager(seat, "ante", 500)
    tcp.deal()
    assert tcp.view(1)["parts_up"] == {"1": ["ante"], "2": ["ante"]}
    tcp.act(1, Action("play"))
    tcp.act(2, Action("fold"))
    assert tcp.view(2)["parts_up"] == {"1": ["ante", "play"], "2": ["ante"]}

    lir = Table(make_rules("let-it-ride"), seats=1, source=SeededRandom(5)).new_round()
    lir.place_wager(1, "bets", 500)
    lir.deal()
    lir.act(1, Action("pull"))
    view = lir.view(1)
    assert view["parts_up"] == view["bets_up"] == {"1": ["2", "$"]}

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
}
WAGER_KEYS = {"name", "title", "main", "cost_multiple", "fixed_cents", "requires", "option"}


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

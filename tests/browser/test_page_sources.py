"""The page's JavaScript knows no game (issue 12): outside the felt layouts (``static/js/felt/``) no module
names a registered game or its rule options, and every module is under 500 lines. (No browser needed: these read the files.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablegames.rules import registry
from tablegames.server.app import STATIC_DIR

JS = STATIC_DIR / "js"
MODULES = sorted(p for p in JS.rglob("*.js"))
GENERIC = [p for p in MODULES if "felt" not in p.relative_to(JS).parts[:-1]]


def test_there_are_modules_and_felt_layouts() -> None:
    assert {p.name for p in GENERIC} >= {
        "app.js",
        "state.js",
        "lobby.js",
        "room.js",
        "console.js",
        "narrate.js",
    }
    assert (JS / "felt" / "default.js").is_file()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(JS)))
def test_every_module_is_under_500_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) < 500


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_no_generic_module_names_a_game_or_its_rules(definition: registry.GameDefinition) -> None:
    """Neither the game's key nor one of its ``--rule`` option names (Final Count's face-value was read by
    the page's own total) appears, as a word, in a module that is not a felt layout."""
    for name in {definition.key, *(o.name for o in definition.rule_options)}:
        word = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        for path in GENERIC:
            assert not word.search(path.read_text()), f"{path.relative_to(JS)} names {name!r}"


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_a_felt_layout_is_where_the_definition_points(definition: registry.GameDefinition) -> None:
    if definition.felt is not None:
        assert (JS / definition.felt).is_file(), definition.felt


def game_words(definition: registry.GameDefinition) -> set[str]:
    """What belongs to one game: its key, its wagers' names and their parts and companions, its meters'
    names. ``main`` is left out: the generic name of a main wager (and a spot's kind)."""
    rules = definition.make_rules()
    words = {definition.key}
    for w in definition.wagers:
        words |= {w.name, *w.parts, *(n for n, _ in w.companions)}
    words |= {m.name for m in definition.meters(rules)}
    return words - {"main", "1", "2", "$"}


def quoted(text: str) -> set[str]:
    """Every string literal's text, and the first word of each ("bets 1", a spot keyed by a wager's part,
    gives "bets")."""
    out: set[str] = set()
    for m in re.finditer(r"\"([^\"\n]*)\"|'([^'\n]*)'|`([^`]*)`", text):
        body = next(g for g in m.groups() if g is not None)
        out |= {body, body.split(" ", 1)[0]}
    return out


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_no_module_restates_a_games_wagers_or_meters(definition: registry.GameDefinition) -> None:
    """No rule in JavaScript (issue 23): a game's wagers, their parts and its meters come from GET /games, so
    no module, felt layouts included, writes one of their names (or a generic module the game's key) as a
    string."""
    words = game_words(definition)
    for path in MODULES:
        found = quoted(path.read_text()) & (words if path in GENERIC else words - {definition.key})
        assert not found, f"{path.relative_to(JS)} names {sorted(found)} of {definition.key}"


def test_the_wager_check_finds_a_restated_wager() -> None:
    """The check above fails on what the felts used to say (Let It Ride's spots and big meter)."""
    lir = registry.get("let-it-ride")
    old = '{ key: "bets 1", wager: "bets", part: "1" }, bigMeters: ["mega"], { wager: `bonus` }'
    assert quoted(old) & game_words(lir) == {"bets", "mega", "bonus"}
    assert not quoted('kind: w.main ? "main" : "side", "Place your bets", "group bets"') & game_words(lir)

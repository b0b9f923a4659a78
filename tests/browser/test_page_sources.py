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

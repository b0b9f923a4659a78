"""Issue 12's layering and "game as data" checks for the engine's part of the tree: the rules layer imports
nothing above it (a game's flow is written against ``rules.flow.RoundOps``), and outside a game's own files no
module of the engine, the rules, the simulation or the terminal names a game (its key or its class names)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tablegames
from tablegames.rules import registry

SRC = Path(tablegames.__file__).parent
ABOVE_RULES = (
    "tablegames.engine",
    "tablegames.analysis",
    "tablegames.simulation",
    "tablegames.server",
    "tablegames.cli",
)


def imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("path", sorted((SRC / "rules").glob("*.py")), ids=lambda p: p.name)
def test_the_rules_layer_imports_nothing_above_it(path: Path) -> None:
    bad = sorted(m for m in imports(path) if m.startswith(ABOVE_RULES))
    assert not bad, f"{path.name} imports {bad}"


def game_names() -> re.Pattern[str]:
    words: set[str] = set()
    for d in registry.DEFINITIONS:
        words.add(d.key)
        words.add(d.title.replace(" ", ""))  # class names: LetItRide..., OneEyedFlush..., FinalCount...
    return re.compile("|".join(re.escape(w) for w in sorted(words)))


def own_files() -> set[Path]:
    """A game's own modules (rules and analyzer and their ``<stem>_*`` parts, kernel, felt) and the registry."""
    out = {SRC / "rules" / "registry.py"}
    for d in registry.DEFINITIONS:
        stem = d.key.replace("-", "_")
        out |= {SRC / area / f"{stem}.py" for area in ("rules", "analysis", "simulation", "cli/felts")}
        out.add(SRC / "analysis" / f"protect_{stem}.py")  # the analyzer's exposure scenarios
        out |= set((SRC / "analysis").glob(f"{stem}_*.py"))  # the analyzer's own parts (kernel, report)
        out |= set((SRC / "rules").glob(f"{stem}_*.py"))  # the rules module's own parts (hand classes)
    return out


@pytest.mark.parametrize("area", ["engine", "rules", "analysis", "simulation", "cli"])
def test_no_module_outside_a_games_own_files_names_it(area: str) -> None:
    pattern, own = game_names(), own_files()
    named = []
    for path in sorted((SRC / area).rglob("*.py")):
        if path in own:
            continue
        named += [
            f"{path.relative_to(SRC)}:{i}"
            for i, line in enumerate(path.read_text().splitlines(), 1)
            if pattern.search(line)
        ]
    assert not named, named


def test_the_engine_has_no_module_per_game() -> None:
    stems = {d.key.replace("-", "_") for d in registry.DEFINITIONS}
    assert not [p.name for p in (SRC / "engine").glob("*.py") if p.stem in stems]
    assert not [d.key for d in registry.DEFINITIONS if hasattr(d, "round_class")]


MAX_PY_LINES = 600
MAX_JS_LINES = 500
STATIC = SRC / "server" / "static"


def test_no_source_file_is_over_its_size() -> None:
    """Issue 12, "files that are one thing each": no Python module over 600 lines, no page script over 500."""
    long_py = [
        f"{p.relative_to(SRC)}: {n}"
        for p in sorted(SRC.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_PY_LINES
    ]
    long_js = [
        f"{p.relative_to(SRC)}: {n}"
        for p in sorted(STATIC.rglob("*.js"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_JS_LINES
    ]
    assert not long_py, long_py
    assert not long_js, long_js


def test_no_stylesheet_names_a_game() -> None:
    """The page's styles are generic: a game's felt module (js/felt/<key>.js) sets classes such as
    ``felt-compact``; no rule of the stylesheets is written for one game's key."""
    keys = re.compile("|".join(re.escape(d.key) for d in registry.DEFINITIONS))
    sheets = sorted((STATIC / "css").rglob("*.css"))
    assert sheets
    named = [
        f"{p.relative_to(SRC)}:{i}"
        for p in sheets
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if keys.search(line)
    ]
    assert not named, named

"""A whole game in one TOML file: which game, its name, and its complete rule set (issue 15).

Every listed parameter of the game's definition is written, so the file says everything a test lab needs
and reads back to the same rules; reading accepts any subset (the rest keep RULES.md's defaults), and every
value goes through its parameter's validation, so an error names the file, the field and what is allowed.
A parameter ``main.straight`` is written as ``straight`` in a ``[rules.main]`` table.

>>> from tablegames.rules import GAMES, make_rules
>>> all(loads(dumps(GameFile(g, "house rules", make_rules(g)))).rules == make_rules(g) for g in GAMES)
True
>>> loads('game = "poker"', "demo.toml")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: demo.toml: unknown game 'poker'; choose ...
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablegames.rules import registry
from tablegames.rules.common import RuleError
from tablegames.rules.parameters import apply_options, describe_values


@dataclass(frozen=True)
class GameFile:
    """A game file's contents: the game's key, the rule set's name and description, and its rules."""

    game: str
    name: str
    rules: Any
    description: str = ""


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str | int]:
    out: dict[str, str | int] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{name}."))
        elif isinstance(value, bool):
            out[name] = "yes" if value else "no"
        elif isinstance(value, (int, str)):
            out[name] = value
        elif isinstance(value, float):
            raise RuleError(
                f"rule {name!r}: {value!r} is a float; write a whole number, a fraction '1/10' or '10%'"
            )
        else:
            raise RuleError(f"rule {name!r}: {value!r} is not a number or a text")
    return out


def loads(text: str, origin: str = "<game file>") -> GameFile:
    """Read a game file's text (``origin`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"{origin} is not valid TOML: {exc}") from None
    game = data.get("game")
    if not isinstance(game, str):
        raise RuleError(f'{origin}: needs game = "KEY" (one of {", ".join(registry.GAMES)})')
    try:
        definition = registry.get(game)
    except RuleError as exc:
        raise RuleError(f"{origin}: {exc}") from None
    unknown = set(data) - {"game", "name", "description", "rules"}
    if unknown:
        raise RuleError(
            f"{origin}: unknown key(s) {', '.join(sorted(unknown))}; a game file has game, name, "
            "description and [rules]"
        )
    table = data.get("rules", {})
    if not isinstance(table, Mapping):
        raise RuleError(f"{origin}: [rules] must be a table of NAME = VALUE")
    try:
        rules = apply_options(definition.parameters, definition.make_rules(), _flatten(table))
    except RuleError as exc:
        raise RuleError(f"{origin}: {exc}") from None
    name = data.get("name", Path(origin).stem)
    description = data.get("description", "")
    return GameFile(game, str(name), rules, str(description))


def load(path: str | Path) -> GameFile:
    """Read the game file at ``path``."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuleError(f"game file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"game file {p} cannot be read: {exc}") from None
    return loads(text, str(p))


def _toml_value(text: str) -> str:
    if text.lstrip("-").isdigit() and text != "-":
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dumps(game_file: GameFile) -> str:
    """The game file's text: every listed parameter, grouped into ``[rules]`` and one table per prefix."""
    definition = registry.get(game_file.game)
    lines = [f"# tablegames game file: {game_file.game}", f"game = {_toml_value(game_file.game)}"]
    lines.append(f"name = {_toml_value(game_file.name)}")
    if game_file.description:
        lines.append(f"description = {_toml_value(game_file.description)}")
    values = describe_values(definition.parameters, game_file.rules)
    plain = {k: v for k, v in values.items() if "." not in k}
    lines += ["", "[rules]", *(f"{k} = {_toml_value(v)}" for k, v in plain.items())]
    tables: dict[str, list[str]] = {}
    for key, value in values.items():
        if "." in key:
            head, _, rest = key.partition(".")
            tables.setdefault(head, []).append(f"{rest} = {_toml_value(value)}")
    for head, entries in tables.items():
        lines += ["", f"[rules.{head}]", *entries]
    return "\n".join(lines) + "\n"


def save(path: str | Path, game_file: GameFile) -> None:
    Path(path).write_text(dumps(game_file), encoding="utf-8")


def rules_with(
    game: str | None, options: Mapping[str, str] | None, paytable: str | None, game_file: str | None
) -> tuple[Any, str | None]:
    """The rules a command runs: a game file (if any) with ``--rule`` options on top, or the game's rules
    from its options and pay table; and the rule set's name (the file's) or None. ``game`` may be omitted
    with a game file; when both are given they must agree."""
    if game_file is None:
        if game is None:
            raise RuleError(f"name a game ({', '.join(registry.GAMES)}) or a --game-file")
        return registry.get(game).make_rules(options, paytable), None
    if paytable is not None:
        raise RuleError("--paytable cannot be combined with --game-file: put the pay table in the game file")
    loaded = load(game_file)
    if game is not None and registry.get(game).key != loaded.game:
        raise RuleError(f"{game_file} is a {loaded.game} game file, not {game}")
    definition = registry.get(loaded.game)
    return apply_options(definition.parameters, loaded.rules, options), loaded.name

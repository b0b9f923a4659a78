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

A game file is bounded before it is parsed (issue 20): at most :data:`TEXT_MAX` characters, brackets nested at
most :data:`DEPTH_MAX` deep and at most :data:`DEPTH_MAX` dots in a line's keys (``[rules.main]`` is 2 deep);
every value is then read by its parameter, bounded as text (``rules.parameters``).

>>> loads(f'game = "{GAMES[0]}"\\n[rules]\\nx = ' + "[" * 20000 + "]" * 20000)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: <game file>: nested deeper than 8 levels (line 3); a game file has [rules] ...
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablegames.rules import registry
from tablegames.rules.common import RuleError
from tablegames.rules.parameters import DIGITS_MAX, apply_options, describe_values, quoted

TEXT_MAX = 65_536
"""The most characters of a game file (a request's ``game_file``, a file read by a command)."""
DEPTH_MAX = 8
"""The deepest nesting of a game file's TOML: brackets, or dots in one line's keys (``[rules.main]``: 2)."""


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
            raise RuleError(f"rule {name!r}: {quoted(value)} is not a number or a text")
    return out


def check_shape(text: str, origin: str = "<game file>") -> None:
    """Refuse, before it is parsed, a text longer than :data:`TEXT_MAX` or nested deeper than
    :data:`DEPTH_MAX` (brackets outside strings and comments, or dots in one line's keys): the TOML reader
    recurses once a level, and reads long dotted keys in quadratic time (issue 20).

    >>> check_shape("[rules.main]\\nflush = 8")
    >>> check_shape("a" + ".b" * 9 + " = 1")
    Traceback (most recent call last):
    ...
    tablegames.rules.common.RuleError: <game file>: nested deeper than 8 levels (line 1); a game file has [rules] and [rules.PREFIX] tables of NAME = VALUE
    """
    if len(text) > TEXT_MAX:
        raise RuleError(f"{origin}: longer than {TEXT_MAX} characters ({len(text)})")
    depth = dots = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line, dots = line + 1, 0
        elif c == "#":  # a comment, to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in "\"'":  # a string: skip it (brackets and dots inside do not nest)
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\" and c == '"':
                    i += 1
                elif text[i] == "\n":
                    if len(quote) == 1:
                        break  # (an unterminated string: the TOML reader says so)
                    line += 1
                i += 1
            i += len(quote)
            continue
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c == ".":
            dots += 1
        if depth > DEPTH_MAX or dots > DEPTH_MAX:
            raise RuleError(
                f"{origin}: nested deeper than {DEPTH_MAX} levels (line {line}); a game file has [rules] and "
                "[rules.PREFIX] tables of NAME = VALUE"
            )
        i += 1


def loads(text: str, origin: str = "<game file>") -> GameFile:
    """Read a game file's text (``origin`` names it in errors), bounded first (:func:`check_shape`)."""
    check_shape(text, origin)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"{origin} is not valid TOML: {exc}") from None
    except (ValueError, RecursionError) as exc:  # (a number beyond int()'s digits; nesting the scan missed)
        raise RuleError(f"{origin} is not a game file's TOML: {quoted(str(exc), 120)}") from None
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
        if p.stat().st_size > 4 * TEXT_MAX:  # (UTF-8: at most 4 bytes a character)
            raise RuleError(f"game file {p} is longer than {TEXT_MAX} characters")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuleError(f"game file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"game file {p} cannot be read: {exc}") from None
    return loads(text, str(p))


def _toml_value(text: str) -> str:
    """A value as TOML: a whole number of ASCII digits bare (at most ``DIGITS_MAX`` of them: a longer one is
    text, such as a pay table's name, and is read back as text), anything else a basic string with every control
    character escaped (a value such as ``'²'`` or one with a newline reads back as itself).

    >>> values = ["-12", "²", 'say "hi"', "two\\nlines", "del\\x7f", "1" * 16]
    >>> [tomllib.loads("v = " + _toml_value(v))["v"] for v in values] == [-12, *values[1:]]
    True
    """
    if re.fullmatch(rf"-?[0-9]{{1,{DIGITS_MAX}}}", text):
        return text
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


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

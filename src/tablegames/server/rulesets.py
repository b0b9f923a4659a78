"""A table's or the Math lab's rule set, read from a request: ``{name: value}`` options (a full or partial rule
set) or a game file's text, each value validated by its parameter (``rules.parameters``), a refusal a
:class:`~tablegames.server.errors.FieldError` naming the field (issue 15).

The complete rule set is ``definition.rule_set(rules)`` (every listed parameter); a game whose rules have no
parameters yet keeps its short ``describe()`` (its ``--rule`` options), so every game of the registry works.

>>> from tablegames.rules import registry
>>> d = registry.DEFINITIONS[-1]
>>> p = next(p for p in d.parameters if p.kind == "choice")
>>> r = resolve(d.key, {p.name: p.choices[-1]}, None, None, None)
>>> r.rule_set[p.name] == p.choices[-1], r.rule_set == d.rule_set(d.make_rules(r.rule_set)), r.name
(True, True, None)
>>> resolve(d.key, {p.name: "no-such"}, None, None, None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tablegames.server.errors.FieldError: rule '...' (...): 'no-such' is not a choice; allowed: ...
>>> field_of("rule 'main.flush' (Main pay table: flush pays X to 1): 'x' is not a whole number")
'main.flush'
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from tablegames.rules import RuleError, gamefile, registry
from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import DIGITS_MAX, cut, quoted
from tablegames.rules.rulecard import RuleCard, rule_card
from tablegames.server.errors import FieldError

NAME_MAX = 80  # a rule set's name, as a table row stores it
GAME_FILE_MAX = gamefile.TEXT_MAX  # characters of a game file's text in a request

log = logging.getLogger("tablegames.server")
T = TypeVar("T")


def logged(where: str, client: str, call: Callable[[], T]) -> T:
    """``call()`` (a request's rule set read: on a REST thread, never on the event loop); a refusal it raises
    (a :class:`FieldError`) is logged as one short line, the field and the message cut, and raised (issue 20:
    a bad value is a ``400 bad_rules``, never a traceback)."""
    try:
        return call()
    except FieldError as exc:
        log.warning(
            "%s from %s refused: %s (field %s): %s", where, client, exc.code, exc.field, cut(exc.message, 300)
        )
        raise


_FIELD = re.compile(r"rule '([^']+)'")


def field_of(message: str) -> str | None:
    """The parameter a RuleError's message names (``rule 'NAME' ...``), or None."""
    m = _FIELD.search(message)
    return m.group(1) if m else None


def rule_set_of(definition: GameDefinition, rules: Any) -> dict[str, str]:
    """The complete rule set of ``rules`` (every parameter), or the short description of a game whose rules
    have no parameters yet."""
    if definition.parameters:
        return definition.rule_set(rules)
    return dict(rules.describe())


@dataclass(frozen=True)
class Resolved:
    """Rules read from a request: the game, the rules object, its complete rule set, the rule set's name, and
    what a table row stores to rebuild them (``options`` with ``paytable``: the complete rule set of a game with
    parameters, else the options as given)."""

    definition: GameDefinition
    rules: Any
    rule_set: dict[str, str]
    name: str | None
    options: dict[str, str]
    paytable: str | None


def _options(definition: GameDefinition, options: Mapping[str, object]) -> dict[str, str]:
    """Each ``{name: value}`` checked on its own first, so the error names the field."""
    out: dict[str, str] = {}
    for name, value in options.items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (str, int)):
            raise FieldError(f"rule {quoted(name)}: a value is text or a whole number", cut(str(name), 80))
        field = cut(name, 80)
        if definition.parameters:
            try:
                definition.parameter(name).parse(value)  # (bounded before it is built: rules.parameters)
            except RuleError as exc:
                raise FieldError(str(exc), field) from None
        elif isinstance(value, int) and abs(value) >= 10**DIGITS_MAX:
            raise FieldError(f"rule {quoted(name)}: {quoted(value)}", field)  # (before str() of it)
        out[name] = str(value)
    return out


def resolve(
    game: object,
    options: object,
    paytable: object,
    game_file: object,
    name: object,
) -> Resolved:
    """The rules a request asks for: ``game`` (may be omitted with a game file; both given, they must agree),
    ``options`` on top of the game file's rules (or of RULES.md's), a pay-table preset ``paytable`` (not with a
    game file), and the rule set's ``name`` (default: the game file's). Every refusal is a FieldError."""
    if options is not None and not isinstance(options, Mapping):
        raise FieldError("rules must be an object of NAME: VALUE", None)
    if name is not None and (not isinstance(name, str) or not 1 <= len(name.strip()) <= NAME_MAX):
        raise FieldError(f"a rule set's name is 1-{NAME_MAX} characters", "rule_set", "bad_message")
    if paytable is not None and (
        not isinstance(paytable, str) or "/" in paytable or paytable.endswith(".toml")
    ):
        raise FieldError("paytable must be the name of a preset", "paytable")
    preset = paytable if isinstance(paytable, str) else None
    base: Any = None
    file_name: str | None = None
    if game_file is not None:
        if not isinstance(game_file, str) or len(game_file) > GAME_FILE_MAX:
            raise FieldError(
                f"game_file is the text of a game file (at most {GAME_FILE_MAX} characters)", None
            )
        if paytable is not None:
            raise FieldError(
                "paytable cannot be combined with a game file: put the pay table in it", "paytable"
            )
        try:
            loaded = gamefile.loads(game_file, "game file")
        except RuleError as exc:
            raise FieldError(str(exc), field_of(str(exc))) from None
        if game is not None and game != loaded.game:
            raise FieldError(f"the game file is a {loaded.game} game file, not {game}", "game")
        game, base, file_name = loaded.game, loaded.rules, loaded.name
    try:
        definition = registry.get(game)
    except RuleError as exc:
        raise FieldError(str(exc), "game") from None
    opts = _options(definition, options or {})
    try:
        if base is None:
            rules = definition.make_rules(opts, preset)
        else:
            from tablegames.rules.parameters import apply_options

            rules = apply_options(definition.parameters, base, opts)
    except RuleError as exc:
        raise FieldError(str(exc), field_of(str(exc))) from None
    shown = name.strip() if isinstance(name, str) else file_name
    full = rule_set_of(definition, rules)
    stored = full if definition.parameters else opts
    return Resolved(definition, rules, full, shown[:NAME_MAX] if shown else None, stored, preset)


@functools.lru_cache(maxsize=256)
def _card(game: str, options: tuple[tuple[str, str], ...], paytable: str | None) -> RuleCard:
    definition = registry.get(game)
    return rule_card(definition, definition.make_rules(dict(options), paytable))


def table_card(game: str, options: dict[str, str], paytable: str | None) -> RuleCard:
    """The rule card of a table's (or a round's) rules (issue 24), made once per stored options."""
    return _card(game, tuple(sorted(options.items())), paytable)

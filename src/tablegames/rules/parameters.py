"""Every number and choice of a game's rules as a named, validated parameter (issue 15).

A rules module lists its game's parameters once, in its definition (``GameDefinition.parameters``); the
``--rule NAME=VALUE`` options, a whole game file (:mod:`tablegames.rules.gamefile`), the tuner, the sweep and
the Math lab page all read and write rules through them, so a parameter is validated in one place and its
error names the field and what is allowed. RULES.md's value is each parameter's default: the rules object
built with no option at all.

A parameter reads its value from a rules object (``get``) and returns a changed copy (``put``); a pay-table
entry is one parameter per hand (``main.straight``), a preset (``bonus-paytable=seed``) writes a whole table
and is not read back (``listed=False``), so :func:`describe` lists every value once and
``apply(definition, default, describe(definition, rules)) == rules``.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     limit: int = 14
...     share: Fraction = Fraction(1, 10)
>>> params = (integer("limit", "limit", 3, 27, "the bust limit"), fraction("share", "share", "meter share"))
>>> r = apply_options(params, Demo(), {"limit": "15", "share": "15%"})
>>> r.limit, r.share
(15, Fraction(3, 20))
>>> describe_values(params, r)
{'limit': '15', 'share': '3/20'}
>>> apply_options(params, Demo(), {"limit": "40"})
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: rule 'limit' (the bust limit): 40 is out of range; allowed: a whole number from 3 to 27
>>> apply_options(params, Demo(), {"limt": "4"})
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: unknown rule 'limt'; known rules: limit, share

Every number is bounded as text, before it is built (issue 20): at most :data:`DIGITS_MAX` digits in each part,
a short exponent, at most :data:`VALUE_MAX` characters, then the parameter's own range; so no value, however
written, costs more than a few microseconds to read or refuse.

>>> params[1].parse("1e-10000000")
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: rule 'share' (meter share): '1e-10000000' is not a fraction (digits: at most 15 a part, exponent: at most 2); allowed: a fraction from 0 to 1 (like 1/10 or 10%)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, Literal

from tablegames.cards import CARDS, CardParseError, parse_cards
from tablegames.rules.common import PayTable, RuleError, enum_key

Kind = Literal["int", "money", "fraction", "choice", "odds", "cards", "text", "preset"]

LOSES = "-"
"""How a pay-table entry that loses (no payout) is written: ``main.pair=-``."""

VALUE_MAX = 200
"""The most characters a rule value's text may have (a pay table's name, a set of cards, a number)."""
DIGITS_MAX = 15
"""The most digits of each part of a number (whole, cents, dollars, decimals, numerator, denominator)."""
EXPONENT_MAX = 2
"""The most digits of a fraction's exponent (``1e-3``): ``1e-10000000`` is refused as text, never computed."""
MONEY_MAX = 10**11
"""The bound of an amount parameter that names none: $1,000,000,000 in cents (every product the kernels form
with a payout of at most 1,000,000 to 1 fits in 64 bits)."""
PRECISION_MAX = 10**18
"""A fraction's numerator and denominator stay below this (``1e-30`` is refused: too precise for a share)."""

_D, _E = f"{{1,{DIGITS_MAX}}}", f"{{1,{EXPONENT_MAX}}}"  # (regex repeats: ASCII digits, counted)
_WHOLE = re.compile(rf"-?[0-9]{_D}")
_DOLLARS = re.compile(rf"\$(-?[0-9]{_D})(?:\.([0-9]{_D}))?")
_FRACTION = re.compile(
    rf"(-?[0-9]{{0,{DIGITS_MAX}}})(?:\.([0-9]{_D}))?(?:[eE]([+-]?[0-9]{_E}))?(?:/([0-9]{_D}))?(%?)"
)
_NUMBER_RULES = f"digits: at most {DIGITS_MAX} a part, exponent: at most {EXPONENT_MAX}"


def cut(text: str, most: int = 40) -> str:
    """``text``, cut to ``most`` characters with how long it was (an error never echoes a huge value)."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


def quoted(text: object, most: int = 40) -> str:
    """``repr(text)`` of a value, cut to ``most`` characters (an error message never echoes a huge value).

    >>> quoted("9" * 5000)
    "'9999999999999999999999999999999999999999'... (5000 characters)"
    """
    if isinstance(text, int) and not isinstance(text, bool) and abs(text) >= 10**DIGITS_MAX:
        return f"a number of more than {DIGITS_MAX} digits"
    if isinstance(text, str) and len(text) > most:
        return f"{text[:most]!r}... ({len(text)} characters)"
    return cut(repr(text), most + 2)


def read_whole(text: str) -> int | None:
    """A whole number written with ASCII digits (``_`` and ``,`` between them ignored), at most
    :data:`DIGITS_MAX` of them; None for anything else.

    >>> read_whole("1,000"), read_whole("-5"), read_whole("²"), read_whole("--5"), read_whole("1" * 16)
    (1000, -5, None, None, None)
    """
    t = text.replace("_", "").replace(",", "")
    return int(t) if _WHOLE.fullmatch(t) else None


def read_cents(text: str) -> int | None:
    """Cents from ``500`` (cents) or ``$5`` / ``$1,234.50`` (dollars), bounded as text; None for anything else
    (a fraction of a cent, an exponent, too many digits).

    >>> read_cents("$1,234.50"), read_cents("500"), read_cents("$0.005"), read_cents("$1e10000000")
    (123450, 500, None, None)
    """
    t = text.replace("_", "").replace(",", "")
    m = _DOLLARS.fullmatch(t)
    if m is None:
        return read_whole(t)
    dollars, decimals = m.group(1), (m.group(2) or "").rstrip("0")
    if len(decimals) > 2:
        return None
    cents = int(dollars) * 100
    part = int(decimals.ljust(2, "0")) if decimals else 0
    return cents - part if dollars.startswith("-") else cents + part


def read_fraction(text: str) -> Fraction | None:
    """A fraction from ``1/10``, ``0.1``, ``10%``, ``1e-3`` or ``1/3%``, bounded as text (every part at most
    :data:`DIGITS_MAX` digits, the exponent at most :data:`EXPONENT_MAX`) and as a value (numerator and
    denominator below :data:`PRECISION_MAX`); None for anything else.

    >>> read_fraction("10%"), read_fraction("1/3"), read_fraction("1e-3"), read_fraction("1e-5000")
    (Fraction(1, 10), Fraction(1, 3), Fraction(1, 1000), None)
    """
    m = _FRACTION.fullmatch(text.replace("_", ""))
    if m is None or (m.group(1) in ("", "-") and m.group(2) is None):
        return None
    whole, decimals, exponent, below, percent = m.groups()
    decimals = decimals or ""
    value: Fraction = Fraction(int(f"{whole}0{decimals}" if whole in ("", "-") else f"{whole}{decimals}"))
    value /= 10 ** len(decimals)
    if exponent:
        value *= Fraction(10) ** int(exponent)
    if below is not None:
        if int(below) == 0:
            return None
        value /= int(below)
    if percent:
        value /= 100
    if abs(value.numerator) >= PRECISION_MAX or value.denominator >= PRECISION_MAX:
        return None
    return value


def get_path(obj: Any, path: str) -> Any:
    """``get_path(rules, "jackpot.wager_cents")``: a dotted attribute path."""
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def put_path(obj: Any, path: str, value: Any) -> Any:
    """A copy of the frozen dataclass ``obj`` with the dotted attribute ``path`` replaced (copies inward)."""
    head, _, rest = path.partition(".")
    if rest:
        value = put_path(getattr(obj, head), rest, value)
    return dataclasses.replace(obj, **{head: value})


@dataclass(frozen=True)
class Parameter:
    """One named number or choice of a game's rules.

    ``kind`` says how text is read: ``int`` (whole number in ``[low, high]``), ``money`` (cents, or dollars
    with ``$``), ``fraction`` (``1/10`` or ``10%``), ``choice`` (one of ``choices``), ``odds`` (a pay-table
    entry "X to 1", or ``-`` when the hand loses), ``cards`` (a set of cards, ``Jh Js Kd``), ``text``, or
    ``preset`` (a named whole table, written but not read back). ``structural`` is False for a payout, whose
    change the analyzers re-solve without rebuilding their tables; ``group`` is the section of a form or a
    game file; ``rank`` orders the entries of one pay table by hand rank (for the tuner's monotone
    constraint); ``ruling`` is the RULES.md id the default comes from.
    """

    name: str
    help: str
    kind: Kind
    get: Callable[[Any], Any]
    put: Callable[[Any, Any], Any]
    low: int | Fraction | None = None
    high: int | Fraction | None = None
    choices: tuple[str, ...] = ()
    read: Callable[[str], Any] | None = None  # text -> value, for kinds whose values are not plain
    show: Callable[[Any], str] = str
    group: str = "rules"
    rank: int = 0
    structural: bool = True
    listed: bool = True
    ruling: str = ""

    @property
    def numeric(self) -> bool:
        """Whole-number parameters the tuner and the sweep can vary."""
        return self.kind in ("int", "money", "odds")

    @property
    def allowed(self) -> str:
        """What values are allowed, in words."""
        if self.kind == "choice" or self.kind == "preset":
            return " | ".join(self.choices)
        if self.kind in ("int", "odds"):
            extra = f" (or {LOSES} when the hand loses)" if self.kind == "odds" else ""
            if self.high is None:
                return f"a whole number >= {self.low}{extra}"
            return f"a whole number from {self.low} to {self.high}{extra}"
        if self.kind == "money":
            top = "" if self.high is None else f" up to {self.high}"
            return f"whole cents >= {self.low}{top} (or dollars like $5)"
        if self.kind == "fraction":
            return f"a fraction from {self.low} to {self.high} (like 1/10 or 10%)"
        if self.kind == "cards":
            return "cards like 'Jh Js Kd' (each at most once)"
        return "text"

    def _bad(self, text: object, why: str) -> RuleError:
        about = f" ({self.help})" if self.help else ""
        return RuleError(f"rule {self.name!r}{about}: {why}; allowed: {self.allowed}")

    def parse(self, text: str | int) -> Any:
        """The value ``text`` stands for, or a :class:`RuleError` naming this field and what is allowed.
        Bounded before anything is built: at most :data:`VALUE_MAX` characters, :data:`DIGITS_MAX` digits a
        part, then the parameter's range."""
        if isinstance(text, int) and not isinstance(text, bool) and abs(text) >= 10**DIGITS_MAX:
            raise self._bad(text, f"a number of more than {DIGITS_MAX} digits")
        if not isinstance(text, (str, int)):
            raise self._bad(text, f"{quoted(text)} is not text or a whole number")
        raw = str(text).strip()
        if len(raw) > VALUE_MAX:
            raise self._bad(text, f"{quoted(raw)} is longer than {VALUE_MAX} characters")
        if self.read is not None:
            try:
                return self.read(raw)
            except (RuleError, CardParseError, ValueError, KeyError) as exc:
                why = f"{quoted(raw)} is not allowed ({cut(str(exc), 120)})" if str(exc) else quoted(raw)
                raise self._bad(text, why) from None
        if self.kind in ("int", "odds"):
            if self.kind == "odds" and raw == LOSES:
                return None
            value = read_whole(raw)
            if value is None:
                raise self._bad(text, f"{quoted(raw)} is not a whole number (at most {DIGITS_MAX} digits)")
            return self._in_range(value, raw)
        if self.kind == "money":
            value = read_cents(raw)
            if value is None:
                raise self._bad(
                    text, f"{quoted(raw)} is not an amount (whole cents, at most {DIGITS_MAX} digits)"
                )
            return self._in_range(value, raw)
        if self.kind == "fraction":
            f = read_fraction(raw)
            if f is None:
                raise self._bad(text, f"{quoted(raw)} is not a fraction ({_NUMBER_RULES})")
            return self._in_range(f, raw)
        if self.kind in ("choice", "preset"):
            if raw not in self.choices:
                raise self._bad(text, f"{quoted(raw)} is not a choice")
            return raw
        return raw

    def _in_range(self, value: Any, raw: str) -> Any:
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise self._bad(raw, f"{raw} is out of range")
        return value

    def value(self, rules: Any) -> str:
        """This parameter's value in ``rules``, as text that :meth:`parse` reads back."""
        v = self.get(rules)
        if self.kind == "odds" and v is None:
            return LOSES
        return self.show(v)


# --- constructors -----------------------------------------------------------------------------------------


def _at(path: str, name: str, help: str, kind: Kind, low: Any, high: Any, **kw: Any) -> Parameter:
    """A plain value (no text reader of its own) at the dotted attribute ``path`` of the rules."""
    return Parameter(
        name, help, kind, lambda r: get_path(r, path), lambda r, v: put_path(r, path, v), low, high, **kw
    )


def integer(
    name: str,
    path: str,
    low: int,
    high: int | None,
    help: str,
    *,
    ruling: str = "",
    group: str = "rules",
    structural: bool = True,
) -> Parameter:
    """A whole number at the dotted attribute ``path`` of the rules."""
    return _at(path, name, help, "int", low, high, group=group, structural=structural, ruling=ruling)


def money(
    name: str,
    path: str,
    help: str,
    *,
    low: int = 0,
    high: int = MONEY_MAX,
    ruling: str = "",
    group: str = "rules",
) -> Parameter:
    """An amount in cents (``500`` or ``$5``) at ``path``, at most ``high`` (default :data:`MONEY_MAX`)."""
    return _at(path, name, help, "money", low, high, group=group, ruling=ruling)


def fraction(
    name: str,
    path: str,
    help: str,
    *,
    low: Fraction = Fraction(0),
    high: Fraction = Fraction(1),
    ruling: str = "",
    group: str = "rules",
) -> Parameter:
    """A fraction (``1/10`` or ``10%``) at ``path``."""
    return _at(path, name, help, "fraction", low, high, group=group, ruling=ruling)


def choice(
    name: str, path: str, enum: type[Enum], help: str, *, ruling: str = "", group: str = "rules"
) -> Parameter:
    """One member of ``enum`` (written by its value) at ``path``."""
    members = {str(m.value): m for m in enum}
    return Parameter(
        name,
        help,
        "choice",
        lambda r: get_path(r, path),
        lambda r, v: put_path(r, path, members[v] if isinstance(v, str) else v),
        choices=tuple(members),
        show=lambda m: str(m.value),
        group=group,
        ruling=ruling,
    )


def flag(name: str, path: str, help: str, *, ruling: str = "", group: str = "rules") -> Parameter:
    """A yes/no rule at ``path`` (written ``yes`` or ``no``)."""
    return Parameter(
        name,
        help,
        "choice",
        lambda r: get_path(r, path),
        lambda r, v: put_path(r, path, v == "yes" if isinstance(v, str) else bool(v)),
        choices=("yes", "no"),
        show=lambda b: "yes" if b else "no",
        group=group,
        ruling=ruling,
    )


def cards(name: str, path: str, help: str, *, ruling: str = "", group: str = "rules") -> Parameter:
    """A set of cards (``Jh Js Kd``; ``none`` for no card) at ``path``, kept as a sorted tuple of card ints."""

    def read(text: str) -> tuple[int, ...]:
        if text.lower() in ("", "none", LOSES):
            return ()
        found = [int(c) for c in parse_cards(text.replace(",", " "))]
        if len(set(found)) != len(found):
            raise RuleError("a card is named twice")
        return tuple(sorted(found))

    return Parameter(
        name,
        help,
        "cards",
        lambda r: get_path(r, path),
        lambda r, v: put_path(r, path, tuple(sorted(v))),
        read=read,
        show=lambda v: " ".join(str(CARDS[c]) for c in sorted(v)) or "none",
        group=group,
        ruling=ruling,
    )


def preset(name: str, path: str, tables: Mapping[str, Any], help: str, *, group: str = "rules") -> Parameter:
    """A named whole value (a pay-table preset) written to ``path``; not read back: its entries are."""
    return Parameter(
        name,
        help,
        "preset",
        lambda r: get_path(r, path),
        lambda r, v: put_path(r, path, tables[v]),
        choices=tuple(tables),
        listed=False,
        group=group,
    )


def paytable(
    prefix: str,
    path: str,
    hands: Sequence[Enum],
    help: str,
    *,
    ruling: str = "",
    high: int = 1_000_000,
    group: str | None = None,
) -> tuple[Parameter, ...]:
    """One ``odds`` parameter per hand of the pay table at ``path`` (``PREFIX.HAND``, "X to 1" or ``-``),
    then ``PREFIX.name``, the table's name; ``hands`` run from the lowest to the highest, which is the
    ``rank`` the tuner keeps payouts monotone in."""
    section = group or help

    def entry(rank: int, hand: Enum) -> Parameter:
        def get(r: Any) -> int | None:
            table: PayTable[Any] = get_path(r, path)
            return table.odds(hand)

        def put(r: Any, v: int | None) -> Any:
            table: PayTable[Any] = get_path(r, path)
            if table.odds(hand) == v:
                return r
            pays = {h: o for h, o in table.pays.items() if h != hand}
            if v is not None:
                pays[hand] = v
            return put_path(r, path, PayTable("custom", table.hands, pays))

        return Parameter(
            f"{prefix}.{enum_key(hand)}",
            f"{help}: {enum_key(hand)} pays X to 1",
            "odds",
            get,
            put,
            0,
            high,
            group=section,
            rank=rank,
            structural=False,
            ruling=ruling,
        )

    def rename(r: Any, v: str) -> Any:
        table: PayTable[Any] = get_path(r, path)
        return put_path(r, path, PayTable(v, table.hands, dict(table.pays)))

    name = Parameter(
        f"{prefix}.name",
        f"{help}: the table's name",
        "text",
        lambda r: get_path(r, path).name,
        rename,
        group=section,
        structural=False,
    )
    return (*(entry(i, h) for i, h in enumerate(hands)), name)


# --- applying and listing ---------------------------------------------------------------------------------


def find(parameters: Iterable[Parameter], name: str) -> Parameter:
    """The parameter called ``name``, or a RuleError listing the known ones."""
    params = list(parameters)
    for p in params:
        if p.name == name:
            return p
    known = ", ".join(p.name for p in params if p.listed or p.kind == "preset")
    raise RuleError(f"unknown rule {name!r}; known rules: {known or 'none'}")


def apply_options(
    parameters: Sequence[Parameter], rules: Any, options: Mapping[str, str | int] | None
) -> Any:
    """``rules`` with ``options`` (``{name: text}``) applied, in the parameters' order (a preset before the
    entries it writes, a table's entries before its name), every value checked first: on any error nothing
    is applied."""
    if not options:
        return rules
    parsed: dict[str, Any] = {}
    for name, text in options.items():
        parameter = find(parameters, name)
        parsed[parameter.name] = parameter.parse(text)
    for p in parameters:
        if p.name in parsed:
            rules = p.put(rules, parsed[p.name])
    return rules


def describe_values(parameters: Iterable[Parameter], rules: Any) -> dict[str, str]:
    """Every listed parameter's value as text, in order: the complete rule set."""
    return {p.name: p.value(rules) for p in parameters if p.listed}


def changed_values(parameters: Sequence[Parameter], rules: Any, default: Any) -> dict[str, str]:
    """The listed values that differ from ``default``'s (what a short summary shows)."""
    base = describe_values(parameters, default)
    return {k: v for k, v in describe_values(parameters, rules).items() if base.get(k) != v}

"""What the rule modules share: validated pay tables, rule options, money helpers."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, TypeVar

E = TypeVar("E", bound=Enum)


class RuleError(ValueError):
    """An invalid rule option, pay table or configuration; nothing was changed."""


WIN, PUSH, LOSE = "win", "push", "lose"
"""A settled wager's outcome by what it returns against its stake (the engine's names, the page's colours)."""


def outcome_of(staked: Fraction | int, returned: Fraction | int) -> str:
    """``win`` when a settlement returns more than the stake, ``push`` when the stake, else ``lose``: the
    engine's outcome of Final Count's wager and of Three Card Poker's Ante and Play, and the category the
    analysis and the simulation count them by.

    >>> outcome_of(100, 200), outcome_of(100, 100), outcome_of(1, 0)
    ('win', 'push', 'lose')
    """
    return WIN if returned > staked else PUSH if returned == staked else LOSE


NO_PAY = -1
"""In integer rule functions and their lookup tables: "this hand does not pay" (a paying hand has odds >= 0)."""


def returned_at_odds(stake: int, odds: int) -> int:
    """R-0.3, written once: what a wager of ``stake`` cents paid "``odds`` to 1" returns (the stake and ``odds``
    times it), nothing when ``odds`` is :data:`NO_PAY`. Pure integers: the flows call it, the Numba kernels
    compile it (``njit(inline="always")``) and the exact solvers build their tables from it.

    >>> returned_at_odds(500, 15), returned_at_odds(100, 0), returned_at_odds(100, NO_PAY)
    (8000, 100, 0)
    """
    if odds < 0:
        return 0
    return stake * (odds + 1)


def dollars(cents: int) -> str:
    """Whole cents as dollars for a rule's words (a settlement's detail).

    >>> dollars(7_500_000), dollars(5)
    ('$75,000.00', '$0.05')
    """
    return f"${cents // 100:,}.{cents % 100:02d}"


def enum_key(member: Enum) -> str:
    """The user-facing name of an enum member: ``ROYAL_FLUSH`` -> ``royal-flush``."""
    return member.name.lower().replace("_", "-")


@dataclass(frozen=True)
class PayTable(Generic[E]):
    """Pays by hand, ``X`` meaning "X to 1" (R-0.3). Hands not listed lose.

    >>> from tablegames.rules.poker import ThreeCardCategory as T
    >>> p = PayTable("demo", T, {T.PAIR: 1, T.TRIPS: 30})
    >>> p.odds(T.PAIR), p.odds(T.FLUSH)
    (1, None)
    >>> PayTable("bad", T, {T.PAIR: -1})
    Traceback (most recent call last):
    ...
    tablegames.rules.common.RuleError: pay table 'bad': pays for pair must be a whole number >= 0, got -1
    """

    name: str
    hands: type[E]
    pays: Mapping[E, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for hand, odds in self.pays.items():
            if not isinstance(hand, self.hands):
                raise RuleError(f"pay table {self.name!r}: {hand!r} is not a {self.hands.__name__}")
            if isinstance(odds, bool) or not isinstance(odds, int) or odds < 0:
                raise RuleError(
                    f"pay table {self.name!r}: pays for {enum_key(hand)} must be a whole number >= 0, got {odds!r}"
                )

    def __hash__(self) -> int:  # the dict field is not hashable; rules objects key caches (lru_cache)
        return hash((self.name, self.hands, frozenset(self.pays.items())))

    def odds(self, hand: E) -> int | None:
        """``X`` of "X to 1" for ``hand``, or ``None`` when the hand loses."""
        return self.pays.get(hand)

    def with_pay(self, hand: E, odds: int) -> PayTable[E]:
        """A copy with one payout changed (used by the pay-table solver)."""
        new = dict(self.pays)
        new[hand] = odds
        return PayTable(f"{self.name}+{enum_key(hand)}={odds}", self.hands, new)

    def describe(self) -> list[tuple[str, int]]:
        return [(enum_key(h), o) for h, o in sorted(self.pays.items(), key=lambda kv: -kv[1])]


def paytable_from_mapping(name: str, hands: type[E], data: Mapping[str, object]) -> PayTable[E]:
    """Build a pay table from ``{"royal-flush": 1000, ...}``; unknown hand names are an error."""
    known = {enum_key(h): h for h in hands}
    pays: dict[E, int] = {}
    for key, value in data.items():
        hand = known.get(str(key).lower().replace("_", "-"))
        if hand is None:
            raise RuleError(f"pay table {name!r}: unknown hand {key!r}; known: {', '.join(known)}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleError(f"pay table {name!r}: pays for {key} must be a whole number, got {value!r}")
        pays[hand] = value
    return PayTable(name, hands, pays)


def load_toml(path: str | Path) -> dict[str, object]:
    """Read a TOML file, turning every failure into a :class:`RuleError` that names the file."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise RuleError(f"pay table file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"pay table file {p} is not valid TOML: {exc}") from None


def paytables_from_file(
    path: str | Path, game: str, sections: Mapping[str, type[Enum]]
) -> dict[str, PayTable[Any]]:
    """The pay tables a ``--paytable`` TOML file gives, by section name (``[main]``, ``[bonus]``…, each of
    hand = odds, hands of ``sections[name]``); a section not in the file is not in the result. An unknown
    section, or a file for another ``game``, is a RuleError naming the file."""
    data = load_toml(path)
    unknown = set(data) - {*sections, "game", "name"}
    if unknown:
        use = " and/or ".join(f"[{s}]" for s in sections)
        raise RuleError(f"{path}: unknown sections {sorted(unknown)}; use {use}")
    if data.get("game", game) != game:
        raise RuleError(f"{path}: pay table is for {data.get('game')!r}, not {game}")
    name = str(data.get("name", Path(path).stem))
    return {
        section: paytable_from_mapping(name, hands, data[section])  # type: ignore[arg-type]
        for section, hands in sections.items()
        if isinstance(data.get(section), dict)
    }


def parse_rule_options(pairs: list[str] | None) -> dict[str, str]:
    """``["ties=tournament", ...]`` -> ``{"ties": "tournament"}``, with a clear error for bad syntax.

    >>> parse_rule_options(["ties=tournament", "bust = always"])
    {'ties': 'tournament', 'bust': 'always'}
    """
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise RuleError(f"rule option {pair!r} must look like NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


T = TypeVar("T")


def choose(option: str, value: str, allowed: Mapping[str, T]) -> T:
    """Look ``value`` up in ``allowed`` or raise a RuleError listing the choices."""
    try:
        return allowed[value]
    except KeyError:
        raise RuleError(f"bad value {value!r} for rule {option!r}; choose {'|'.join(allowed)}") from None


def cents_for_share(wager_cents: int, share: Fraction) -> int:
    """Whole cents of ``share`` of a wager, rounded down (the remainder stays with the house)."""
    return int(wager_cents * share)  # Fraction -> floor for non-negative values


def pct(text: str) -> Fraction:
    """``"10%"`` -> ``Fraction(1, 10)``."""
    return Fraction(text.rstrip("%")) / 100

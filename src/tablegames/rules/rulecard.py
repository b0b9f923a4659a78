"""A table's rules in a player's words (issue 24): its pay tables, prizes, meters and rules, and how they differ
from the game's standard rules, built from a game's definition alone (its parameters), so every registered game
has one with no code of its own and the page and the terminal only draw it.

>>> from tablegames.rules import registry
>>> d = next(g for g in registry.DEFINITIONS if g.title == "Three Card Poker")
>>> card = rule_card(d, d.make_rules())
>>> card.summary
'standard rules'
>>> pair_plus = next(s for s in card.sections if s.title.startswith("Pair Plus"))
>>> pair_plus.title, [(r.label, r.value) for r in pair_plus.rows][:2]
('Pair Plus (40-30-6-4-1)', [('Straight flush', '40 to 1'), ('Trips', '30 to 1')])
>>> rule_card(d, d.make_rules({"pair-plus.flush": "3"})).summary
'1 change from the standard rules: Pair Plus: flush 3 to 1 (standard 4 to 1)'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import LOSES, Parameter

STANDARD = "standard rules"
_SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@dataclass(frozen=True)
class Row:
    label: str
    value: str


@dataclass(frozen=True)
class Section:
    title: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Change:
    """A parameter whose value differs from the standard rules'."""

    name: str
    label: str
    value: str
    standard: str


@dataclass(frozen=True)
class RuleCard:
    game: str
    title: str
    sections: tuple[Section, ...]
    changes: tuple[Change, ...]

    @property
    def summary(self) -> str:
        """``"standard rules"``, or the changes in one line."""
        if not self.changes:
            return STANDARD
        n = len(self.changes)
        said = "; ".join(f"{c.label} {c.value} (standard {c.standard})" for c in self.changes)
        return f"{n} change{'s' if n > 1 else ''} from the standard rules: {said}"


def _words(name: str) -> str:
    """``straight-flush`` -> ``Straight flush``."""
    text = name.replace("-", " ").replace("_", " ")
    return text[:1].upper() + text[1:]


def _dollars(cents: int) -> str:
    whole, rest = divmod(abs(cents), 100)
    return ("-" if cents < 0 else "") + f"${whole:,}" + (f".{rest:02d}" if rest else "")


def _sentence(text: str) -> str:
    text = text.replace(" (cents)", "").strip()
    return text[:1].upper() + text[1:]


def _card_text(text: str) -> str:
    """``Jh Js Kd`` -> ``J♥ J♠ K♦`` (ten as 10)."""
    out = []
    for word in text.split():
        rank, suit = word[:-1], word[-1:]
        out.append(("10" if rank.upper() == "T" else rank.upper()) + _SUITS.get(suit.lower(), suit))
    return " ".join(out)


def _odds(value: str) -> str:
    return "loses" if value == LOSES else f"{value} to 1"


def shown(p: Parameter, value: str, meters: dict[str, str] | None = None) -> str:
    """A parameter's value (as :meth:`Parameter.value` writes it) in a player's words; ``meters``: the
    game's meter titles by name (a prize that is a meter reads "the whole Minor meter")."""
    if meters and p.kind == "text" and value in meters:
        return f"the whole {meters[value]} meter"
    if p.kind == "odds" or (p.kind == "int" and "X to 1" in p.help):
        return "push (the stake back)" if value == "0" and "0: push" in p.help else _odds(value)
    if p.kind == "money":
        return _dollars(int(value)) if value.lstrip("-").isdigit() else value
    if p.kind == "fraction":
        f = Fraction(value)
        pct = f * 100
        return f"{pct.numerator}%" if pct.denominator == 1 else f"{f} ({float(pct):.2f}%)"
    if p.kind == "cards":
        return _card_text(value)
    if p.kind == "text" and value.lstrip("$").replace(",", "").replace(".", "").isdigit():
        return value
    return _words(value) if p.kind == "choice" else value


def _entry(p: Parameter) -> bool:
    """An entry of a pay or prize table, named by its hand (``main.flush``, ``jackpot.trips``, ``envy.quads``)."""
    head = p.name.rpartition(".")[0]
    if not head or head.startswith("meter"):
        return False
    return p.kind in ("odds", "text") or (p.kind == "money" and (" for " in p.help or " on " in p.help))


def label(d: GameDefinition, p: Parameter) -> str:
    """What a parameter is, in a player's words: a table's entry by its hand, else its help."""
    if _entry(p):
        return _words(p.name.rpartition(".")[2])
    text = p.help
    if "X to 1" in text:
        text = text.split("X to 1")[0].rstrip().removesuffix(" pays").removesuffix(" wins")
    return _sentence(text)


def _section_title(d: GameDefinition, group: str, rules: Any) -> str:
    titles = {w.name: w.title for w in d.wagers}
    if group == "main":
        title = "Pay table"
    elif group == "envy" and d.neighbour_bonus:
        title = d.neighbour_bonus
    elif group in titles:
        title = titles[group]
    else:
        title = _sentence(group)
    name = next((p for p in d.parameters if p.group == group and p.name.endswith(".name")), None)
    return f"{title} ({name.value(rules)})" if name is not None else title


def _skipped(p: Parameter, value: str) -> bool:
    """Rows a player need not read: a pay table's name (in its title), presets, entries that pay nothing."""
    if p.kind == "preset" or not p.listed or p.name.endswith(".name"):
        return True
    return _entry(p) and value in (LOSES, "0", "")


def rule_card(d: GameDefinition, rules: Any) -> RuleCard:
    """``rules`` (a rules object of ``d``) as a player reads them: a section per parameter group (pay tables
    first, best hand first; the game's rules last), and the changes from ``d``'s standard rules."""
    meters = {m.name: m.title or m.name for m in d.meters(rules)}
    groups: dict[str, list[Parameter]] = {}
    for p in d.parameters:
        groups.setdefault(p.group, []).append(p)

    def pays(g: str) -> bool:
        return any(p.kind == "odds" or "X to 1" in p.help for p in groups[g])

    order = sorted(groups, key=lambda g: (g == "rules", not pays(g)))
    sections = []
    for g in order:
        params = sorted(groups[g], key=lambda p: -p.rank) if any(p.rank for p in groups[g]) else groups[g]
        rows = tuple(
            Row(label(d, p), shown(p, p.value(rules), meters))
            for p in params
            if not _skipped(p, p.value(rules))
        )
        if rows:
            sections.append(Section(_section_title(d, g, rules), rows))
    return RuleCard(d.key, d.title, tuple(sections), changes(d, rules))


def changes(d: GameDefinition, rules: Any) -> tuple[Change, ...]:
    """The listed parameters whose value in ``rules`` is not the standard rules' (in the definition's order)."""
    standard = d.make_rules()
    out = []
    for p in d.parameters:
        if not p.listed or p.name.endswith(".name"):  # a pay table's name follows its entries (its title)
            continue
        mine, std = p.value(rules), p.value(standard)
        if mine != std:
            where = _section_title(d, p.group, standard).split(" (")[0]
            what = label(d, p)
            named = what if p.group == "rules" else f"{where}: {what[:1].lower() + what[1:]}"
            out.append(Change(p.name, named, shown(p, mine), shown(p, std)))
    return tuple(out)

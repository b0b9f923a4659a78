"""``GET /games``: every registered game as the page and other clients draw it (docs/protocol.md).

Built from :mod:`tablegames.rules.registry` alone, so a game registered there is listed here with no edit:
its wagers (main or side, cost multiple, fixed amount under the default rules, the wager a side bet requires,
the option a wager is placed with), its decisions and their labels, its meters, its rule options and pay
tables, its parameters (every number and choice of its rules, issue 15: the Math lab's form is built from
them), and the page's felt layout module when the game has one. A table's own values (its rules' fixed
amounts and meters) come in its state and its round's view.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi import APIRouter

from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition, Wager
from tablegames.rules.parameters import Parameter
from tablegames.server.contract.base import Closed

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

router = APIRouter(tags=["games"])


class WagerOptionOut(Closed):
    name: str
    choices: list[str]
    help: str


class WagerPartOut(Closed):
    """One of the equal stakes a wager is drawn as: a part of a multi-bet wager (Let It Ride's bet "1",
    settled as ``"<wager> <part>"``) or a stake set aside with it and settled under its own name (Three Card
    Poker's Play). A round's view says which parts are up (``parts_up``)."""

    name: str
    title: str
    settles: str  # the settled event's wager (and part) whose outcome colours it


class WagerOut(Closed):
    name: str
    title: str
    main: bool
    cost_multiple: int
    fixed_cents: int | None
    requires: str | None
    option: WagerOptionOut | None
    parts: list[WagerPartOut]  # [] for a wager drawn as one spot
    feeds: bool  # the wager feeds the game's meters (its jackpot wager)


class DecisionOut(Closed):
    name: str
    label: str
    indexed: bool


class MeterOut(Closed):
    name: str
    title: str
    reset_cents: int
    share: str  # an exact fraction, "1/10"
    big: bool  # the game's big prize (drawn larger)


class RuleOptionOut(Closed):
    name: str
    choices: list[str]
    help: str


class ParameterOut(Closed):
    """One number or choice of the game's rules (``rules.parameters.Parameter``): what a form or a game file
    needs to show and check it; the server checks every value again."""

    name: str  # ``--rule NAME=VALUE``, a game file's key (``main.flush``: ``flush`` in ``[rules.main]``)
    kind: str  # int | money | fraction | choice | odds | cards | text | preset
    help: str
    default: str  # RULES.md's value, as text ("" for a preset, which is written but not read back)
    low: int | str | None  # bounds: whole numbers, or exact fractions as text ("1/10")
    high: int | str | None
    choices: list[str]
    allowed: str  # what values are allowed, in words
    group: str  # the section of a form or a game file
    rank: int  # a pay table's entries by hand rank, lowest first
    structural: bool  # False for a payout (the analyzers re-solve it without rebuilding their tables)
    listed: bool  # part of the complete rule set (a preset is not: its entries are)
    ruling: str  # the RULES.md ruling its default comes from
    writes: list[str]  # a preset: the parameters it sets (a form forgets their edits when it is chosen)


class GameOut(Closed):
    key: str
    title: str
    tagline: str
    felt: str | None  # the felt layout module's path under /static ("js/felt/<key>.js"), None: the default
    wagers: list[WagerOut]
    decisions: list[DecisionOut]
    meters: list[MeterOut]
    rule_options: list[RuleOptionOut]
    paytables: list[str]
    parameters: list[ParameterOut]
    neighbour_bonus: str | None  # the title of a payment to a seat for another seat's hand (envy_paid)


def _bound(value: int | Fraction | None) -> int | str | None:
    if value is None or isinstance(value, int):
        return value
    return str(value)


def preset_writes(d: GameDefinition, p: Parameter, rules: Any) -> list[str]:
    """The listed parameters a preset sets: those whose value some choice of it changes."""
    if p.kind != "preset":
        return []
    listed = [q for q in d.parameters if q.listed]
    base = {q.name: q.value(rules) for q in listed}
    written: set[str] = set()
    for c in p.choices:
        after = p.put(rules, p.parse(c))
        written |= {q.name for q in listed if q.value(after) != base[q.name]}
    return [q.name for q in listed if q.name in written]


def parameters_out(d: GameDefinition) -> list[ParameterOut]:
    rules = d.make_rules()
    return [
        ParameterOut(
            name=p.name,
            kind=p.kind,
            help=p.help,
            default=p.value(rules) if p.listed else "",
            low=_bound(p.low),
            high=_bound(p.high),
            choices=list(p.choices),
            allowed=p.allowed,
            group=p.group,
            rank=p.rank,
            structural=p.structural,
            listed=p.listed,
            ruling=p.ruling,
            writes=preset_writes(d, p, rules),
        )
        for p in d.parameters
    ]


def felt_path(d: GameDefinition) -> str | None:
    """The felt module's path under ``/static`` when the file is there (the definition names it under js/)."""
    if d.felt is None:
        return None
    path = "js/" + d.felt
    return path if (STATIC_DIR / path).is_file() else None


def parts_out(w: Wager) -> list[WagerPartOut]:
    """The stakes ``w`` is drawn as: its parts, or itself and its companions; [] for one spot."""
    if w.parts:
        return [WagerPartOut(name=p, title=p, settles=f"{w.name} {p}") for p in w.parts]
    if w.companions:
        own = WagerPartOut(name=w.name, title=w.title, settles=w.name)
        return [own, *(WagerPartOut(name=n, title=t, settles=n) for n, t in w.companions)]
    return []


def game_out(d: GameDefinition) -> GameOut:
    rules = d.make_rules()
    return GameOut(
        key=d.key,
        title=d.title,
        tagline=d.tagline,
        felt=felt_path(d),
        wagers=[
            WagerOut(
                name=w.name,
                title=w.title,
                main=w.main,
                cost_multiple=w.cost_multiple,
                fixed_cents=w.fixed_cents(rules),
                requires=w.requires,
                option=None
                if w.option is None
                else WagerOptionOut(name=w.option.name, choices=list(w.option.choices), help=w.option.help),
                parts=parts_out(w),
                feeds=w.feeds,
            )
            for w in d.wagers
        ],
        decisions=[DecisionOut(name=x.name, label=x.label, indexed=x.indexed) for x in d.decisions],
        meters=[
            MeterOut(
                name=m.name,
                title=m.title or m.name,
                reset_cents=m.reset_cents,
                share=f"{m.share.numerator}/{m.share.denominator}",
                big=m.big,
            )
            for m in d.meters(rules)
        ],
        rule_options=[
            RuleOptionOut(name=o.name, choices=list(o.choices), help=o.help) for o in d.rule_options
        ],
        paytables=list(d.paytables),
        parameters=parameters_out(d),
        neighbour_bonus=d.neighbour_bonus,
    )


@functools.cache
def all_games() -> tuple[GameOut, ...]:
    return tuple(game_out(d) for d in registry.DEFINITIONS)


@router.get("/games", response_model=list[GameOut])
def games() -> list[GameOut]:
    """Every registered game: its wagers, decisions, meters, rule options, pay tables and parameters (default
    rules)."""
    return list(all_games())

"""``GET /games``: every registered game as the page and other clients draw it (docs/protocol.md).

Built from :mod:`tablegames.rules.registry` alone, so a game registered there is listed here with no edit:
its wagers (main or side, cost multiple, fixed amount under the default rules, the wager a side bet requires,
the option a wager is placed with), its decisions and their labels, its meters, its rule options and pay
tables, and the page's felt layout module when the game has one. A table's own values (its rules' fixed
amounts and meters) come in its state and its round's view.
"""

from __future__ import annotations

import functools
from pathlib import Path

from fastapi import APIRouter
from pydantic import BaseModel

from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

router = APIRouter(tags=["games"])


class WagerOptionOut(BaseModel):
    name: str
    choices: list[str]
    help: str


class WagerOut(BaseModel):
    name: str
    title: str
    main: bool
    cost_multiple: int
    fixed_cents: int | None
    requires: str | None
    option: WagerOptionOut | None


class DecisionOut(BaseModel):
    name: str
    label: str
    indexed: bool


class MeterOut(BaseModel):
    name: str
    title: str
    reset_cents: int
    share: str  # an exact fraction, "1/10"


class RuleOptionOut(BaseModel):
    name: str
    choices: list[str]
    help: str


class GameOut(BaseModel):
    key: str
    title: str
    tagline: str
    felt: str | None  # the felt layout module's path under /static ("js/felt/<key>.js"), None: the default
    wagers: list[WagerOut]
    decisions: list[DecisionOut]
    meters: list[MeterOut]
    rule_options: list[RuleOptionOut]
    paytables: list[str]


def felt_path(d: GameDefinition) -> str | None:
    """The felt module's path under ``/static`` when the file is there (the definition names it under js/)."""
    if d.felt is None:
        return None
    path = "js/" + d.felt
    return path if (STATIC_DIR / path).is_file() else None


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
            )
            for m in d.meters(rules)
        ],
        rule_options=[
            RuleOptionOut(name=o.name, choices=list(o.choices), help=o.help) for o in d.rule_options
        ],
        paytables=list(d.paytables),
    )


@functools.cache
def all_games() -> tuple[GameOut, ...]:
    return tuple(game_out(d) for d in registry.DEFINITIONS)


@router.get("/games", response_model=list[GameOut])
def games() -> list[GameOut]:
    """Every registered game: its wagers, decisions, meters, rule options and pay tables (default rules)."""
    return list(all_games())

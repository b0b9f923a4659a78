"""The Math lab (issue 15): ``GET /lab`` (the page), ``POST /lab/analyze`` (a rule set's exact figures) and
``POST /lab/game-file`` (a rule set as a game file's text, to save). Generic over the registry.

A rule set is read as a table's is (:mod:`tablegames.server.rulesets`: ``{name: value}`` options, a game file's
text, or both; a refused value names its field). The figures are ``analysis.api.analyze_game``'s, solved on
the lab's own threads (never on the event loop, nor on the REST threads the database work needs), at most
:data:`LAB_SOLVES` at a time and one at a time per game (an analyzer's caches are its own), identical requests
sharing one solve, the last :data:`LAB_CACHE` answers kept; beyond :data:`LAB_PENDING` solves waiting, a
request is refused with ``busy`` (503) rather than queued without bound.
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, Field, StrictInt

from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.common import Analysis, ReturnTable
from tablegames.analysis.render import order_columns
from tablegames.rules import RuleError, gamefile
from tablegames.rules.parameters import changed_values
from tablegames.server.errors import ApiError, FieldError
from tablegames.server.routes.deps import COMMON_ERRORS, Out, errors
from tablegames.server.routes.games import STATIC_DIR
from tablegames.server.rulesets import GAME_FILE_MAX, Resolved, field_of, resolve

router = APIRouter(tags=["lab"], responses=COMMON_ERRORS)

LAB_SOLVES = 2  # solves at a time (the machine's cores; a solve is CPU-bound)
LAB_CACHE = 128  # answers kept (a rule set's figures do not change)
LAB_PENDING = 8  # distinct solves running or waiting; more are refused (busy)


class LabBody(BaseModel):
    game: str | None = None  # may be omitted with a game file
    rules: dict[str, str | int] = Field(default_factory=dict)  # a full or partial rule set
    paytable: str | None = None  # a pay-table preset (a game whose rules have no parameters yet)
    game_file: str | None = Field(None, max_length=GAME_FILE_MAX, description="a game file's text (TOML)")
    name: str | None = Field(None, max_length=80, description="the rule set's name")
    bet_cents: StrictInt | None = None  # the wager size (a game with a payout cap)
    meters: dict[str, StrictInt] = Field(default_factory=dict)  # meter name -> cents (progressive games)


class GameFileBody(LabBody):
    description: str = Field("", max_length=2000)


class OutcomeOut(BaseModel):
    outcome: str
    combinations: int
    probability: float
    payout: float  # net result in units of the initial main wager
    contribution: float
    contribution_exact: str


class SideBetOut(BaseModel):
    name: str
    house_edge: float
    house_edge_exact: str
    return_: float = Field(alias="return")
    hit_frequency: float
    hit_frequency_exact: str
    std_dev: float
    outcomes: list[OutcomeOut]


class ChartRow(BaseModel):
    label: str
    cells: list[str]  # one per column ("" where the chart has no entry)


class ChartOut(BaseModel):
    row_label: str
    column_label: str
    columns: list[str]
    rows: list[ChartRow]


class StrategyOut(BaseModel):
    summary: list[str]
    chart: ChartOut | None


class LabAnalysis(Out):
    game: str
    name: str | None
    rules: dict[str, str]  # the complete rule set analysed
    changed: dict[str, str]  # the values that differ from RULES.md's
    house_edge: float
    house_edge_exact: str
    element_of_risk: float
    element_of_risk_exact: str
    hit_frequency: float  # the main wager wins
    hit_frequency_exact: str
    std_dev: float  # of the net result per initial wager
    expected_value: float
    average_wager: float
    p_win: float
    p_push: float
    p_loss: float
    total_combinations: int
    outcomes: list[OutcomeOut]  # the return table
    side_bets: list[SideBetOut]
    strategy: StrategyOut
    notes: list[str]
    seconds: float  # the solve's time (0: answered from the cache)
    cached: bool


def _outcomes(table: ReturnTable) -> list[dict[str, Any]]:
    total = table.total
    return [
        {
            "outcome": o.name,
            "combinations": o.combinations,
            "probability": float(o.probability(total)),
            "payout": float(o.payout),
            "contribution": float(o.contribution(total)),
            "contribution_exact": str(o.contribution(total)),
        }
        for o in table.outcomes
    ]


def _moments(table: ReturnTable) -> float:
    mean = table.expected_value
    second = sum((o.payout * o.payout * o.probability(table.total) for o in table.outcomes), Fraction(0))
    return math.sqrt(second - mean * mean)


def _chart(a: Analysis, axes: tuple[str, str]) -> dict[str, Any] | None:
    chart = a.strategy.get("chart")
    if not isinstance(chart, dict) or not chart:
        return None
    columns = order_columns({str(c) for row in chart.values() for c in row})
    rows = [{"label": str(k), "cells": [str(row.get(c, "")) for c in columns]} for k, row in chart.items()]
    return {"row_label": axes[0], "column_label": axes[1], "columns": columns, "rows": rows}


def figures(got: Resolved, bet_cents: int | None, meters: dict[str, int]) -> dict[str, Any]:
    """The exact figures of a rule set, as the page draws them (on a lab thread)."""
    started = time.perf_counter()
    rules = got.rules
    try:
        a = analyze_game(rules, bet_cents, meters)
        axes = analyzer(rules).chart_axes
    except RuleError as exc:
        raise FieldError(str(exc), field_of(str(exc))) from None
    side = []
    for name, bet in a.side_bets.items():
        hits = Fraction(sum(o.combinations for o in bet.outcomes if o.payout > -1), bet.total)
        side.append(
            {
                "name": name,
                "house_edge": float(bet.house_edge),
                "house_edge_exact": str(bet.house_edge),
                "return": float(bet.return_),
                "hit_frequency": float(hits),
                "hit_frequency_exact": str(hits),
                "std_dev": _moments(bet),
                "outcomes": _outcomes(bet),
            }
        )
    d = got.definition
    return {
        "game": d.key,
        "name": got.name,
        "rules": got.rule_set,
        "changed": changed_values(d.parameters, rules, d.make_rules()) if d.parameters else {},
        "house_edge": float(a.house_edge),
        "house_edge_exact": str(a.house_edge),
        "element_of_risk": float(a.element_of_risk),
        "element_of_risk_exact": str(a.element_of_risk),
        "hit_frequency": float(a.p_win),
        "hit_frequency_exact": str(a.p_win),
        "std_dev": a.std_dev,
        "expected_value": float(a.expected_value),
        "average_wager": float(a.average_wager),
        "p_win": float(a.p_win),
        "p_push": float(a.p_push),
        "p_loss": float(a.p_loss),
        "total_combinations": a.total,
        "outcomes": _outcomes(a),
        "side_bets": side,
        "strategy": {"summary": list(a.strategy_summary), "chart": _chart(a, axes)},
        "notes": list(a.notes),
        "seconds": round(time.perf_counter() - started, 4),
        "cached": False,
    }


Key = tuple[str, tuple[tuple[str, str], ...], int | None, tuple[tuple[str, int], ...]]


class LabSolver:
    """The lab's solves: its threads, the answers cache, the solves in flight (one app's)."""

    def __init__(self, solves: int = LAB_SOLVES, cache: int = LAB_CACHE, pending: int = LAB_PENDING) -> None:
        self.pool = ThreadPoolExecutor(max_workers=solves, thread_name_prefix="lab")
        self.cache: OrderedDict[Key, dict[str, Any]] = OrderedDict()  # (event loop only)
        self.size = cache
        self.pending = pending
        self.inflight: dict[Key, asyncio.Future[dict[str, Any]]] = {}  # (event loop only)
        self.game_locks: dict[str, threading.Lock] = {}

    async def analyze(self, got: Resolved, bet_cents: int | None, meters: dict[str, int]) -> dict[str, Any]:
        key: Key = (
            got.definition.key,
            (*sorted(got.rule_set.items()), ("", got.paytable or "")),
            bet_cents,
            tuple(sorted(meters.items())),
        )
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            return {**hit, "name": got.name, "seconds": 0.0, "cached": True}
        future = self.inflight.get(key)
        if future is None:
            if len(self.inflight) >= self.pending:
                raise ApiError("busy", f"the lab is solving {self.pending} rule sets; try again shortly", 503)
            lock = self.game_locks.setdefault(got.definition.key, threading.Lock())

            def solve() -> dict[str, Any]:
                with lock:
                    return figures(got, bet_cents, meters)

            future = asyncio.ensure_future(asyncio.get_running_loop().run_in_executor(self.pool, solve))
            self.inflight[key] = future
            future.add_done_callback(lambda f: self._done(key, f))
        answer = await asyncio.shield(future)
        return {**answer, "name": got.name}

    def _done(self, key: Key, future: asyncio.Future[dict[str, Any]]) -> None:
        self.inflight.pop(key, None)
        if not future.cancelled() and future.exception() is None:
            self.cache[key] = future.result()
            while len(self.cache) > self.size:
                self.cache.popitem(last=False)


def solver_of(request: Request) -> LabSolver:
    solver: LabSolver | None = getattr(request.app.state, "lab", None)
    if solver is None:  # (event loop: no race) one per app, made at its first use
        solver = request.app.state.lab = LabSolver()
    return solver


def stop(app: Any) -> None:
    """(The app's shutdown.) Solves not started are dropped; the lab's threads end after the one in progress."""
    solver: LabSolver | None = getattr(app.state, "lab", None)
    if solver is not None:
        solver.pool.shutdown(wait=False, cancel_futures=True)
        app.state.lab = None


def _resolve(body: LabBody) -> Resolved:
    return resolve(body.game, body.rules, body.paytable, body.game_file, body.name)


@router.get("/lab", include_in_schema=False)
async def lab_page() -> Any:
    page = STATIC_DIR / "lab.html"
    if page.is_file():
        return FileResponse(page)
    return JSONResponse({"error": {"code": "not_found", "message": "no lab page installed"}}, 404)


@router.post("/lab/analyze", response_model=LabAnalysis, responses=errors(503))
async def analyze(request: Request, body: LabBody) -> Any:
    """The exact figures of a rule set (its game's analysis: house edge, element of risk, hit frequency,
    standard deviation, the return table, the side bets, the strategy chart). A refused value: ``bad_rules``
    with the ``field`` it is about."""
    return await solver_of(request).analyze(_resolve(body), body.bet_cents, dict(body.meters))


def file_name(name: str) -> str:
    """A download's file name for a rule set's name.

    >>> file_name("House rules: 3% edge!")
    'house-rules-3-edge.toml'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"{slug or 'rules'}.toml"


class GameFileOut(Out):
    game: str
    name: str
    file_name: str  # a download's name for it ("<name>.toml")
    text: str  # the game file (TOML): ``rules.gamefile.dumps``


@router.post("/lab/game-file", response_model=GameFileOut)
async def game_file(body: GameFileBody) -> GameFileOut:
    """The rule set as a game file (``rules.gamefile.dumps``: every parameter), to save."""
    got = _resolve(body)
    name = got.name or "custom"
    text = gamefile.dumps(gamefile.GameFile(got.definition.key, name, got.rules, body.description))
    return GameFileOut(game=got.definition.key, name=name, file_name=file_name(name), text=text)

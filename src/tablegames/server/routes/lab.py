"""The Math lab (issue 15): ``GET /lab`` (the page), ``POST /lab/analyze`` (a rule set's exact figures) and
``POST /lab/game-file`` (a rule set as a game file's text, to save). Generic over the registry.

A rule set is read as a table's is (:mod:`tablegames.server.rulesets`: ``{name: value}`` options, a game file's
text, or both; a refused value names its field). The figures are ``analysis.api.analyze_game``'s, solved on
the lab's own processes (:mod:`tablegames.server.labsolver`: a bounded pool of lower-priority solver processes,
a bounded queue, a quota per client address, identical requests sharing one solve, an answers cache); a
request beyond a bound is refused with ``busy`` (429 or 503, with ``Retry-After``) rather than queued.

A request is read on the REST threads, never on the event loop (:func:`read_lab_body`): every value bounded
before it is built and checked by the validator the CLI uses (``rules.parameters``, ``analysis.api``'s
``check_bet`` and ``check_meters``); a refusal is a ``400 bad_rules`` naming its field and one log line (issue 20).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import Field, StrictInt

from tablegames.analysis.api import check_bet, check_meters
from tablegames.analysis.result import LabFigures
from tablegames.rules import RuleError, gamefile
from tablegames.rules.parameters import cut
from tablegames.server.contract.base import Closed
from tablegames.server.errors import FieldError
from tablegames.server.labsolver import LabSolver, unless_gone
from tablegames.server.limits import address_key
from tablegames.server.routes.deps import COMMON_ERRORS, Out, errors, off_loop
from tablegames.server.routes.games import STATIC_DIR
from tablegames.server.rulesets import GAME_FILE_MAX, Resolved, logged, resolve

router = APIRouter(tags=["lab"], responses=COMMON_ERRORS)


class LabBody(Closed):
    game: str | None = None  # may be omitted with a game file
    rules: dict[str, str | int] = Field(default_factory=dict)  # a full or partial rule set
    paytable: str | None = None  # a pay-table preset (a game whose rules have no parameters yet)
    game_file: str | None = Field(None, max_length=GAME_FILE_MAX, description="a game file's text (TOML)")
    name: str | None = Field(None, max_length=80, description="the rule set's name")
    bet_cents: StrictInt | None = None  # the wager size (a game with a payout cap)
    meters: dict[str, StrictInt] = Field(default_factory=dict)  # meter name -> cents (progressive games)


class GameFileBody(LabBody):
    description: str = Field("", max_length=2000)


LabAnalysis = LabFigures  # the analysis's own model of the lab's answer (tablegames.analysis.result)


def solver_of(request: Request) -> LabSolver:
    solver: LabSolver | None = getattr(request.app.state, "lab", None)
    if solver is None:  # (event loop: no race) one per app, made at its first use
        solver = request.app.state.lab = LabSolver()
    return solver


def stop(app: Any) -> None:
    """(The app's shutdown.) Solves not started are dropped; the solver processes are ended."""
    solver: LabSolver | None = getattr(app.state, "lab", None)
    if solver is not None:
        solver.close()
        app.state.lab = None


def _resolve(body: LabBody) -> Resolved:
    return resolve(body.game, body.rules, body.paytable, body.game_file, body.name)


@dataclass(frozen=True)
class LabRequest:
    """A lab request read and checked: the rule set, the wager size and the meters to solve at."""

    got: Resolved
    bet_cents: int | None
    meters: dict[str, int]


def read_lab_body(body: LabBody) -> LabRequest:
    """(A REST thread.) The request's rule set (each value through its parameter), its wager size and meters
    (``check_bet``, ``check_meters``: the CLI's checks); a refusal is a FieldError naming the field."""
    got = _resolve(body)
    try:
        check_bet(got.rules, body.bet_cents)
    except RuleError as exc:
        raise FieldError(str(exc), "bet_cents") from None
    for name, cents in body.meters.items():
        try:
            check_meters(got.rules, {name: cents})
        except RuleError as exc:
            raise FieldError(str(exc), f"meters.{cut(name, 40)}") from None
    return LabRequest(got, body.bet_cents, dict(body.meters))


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def read_off_loop(request: Request, where: str, call: Any) -> Any:
    """``call()`` on the REST threads, a refusal logged as one line (``rulesets.logged``)."""
    return await off_loop(request, logged, where, _client(request), call)


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
    lab: LabRequest = await read_off_loop(request, "lab analyze", functools.partial(read_lab_body, body))
    solving = solver_of(request).analyze(lab.got, lab.bet_cents, lab.meters, address_key(request.scope))
    return await unless_gone(solving, request.receive)


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


def write_game_file(body: GameFileBody) -> GameFileOut:
    """(A REST thread.) The request's rule set, read and checked, as a game file's text."""
    got = read_lab_body(body).got
    name = got.name or "custom"
    text = gamefile.dumps(gamefile.GameFile(got.definition.key, name, got.rules, body.description))
    return GameFileOut(game=got.definition.key, name=name, file_name=file_name(name), text=text)


@router.post("/lab/game-file", response_model=GameFileOut)
async def game_file(request: Request, body: GameFileBody) -> GameFileOut:
    """The rule set as a game file (``rules.gamefile.dumps``: every parameter), to save."""
    out: GameFileOut = await read_off_loop(request, "lab game-file", functools.partial(write_game_file, body))
    return out

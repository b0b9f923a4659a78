"""``tablegames detect --database URL``: every stored decision scored, every player tested (issue 27, offline).

Reads the server's ``rounds`` table (read-only, through its SQLAlchemy models): settled rounds of the games
detection covers, oldest first. A decision is an ``action`` event of a seat; the hidden cards are the round's
deck at the positions its ``card_dealt`` events record. Decisions the server took for the player (``by`` other
than ``player``: the timeout default, R-TCP-2) are not the player's and are not scored. A player is the
``seat_players`` entry of the seat; each player has one :class:`~tablegames.analysis.detect.SequentialTest`
per scenario of the game, flagged at ``scenarios / alpha`` (Bonferroni over the scenarios, the module
:mod:`tablegames.analysis.detect` states the false-positive bound).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tablegames.analysis import detect
from tablegames.engine import Action
from tablegames.rules import GameRules, make_rules
from tablegames.rules.common import RuleError


@dataclass
class PlayerFlag:
    player_id: int
    name: str | None
    game: str
    scenario: str
    hands: int
    mistakes: int
    supported: int
    flagged_at_hand: int
    log10_evidence: float
    evidence_rounds: list[int]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DetectReport:
    rounds: int = 0
    decisions: int = 0
    players: int = 0
    tests: int = 0
    alpha: float = detect.DEFAULT_ALPHA
    seconds: float = 0.0
    flagged: list[PlayerFlag] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "decisions": self.decisions,
            "players": self.players,
            "tests": self.tests,
            "alpha": self.alpha,
            "seconds": round(self.seconds, 3),
            "flagged": [f.to_dict() for f in self.flagged],
        }


def _rounds(url: str, since: float | None, batch: int = 2_000) -> Iterator[Any]:
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    from tablegames.server.db import SETTLED, RoundRow, normalize_url

    url = normalize_url(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        from pathlib import Path

        if not Path(url.split(":///", 1)[1]).exists():
            raise RuleError(f"no database at {url}")
    engine = create_engine(url)
    covered = list(detect.COVERED)
    try:
        with Session(engine) as session:
            query = select(
                RoundRow.id,
                RoundRow.game,
                RoundRow.rules,
                RoundRow.deck,
                RoundRow.seat_players,
                RoundRow.events,
            ).where(RoundRow.status == SETTLED, RoundRow.game.in_(covered))
            if since is not None:
                query = query.where(RoundRow.settled_at >= since)
            yield from session.execute(query.order_by(RoundRow.id).execution_options(yield_per=batch))
    finally:
        engine.dispose()


def detect_database_reference(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
) -> DetectReport:
    """The first offline path, kept as the reference :func:`detect_database` is tested against: the ORM rows,
    every round's events decoded whole, every decision scored afresh."""
    started = time.perf_counter()
    report = DetectReport(alpha=alpha)
    rules_of: dict[tuple[str, str], GameRules] = {}
    scorers: dict[tuple[str, str], list[Any]] = {}
    tests: dict[tuple[int, str, str], detect.SequentialTest] = {}
    actions: dict[str, Action] = {}
    for row in _rounds(url, since):
        rid, game, rule_text, deck, seat_players, events = row
        key = (game, repr(sorted((rule_text or {}).items())))
        rules = rules_of.get(key)
        if rules is None:
            rules = rules_of[key] = make_rules(game, dict(rule_text or {}))
            scorers[key] = [detect.scorer(rules, s) for s in detect.scenarios(rules)]
        dealt: dict[str, list[int]] = {}
        for e in events or []:
            if e["type"] == "card_dealt":
                dealt.setdefault(e["to"], []).append(int(deck[e["position"]]))
        report.rounds += 1
        prior: dict[int, list[Action]] = {}
        for e in events or []:
            if e["type"] != "action":
                continue
            before = prior.setdefault(int(e["seat"]), [])
            action = actions.get(e["action"])
            if action is None:
                action = actions[e["action"]] = Action.parse(e["action"])
            player = (seat_players or {}).get(str(e["seat"]))
            if player is not None and e.get("by", "player") == "player":
                _observe(
                    tests, scorers[key], dealt, int(player), game, int(e["seat"]), action, before, rid, alpha
                )
                report.decisions += 1
            before.append(action)
        if progress is not None:
            progress(1)
    return _finish(report, tests, url, started)


def _finish(
    report: DetectReport, tests: dict[tuple[int, str, str], detect.SequentialTest], url: str, started: float
) -> DetectReport:
    report.tests = len(tests)
    report.players = len({k[0] for k in tests})
    names = _names(url, sorted({k[0] for k, t in tests.items() if t.flagged}))
    for (player, game, scenario), t in sorted(tests.items()):
        if t.flagged_at is None:
            continue
        report.flagged.append(
            PlayerFlag(
                player_id=player,
                name=names.get(player),
                game=game,
                scenario=scenario,
                hands=t.hands,
                mistakes=t.mistakes,
                supported=t.supported,
                flagged_at_hand=t.flagged_at,
                log10_evidence=round(t.log_evidence / 2.302585092994046, 3),
                evidence_rounds=[int(r) for r in t.evidence[:20]],
            )
        )
    report.seconds = time.perf_counter() - started
    return report


def _observe(
    tests: dict[tuple[int, str, str], detect.SequentialTest],
    found: list[Any],
    dealt: dict[str, list[int]],
    player: int,
    game: str,
    seat: int,
    action: Action,
    before: list[Action],
    rid: int,
    alpha: float,
) -> None:
    """One recorded decision under each of the game's scenarios (the legal check once: it is every scenario's)."""
    mistake = found[0].mistake_dealt(dealt, seat, action, before)
    for sc in found:
        t = tests.get((player, game, sc.scenario))
        if t is None:
            t = tests[(player, game, sc.scenario)] = detect.SequentialTest(alpha=alpha, scenarios=len(found))
        if mistake:
            t.observe(sc.score_dealt(dealt, seat, action, before), hand=rid)
        else:
            t.enter(rid)


def _names(url: str, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    from tablegames.server.db import Player, normalize_url

    engine = create_engine(normalize_url(url))
    try:
        with Session(engine) as session:
            return {
                int(i): str(n)
                for i, n in session.execute(select(Player.id, Player.name).where(Player.id.in_(ids)))
            }
    finally:
        engine.dispose()


# The fast path: the rows' JSON as text, only the deal and action events read, each decision's answers cached.

_DEALT = re.compile(
    r'\{"type": "card_dealt", "to": "([^"\\]*)", "position": (\d+), "card": "[^"\\]*", "visible_to": "[^"\\]*"\}'
)
_ACTION = re.compile(r'\{"type": "action", "seat": (\d+), "action": "([^"\\]*)", "by": "([^"\\]*)"\}')
_CACHE_LIMIT = 500_000
"""Cached answers per game and scenario before the cache starts afresh (bounds the memory)."""


def parse_events(text: str | None) -> tuple[list[tuple[str, int]], list[tuple[str, str, bool]]]:
    """A round's stored events (their JSON text) -> its deals ``(to, position)`` and decisions ``(seat, action,
    by the player)``, in order. The events as the engine writes them (``Event.to_dict``, the standard encoder)
    are read by two patterns, without decoding the rest; a text they do not account for whole (every
    ``"card_dealt"`` and ``"action"`` in it) is decoded as JSON (the same answer, slower)."""
    if not text:
        return [], []
    dealt = _DEALT.findall(text)
    acts = _ACTION.findall(text)
    if text.count('"card_dealt"') == len(dealt) and text.count('"action"') == 2 * len(acts):
        return [(to, int(pos)) for to, pos in dealt], [(seat, a, by == "player") for seat, a, by in acts]
    return _parse_events_json(text)


def _parse_events_json(text: str) -> tuple[list[tuple[str, int]], list[tuple[str, str, bool]]]:
    events = json.loads(text)
    dealt = [(e["to"], e["position"]) for e in events or [] if e["type"] == "card_dealt"]
    acts = [
        (str(e["seat"]), e["action"], e.get("by", "player") == "player")
        for e in events or []
        if e["type"] == "action"
    ]
    return dealt, acts


def _raw_rounds(url: str, since: float | None, batch: int = 5_000) -> Iterator[Any]:
    """The settled rounds of the covered games, oldest first: id, game and the JSON columns as text."""
    from sqlalchemy import Text, cast, select

    from tablegames.server.db import SETTLED, RoundRow

    engine = _engine(url)
    query = select(
        RoundRow.id,
        RoundRow.game,
        cast(RoundRow.rules, Text),
        cast(RoundRow.deck, Text),
        cast(RoundRow.seat_players, Text),
        cast(RoundRow.events, Text),
    ).where(RoundRow.status == SETTLED, RoundRow.game.in_(list(detect.COVERED)))
    if since is not None:
        query = query.where(RoundRow.settled_at >= since)
    try:
        with engine.connect() as conn:
            result = conn.execution_options(stream_results=True, yield_per=batch).execute(
                query.order_by(RoundRow.id)
            )
            for part in result.partitions():
                yield from part
    finally:
        engine.dispose()


def _engine(url: str) -> Any:
    from sqlalchemy import create_engine

    from tablegames.server.db import normalize_url

    url = normalize_url(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        from pathlib import Path

        if not Path(url.split(":///", 1)[1]).exists():
            raise RuleError(f"no database at {url}")
    return create_engine(url)


def count_rounds(url: str, since: float | None = None) -> int:
    """How many rounds :func:`detect_database` reads (a progress bar's total)."""
    from sqlalchemy import func, select

    from tablegames.server.db import SETTLED, RoundRow

    engine = _engine(url)
    query = select(func.count(RoundRow.id)).where(
        RoundRow.status == SETTLED, RoundRow.game.in_(list(detect.COVERED))
    )
    if since is not None:
        query = query.where(RoundRow.settled_at >= since)
    try:
        with engine.connect() as conn:
            return int(conn.execute(query).scalar_one())
    finally:
        engine.dispose()


@dataclass
class _Game:
    """One game under one rule set: its scorers (one per scenario) and their cached answers."""

    game: str
    scorers: list[Any]
    mistakes: dict[Hashable, bool] = field(default_factory=dict)
    scores: list[dict[Hashable, tuple[bool, Any, bool]]] = field(default_factory=list)


def detect_database(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
) -> DetectReport:
    """Score every stored decision and test every player under every scenario (see the module); ``progress``
    is told how many more rounds are done. The same report as :func:`detect_database_reference` (tested),
    faster: the events' deals and decisions read from their text, and a decision's answers (mistake, and each
    scenario's ``p`` and support) cached by the game's key of what they depend on."""
    started = time.perf_counter()
    report = DetectReport(alpha=alpha)
    games: dict[tuple[str, str | None], _Game] = {}
    by_rules: dict[tuple[str, str], _Game] = {}
    seat_maps: dict[str | None, dict[str, Any]] = {}
    tests: dict[tuple[int, str, str], detect.SequentialTest] = {}
    player_tests: dict[tuple[int, str], list[detect.SequentialTest]] = {}
    actions: dict[str, Action] = {}
    done = 0
    for rid, game, rule_text, deck_text, seats_text, events_text in _raw_rounds(url, since):
        g = games.get((game, rule_text))
        if g is None:
            g = games[(game, rule_text)] = _game(game, rule_text, by_rules)
        seats = seat_maps.get(seats_text)
        if seats is None:
            seats = seat_maps[seats_text] = (json.loads(seats_text) if seats_text else None) or {}
        deals, decisions = parse_events(events_text)
        dealt: dict[str, list[int]] = {}
        if deals:
            deck = json.loads(deck_text)
            for to, position in deals:
                dealt.setdefault(to, []).append(int(deck[position]))
        report.rounds += 1
        prior: dict[int, list[Action]] = {}
        for seat_text, name, by_player in decisions:
            seat = int(seat_text)
            before = prior.setdefault(seat, [])
            action = actions.get(name)
            if action is None:
                action = actions[name] = Action.parse(name)
            player = seats.get(seat_text)
            if player is not None and by_player:
                found = player_tests.get((int(player), game))
                if found is None:
                    found = player_tests[(int(player), game)] = [
                        tests.setdefault(
                            (int(player), game, sc.scenario),
                            detect.SequentialTest(alpha=alpha, scenarios=len(g.scorers)),
                        )
                        for sc in g.scorers
                    ]
                _observe_cached(g, found, dealt, seat, action, before, rid)
                report.decisions += 1
            before.append(action)
        done += 1
        if progress is not None and done == 1_000:
            progress(done)
            done = 0
    if progress is not None and done:
        progress(done)
    return _finish(report, tests, url, started)


def _game(game: str, rule_text: str | None, by_rules: dict[tuple[str, str], _Game]) -> _Game:
    rule_map = (json.loads(rule_text) if rule_text else None) or {}
    key = (game, repr(sorted(rule_map.items())))
    g = by_rules.get(key)
    if g is None:
        rules = make_rules(game, dict(rule_map))
        scorers = [detect.scorer(rules, s) for s in detect.scenarios(rules)]
        g = by_rules[key] = _Game(game, scorers, scores=[{} for _ in scorers])
    return g


def _observe_cached(
    g: _Game,
    found: list[detect.SequentialTest],
    dealt: dict[str, list[int]],
    seat: int,
    action: Action,
    before: list[Action],
    rid: int,
) -> None:
    """:func:`_observe` with the answers cached (the same calls on the tests, in the same order)."""
    first = g.scorers[0]
    key = first.mistake_key(dealt, seat, action, before)
    mistake = g.mistakes.get(key)
    if mistake is None:
        if len(g.mistakes) >= _CACHE_LIMIT:
            g.mistakes.clear()
        mistake = g.mistakes[key] = bool(first.mistake_dealt(dealt, seat, action, before))
    if not mistake:
        for t in found:
            t.enter(rid)
        return
    for sc, cache, t in zip(g.scorers, g.scores, found, strict=True):
        skey = sc.score_key(dealt, seat, action, before)
        answer = cache.get(skey)
        if answer is None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            score = sc.score_dealt(dealt, seat, action, before)
            answer = cache[skey] = (score.mistake, score.p, score.supported)
        t.observe_values(*answer, hand=rid)

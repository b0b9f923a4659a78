"""The fast offline scan of ``tablegames detect --database`` (issue 27: 10^6 stored rounds in under a minute).

:func:`scan` reads one range of round ids (the JSON columns as text through a Core ``select``; of the events only
the deals and decisions, :func:`parse_events`) and scores each recorded decision, caching its answers (a mistake
under the legal information; each scenario's ``p`` and support) by the game's key of what they depend on
(``Scorer.mistake_key``, ``Scorer.score_key``). It does not keep the tests: it returns, per player and game, the
log that replays into them (:func:`replay`): the hands entered between mistakes, and each mistake's answers. A
test's steps depend on the hands only through their count and the last hand (``SequentialTest.enter``), so the
replay makes exactly the calls' effect of :func:`~tablegames.analysis.detect_db.detect_database_reference`, and
ranges scanned apart (in several processes) replay in order into the same tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tablegames.analysis import detect
from tablegames.engine import Action
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError

_DEALT = re.compile(
    r'\{"type": "card_dealt", "to": "([^"\\]*)", "position": (\d+), "card": "[^"\\]*", "visible_to": "[^"\\]*"\}'
)
_ACTION = re.compile(r'\{"type": "action", "seat": (\d+), "action": "([^"\\]*)", "by": "([^"\\]*)"\}')
_CACHE_LIMIT = 500_000
"""Cached answers per game and scenario before the cache starts afresh (bounds the memory)."""

Answer = tuple[bool, Any, bool]
"""A scored decision under one scenario: the score's ``mistake``, ``p`` and ``supported``."""
Entry = tuple[int, int, int, list[Answer] | None]
"""``(new hands, the last hand, the hand of the mistake, its answers per scenario)``; a final entry of a range
has no mistake (``answers`` None)."""


def parse_events(text: str | None) -> tuple[list[tuple[str, Any]], list[tuple[str, str, Any]]]:
    """A round's stored events (their JSON text) -> its deals ``(to, position)`` and decisions ``(seat, action,
    by)``, in order (a position as its digits or a number: ``int`` of it is the position; ``by`` the player's
    when it is ``"player"``). The events as the engine writes them (``Event.to_dict``, the standard encoder)
    are read by two patterns, without decoding the rest; a text they do not account for whole (every
    ``"card_dealt"`` and ``"action"`` in it) is decoded as JSON (the same answer, slower)."""
    if not text:
        return [], []
    dealt: list[tuple[str, Any]] = _DEALT.findall(text)
    acts: list[tuple[str, str, Any]] = _ACTION.findall(text)
    if text.count('"card_dealt"') == len(dealt) and text.count('"action"') == 2 * len(acts):
        return dealt, acts
    return parse_events_json(text)


def parse_events_json(text: str) -> tuple[list[tuple[str, Any]], list[tuple[str, str, Any]]]:
    """:func:`parse_events` by decoding the whole JSON (as the reference reads the events)."""
    events = json.loads(text)
    dealt = [(e["to"], e["position"]) for e in events or [] if e["type"] == "card_dealt"]
    acts = [
        (str(e["seat"]), e["action"], e.get("by", "player")) for e in events or [] if e["type"] == "action"
    ]
    return dealt, acts


def engine(url: str) -> Any:
    """A SQLAlchemy engine on the server's database (RuleError when a SQLite file is missing)."""
    from sqlalchemy import create_engine

    from tablegames.server.db import normalize_url

    url = normalize_url(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        from pathlib import Path

        if not Path(url.split(":///", 1)[1]).exists():
            raise RuleError(f"no database at {url}")
    return create_engine(url)


def _where(query: Any, since: float | None, lo: int | None = None, hi: int | None = None) -> Any:
    from tablegames.server.db import SETTLED, RoundRow

    query = query.where(RoundRow.status == SETTLED, RoundRow.game.in_(list(detect.COVERED)))
    if since is not None:
        query = query.where(RoundRow.settled_at >= since)
    if lo is not None:
        query = query.where(RoundRow.id >= lo)
    if hi is not None:
        query = query.where(RoundRow.id < hi)
    return query


def id_range(url: str, since: float | None = None) -> tuple[int, int, int]:
    """How many rounds the scan reads, and their smallest and largest ids (0, 0 when none)."""
    from sqlalchemy import func, select

    from tablegames.server.db import RoundRow

    eng = engine(url)
    try:
        with eng.connect() as conn:
            query = _where(
                select(func.count(RoundRow.id), func.min(RoundRow.id), func.max(RoundRow.id)), since
            )
            n, lo, hi = conn.execute(query).one()
            return int(n), int(lo or 0), int(hi or 0)
    finally:
        eng.dispose()


def _rows(url: str, since: float | None, lo: int | None, hi: int | None, batch: int = 5_000) -> Iterator[Any]:
    """The settled rounds of the covered games with ids in [lo, hi), oldest first: id, game, the JSON as text."""
    from sqlalchemy import Text, cast, select

    from tablegames.server.db import RoundRow

    eng = engine(url)
    query = select(
        RoundRow.id,
        RoundRow.game,
        cast(RoundRow.rules, Text),
        cast(RoundRow.deck, Text),
        cast(RoundRow.seat_players, Text),
        cast(RoundRow.events, Text),
    )
    try:
        with eng.connect() as conn:
            result = conn.execution_options(stream_results=True, yield_per=batch).execute(
                _where(query, since, lo, hi).order_by(RoundRow.id)
            )
            for part in result.partitions():
                yield from part
    finally:
        eng.dispose()


@dataclass
class _Game:
    """One game under one rule set: its scorers (one per scenario) and their cached answers."""

    game: str
    scorers: list[Any]
    mistakes: dict[Hashable, bool] = field(default_factory=dict)
    scores: list[dict[Hashable, Answer]] = field(default_factory=list)

    def answers(
        self, dealt: dict[str, list[int]], seat: int, action: Action, before: list[Action]
    ) -> list[Answer] | None:
        """The decision's answers under each scenario, None when it is not a mistake (the cached
        ``mistake_dealt``, the legal check every scenario shares)."""
        first = self.scorers[0]
        key = first.mistake_key(dealt, seat, action, before)
        mistake = self.mistakes.get(key)
        if mistake is None:
            if len(self.mistakes) >= _CACHE_LIMIT:
                self.mistakes.clear()
            mistake = self.mistakes[key] = bool(first.mistake_dealt(dealt, seat, action, before))
        if not mistake:
            return None
        out = []
        for sc, cache in zip(self.scorers, self.scores, strict=True):
            skey = sc.score_key(dealt, seat, action, before)
            answer = cache.get(skey)
            if answer is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                score = sc.score_dealt(dealt, seat, action, before)
                answer = cache[skey] = (score.mistake, score.p, score.supported)
            out.append(answer)
        return out


@dataclass
class Partial:
    """A range's scan: its counts, and per player and game the scenarios and the log (:data:`Entry`)."""

    rounds: int = 0
    decisions: int = 0
    logs: dict[tuple[int, str], tuple[list[str], list[Entry]]] = field(default_factory=dict)


def _game(game: str, rule_text: str | None, by_rules: dict[tuple[str, str], _Game]) -> _Game:
    rule_map = (json.loads(rule_text) if rule_text else None) or {}
    key = (game, repr(sorted(rule_map.items())))  # the reference's key of a rule set
    g = by_rules.get(key)
    if g is None:
        rules = make_rules(game, dict(rule_map))
        scorers = [detect.scorer(rules, s) for s in detect.scenarios(rules)]
        g = by_rules[key] = _Game(game, scorers, scores=[{} for _ in scorers])
    return g


_GAMES: dict[tuple[str, str], _Game] = {}
"""The process' scorers and their caches, by game and rule set (kept from one scan to the next)."""


def forget() -> None:
    """Drop the process' scorers and cached answers (the game's tables stay: a benchmark's fair second run)."""
    _GAMES.clear()


def scan(url: str, since: float | None = None, lo: int | None = None, hi: int | None = None) -> Partial:
    """Score the decisions of the rounds with ids in [lo, hi) (see the module)."""
    part = Partial()
    games: dict[tuple[str, str | None], _Game] = {}
    seat_maps: dict[str | None, dict[str, Any]] = {}
    actions: dict[str, Action] = {}
    state: dict[tuple[int, str], list[Any]] = {}  # per player and game: [the last hand, new hands, the log]
    scored = 0
    for rid, game, rule_text, deck_text, seats_text, events_text in _rows(url, since, lo, hi):
        g = games.get((game, rule_text))
        if g is None:
            g = games[(game, rule_text)] = _game(game, rule_text, _GAMES)
        seats = seat_maps.get(seats_text)
        if seats is None:
            seats = seat_maps[seats_text] = (json.loads(seats_text) if seats_text else None) or {}
        deals, decisions = parse_events(events_text)
        dealt: dict[str, list[int]] = {}
        if deals:
            deck = json.loads(deck_text)
            for to, position in deals:
                dealt.setdefault(to, []).append(int(deck[int(position)]))
        part.rounds += 1
        prior: dict[int, list[Action]] = {}
        for seat_text, name, by in decisions:
            seat = int(seat_text)
            before = prior.setdefault(seat, [])
            action = actions.get(name)
            if action is None:
                action = actions[name] = Action.parse(name)
            player = seats.get(seat_text)
            if player is not None and by == "player":
                who = (int(player), game)
                s = state.get(who)
                if s is None:
                    s = state[who] = [None, 0, []]
                    part.logs[who] = ([sc.scenario for sc in g.scorers], s[2])
                if s[0] != rid:  # a new hand (SequentialTest.enter)
                    s[0] = rid
                    s[1] += 1
                answers = g.answers(dealt, seat, action, before)
                if answers is not None:
                    s[2].append((s[1], rid, rid, answers))
                    s[1] = 0
                scored += 1
            before.append(action)
    part.decisions = scored
    for last, new, log in state.values():
        if new:
            log.append((new, last, last, None))
    return part


def replay(
    part: Partial,
    tests: dict[tuple[int, str, str], detect.SequentialTest],
    alpha: float,
) -> None:
    """A range's logs into the tests (ranges in the order of their ids)."""
    for (player, game), (names, log) in part.logs.items():
        found = [
            tests.setdefault((player, game, name), detect.SequentialTest(alpha=alpha, scenarios=len(names)))
            for name in names
        ]
        for new, last, rid, answers in log:
            if new:
                for t in found:
                    t.enter_many(new, last)
            if answers is not None:
                for t, (mistake, p, supported) in zip(found, answers, strict=True):
                    t.observe_values(mistake, p, supported, hand=rid)

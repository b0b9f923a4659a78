"""``tablegames detect --database URL``: every stored decision scored, every player tested (issue 27, offline).

Reads the server's ``rounds`` table (read-only, through its SQLAlchemy models): settled rounds of the games
detection covers, oldest first. A decision is an ``action`` event of a seat; the hidden cards are the round's
deck at the positions its ``card_dealt`` events record. Decisions the server took for the player (``by`` other
than ``player``: the timeout default, R-TCP-2) are not the player's and are not scored. A player is the
``seat_players`` entry of the seat; each player has one :class:`~tablegames.analysis.detect.SequentialTest`
per scenario of the game, flagged at ``scenarios / alpha`` (Bonferroni over the scenarios, the module
:mod:`tablegames.analysis.detect` states the false-positive bound).

:func:`detect_database` scans by ranges of round ids (:mod:`tablegames.analysis.detect_scan`, in one process or
several) and gives exactly the report of :func:`detect_database_reference`, the first path, kept to test it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from tablegames.analysis import detect, detect_scan
from tablegames.engine import Action
from tablegames.rules import GameRules, make_rules


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
    # the pair tests, when scanned too (``pairs=True``: :mod:`tablegames.analysis.detect_pairs_db` reports them)
    pair_rounds: int = 0
    pair_decisions: int = 0
    pair_tests: dict[tuple[Any, ...], detect.SequentialTest] = field(default_factory=dict, repr=False)

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


def stored_rounds(
    url: str, since: float | None, games: Sequence[str] = detect.COVERED, batch: int = 2_000
) -> Iterator[Any]:
    """The settled rounds of ``games`` (id, game, rules, deck, seat_players, events), oldest first, read in
    batches (RuleError when a SQLite file is missing)."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from tablegames.server.db import SETTLED, RoundRow

    engine = detect_scan.engine(url)
    try:
        with Session(engine) as session:
            query = select(
                RoundRow.id,
                RoundRow.game,
                RoundRow.rules,
                RoundRow.deck,
                RoundRow.seat_players,
                RoundRow.events,
            ).where(RoundRow.status == SETTLED, RoundRow.game.in_(list(games)))
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
    tests: dict[tuple[Any, ...], detect.SequentialTest] = {}
    actions: dict[str, Action] = {}
    for row in stored_rounds(url, since):
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
    report: DetectReport, tests: dict[tuple[Any, ...], detect.SequentialTest], url: str, started: float
) -> DetectReport:
    report.tests = len(tests)
    report.players = len({k[0] for k in tests})
    names = player_names(url, sorted({k[0] for k, t in tests.items() if t.flagged}))
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
    tests: dict[tuple[Any, ...], detect.SequentialTest],
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


def player_names(url: str, ids: list[int]) -> dict[int, str]:
    """The names of the players ``ids``."""
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


def count_rounds(url: str, since: float | None = None) -> int:
    """How many rounds :func:`detect_database` reads (a progress bar's total)."""
    return detect_scan.id_range(url, since)[0]


PARALLEL_FROM = 100_000
"""Rounds from which :func:`detect_database` scans in several processes when ``workers`` is 0 (auto)."""


def detect_database(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    chunk: int = 20_000,
    pairs: bool = False,
) -> DetectReport:
    """Score every stored decision and test every player under every scenario (see the module); ``progress``
    is told how many more rounds are done. The same report as :func:`detect_database_reference` (tested),
    faster (:mod:`tablegames.analysis.detect_scan`): ranges of ``chunk`` round ids scanned, in ``workers``
    processes (0: one per core from :data:`PARALLEL_FROM` rounds), their logs replayed in order. ``pairs``: the
    collusion pair tests from the same scan too (:mod:`tablegames.analysis.detect_pairs_scan`), in
    :attr:`DetectReport.pair_tests`."""
    started = time.perf_counter()
    report = DetectReport(alpha=alpha)
    tests: dict[tuple[Any, ...], detect.SequentialTest] = {}
    total, lo, hi = detect_scan.id_range(url, since)
    if workers == 0:
        workers = (os.cpu_count() or 1) if total >= PARALLEL_FROM else 1
    bounds = [(a, min(a + chunk, hi + 1)) for a in range(lo, hi + 1, chunk)] if total else []
    if workers <= 1 or len(bounds) <= 1:
        parts: Iterator[detect_scan.Partial] = (detect_scan.scan(url, since, a, b, pairs) for a, b in bounds)
        _fold(parts, report, tests, alpha, progress)
    else:
        from concurrent.futures import ProcessPoolExecutor

        # the first range here: this process' tables built once, the workers (forked after) start with them
        first = detect_scan.scan(url, since, *bounds[0], pairs)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(detect_scan.scan, url, since, a, b, pairs) for a, b in bounds[1:]]
            _fold(chain([first], (f.result() for f in futures)), report, tests, alpha, progress)
    return _finish(report, tests, url, started)


def _fold(
    parts: Iterator[detect_scan.Partial],
    report: DetectReport,
    tests: dict[tuple[Any, ...], detect.SequentialTest],
    alpha: float,
    progress: Callable[[int], None] | None,
) -> None:
    for part in parts:
        detect_scan.replay(part.logs, tests, alpha)
        detect_scan.replay(part.pair_logs, report.pair_tests, alpha)
        report.rounds += part.rounds
        report.decisions += part.decisions
        report.pair_rounds += part.pair_rounds
        report.pair_decisions += part.pair_decisions
        if progress is not None and part.rounds:
            progress(part.rounds)

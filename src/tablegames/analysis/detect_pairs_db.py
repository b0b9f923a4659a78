"""``tablegames detect --database``'s collusion scan (issue 27, ``share=K``): a pair test over the players who sat at
one table.

Reads the server's ``rounds`` table read-only (as :mod:`tablegames.analysis.detect_db`: settled rounds of the
games with a collusion scorer, oldest first; the dealt cards from the deck at the ``card_dealt`` positions; the
player of a seat from ``seat_players``). For every ordered pair of players seated in a round (A and B, A's
decisions suspected of using B's cards) there is one :class:`~tablegames.analysis.detect.SequentialTest` per
collusion scenario of the game, flagged at ``scenarios / alpha`` (Bonferroni over the game's collusion
scenarios): each round both sat in counts a hand of the test, and A's first mistake of the round taken before B's
first decision of the round (any decision, the server's defaults too: B's decisions are public) updates it with
the decision scored against B's cards (:class:`~tablegames.analysis.detect.PairScorer`). Decisions the server
took for A (``by`` other than ``player``) are not A's and are not scored. The answers are cached by the scorer's
keys (``mistake_key``, ``score_key``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tablegames.analysis import detect
from tablegames.analysis.detect_db import DetectReport, detect_database, player_names, stored_rounds
from tablegames.engine import Action
from tablegames.rules import GameRules, make_rules


@dataclass
class PairFlag:
    """A flagged ordered pair: ``player``'s decisions agree with ``partner``'s cards."""

    player_id: int
    player: str | None
    partner_id: int
    partner: str | None
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
class PairReport:
    rounds: int = 0
    decisions: int = 0
    tests: int = 0
    alpha: float = detect.DEFAULT_ALPHA
    seconds: float = 0.0
    pairs: list[PairFlag] = field(default_factory=list)


def covered() -> list[str]:
    """The games with a collusion scorer."""
    return [key for key in detect.COVERED if detect.pair_scenarios(make_rules(key))]


class PairFeed:
    """The pair tests, fed one round at a time (this reference scan's and the server's live detector's,
    server/detection.py): ``tests`` keyed ``(player, partner, game, scenario)``, created as a round needs them
    (a caller may put stored ones in first); the answers cached by the scorers' keys."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.tests: dict[tuple[int, int, str, str], detect.SequentialTest] = {}
        self.rules_of: dict[tuple[str, str], GameRules] = {}
        self.scorers: dict[tuple[str, str], list[Any]] = {}
        self.mistakes: dict[tuple[int, Hashable], bool] = {}
        self.scores: dict[tuple[int, Hashable], tuple[Fraction, bool]] = {}
        self.actions: dict[str, Action] = {}
        self.decisions = 0

    def fresh(self) -> PairFeed:
        """A feed without tests that shares this one's rule sets, scorers and cached answers."""
        other = PairFeed(self.alpha)
        other.rules_of, other.scorers, other.actions = self.rules_of, self.scorers, self.actions
        other.mistakes, other.scores = self.mistakes, self.scores
        return other

    def round(self, rid: int, game: str, rule_text: Any, deck: Any, seat_players: Any, events: Any) -> None:
        key = (game, repr(sorted((rule_text or {}).items())))
        found = self.scorers.get(key)
        if found is None:
            rules = self.rules_of[key] = make_rules(game, dict(rule_text or {}))
            found = self.scorers[key] = [detect.pair_scorer(rules, s) for s in detect.pair_scenarios(rules)]
        dealt: dict[str, list[int]] = {}
        for e in events or []:
            if e["type"] == "card_dealt":
                dealt.setdefault(e["to"], []).append(int(deck[e["position"]]))
        players = {
            int(s): int(p) for s, p in (seat_players or {}).items() if p is not None and f"seat {s}" in dealt
        }
        prior: dict[int, list[Action]] = {}
        acted: set[int] = set()
        for e in events or []:
            if e["type"] != "action":
                continue
            seat = int(e["seat"])
            before = prior.setdefault(seat, [])
            action = self.actions.get(e["action"])
            if action is None:
                action = self.actions[e["action"]] = Action.parse(e["action"])
            player = players.get(seat)
            if player is not None and e.get("by", "player") == "player":
                self.decisions += 1
                self._decision(found, game, rid, dealt, players, acted, seat, player, action, before)
            before.append(action)
            acted.add(seat)

    def _decision(
        self,
        found: list[Any],
        game: str,
        rid: int,
        dealt: dict[str, list[int]],
        players: dict[int, int],
        acted: set[int],
        seat: int,
        player: int,
        action: Action,
        before: list[Action],
    ) -> None:
        first = found[0]
        mkey = (id(first), first.mistake_key(dealt, seat, action, before))
        mistake = self.mistakes.get(mkey)
        if mistake is None:
            mistake = self.mistakes[mkey] = first.mistake_dealt(dealt, seat, action, before)
        for other, partner in players.items():
            if partner == player:
                continue
            for sc in found:
                t = self.tests.get((player, partner, game, sc.scenario))
                if t is None:
                    t = detect.SequentialTest(alpha=self.alpha, scenarios=len(found))
                    self.tests[(player, partner, game, sc.scenario)] = t
                t.enter(rid)
                if not mistake or other in acted:
                    continue
                skey = (id(sc), sc.score_key(dealt, seat, action, before, partner=other))
                answer = self.scores.get(skey)
                if answer is None:
                    s = sc.score_dealt(dealt, seat, action, before, partner=other)
                    answer = self.scores[skey] = (s.p, s.supported)
                t.observe_values(True, answer[0], answer[1], rid)


def detect_pairs_database_reference(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
) -> PairReport:
    """The first path of :func:`detect_pairs_database`, kept as the reference it is tested against: the ORM rows,
    every round's events decoded whole, one round at a time (see the module); ``progress`` is told how many more
    rounds are done."""
    started = time.perf_counter()
    scan = PairFeed(alpha)
    report = PairReport(alpha=alpha)
    games = covered()
    for row in stored_rounds(url, since, games) if games else ():
        scan.round(*row)
        report.rounds += 1
        if progress is not None:
            progress(1)
    report.decisions = scan.decisions
    return _report(report, scan.tests, url, started)


def _report(
    report: PairReport, tests: dict[tuple[Any, ...], detect.SequentialTest], url: str, started: float
) -> PairReport:
    report.tests = len(tests)
    flagged = [(k, t) for k, t in sorted(tests.items()) if t.flagged_at is not None]
    names = player_names(url, sorted({i for k, _t in flagged for i in k[:2]}))
    for (player, partner, game, scenario), t in flagged:
        assert t.flagged_at is not None
        report.pairs.append(
            PairFlag(
                player_id=player,
                player=names.get(player),
                partner_id=partner,
                partner=names.get(partner),
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


def pair_report(found: DetectReport, url: str) -> PairReport:
    """The pair tests of a :func:`~tablegames.analysis.detect_db.detect_database` run with ``pairs=True``, as
    :func:`detect_pairs_database_reference` reports them (``seconds``: the whole scan's)."""
    report = PairReport(rounds=found.pair_rounds, decisions=found.pair_decisions, alpha=found.alpha)
    return _report(report, found.pair_tests, url, time.perf_counter() - found.seconds)


def detect_both(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    chunk: int = 20_000,
) -> tuple[DetectReport, PairReport]:
    """The player tests and the pair tests from one scan of the stored rounds (read once, in arrays:
    :mod:`tablegames.analysis.detect_pairs_scan`); each report exactly the reference's (tested)."""
    found = detect_database(
        url, since=since, alpha=alpha, progress=progress, workers=workers, chunk=chunk, pairs=True
    )
    return found, pair_report(found, url)


def detect_pairs_database(
    url: str,
    *,
    since: float | None = None,
    alpha: float = detect.DEFAULT_ALPHA,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    chunk: int = 20_000,
) -> PairReport:
    """Every ordered pair of players who sat at one table tested for collusion (see the module), on the fast
    scan (:func:`detect_both`: the player tests are scanned too); ``progress`` is told how many more rounds are
    done. Exactly :func:`detect_pairs_database_reference`'s report (tested)."""
    return detect_both(url, since=since, alpha=alpha, progress=progress, workers=workers, chunk=chunk)[1]

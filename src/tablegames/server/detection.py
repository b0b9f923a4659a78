"""Live detection (issue 27): the server scores rounds as they settle and flags the players whose mistakes keep
agreeing with cards they should not have seen (docs/detection.md, "Live detection").

One :class:`Detector` per server process, on a thread of its own (never the event loop, never a table's
worker: settlement neither waits for it nor fails because of it). Every pass (each ``interval`` seconds, at
once again while there is more to do):

1. **Read** (no write lock): the settled rounds of the games detection covers (``detect.COVERED``) not yet
   scored, oldest first, at most ``batch``; the tests of their players. On PostgreSQL the pass first takes a
   session advisory lock without waiting (another process in its pass: this one skips it); the lock is the
   schema's (its key and the schema's name hashed), so servers of other schemas in one database never block it.
2. **Score** in memory: every decision the player took (``by`` ``player``; the server's timeout defaults are
   not theirs) under every scenario of the game (``detect.scenarios(rules)``, the analysis layer's scorers),
   into one :class:`~tablegames.analysis.detect.SequentialTest` per (player, game, scenario).
3. **Write**, in one transaction: a ``detect_rounds`` row per round scored (the primary key: a round is scored
   exactly once, whatever happens), the tests' new state (each checked unchanged since it was read: any
   concurrent change rolls the whole pass back, to be done again), an alert per test that crossed its
   threshold, and on PostgreSQL a ``NOTIFY`` on :data:`CHANNEL` with each alert (delivered only if it commits).

A round is thus scored exactly once across restarts and processes: the scored rows and the tests commit
together. The watermark ``detect_mark.below`` only saves reading: every round below it is final (settled or
void) and, if covered, scored (convention: a round id allocated more than :data:`SETTLE_MARGIN` seconds ago by
the clock is taken as committed; a later watermark at worst reads more, never skips a round it has not
passed).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import exists, func, select, text
from sqlalchemy.orm import Session

from tablegames.analysis import detect
from tablegames.analysis.detect_pairs_db import PairFeed
from tablegames.engine import Action
from tablegames.rules import make_rules
from tablegames.server.db import (
    SETTLED,
    VOID,
    DetectAlert,
    DetectMark,
    DetectRound,
    DetectTest,
    Player,
    RoundRow,
)
from tablegames.server.notify import notify_all
from tablegames.server.outage import database_unreachable
from tablegames.server.transactions import Transactions

log = logging.getLogger("tablegames.server")

CHANNEL = "tablegames_detect"
"""The NOTIFY channel of new alerts (server/notify.py): every process pushes them to its supervisors."""
LOCK = 0x74646574  # "tdet": the pass's advisory lock (PostgreSQL)
SETTLE_MARGIN = 60.0  # seconds after which a round id is taken as committed (the watermark's convention)
DEFAULT_SECONDS = 2.0
DEFAULT_BATCH = 200
LN10 = math.log(10)

PAIR_CACHE = 200_000  # the collusion scorers' cached answers kept at most (then started afresh)

Alert = dict[str, Any]
Key = tuple[
    int, str, str
]  # (player id, game, scenario); a collusion test's scenario is "share=K@<partner id>"


def _key_of(pair: tuple[int, int, str, str]) -> Key:
    """A pair test's key in the live tests (``detect_tests``): the partner in the scenario."""
    player, partner, game, scenario = pair
    return (player, game, f"{scenario}@{partner}")


def _pair_of(key: Key) -> tuple[int, int, str, str]:
    player, game, scenario = key
    name, partner = scenario.rsplit("@", 1)
    return (player, int(partner), game, name)


def partner_of(scenario: str) -> tuple[str, int | None]:
    """A stored scenario split into the scenario and the partner of a collusion test (None: a player test).

    >>> partner_of("share=2@17"), partner_of("dealer-1")
    (('share=2', 17), ('dealer-1', None))
    """
    name, at, partner = scenario.partition("@")
    return (name, int(partner)) if at else (scenario, None)


def partner_name(names: dict[int, str], scenario: str) -> str | None:
    """The partner's name of a collusion test's stored scenario (None: a player test)."""
    partner = partner_of(scenario)[1]
    return None if partner is None else names.get(partner)


@dataclass
class _Pass:
    """What one pass read and computed."""

    rounds: list[int] = field(default_factory=list)
    tests: dict[Key, detect.SequentialTest] = field(default_factory=dict)
    read_hands: dict[Key, int | None] = field(default_factory=dict)  # as read (None: no row yet)
    crossed: dict[Key, int] = field(default_factory=dict)  # key -> the round at which it crossed
    next_unscored: int | None = None
    open_min: int | None = None
    below: int = 0  # the watermark as read


class Detector:
    """The live detector of one server process (see the module). ``on_alert(alerts)`` is called after a pass
    that flagged players commits, on the detector's thread (SQLite: the process's own supervisors; on
    PostgreSQL every process learns by :data:`CHANNEL` instead, this one too)."""

    def __init__(
        self,
        db: Transactions,
        clock: Callable[[], float],
        *,
        alpha: float = detect.DEFAULT_ALPHA,
        interval: float = DEFAULT_SECONDS,
        batch: int = DEFAULT_BATCH,
        on_alert: Callable[[list[Alert]], None] | None = None,
    ) -> None:
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
        if batch < 1 or interval <= 0:
            raise ValueError("batch and interval must be positive")
        self.db = db
        self.clock = clock
        self.alpha = alpha
        self.interval = interval
        self.batch = batch
        self.on_alert = on_alert
        self.scored = 0  # rounds this detector scored (tests, health)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._one = threading.Lock()  # one pass at a time in this process (the thread's, a test's)
        self._thread: threading.Thread | None = None
        self._scorers: dict[tuple[str, str], list[detect.Scorer]] = {}
        self._actions: dict[str, Action] = {}
        self._pairs = PairFeed(
            alpha
        )  # the collusion tests' scorers and cached answers (bounded: see _pair_feed)
        self._paired: dict[str, bool] = {}  # game -> it has collusion scenarios

    # --- the thread ------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="detector", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def wake(self) -> None:
        """Run the next pass now (tests; a tool)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            more = False
            try:
                more = self.run_pass() >= self.batch
            except Exception as exc:
                if database_unreachable(exc):  # an outage (issue 20): one line, the next pass retries
                    log.warning("live detection waits for the database; retried in %.1f s", self.interval)
                else:
                    log.exception("live detection pass failed; retried in %.1f s", self.interval)
            if not more:
                self._wake.wait(self.interval)
                self._wake.clear()

    # --- one pass --------------------------------------------------------------------------------------

    def run_pass(self) -> int:
        """Score at most ``batch`` settled rounds not scored yet; how many were scored (0: none, or another
        process is in its pass)."""
        with self._one, self._pass_lock() as mine:
            if not mine:
                return 0
            work = self._read()
            if not work.rounds:
                self._advance(work)
                return 0
            alerts = self._write(work)
        self.scored += len(work.rounds)
        if alerts and self.db.sqlite and self.on_alert is not None:
            self.on_alert(alerts)
        return len(work.rounds)

    @contextlib.contextmanager
    def _pass_lock(self) -> Iterator[bool]:
        if self.db.sqlite:
            yield True
            return
        with self.db.engine.connect() as c:
            got = bool(
                c.execute(
                    text("SELECT pg_try_advisory_lock(:k, hashtext(current_schema()))"), {"k": LOCK}
                ).scalar()
            )
            c.commit()
            try:
                yield got
            finally:
                if got:
                    c.execute(text("SELECT pg_advisory_unlock(:k, hashtext(current_schema()))"), {"k": LOCK})
                    c.commit()

    def _read(self) -> _Pass:
        work = _Pass()
        covered = list(detect.COVERED)
        with self.db.sessions() as s:
            below = work.below = s.scalar(select(DetectMark.below).where(DetectMark.id == 1)) or 0
            # first the open rounds (a round final now stays final): the watermark never passes one
            work.open_min = s.scalar(
                select(func.min(RoundRow.id)).where(
                    RoundRow.id >= below, RoundRow.status.not_in((SETTLED, VOID))
                )
            )
            if not covered:
                return work
            rows = s.execute(
                select(RoundRow.id, RoundRow.game, RoundRow.rules, RoundRow.deck, RoundRow.seat_players,
                       RoundRow.events)
                .where(
                    RoundRow.id >= below,
                    RoundRow.status == SETTLED,
                    RoundRow.game.in_(covered),
                    ~exists().where(DetectRound.round_id == RoundRow.id),
                )
                .order_by(RoundRow.id)
                .limit(self.batch + 1)
            ).all()  # fmt: skip
            if len(rows) > self.batch:
                work.next_unscored = int(rows[self.batch].id)
                rows = rows[: self.batch]
            decided = [self._round(r) for r in rows]
            keys = {
                (player, game, sc.scenario): len(found)
                for _rid, game, found, decisions in decided
                for player, *_ in decisions
                for sc in found
            }
            paired = [r for r in rows if self._has_pairs(r.game)]
            pair_keys, good = self._pair_keys(paired)
            self._load(s, keys | pair_keys, work)
        feed = self._pairs.fresh()
        feed.tests = {_pair_of(key): work.tests[key] for key in pair_keys}
        open_tests = {k for k, t in feed.tests.items() if t.flagged_at is None}
        pair_rows = {int(r.id): r for r in paired if int(r.id) in good}
        for rid, game, found, decisions in decided:
            work.rounds.append(rid)
            for player, scores in decisions:
                self._observe(work, player, game, found, scores, rid)
            row = pair_rows.get(rid)
            if row is not None:
                feed.round(rid, row.game, row.rules, row.deck, row.seat_players, row.events)
                for k in [k for k in open_tests if feed.tests[k].flagged_at is not None]:
                    open_tests.discard(k)
                    work.crossed[_key_of(k)] = rid
        return work

    def _has_pairs(self, game: str) -> bool:
        found = self._paired.get(game)
        if found is None:
            found = self._paired[game] = bool(detect.pair_scenarios(make_rules(game)))
        return found

    def _pair_keys(self, rows: list[Any]) -> tuple[dict[Key, int], set[int]]:
        """The collusion tests the rounds enter (``(player, game, "share=K@partner")``: a test per ordered pair of
        players and scenario, as ``detect --database``'s pair scan has them) and the rounds that can be read:
        the rounds fed once to a feed without tests (the answers it caches serve the real feed)."""
        if len(self._pairs.scores) + len(self._pairs.mistakes) > PAIR_CACHE:
            self._pairs = PairFeed(self.alpha)  # (the cached answers bounded: started afresh)
        probe = self._pairs.fresh()
        good: set[int] = set()
        for row in rows:
            rid = int(row.id)
            try:
                probe.round(rid, row.game, row.rules, row.deck, row.seat_players, row.events)
                good.add(rid)
            except Exception:
                log.exception("live detection: round %d cannot be paired; left out of the pair tests", rid)
        return {_key_of(k): t.scenarios for k, t in probe.tests.items()}, good

    def _round(self, row: Any) -> tuple[int, str, list[detect.Scorer], list[tuple[int, list[Any]]]]:
        """A round's decisions scored: (its id, game, scorers, [(player, each scenario's score or None: not a
        mistake)]). A round that cannot be read or scored (its rules or events malformed) is logged and counted
        as scored with no decision: it must not hold up every round after it."""
        rid = int(row.id)
        try:
            found, decisions = self._decisions(row)
            scored = []
            for player, seat, action, before, dealt in decisions:
                mistake = found[0].mistake_dealt(dealt, seat, action, before)  # (every scenario's the same)
                scored.append(
                    (
                        player,
                        [sc.score_dealt(dealt, seat, action, before) if mistake else None for sc in found],
                    )
                )
            return rid, row.game, found, scored
        except Exception:
            log.exception("live detection: round %d cannot be scored; left out", rid)
            return rid, row.game, [], []

    def _decisions(
        self, row: Any
    ) -> tuple[list[detect.Scorer], list[tuple[int, int, Action, list[Action], Any]]]:
        """The round's scorers and its players' own decisions: (player, seat, action, the seat's earlier
        actions, the dealt cards by owner)."""
        rules_text = dict(row.rules or {})
        key = (row.game, json.dumps(rules_text, sort_keys=True))
        found = self._scorers.get(key)
        if found is None:
            rules = make_rules(row.game, rules_text)
            found = self._scorers[key] = [detect.scorer(rules, sc) for sc in detect.scenarios(rules)]
        deck, events, seats = row.deck, row.events or [], row.seat_players or {}
        dealt: dict[str, list[int]] = {}
        for e in events:
            if e.get("type") == "card_dealt":
                dealt.setdefault(e["to"], []).append(int(deck[e["position"]]))
        out: list[tuple[int, int, Action, list[Action], Any]] = []
        prior: dict[int, list[Action]] = {}
        for e in events:
            if e.get("type") != "action":
                continue
            seat = int(e["seat"])
            before = prior.setdefault(seat, [])
            action = self._actions.get(e["action"])
            if action is None:
                action = self._actions[e["action"]] = Action.parse(e["action"])
            player = seats.get(str(seat))
            if player is not None and e.get("by", "player") == "player":
                out.append((int(player), seat, action, list(before), dealt))
            before.append(action)
        return found, out

    def _load(self, s: Session, keys: dict[Key, int], work: _Pass) -> None:
        """The tests of ``keys`` (each with its game's number of scenarios) as stored, or new."""
        rows = _tests(s, keys)
        for key, count in sorted(keys.items()):
            row = rows.get(key)
            test = detect.SequentialTest(alpha=self.alpha, scenarios=count)
            if row is not None:
                test.logs = [float(x) for x in row.logs]
                test.hands, test.mistakes, test.supported = row.hands, row.mistakes, row.supported
                test.flagged_at = row.flagged_at
                test.evidence = [int(r) for r in row.evidence]
            work.tests[key] = test
            work.read_hands[key] = None if row is None else row.hands

    def _observe(
        self, work: _Pass, player: int, game: str, found: list[detect.Scorer], scores: list[Any], rid: int
    ) -> None:
        """One decision of ``player`` in round ``rid`` into each scenario's test (``scores``: None where the
        decision is not a mistake)."""
        for sc, score in zip(found, scores, strict=True):
            key = (player, game, sc.scenario)
            t = work.tests[key]
            was = t.flagged_at
            if score is not None:
                t.observe(score, hand=rid)
            else:
                t.enter(rid)
            if was is None and t.flagged_at is not None:
                work.crossed[key] = rid

    def _write(self, work: _Pass) -> list[Alert]:
        now = self.clock()
        alerts: list[Alert] = []
        with self.db.tx() as s:
            s.add_all(DetectRound(round_id=rid, scored_at=now) for rid in work.rounds)
            s.flush()  # (a round another pass scored: the primary key refuses it, the whole pass rolls back)
            stored = _tests(s, work.tests, lock=True)
            for key, t in work.tests.items():
                row = stored.get(key)
                if (None if row is None else row.hands) != work.read_hands[key]:
                    raise RuntimeError(f"the test {key} changed during the pass: done again")
                if row is None:
                    row = DetectTest(player_id=key[0], game=key[1], scenario=key[2])
                    s.add(row)
                row.logs = list(t.logs)
                row.hands, row.mistakes, row.supported = t.hands, t.mistakes, t.supported
                row.flagged_at = t.flagged_at
                row.evidence = [int(r) for r in t.evidence]
                row.capped = t.supported > len(t.evidence)
                row.updated_at = now
            if work.crossed:
                ids = {k[0] for k in work.crossed} | {p for k in work.crossed if (p := partner_of(k[2])[1])}
                names = dict(
                    s.execute(select(Player.id, Player.name).where(Player.id.in_(sorted(ids)))).all()
                )
                for key, rid in sorted(work.crossed.items()):
                    t = work.tests[key]
                    alert = DetectAlert(
                        player_id=key[0], game=key[1], scenario=key[2], round_id=rid, hand=int(t.flagged_at or 0),
                        log10_evidence=round(t.log_evidence / LN10, 3), threshold=t.scenarios / t.alpha,
                        created_at=now,
                    )  # fmt: skip
                    s.add(alert)
                    s.flush()
                    partner = partner_name(names, key[2])
                    alerts.append(alert_dict(alert, str(names.get(key[0], "")), t, partner))
                notify_all(s, [{"alert": a} for a in alerts], CHANNEL)
            self._advance(work, s)
        return alerts

    def _advance(self, work: _Pass, session: Session | None = None) -> None:
        """Move the watermark up to the first round not done (see the module: never past an open round, an
        unscored one, or a round id younger than :data:`SETTLE_MARGIN`)."""

        def move(s: Session) -> None:
            mark = s.get(DetectMark, 1)
            if mark is None:
                mark = DetectMark(id=1, below=0)
                s.add(mark)
            old = s.scalar(
                select(func.max(RoundRow.id)).where(  # (from the watermark up: a range of the key)
                    RoundRow.id >= work.below, RoundRow.started_at < self.clock() - SETTLE_MARGIN
                )
            )
            if old is None:
                return
            target = min(b for b in (work.open_min, work.next_unscored, int(old) + 1) if b is not None)
            if target > mark.below:
                mark.below = target

        if session is not None:
            move(session)
        else:
            with self.db.tx() as s:
                move(s)


def _tests(s: Session, keys: Any, lock: bool = False) -> dict[Key, DetectTest]:
    """The stored tests of ``keys`` (read by their players: few a pass); ``lock``: locked until the commit."""
    players = sorted({k[0] for k in keys})
    out: dict[Key, DetectTest] = {}
    for i in range(0, len(players), 500):
        q = select(DetectTest).where(DetectTest.player_id.in_(players[i : i + 500]))
        if lock:
            q = q.with_for_update()
        out.update({k: t for t in s.scalars(q) if (k := (t.player_id, t.game, t.scenario)) in keys})
    return out


def alert_dict(
    alert: DetectAlert, name: str, test: detect.SequentialTest | DetectTest | None, partner: str | None = None
) -> Alert:
    """An alert as the back office gets it (``GET /detect/alerts`` and the staff socket's push): a collusion
    alert's ``scenario`` without its partner's id, the partner by name (``partner``: None for a player test)."""
    return {
        "id": int(alert.id),
        "player": name,
        "partner": partner,
        "game": alert.game,
        "scenario": partner_of(alert.scenario)[0],
        "round_id": int(alert.round_id),
        "hand": int(alert.hand),
        "log10_evidence": float(alert.log10_evidence),
        "threshold": float(alert.threshold),
        "created_at": float(alert.created_at),
        "acknowledged_by": alert.acknowledged_by,
        "acknowledged_at": alert.acknowledged_at,
        "hands": int(test.hands) if test is not None else 0,
        "mistakes": int(test.mistakes) if test is not None else 0,
        "supported": int(test.supported) if test is not None else 0,
        "evidence_rounds": [int(r) for r in test.evidence][:20] if test is not None else [],
    }

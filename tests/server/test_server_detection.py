"""Live detection (issue 27; server/detection.py, server/alerts.py, routes/detect.py), on SQLite and PostgreSQL.

Rounds of Three Card Poker are played through the server's sockets: a cheater who reads the dealer's first card
(the server's round, its deck as dealt) and takes the informed choice of ``dealer-1`` at every hand is flagged,
the alert is pushed to a supervisor's staff socket and listed; an honest player who makes random mistakes is not;
every round is scored exactly once across a restart of the detector, and the live tests are exactly the offline
detector's (``tablegames detect --database``) on the same rounds; the acknowledgement is audited and refused to a
role without ``detect.ack``. The tests use a loose alpha (0.01 a player-test) so that a cheater is flagged in
tens of hands, not a hundred (docs/detection.md: the threshold is scenarios / alpha).
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from test_server_support import play_round

from server_harness import Harness
from tablegames.analysis import detect
from tablegames.analysis.detect_db import detect_database
from tablegames.analysis.detect_pairs_db import detect_pairs_database_reference
from tablegames.server.db import AuditEntry, DetectAlert, DetectMark, DetectRound, DetectTest, RoundRow
from tablegames.server.detection import LOCK, SETTLE_MARGIN, Detector
from tablegames.server.limits import Limits
from tablegames.server.transactions import Transactions

pytestmark = pytest.mark.timeout(600)

GAME = "three-card-poker"
ALPHA = 0.01
HANDS = 60
PAIR_HANDS = 300  # (a partner's three cards rarely change Three Card Poker's decision: docs/detection.md)


def informed(h: Harness, table: int, scenario: str) -> Callable[[int, dict[str, Any]], str]:
    """A cheater: the informed choice of ``scenario``, from the server's round (the dealer's cards as dealt)."""
    runner = h.server.runners[table]
    scorer = detect.scorer(runner.rules, scenario)

    def choose(seat: int, state: dict[str, Any]) -> str:
        rnd = runner.live.rnd
        return str(scorer.score(rnd, seat, rnd.legal_actions(seat)[0]).informed_best)

    return choose


def noisy(h: Harness, table: int, rate: float, rng: random.Random) -> Callable[[int, dict[str, Any]], str]:
    """An honest player: the legal optimum, and with probability ``rate`` a legal action at random."""
    runner = h.server.runners[table]
    scorer = detect.scorer(runner.rules, "dealer-1")

    def choose(seat: int, state: dict[str, Any]) -> str:
        rnd = runner.live.rnd
        legal = list(rnd.legal_actions(seat))
        if rng.random() < rate:
            return str(rng.choice(legal))
        return str(scorer.score(rnd, seat, legal[0]).legal_best)

    return choose


def play(h: Harness, hands: int) -> Callable[[int], None]:
    """``hands`` rounds at a two-seat table: seat 1 the cheater ``cheat``, seat 2 the honest ``fair``; returns
    a function that plays more rounds at the same table."""
    table = h.table(GAME, seats=2)
    cheat_tok, _ = h.player("cheat", buy_in=10_000_000)
    fair_tok, _ = h.player("fair", buy_in=10_000_000)
    seated = {1: h.seated(cheat_tok, table), 2: h.seated(fair_tok, table)}
    choosers = {1: informed(h, table, "dealer-1"), 2: noisy(h, table, 0.3, random.Random(5))}

    def more(n: int) -> None:
        for _ in range(n):
            play_round(seated, {1: {"ante": 100}, 2: {"ante": 100}}, choose=lambda s, st: choosers[s](s, st))

    more(hands)
    return more


@pytest.fixture
def h(make_server: Callable[..., Harness]) -> Harness:
    return make_server(detect_alpha=ALPHA, detect_seconds=3600.0)  # passes run by the test


def detector(h: Harness) -> Detector:
    found: Detector = h.client.app.state.detector  # type: ignore[attr-defined]
    return found


def live_tests(h: Harness) -> dict[tuple[str, str], Any]:
    with h.server.sessions() as s:
        rows = s.execute(
            sa.text(
                "SELECT p.name, t.scenario, t.hands, t.mistakes, t.supported, t.flagged_at, t.evidence "
                "FROM detect_tests t JOIN players p ON p.id = t.player_id"
            )
        ).all()
    return {  # (a JSON column read by text: a string on SQLite)
        (r[0], r[1]): (*r[2:6], json.loads(r[6]) if isinstance(r[6], str) else r[6]) for r in rows
    }


def test_a_reader_of_the_dealers_card_is_flagged_pushed_and_listed_an_honest_player_is_not(
    h: Harness,
) -> None:
    sup = h.staff("sup", "supervisor")
    feed = h.client.app.state.alert_feed  # type: ignore[attr-defined]
    if feed is not None:  # PostgreSQL: the alert reaches this process by NOTIFY
        assert feed.listening.wait(10)
    with h.client.websocket_connect("/ws/staff") as ws:
        ws.send_json({"type": "auth", "token": sup["Authorization"][7:]})
        assert ws.receive_json() == {"type": "ready"}
        play(h, HANDS)
        scored = 0
        while True:
            n = detector(h).run_pass()
            scored += n
            if n == 0:
                break
        assert scored == HANDS
        pushed = ws.receive_json()
    assert pushed["type"] == "alert"
    alert = pushed["alert"]
    assert (alert["player"], alert["game"], alert["scenario"]) == ("cheat", GAME, "dealer-1")
    assert alert["log10_evidence"] >= 2.0 + 0.477  # M >= 3 / 0.01
    listed = h.client.get("/detect/alerts", headers=sup)
    assert listed.status_code == 200, listed.text
    rows = listed.json()
    assert {(r["player"], r["scenario"]) for r in rows} >= {("cheat", "dealer-1")}
    assert all(r["player"] == "cheat" for r in rows)  # the honest player, mistakes and all, is not flagged
    first = next(r for r in rows if r["scenario"] == "dealer-1")
    assert first["id"] == alert["id"] and first["supported"] >= 1 and first["mistakes"] >= first["supported"]
    assert first["evidence_rounds"] and first["hand"] <= HANDS
    with h.server.sessions() as s:  # the evidence rounds are the cheater's, and recallable
        settled = dict(s.execute(sa.select(RoundRow.id, RoundRow.status)).all())
    assert all(settled[r] == "settled" for r in first["evidence_rounds"])
    assert h.client.get(f"/rounds/{first['evidence_rounds'][0]}", headers=sup).status_code == 200
    tests = live_tests(h)
    assert (
        tests[("fair", "dealer-1")][3] is None and tests[("fair", "dealer-1")][1] > 0
    )  # mistakes, unflagged
    assert tests[("cheat", "dealer-1")][0] == HANDS


def test_each_round_is_scored_once_across_a_restart_and_as_offline(h: Harness, db_url: str) -> None:
    play(h, HANDS)
    detector(h).stop()  # (the app's own thread out of the way: two detectors "before and after a restart")
    clock = h.server.config.clock
    first = Detector(Transactions(db_url), clock, alpha=ALPHA, batch=10)
    assert first.run_pass() == 10
    first.stop()
    second = Detector(Transactions(db_url), clock, alpha=ALPHA, batch=10)  # the restarted server's
    assert [second.run_pass() for _ in range(7)] == [10, 10, 10, 10, 10, 0, 0]
    with h.server.sessions() as s:
        ids = list(s.scalars(sa.select(DetectRound.round_id)))
        rounds = list(s.scalars(sa.select(RoundRow.id).where(RoundRow.status == "settled")))
    assert sorted(ids) == sorted(rounds) and len(ids) == len(set(ids)) == HANDS
    offline = detect_database(db_url, alpha=ALPHA)
    live = {k: v for k, v in live_tests(h).items() if "@" not in k[1]}  # (the player tests; pairs below)
    assert offline.tests == len(live) == 6
    assert [(f.name, f.scenario) for f in offline.flagged if f.scenario == "dealer-1"] == [
        ("cheat", "dealer-1")
    ]
    for f in offline.flagged:
        hands, mistakes, supported, flagged_at, evidence = live[(str(f.name), f.scenario)]
        assert (hands, mistakes, supported, flagged_at) == (
            f.hands,
            f.mistakes,
            f.supported,
            f.flagged_at_hand,
        )
        assert evidence[:20] == f.evidence_rounds
    assert {(str(f.name), f.scenario) for f in offline.flagged} == {
        k for k, v in live.items() if v[3] is not None
    }


def test_the_acknowledgement_is_audited_and_refused_without_detect_ack(h: Harness) -> None:
    play(h, HANDS)
    while detector(h).run_pass():
        pass
    sup, aud, op = h.staff("sup", "supervisor"), h.staff("aud", "auditor"), h.staff("op", "operator")
    assert h.client.get("/detect/alerts", headers=op).status_code == 403
    assert h.client.get("/detect/alerts", headers={"X-Admin-Token": "test-admin-token"}).status_code == 200
    rows = h.client.get("/detect/alerts?pending=true", headers=aud).json()
    assert rows, "the cheater was flagged"
    alert_id = rows[0]["id"]
    refused = h.client.post(f"/detect/alerts/{alert_id}/ack", json={}, headers=aud)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    done = h.client.post(f"/detect/alerts/{alert_id}/ack", json={"note": "watched the tape"}, headers=sup)
    assert done.status_code == 200, done.text
    assert done.json()["acknowledged_by"] == "staff:sup"
    again = h.client.post(f"/detect/alerts/{alert_id}/ack", json={}, headers=sup)
    assert again.status_code == 409
    assert alert_id not in {r["id"] for r in h.client.get("/detect/alerts?pending=true", headers=aud).json()}
    with h.server.sessions() as s:
        entry = s.scalars(sa.select(AuditEntry).where(AuditEntry.action == "detect.ack")).one()
        ack = s.get(DetectAlert, alert_id)
        assert ack is not None and ack.acknowledged_at == entry.at
    assert (entry.actor, entry.subject, entry.reason) == ("staff:sup", "player:cheat", "watched the tape")
    assert entry.after["alert"] == alert_id


def test_a_staff_socket_without_detect_read_is_closed(h: Harness) -> None:
    op = h.staff("op", "operator")
    with h.client.websocket_connect("/ws/staff") as ws:
        ws.send_json({"type": "auth", "token": op["Authorization"][7:]})
        msg = ws.receive_json()
    assert msg["type"] == "error" and msg["code"] == "forbidden"
    with h.client.websocket_connect("/ws/staff") as ws:
        ws.send_json({"type": "auth", "token": "not a token"})
        assert ws.receive_json()["code"] == "unauthorized"


def test_decisions_the_server_took_are_not_scored_and_a_broken_round_holds_nothing_up(h: Harness) -> None:
    """Only the player's own decisions count: a test's hands are the rounds the player decided in. A round that
    cannot be scored (here: its deck lost) is left out, logged, and the rounds after it are scored."""
    play(h, 4)
    with h.server.tx() as s:
        first, second = s.scalars(sa.select(RoundRow).order_by(RoundRow.id).limit(2)).all()
        first.events = [  # the cheater's first decision as a timeout default (R-TCP-2)
            dict(e, by="timeout") if e["type"] == "action" and e["seat"] == 1 else e for e in first.events
        ]
        second.deck = []
    while detector(h).run_pass():
        pass
    assert live_tests(h)[("cheat", "dealer-1")][0] == 2 and live_tests(h)[("fair", "dealer-1")][0] == 3
    pairs = {k[0]: v[0] for k, v in live_tests(h).items() if k[1].startswith("share=2@")}
    assert pairs == {"cheat": 2, "fair": 3}  # the collusion tests skip the same decisions and the same round
    with h.server.sessions() as s:
        assert (
            s.scalar(sa.select(sa.func.count()).select_from(DetectTest)) == 6 + 2
        )  # and a pair test each way
        assert s.scalar(sa.select(sa.func.count()).select_from(DetectRound)) == 4


def test_two_detectors_at_once_score_each_round_once(h: Harness, db_url: str) -> None:
    """Two detectors on one database at the same time (as two server processes): each round scored once, the
    tests as offline; the watermark passes the rounds done (a clock past the margin) and new rounds still come."""
    more = play(h, 30)
    detector(h).stop()
    later = lambda: time.time() + 2 * SETTLE_MARGIN  # noqa: E731  (every round id old enough to be committed)
    pair = [Detector(Transactions(db_url), later, alpha=ALPHA, batch=4) for _ in range(2)]
    failed: list[BaseException] = []

    def drain(d: Detector) -> None:
        for _ in range(40):
            try:
                d.run_pass()
            except Exception as exc:  # a pass that lost the race is rolled back whole (and done again)
                failed.append(exc)

    threads = [threading.Thread(target=drain, args=(d,)) for d in pair]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    while pair[0].run_pass():
        pass
    with h.server.sessions() as s:
        ids = list(s.scalars(sa.select(DetectRound.round_id)))
        rounds = list(s.scalars(sa.select(RoundRow.id).where(RoundRow.status == "settled")))
        below = s.scalar(sa.select(DetectMark.below))
    assert sorted(ids) == sorted(rounds) and len(ids) == len(set(ids)) == 30
    assert pair[0].scored + pair[1].scored == 30
    assert below == max(rounds) + 1
    offline = detect_database(db_url, alpha=ALPHA)
    live = live_tests(h)
    for f in offline.flagged:
        assert live[(str(f.name), f.scenario)][:4] == (f.hands, f.mistakes, f.supported, f.flagged_at_hand)
    assert live[("cheat", "dealer-1")][0] == live[("fair", "dealer-1")][0] == 30
    pairs = {k: v for k, v in live.items() if "@" in k[1]}  # each ordered pair's collusion test, every round
    assert sorted(k[0] for k in pairs) == ["cheat", "fair"] and all(v[0] == 30 for v in pairs.values())
    more(2)  # rounds above the watermark are scored
    assert pair[1].run_pass() == 2 and live_tests(h)[("cheat", "dealer-1")][0] == 32


def test_a_pass_waits_only_for_its_own_schemas_detector(h: Harness, db_url: str) -> None:
    """PostgreSQL: the pass's advisory lock is the schema's. Held for the schema (another process in its pass),
    the pass skips; held for another schema of the same database (another deployment, or another test's
    server left stopped mid-pass), the pass runs."""
    if detector(h).db.sqlite:
        pytest.skip("the pass lock is PostgreSQL's")
    more = play(h, 3)
    d = detector(h)
    eng = sa.create_engine(db_url)
    try:
        with eng.connect() as other:
            held = "SELECT pg_advisory_lock(:k, hashtext(:schema))"
            other.execute(sa.text(held), {"k": LOCK, "schema": "some_other_schema"})
            assert d.run_pass() == 3
            more(2)
            other.execute(sa.text("SELECT pg_advisory_unlock_all()"))
            other.execute(sa.text("SELECT pg_advisory_lock(:k, hashtext(current_schema()))"), {"k": LOCK})
            assert d.run_pass() == 0
            other.execute(sa.text("SELECT pg_advisory_unlock_all()"))
        assert d.run_pass() == 2
    finally:
        eng.dispose()


def test_the_collusion_tests_run_live_as_offline_and_alert_with_the_partner(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    """The pair tests (share=2, R-TCP-4) are scored live too, one per ordered pair of players at a table: the
    same tests as ``detect --database``'s pair scan; a flagged pair is an alert that names the partner."""
    fast = Limits(ws_rate=10_000.0, ws_burst=10_000.0, http_rate=10_000.0, http_burst=10_000.0)
    h = make_server(detect_alpha=ALPHA, detect_seconds=3600.0, limits=fast)  # (rounds played back to back)
    table = h.table(GAME, seats=2)
    seated = {
        seat: h.seated(h.player(name, buy_in=10_000_000)[0], table)
        for seat, name in ((1, "ally"), (2, "fair"))
    }
    runner, pair = h.server.runners[table], detect.pair_scorer(h.server.runners[table].rules, "share=2")

    def colluder(seat: int, state: dict[str, Any]) -> str:  # seat 1 sees seat 2's cards
        rnd = runner.live.rnd
        return str(pair.score(rnd, seat, rnd.legal_actions(seat)[0], partner=2).informed_best)

    choosers = {1: colluder, 2: noisy(h, table, 0.3, random.Random(7))}
    for _ in range(PAIR_HANDS):
        play_round(seated, {1: {"ante": 100}, 2: {"ante": 100}}, choose=lambda s, st: choosers[s](s, st))
    detector(h).stop()
    loose = 0.9  # flags under the null: the flagged pairs' figures compared too
    live = Detector(Transactions(db_url), h.server.config.clock, alpha=loose, batch=7)
    while live.run_pass():
        pass
    reference = detect_pairs_database_reference(db_url, alpha=loose)
    pairs = {k: v for k, v in live_tests(h).items() if "@" in k[1]}
    assert len(pairs) == reference.tests == 2 and reference.pairs  # not vacuous: a flagged pair
    for f in reference.pairs:
        hands, mistakes, supported, flagged_at, evidence = pairs[
            (str(f.player), f"{f.scenario}@{f.partner_id}")
        ]
        assert (hands, mistakes, supported, flagged_at) == (
            f.hands,
            f.mistakes,
            f.supported,
            f.flagged_at_hand,
        )
        assert evidence[:20] == f.evidence_rounds
    assert {(str(f.player), f"{f.scenario}@{f.partner_id}") for f in reference.pairs} == {
        k for k, v in pairs.items() if v[3] is not None
    }
    sup = h.staff("sup", "supervisor")
    rows = h.client.get("/detect/alerts", headers=sup).json()
    assert {(r["player"], r["partner"], r["scenario"]) for r in rows if r["partner"] is not None} == {
        (f.player, f.partner, f.scenario) for f in reference.pairs
    }
    assert all(r["partner"] is None and "@" not in r["scenario"] for r in rows if r["scenario"] != "share=2")


def test_a_database_outage_is_one_line_in_the_log_not_a_traceback(
    h: Harness, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 20's outage convention (tests/ops/test_ops_outage.py reads the nodes' logs for tracebacks): a pass
    that cannot reach the database logs one warning and is retried; any other failure keeps its traceback."""
    import psycopg
    from sqlalchemy.exc import OperationalError

    detector(h).stop()
    for error, level, traced in (
        (OperationalError("SELECT 1", {}, psycopg.OperationalError("connection refused")), "WARNING", False),
        (RuntimeError("a bug"), "ERROR", True),
    ):
        det = Detector(Transactions(db_url), h.server.config.clock, alpha=ALPHA, batch=10)

        def failing(det: Detector = det, error: Exception = error) -> int:
            det._stop.set()  # one pass, then the loop ends
            raise error

        det.run_pass = failing  # type: ignore[method-assign]
        caplog.clear()
        with caplog.at_level("WARNING", logger="tablegames.server"):
            det._run()
        [record] = [r for r in caplog.records if "live detection" in r.getMessage()]
        assert record.levelname == level and (record.exc_info is not None) is traced

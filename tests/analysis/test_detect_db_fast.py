"""``tablegames detect --database``'s fast offline path (issue 27: 10^6 rounds in under a minute) gives exactly
the report of the first path (``detect_database_reference``): the same rounds, decisions, tests, flagged players,
hands, evidence and log10 M, over a database of both scored games with readers of each kind of exposure, honest
players with random mistakes, timeout defaults, and rounds whose events are stored in another JSON layout."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from tablegames.analysis.detect import COVERED, scenarios, scorer
from tablegames.engine import Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules

pytest.importorskip("sqlalchemy")

ROUNDS = 300  # per game
SEATS = (
    4  # seat 1 reads the first scenario's cards, seat 2 the last's; seat 3 errs at random; seat 4 plays fair
)


def _store(path: Path) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.orm import Session

    from tablegames.server.db import SETTLED, Account, Base, GameTable, Player, RoundRow

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    rng = random.Random(5)
    rid = 0
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in range(1, SEATS + 1)])
        s.add_all([Player(id=i, name=f"p{i}", token_hash=f"t{i}", account_id=i) for i in range(1, SEATS + 1)])
        for t_id, game in enumerate(sorted(COVERED), start=1):
            rules = make_rules(game)
            names = scenarios(rules)
            readers = {1: scorer(rules, names[0]), 2: scorer(rules, names[-1])}
            fair = scorer(rules, names[0])
            s.add(GameTable(id=t_id, name=f"t{t_id}", game=game, seats=SEATS, min_bet=100, max_bet=1000))
            s.flush()
            table = Table(rules, seats=SEATS, source=SeededRandom(t_id))
            for n in range(ROUNDS):
                rnd = table.new_round()
                for seat in range(1, SEATS + 1):
                    rnd.place_wager(seat, rnd.main_wager(), 100)
                rnd.deal()
                while not rnd.is_over:
                    seat = rnd.to_act
                    assert seat is not None
                    first = rnd.legal_actions(seat)[0]
                    by = "timeout" if rng.random() < 0.02 else "player"
                    if seat in readers:
                        action = readers[seat].score(rnd, seat, first).informed_best
                    else:
                        action = fair.score(rnd, seat, first).legal_best
                        if seat == 3 and rng.random() < 0.15:
                            action = next(a for a in rnd.legal_actions(seat) if a != action)
                    rnd.act(seat, action, by=by)
                rid += 1
                s.add(
                    RoundRow(
                        id=rid,
                        table_id=t_id,
                        round_no=rnd.round_no,
                        game=rules.game,
                        rules=table.described_rules(),
                        status=SETTLED,
                        deck=[int(c) for c in rnd.deck],
                        seat_players={str(i): i for i in range(1, SEATS + 1) if i != 4 or n % 7},
                        events=[e.to_dict() for e in rnd.history],
                        settled_at=time.time(),
                    )
                )
        s.commit()
        # every 10th round in the compact layout (another encoder): read by decoding the JSON
        compact = [
            (i, json.dumps(json.loads(e), separators=(",", ":")))
            for i, e in s.execute(text("SELECT id, events FROM rounds WHERE id % 10 = 0"))
        ]
        for i, e in compact:
            s.execute(text("UPDATE rounds SET events = :e WHERE id = :i"), {"e": e, "i": i})
        s.commit()
    engine.dispose()
    return url


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _store(tmp_path_factory.mktemp("detect") / "rounds.sqlite3")


def _report(report: Any) -> dict[str, Any]:
    out: dict[str, Any] = report.to_dict()
    out.pop("seconds")
    return out


def test_the_fast_path_reports_exactly_what_the_reference_does(url: str) -> None:
    from tablegames.analysis.detect_db import detect_database, detect_database_reference

    reference = _report(detect_database_reference(url))
    done: list[int] = []
    fast = _report(detect_database(url, progress=done.append))
    assert fast == reference
    assert sum(done) == fast["rounds"] == ROUNDS * len(COVERED)
    # not a vacuous equality: both games' readers flagged, with evidence; the random erring seat is not
    flagged = {(f["game"], f["name"]) for f in fast["flagged"]}
    assert {(g, "p1") for g in COVERED} <= flagged and all(name in ("p1", "p2") for _, name in flagged)
    assert fast["decisions"] > ROUNDS * len(COVERED) * 2 and fast["tests"] == 4 * sum(
        len(scenarios(make_rules(g))) for g in COVERED
    )
    assert all(f["evidence_rounds"] and f["log10_evidence"] > 6 for f in fast["flagged"])
    # in ranges of round ids (several hands of a player apart), in one process or two: the same
    assert _report(detect_database(url, chunk=97)) == reference
    assert _report(detect_database(url, chunk=211, workers=2)) == reference
    # --since and alpha: the same too
    cut = time.time() + 3600
    assert _report(detect_database(url, since=cut)) == _report(detect_database_reference(url, since=cut))
    assert _report(detect_database(url, alpha=0.2)) == _report(detect_database_reference(url, alpha=0.2))


def test_the_events_pattern_reads_what_json_does(url: str) -> None:
    from sqlalchemy import create_engine, text

    from tablegames.analysis.detect_scan import parse_events, parse_events_json

    engine = create_engine(url)
    with engine.connect() as conn:
        rows = list(conn.execute(text("SELECT id, events FROM rounds")))
    engine.dispose()
    patterned = 0
    for i, events in rows:
        assert _plain(parse_events(events)) == _plain(parse_events_json(events)), i
        patterned += '"type": "' in events  # (a Final Count round may have no decision)
    assert patterned == len(rows) - len(rows) // 10  # the engine's layout read by the patterns
    timeouts = sum(by != "player" for i, e in rows for _, _, by in parse_events(e)[1])
    assert timeouts > 0
    assert parse_events(None) == ([], []) and parse_events("null") == ([], [])
    # an action the patterns do not account for whole (here a null "by") falls back to the JSON
    odd = '[{"type": "action", "seat": 1, "action": "play", "by": null}]'
    assert parse_events(odd) == ([], [("1", "play", None)])


def _plain(parsed: Any) -> Any:
    dealt, acts = parsed
    return [(to, int(position)) for to, position in dealt], [(s, a, by == "player") for s, a, by in acts]


@pytest.mark.parametrize("game", sorted(COVERED))
def test_equal_keys_mean_equal_answers(game: str) -> None:
    """The cache's soundness, decision by decision: the same decision with the hidden cards changed gets another
    key whenever an answer changes (and the player's first two cards swapped, the same key: Final Count's third
    card is hidden)."""
    from detect_support import live_decisions

    from tablegames.engine import Action

    rules = make_rules(game)
    found = [scorer(rules, s) for s in scenarios(rules)]
    rng = random.Random(3)
    changed = 0
    for rnd, seat in live_decisions(rules, 60, seed=2):
        dealt: dict[str, list[int]] = {}
        prior: list[Action] = []
        for e in rnd.history:
            d = e.to_dict()
            if d["type"] == "card_dealt":
                dealt.setdefault(d["to"], []).append(int(rnd.deck[d["position"]]))
            elif d["type"] == "action" and d["seat"] == seat:
                prior.append(Action.parse(d["action"]))
        mine, dealer = dealt[f"seat {seat}"], dealt["dealer"]
        for action in rnd.legal_actions(seat):
            for sc in found:
                base = sc.score_dealt(dealt, seat, action, prior)
                for j in range(len(dealer)):
                    free = [c for c in range(52) if c not in mine and c not in dealer]
                    other = dict(dealt, dealer=[*dealer[:j], rng.choice(free), *dealer[j + 1 :]])
                    other[f"seat {seat}"] = [mine[1], mine[0], *mine[2:]]
                    score = sc.score_dealt(other, seat, action, prior)
                    same = (score.mistake, score.p, score.supported) == (base.mistake, base.p, base.supported)
                    changed += not same
                    if sc.score_key(other, seat, action, prior) == sc.score_key(dealt, seat, action, prior):
                        assert same, (sc.scenario, mine, dealer, j)
                    if sc.mistake_key(other, seat, action, prior) == sc.mistake_key(
                        dealt, seat, action, prior
                    ):
                        assert sc.mistake_dealt(other, seat, action, prior) == sc.mistake_dealt(
                            dealt, seat, action, prior
                        )
                # the whole deal with its suits relabelled (a hand of the same class, the same exposure)
                perm = rng.sample(range(4), 4)
                relabel = {k: [(c >> 2) * 4 + perm[c & 3] for c in v] for k, v in dealt.items()}
                score = sc.score_dealt(relabel, seat, action, prior)
                if sc.score_key(relabel, seat, action, prior) == sc.score_key(dealt, seat, action, prior):
                    assert (score.mistake, score.p, score.supported) == (base.mistake, base.p, base.supported)
                if action.index is not None:  # (a One Eyed Flush discard names its card by position)
                    continue
                reordered = dict(dealt, **{f"seat {seat}": [mine[1], mine[0], *mine[2:]]})
                assert sc.score_key(reordered, seat, action, prior) == sc.score_key(
                    dealt, seat, action, prior
                )
                assert sc.mistake_key(reordered, seat, action, prior) == sc.mistake_key(
                    dealt, seat, action, prior
                )
        rnd.act(seat, rnd.legal_actions(seat)[rng.randrange(len(rnd.legal_actions(seat)))])
    assert changed > 0

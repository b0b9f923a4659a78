"""``tablegames detect`` (issue 27): the simulation's JSON keys, and the offline scoring of a server database in
which one seat reads the dealer's first card (flagged, with the evidence rounds) and the other plays fair."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablegames.analysis.detect import scorer
from tablegames.cli import app
from tablegames.engine import Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules

runner = CliRunner()

KEYS = {
    "cheaters",
    "cheaters_flagged",
    "honest",
    "honest_flagged",
    "median_hands_to_flag",
    "p95_hands_to_flag",
    "alpha",
}


def test_detect_simulate_prints_the_issues_keys() -> None:
    args = ["detect", "simulate", "three-card-poker", "--scenario", "dealer-1", "--cheaters", "20"]
    args += ["--honest", "20", "--hands", "400", "--seed", "3", "--format", "json"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert set(out) >= KEYS
    assert out["cheaters"] == 20 and out["cheaters_flagged"] == 20 and out["honest_flagged"] == 0
    assert out["alpha"] == 1e-6 and out["median_hands_to_flag"] <= 150


def test_detect_simulate_refuses_an_unknown_scenario() -> None:
    r = runner.invoke(app, ["detect", "simulate", "three-card-poker", "--scenario", "nope", "--hands", "5"])
    assert r.exit_code == 2 and "unknown scenario" in r.output


def _database(path: Path, rounds: int, game: str = "three-card-poker", scenario: str = "dealer-1") -> str:
    pytest.importorskip("sqlalchemy")
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from tablegames.server.db import SETTLED, Account, Base, GameTable, Player, RoundRow

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    rules = make_rules(game)
    sc = scorer(rules, scenario)
    rng = random.Random(1)
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in (1, 2)])
        s.add_all(
            [Player(id=i, name=n, token_hash=f"t{i}", account_id=i) for i, n in ((1, "ann"), (2, "bob"))]
        )
        s.add(GameTable(id=1, name="t", game=game, seats=2, min_bet=100, max_bet=1000))
        s.flush()
        table = Table(rules, seats=2, source=SeededRandom(4))
        for n in range(rounds):
            rnd = table.new_round()
            for s_no in (1, 2):
                rnd.place_wager(s_no, rnd.main_wager(), 100)
            rnd.deal()
            while not rnd.is_over:
                seat = rnd.to_act
                assert seat is not None
                score = sc.score(rnd, seat, rnd.legal_actions(seat)[0])
                # seat 1 (ann) reads the dealer's first card; seat 2 (bob) plays fair with 5% random mistakes
                if seat == 1:
                    action = score.informed_best
                else:
                    action = score.legal_best
                    if rng.random() < 0.05:
                        action = next(a for a in rnd.legal_actions(seat) if a != action)
                rnd.act(seat, action)
            s.add(
                RoundRow(
                    id=n + 1,
                    table_id=1,
                    round_no=rnd.round_no,
                    game=rules.game,
                    rules=table.described_rules(),
                    status=SETTLED,
                    deck=[int(c) for c in rnd.deck],
                    seat_players={"1": 1, "2": 2},
                    events=[e.to_dict() for e in rnd.history],
                    settled_at=time.time(),
                )
            )
        s.commit()
    engine.dispose()
    return url


def test_detect_over_a_database_flags_the_reader_only(tmp_path: Path) -> None:
    url = _database(tmp_path / "rounds.sqlite3", 300)
    r = runner.invoke(app, ["detect", "--database", url, "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["rounds"] == 300 and out["decisions"] == 600 and out["players"] == 2 and out["tests"] == 6
    flagged = {(f["name"], f["scenario"]) for f in out["flagged"]}
    assert ("ann", "dealer-1") in flagged
    assert all(name == "ann" for name, _ in flagged)
    ann = next(f for f in out["flagged"] if f["scenario"] == "dealer-1")
    assert ann["flagged_at_hand"] <= 300 and ann["evidence_rounds"] and ann["supported"] == ann["mistakes"]
    # --since after every round: nothing scored
    later = runner.invoke(app, ["detect", "--database", url, "--since", "2999-01-01", "--format", "json"])
    assert later.exit_code == 0 and json.loads(later.output)["rounds"] == 0
    table = runner.invoke(app, ["detect", "--database", url])
    assert table.exit_code == 0 and "ann" in table.output and "dealer-1" in table.output
    # in two processes: the same report
    two = runner.invoke(app, ["detect", "--database", url, "--workers", "2", "--format", "json"])
    assert two.exit_code == 0, two.output
    assert {**json.loads(two.output), "seconds": 0} == {**out, "seconds": 0}
    assert runner.invoke(app, ["detect", "--database", url, "--workers", "-1"]).exit_code == 2


def test_detect_without_a_database_says_how_to_name_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLEGAMES_DATABASE_URL", raising=False)
    r = runner.invoke(app, ["detect"])
    assert r.exit_code == 2 and "--database" in r.output


def test_detect_over_a_database_flags_a_let_it_ride_hole_carder(tmp_path: Path) -> None:
    """Two decisions a hand: the stage of each recorded one comes from the seat's earlier actions."""
    url = _database(tmp_path / "lir.sqlite3", 250, "let-it-ride", "community-2")
    r = runner.invoke(app, ["detect", "--database", url, "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["rounds"] == 250 and out["players"] == 2 and out["tests"] == 6
    flagged = {(f["name"], f["scenario"]) for f in out["flagged"]}
    assert ("ann", "community-2") in flagged and all(name == "ann" for name, _ in flagged)

"""The bankroll view (risk of ruin, session results, plot) and the ``tablegames simulate`` command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablegames.cli import app
from tablegames.rules import make_rules
from tablegames.simulation import make_job, run_job
from tablegames.simulation.bankroll import BankrollTracker
from tablegames.simulation.strategy import named_strategy_tables
from tablegames.simulation.tables import R3, rank_index

runner = CliRunner()


def test_sessions_by_hand() -> None:
    """$10 bankroll, $5 a round, sessions of 3 rounds; sessions span the pieces fed in."""
    t = BankrollTracker(bankroll=1_000, session=3, cost=500, sessions=3)
    t.feed(np.array([-600, 500, 500, 500], dtype=np.int64))  # ruined after round 1: stays at 400
    t.feed(np.array([-500, 0, -500, -500, -500], dtype=np.int64))
    assert t.finals.tolist() == [400, 1_000, 0] and t.ruined.tolist() == [1, 0, 1]
    s = t.summary()
    assert s["sessions"] == 3 and s["risk_of_ruin"] == pytest.approx(2 / 3)
    assert s["result_percentiles_cents"]["50"] == -600


def test_bankroll_view_of_a_job_and_plot(tmp_path: Path) -> None:
    job = make_job(make_rules("final-count"), 20_000, seed=3, strategy="basic")
    tally = run_job(job, bankroll=(5_000, 200))
    b = tally.summary()["bankroll"]
    assert b["sessions"] == 100 and 0 < b["risk_of_ruin"] < 1
    assert tally.bankroll is not None
    # Seat 1's results summed over sessions equal the seat's net (no session was cut short by ruin? check
    # only when none was ruined); in any case the finals are whole cents around the bankroll.
    png = tmp_path / "paths.png"
    tally.bankroll.plot(png, "final-count")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_json_report() -> None:
    res = runner.invoke(
        app,
        [
            "simulate",
            "let-it-ride",
            "--rounds",
            "20000",
            "--seats",
            "2",
            "--side-bets",
            "bonus=1,progressive",
            "--strategy",
            "basic",
            "--seed",
            "4",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["rounds"] == 20_000 and rep["seats"] == 2
    assert rep["wagers_cents"] == {"bets": 500, "bonus": 100, "progressive": 100}  # the wagers' own names
    assert set(rep["results"]) >= {"bets", "bonus", "progressive", "progressive meters"}
    assert [s["seat"] for s in rep["per_seat"]] == [1, 2]
    assert [j["meter"] for j in rep["jackpots"]] == ["mega", "major", "minor"]


def test_cli_table_report_with_bankroll_plot(tmp_path: Path) -> None:
    png = tmp_path / "b.png"
    res = runner.invoke(
        app,
        [
            "simulate",
            "one-eyed-flush",
            "-n",
            "20000",
            "--side-bets",
            "jackpot",
            "--side-bets",
            "flip=one-eyed",
            "--strategy",
            "basic",
            "--bankroll",
            "100",
            "--session",
            "50",
            "--plot",
            str(png),
            "--rule",
            "ties=tournament",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "risk of ruin" in res.output and "jackpot meter" in res.output
    assert png.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["poker"], "unknown game"),
        (["final-count", "--side-bets", "bonus"], "unknown side bet"),
        (["one-eyed-flush", "--side-bets", "flip=12"], "Flip Card"),
        (["final-count", "--rule", "face-value=3"], "face-value"),
        (["final-count", "--seats", "8"], "1-7 seats"),
        (["final-count", "--rounds", "0"], "--rounds"),
        (["final-count", "--bankroll", "100"], "go together"),
        (["final-count", "--plot", "x.png"], "--plot needs"),
        (["final-count", "--strategy", "nope"], "unknown strategy"),
        (["final-count", "--strategy", "missing.json"], "not found"),
        (["final-count", "--bet", "abc"], "dollars"),
        (["final-count", "--format", "xml"], "--format"),
        (["final-count", "-n", "10", "--bankroll", "10", "--session", "100"], "less than one session"),
        (["final-count", "-n", "10", "--strategy", "basic", "--cluster", "no port"], "cannot reach the Dask"),
    ],
)
def test_cli_errors_are_clear(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["simulate", *args])
    assert res.exit_code == 2
    assert message in res.output


def test_strategy_file_overrides_basic(tmp_path: Path) -> None:
    """A JSON strategy file: listed hands play as written, the rest as the basic strategy."""
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"game": "let-it-ride", "decisions": {"1:222": "pull", "1:432": "ride"}}))
    rules = make_rules("let-it-ride")
    mine = named_strategy_tables(rules, str(f), 500)
    basic = named_strategy_tables(rules, "basic", 500)
    trips, low = rank_index([0, 0, 0]), rank_index([2, 1, 0])
    assert basic.lir_first[trips] == 1 and mine.lir_first[trips] == 0
    assert (
        basic.lir_first[low] == 0
        and mine.lir_first[low] == 1
        and mine.lir_first[R3 + low] == basic.lir_first[R3 + low] == 0
    )  # "1:432s" is not listed
    assert (mine.lir_second == basic.lir_second).all()
    res = runner.invoke(
        app, ["simulate", "let-it-ride", "-n", "5000", "--strategy", str(f), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"decisions": {"W95|7": "discard X"}}))
    res = runner.invoke(app, ["simulate", "one-eyed-flush", "-n", "100", "--strategy", str(bad)])
    assert res.exit_code == 2 and "names a card" in res.output


def test_cli_cluster_matches_local_run() -> None:
    """``--cluster ADDRESS`` on a local Dask cluster prints the same report as the single process."""
    distributed = pytest.importorskip("distributed")
    args = [
        "simulate",
        "one-eyed-flush",
        "-n",
        "30000",
        "--seats",
        "2",
        "--side-bets",
        "jackpot",
        "--strategy",
        "basic",
        "--seed",
        "8",
        "--format",
        "json",
    ]
    local = runner.invoke(app, args)
    assert local.exit_code == 0, local.output
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        remote = runner.invoke(app, [*args, "--cluster", cluster.scheduler_address])
    assert remote.exit_code == 0, remote.output
    drop = {"elapsed_seconds", "rounds_per_second", "workers", "cluster"}
    a, b = json.loads(local.output), json.loads(remote.output)
    assert {k: v for k, v in a.items() if k not in drop} == {k: v for k, v in b.items() if k not in drop}
    assert b["cluster"] == cluster.scheduler_address

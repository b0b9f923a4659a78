"""``tablegames analyze / tune / report``: JSON against the schema, formats, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tablegames.cli import app

SCHEMA = json.loads((Path(__file__).parents[2] / "schemas" / "analysis.schema.json").read_text())
runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "game, edge",
    [("let-it-ride", 0.035057), ("final-count", 0.111259), ("one-eyed-flush", 0.122881)],
)
def test_json_validates_and_reports_house_edge_as_a_fraction(game: str, edge: float) -> None:
    code, out = run("analyze", game, "--format", "json")
    assert code == 0, out
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert round(data["house_edge"], 6) == edge
    assert abs(sum(o["probability"] for o in data["outcomes"]) - 1) < 1e-12
    assert abs(sum(o["contribution"] for o in data["outcomes"]) + data["house_edge"]) < 1e-12
    assert data["strategy"]["table"]
    assert all("house_edge" in bet for bet in data["side_bets"].values())


def test_lir_json_side_bets_and_bet_cap() -> None:
    code, out = run("analyze", "let-it-ride", "-f", "json", "--no-full-strategy", "--bet", "10000")
    assert code == 0, out
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["unit_cents"] == 10000 and data["house_edge"] > 0.035057
    assert round(data["side_bets"]["3-card-bonus 50-40-30-6-4-1"]["house_edge"], 4) == 0.0214
    code, out = run("analyze", "let-it-ride", "-f", "json", "--no-full-strategy", "--meter", "mega=$250,000")
    assert code == 0, out
    prog = json.loads(out)["side_bets"]["progressive"]
    assert prog["house_edge"] < 0  # above the break-even Mega meter of $228,808
    assert prog["break_even_mega_cents"] == 22880800


def test_table_and_markdown_formats() -> None:
    code, out = run("analyze", "final-count")
    assert code == 0 and "house edge" in out and "11.1259%" in out
    code, out = run("analyze", "final-count", "--rule", "face-value=0", "--format", "markdown")
    assert code == 0 and "## Return table" in out and "| outcome |" in out


def test_the_table_leaves_out_what_a_game_has_not_and_says_one_total_in_the_singular() -> None:
    """Final Count has no side bet: no empty "Side bets" table (Let It Ride's is there); one total that depends on
    the cards is said as one (it read "totals 10 depend on the cards"), and "always" is not said then."""
    env = {"COLUMNS": "160"}
    fc = runner.invoke(app, ["analyze", "final-count"], env=env).output
    assert "Side bets" not in fc and "house edge" in fc
    assert "(at a total of 10 it depends on the cards)" in fc and "(totals 10 depend" not in fc
    assert "(totals 2, 4, 10, 12 depend on the cards)" in fc
    faces = runner.invoke(app, ["analyze", "final-count", "--rule", "face-value=0"], env=env).output
    assert "dealer shows 2: stand (at a total of 0 it depends on the cards)" in faces
    assert "Side bets" in runner.invoke(app, ["analyze", "let-it-ride"], env=env).output
    markdown = runner.invoke(app, ["analyze", "final-count", "--format", "markdown"], env=env).output
    assert "## Side bets" not in markdown and "## Return table" in markdown


def test_clear_errors() -> None:
    code, out = run("analyze", "poker")
    assert code == 2 and "unknown game" in out
    code, out = run("analyze", "one-eyed-flush", "--rule", "ties=sometimes")
    assert code == 2 and "ties" in out
    code, out = run("analyze", "final-count", "--bet", "100")
    assert code == 2 and "cap" in out
    code, out = run("analyze", "let-it-ride", "--meter", "giga=5")
    assert code == 2 and "unknown meter" in out
    code, out = run("tune", "final-count", "--target-house-edge", "0.02", "--solve", "win")
    assert code == 2 and "no pay table" in out
    code, out = run("tune", "let-it-ride", "--target-house-edge", "0.02", "--solve", "jackpot")
    assert code == 2 and "unknown hand" in out


def test_tune_finds_the_closest_payout() -> None:
    code, out = run("tune", "let-it-ride", "--target-house-edge", "0.02", "--solve", "flush")
    assert code == 0, out
    assert "flush 12 to 1" in out and "1.7701%" in out  # 11 to 1 gives 2.2431%, farther from 2%
    code, out = run("tune", "let-it-ride", "--target-house-edge", "2%", "--solve", "bonus:flush")
    assert code == 0 and "bonus:flush 3 to 1" in out


def test_report_writes_every_file(tmp_path: Path) -> None:
    code, out = run(
        "report", "final-count", "--out", str(tmp_path), "--verify-rounds", "1000", "-q", "--no-detect"
    )
    assert code == 0, out
    for name in (
        "report.md",
        "report.html",
        "report.pdf",
        "report.json",
        "analysis.json",
        "net_distribution.png",
        "return_contributions.png",
        "strategy_chart.png",
    ):
        assert (tmp_path / name).stat().st_size > 0, name
    html = (tmp_path / "report.html").read_text()
    assert "<table>" in html and "house edge" in html and "strategy_chart.png" in html
    jsonschema.validate(json.loads((tmp_path / "analysis.json").read_text()), SCHEMA)


def test_paytable_file_matches_the_solver(tmp_path: Path) -> None:
    table = tmp_path / "flush12.toml"
    pays = "royal-flush = 1000\nstraight-flush = 200\nquads = 50\nfull-house = 11\nflush = 12\n"
    pays += "straight = 5\ntrips = 3\ntwo-pair = 2\ntens-or-better = 1\n"
    table.write_text(f'game = "let-it-ride"\nname = "flush-12"\n[main]\n{pays}')
    code, out = run("analyze", "let-it-ride", "--paytable", str(table), "-f", "json", "--no-full-strategy")
    assert code == 0, out
    data = json.loads(out)
    assert data["rules"]["main.name"] == "flush-12" and data["rules"]["main.flush"] == "12"  # the rule set
    assert f"{100 * data['house_edge']:.4f}" == "1.7701"  # what `tune ... --solve flush` reports for 12 to 1

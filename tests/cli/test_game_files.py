"""``--game-file FILE`` on play, analyze, tune, report, simulate and protect (issue 15): GAME may be left out,
``--rule`` applies on top, the rule set's name is shown, and a bad file is an error naming the file and the
field, with nothing written."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game
from tablegames.cli import app
from tablegames.rules import GAMES, make_rules
from tablegames.rules.gamefile import GameFile, dumps, load

runner = CliRunner()
NAME = "Faces count zero"
ZERO = make_rules("final-count", {"face-value": "0"})


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    res = runner.invoke(app, list(args), input=input)
    return res.exit_code, " ".join(res.output.split())  # Rich wraps long lines


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding ``fc.toml`` (Final Count, faces count 0) and ``bad.toml``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fc.toml").write_text(dumps(GameFile("final-count", NAME, ZERO)))
    (tmp_path / "bad.toml").write_text('game = "final-count"\n[rules]\nface-value = "7"\n')
    return tmp_path


def test_analyze_reads_the_file_and_shows_its_name(here: Path) -> None:
    code, out = run("analyze", "--game-file", "fc.toml", "--format", "json")
    assert code == 0, out
    data = json.loads(out)
    assert data["game"] == "final-count" and data["rule_set"] == NAME
    schema = json.loads((Path(__file__).parents[2] / "schemas" / "analysis.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert "rule_set" in schema["properties"]
    assert Fraction(data["house_edge_exact"]) == analyze_game(ZERO).house_edge == Fraction(60647, 1347255)
    code, out = run("analyze", "final-count", "--game-file", "fc.toml")
    assert code == 0 and f"rule set: {NAME} (final-count)" in out and "4.5015%" in out
    code, out = run("analyze", "--game-file", "fc.toml", "--rule", "face-value=10", "--format", "json")
    assert code == 0 and json.loads(out)["house_edge_exact"] == "50963999/458066700"  # --rule on top


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "--game-file", "bad.toml"], "bad.toml: rule 'face-value'"),
        (["analyze", "--game-file", "nope.toml"], "game file not found: nope.toml"),
        (
            ["analyze", "let-it-ride", "--game-file", "fc.toml"],
            "fc.toml is a final-count game file, not let-it-ride",
        ),
        (
            ["analyze", "--game-file", "fc.toml", "--paytable", "x"],
            "--paytable cannot be combined with --game-file",
        ),
        (["analyze"], "name a game"),
        (
            ["tune", "--game-file", "bad.toml", "--target-house-edge", "3%", "--solve", "face-value"],
            "bad.toml",
        ),
        (["sweep", "--game-file", "bad.toml", "--vary", "face-value"], "bad.toml: rule 'face-value'"),
        (["simulate", "--game-file", "bad.toml", "-n", "100"], "bad.toml: rule 'face-value'"),
        (["protect", "--game-file", "bad.toml", "-s", "share=1"], "bad.toml: rule 'face-value'"),
        (["play", "--game-file", "bad.toml"], "bad.toml: rule 'face-value'"),
        (["report", "--game-file", "bad.toml", "--out", "r"], "bad.toml: rule 'face-value'"),
    ],
)
def test_a_bad_file_names_the_file_and_the_field_and_changes_nothing(
    here: Path, args: list[str], message: str
) -> None:
    before = sorted(p.name for p in here.iterdir())
    code, out = run(*args, "--format", "json") if args[0] == "tune" else run(*args)
    assert code == 2, out
    assert message in out
    assert "Traceback" not in out
    assert sorted(p.name for p in here.iterdir()) == before  # no report directory, no file written


def test_tune_from_a_file_saves_the_best_as_a_game_file(here: Path) -> None:
    code, out = run(
        "tune",
        "--game-file",
        "fc.toml",
        "--target-house-edge",
        "12%",
        "--solve",
        "face-value",
        "--save",
        "t.toml",
    )
    assert code == 0, out
    assert f"rule set: {NAME}" in out and "11.1259%" in out and "wrote the best candidate to t.toml" in out
    saved = load(here / "t.toml")
    assert saved.game == "final-count" and saved.rules == make_rules("final-count")  # 10s are nearer 12%
    assert NAME in saved.name and "11.1259%" in saved.description


def test_simulate_protect_and_play_from_a_file(here: Path) -> None:
    code, out = run("simulate", "--game-file", "fc.toml", "-n", "2000", "--format", "json", "-q")
    assert code == 0, out
    data = json.loads(out)
    assert data["rule_set"] == NAME and data["game"] == "final-count"
    code, out = run("simulate", "--game-file", "fc.toml", "-n", "2000", "-q")
    assert code == 0 and f"rule set: {NAME}" in out
    code, out = run("protect", "--game-file", "fc.toml", "-s", "share=1", "--format", "json")
    assert code == 0, out
    data = json.loads(out)
    assert data["rule_set"] == NAME and Fraction(data["player_ev_exact"]) == -analyze_game(ZERO).house_edge
    code, out = run("play", "--game-file", "fc.toml", "--seed", "1", input="q\n")
    assert code == 0, out
    assert f"rule set: {NAME} (final-count)" in out


@pytest.mark.slow
def test_report_from_a_file(here: Path) -> None:
    code, out = run(
        "report",
        "--game-file",
        "fc.toml",
        "--out",
        "r",
        "--verify-rounds",
        "0",
        "--no-protect",
        "--no-detect",
        "-q",
    )
    assert code == 0, out
    assert f"rule set: {NAME}" in out and "house edge 4.5015%" in out
    assert json.loads((here / "r" / "analysis.json").read_text())["rule_set"] == NAME


def test_an_error_naming_toml_sections_prints_them(tmp_path: Path) -> None:
    """A RuleError's text is printed as text: the "[main]" in it is not swallowed as Rich markup."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[mian]\nflush = 8\n")
    told = []
    for game in GAMES:
        result = runner.invoke(app, ["analyze", game, "--paytable", str(bad)])
        assert result.exit_code == 2, result.output
        if "unknown sections ['mian']" in result.output:
            told.append(game)
            assert "; use [" in result.output and "] and/or [" in result.output, result.output
    assert told  # the games whose pay-table files have named sections

"""``tablegames tune GAME --target-house-edge X --solve A,B,... [--constraint ...] [--top N]`` (issue 15): the Rich
table and the JSON of the candidates, clear errors; the single-hand form (``--solve flush``) keeps working."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game
from tablegames.cli import app
from tablegames.rules import make_rules, registry

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return res.exit_code, " ".join(res.output.split())


def test_tune_json_lists_exact_candidates_nearest_first() -> None:
    code, out = run(
        "tune", "final-count", "--target-house-edge", "3%", "--solve", "face-value", "--format", "json"
    )
    assert code == 0, out
    data = json.loads(out)
    assert data["target_exact"] == "3/100" and data["solve"] == ["face-value"]
    assert data["base"]["house_edge_exact"] == "50963999/458066700"
    best, other = data["candidates"]
    zero = make_rules("final-count", {"face-value": "0"})
    assert best["house_edge_exact"] == str(analyze_game(zero).house_edge)
    assert best["hit_frequency_exact"] == str(analyze_game(zero).p_win)
    assert best["rules"] == registry.get("final-count").rule_set(zero)
    assert best["distance"] < other["distance"] and other["changes"] == {}
    assert Fraction(best["element_of_risk_exact"]) == Fraction(best["house_edge_exact"])  # one unit wagered


def test_tune_table_shows_every_figure_and_the_changes() -> None:
    code, out = run("tune", "final-count", "--target-house-edge", "3%", "--solve", "face-value", "--top", "1")
    assert code == 0, out
    for text in (
        "house edge",
        "element of risk",
        "hit frequency",
        "4.5015%",
        "46.2086%",
        "value.K = 0 (was 10)",
    ):
        assert text in out
    assert "best 1 candidates" in out and "11.1259% now" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--solve", "face-value,nope"], "unknown rule 'nope'; known rules: "),
        (["--solve", "face-value", "--constraint", "face-value<3"], "only = and != apply"),
        (["--solve", "face-value", "--constraint", "nope<=3"], "unknown rule 'nope'"),
        (["--solve", "face-value", "--top", "0"], "--top must be at least 1"),
        (["--solve", "face-value", "--wager", "nope"], "unknown wager 'nope'"),
    ],
)
def test_tune_errors_are_clear(args: list[str], message: str) -> None:
    code, out = run("tune", "final-count", "--target-house-edge", "3%", *args)
    assert code == 2, out
    assert message in out and "Traceback" not in out


def test_the_single_hand_form_still_solves_one_payout() -> None:
    code, out = run("tune", "let-it-ride", "--target-house-edge", "2%", "--solve", "bonus:flush")
    assert code == 0 and "bonus:flush 3 to 1" in out


def test_tune_table_at_80_columns_keeps_each_value_whole() -> None:
    """Issue 24: a narrow changes column folded a solved 143 into "14" and "3"; now a change wraps at its spaces."""
    res = runner.invoke(
        app,
        ["tune", "three-card-poker", "--wager", "pair-plus", "--target-house-edge", "-20%",
         "--solve", "pair-plus.straight-flush", "--top", "2"],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert len(re.findall(r"= 14\d \(was 40\)", res.output)) == 2, res.output

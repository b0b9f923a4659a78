"""The math report's detection table (issue 27, section 10.1): one row per scenario the game's detection covers,
each the harness's figures at the plan's sizes, and its command line reruns it to the same figures."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablegames.analysis import detect
from tablegames.analysis.api import analyze_game
from tablegames.analysis.render import _md_table
from tablegames.analysis.report_detection import DetectionPlan, detection_markdown, detection_rows
from tablegames.analysis.submission import build
from tablegames.cli import app
from tablegames.rules import make_rules, registry
from tablegames.rules.common import RuleError

runner = CliRunner()
PLAN = DetectionPlan(cheaters=3, honest=3, hands=200, seed=11, pair_players=2, pair_hands=150)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    game = detect.COVERED[0]
    found, note = detection_rows(make_rules(game), PLAN)
    assert note == ""
    return found


def test_a_row_per_covered_scenario_with_the_plans_sizes(rows: list[dict[str, object]]) -> None:
    """The player scenarios at the plan's sizes, then the collusion scenarios at its pair sizes (R-0.2: seven
    seats a table), each with its own seed."""
    rules = make_rules(detect.COVERED[0])
    players = [r for r in rows if r["test"] == "player"]
    pairs = [r for r in rows if r["test"] == "pair"]
    assert [r["scenario"] for r in players] == detect.scenarios(rules)
    assert [r["scenario"] for r in pairs] == detect.pair_scenarios(rules) != []
    assert rows == players + pairs
    for i, r in enumerate(rows):
        sizes = (3, 3, 200) if r["test"] == "player" else (2, 2, 150)
        assert (r["cheaters"], r["honest"], r["hands"], r["seed"]) == (*sizes, 11 + i)
        assert r["honest_noise"] == 0.05 and r["alpha"] == detect.DEFAULT_ALPHA
        assert r["scenarios_tested"] == len(players if r["test"] == "player" else pairs)
        assert (
            0 <= int(str(r["cheaters_flagged"])) <= sizes[0]
            and 0 <= int(str(r["honest_flagged"])) <= sizes[1]
        )


def test_no_pair_players_leaves_the_collusion_rows_out() -> None:
    rules = make_rules(detect.COVERED[0])
    found, _ = detection_rows(rules, DetectionPlan(cheaters=1, honest=0, hands=20, pair_players=0))
    assert [r["test"] for r in found] == ["player"] * len(detect.scenarios(rules))


def test_each_rows_command_reruns_it_to_the_same_figures(rows: list[dict[str, object]]) -> None:
    for r in rows:
        args = shlex.split(str(r["command"]))
        assert args[:3] == ["tablegames", "detect", "simulate"]
        res = runner.invoke(app, [*args[1:], "--format", "json"])
        assert res.exit_code == 0, res.output
        again = json.loads(res.output)
        keys = ("cheaters_flagged", "honest_flagged", "median_hands_to_flag", "p95_hands_to_flag", "method")
        assert {k: again[k] for k in keys} == {k: r[k] for k in keys}


def test_the_markdown_table_shows_every_row_and_the_convention(rows: list[dict[str, object]]) -> None:
    md = "\n".join(detection_markdown(rows, "", _md_table))
    assert "### 10.1" in md and "simulated" in md and "Bonferroni" in md
    assert md.index("Collusion:") < md.index("| share=2 |")  # the pair table follows its explanation
    for r in rows:
        assert f"| {r['scenario']} | {r['cheaters_flagged']} of {r['cheaters']} |" in md
        assert f"`{r['command']}`" in md


def test_a_game_detection_does_not_cover_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """(Every game is covered now: a game without scenarios is made by taking its scenarios away.)"""
    monkeypatch.setattr(detect, "scenarios", lambda rules: [])
    found, note = detection_rows(make_rules(registry.DEFINITIONS[0].key), PLAN)
    assert found == [] and "does not cover" in note
    md = "\n".join(detection_markdown(found, note, _md_table))
    assert "Detection does not cover" in md


def test_a_plan_without_cheaters_is_refused() -> None:
    with pytest.raises(RuleError):
        DetectionPlan(cheaters=0)
    with pytest.raises(RuleError):
        DetectionPlan(hands=0)
    with pytest.raises(RuleError, match="pairs"):
        DetectionPlan(pair_players=3)
    with pytest.raises(RuleError):
        DetectionPlan(pair_hands=0)


def test_the_report_carries_the_table_and_no_detect_leaves_it_out(tmp_path: Path) -> None:
    from tablegames.analysis.report import write_report

    game = detect.COVERED[0]
    rules = make_rules(game)
    a = analyze_game(rules, None, {})
    sub = build(a, rules, simulate=None, protection=False, detection=PLAN)
    write_report(a, rules, tmp_path, None, f"tablegames report {game}", sub)
    data = json.loads((tmp_path / "report.json").read_text())
    got = [r["scenario"] for r in data["detection"]["rows"]]
    assert got == detect.scenarios(rules) + detect.pair_scenarios(rules)
    assert "### 10.1 Detecting a player who sees them" in (tmp_path / "report.md").read_text()
    off = build(a, rules, simulate=None, protection=False)
    assert off.detection == [] and "--no-detect" in off.detection_note
    bad = runner.invoke(app, ["report", game, "--out", str(tmp_path / "x"), "--detect-players", "0"])
    assert bad.exit_code == 2 and "--detect-players" in bad.output
    assert not (tmp_path / "x").exists()
    odd = runner.invoke(app, ["report", game, "--out", str(tmp_path / "y"), "--detect-pair-players", "3"])
    assert odd.exit_code == 2 and "--detect-pair-players" in odd.output
    assert not (tmp_path / "y").exists()

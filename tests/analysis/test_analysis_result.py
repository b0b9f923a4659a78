"""The analysis's results as models (issue 23): ``analyze --format json`` is :class:`AnalysisResult` (every
field named, no other), ``schemas/analysis.schema.json`` is generated from it (``tablegames docs --write``) and
the Math lab's answer is the analysis's own :class:`LabFigures`, made from the same analysis."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.result import AnalysisResult, LabFigures, analysis_schema, analysis_schema_text
from tablegames.cli import app
from tablegames.rules import make_rules

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schemas" / "analysis.schema.json"


def test_the_schema_file_is_generated_from_the_model() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == analysis_schema_text(), "stale: run tablegames docs --write"
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema == analysis_schema()


def test_no_object_of_the_schema_is_open() -> None:
    def objects(node: object) -> list[dict[str, object]]:
        if isinstance(node, dict):
            here = [node] if node.get("type") == "object" else []
            return here + [o for v in node.values() for o in objects(v)]
        if isinstance(node, list):
            return [o for v in node for o in objects(v)]
        return []

    for o in objects(analysis_schema()):
        assert o.get("additionalProperties", True) not in (True, {}), o.get("title")


@pytest.mark.parametrize("game", ["final-count", "three-card-poker"])
def test_analyze_json_is_the_model(game: str) -> None:
    out = CliRunner().invoke(app, ["analyze", game, "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    result = AnalysisResult.model_validate(data)
    assert Fraction(result.house_edge_exact) == analyze_game(make_rules(game)).house_edge
    jsonschema.validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert result.model_dump(mode="json", by_alias=True, exclude_unset=True) == data


@pytest.mark.parametrize("game", ["final-count", "three-card-poker"])
def test_a_full_strategy_is_the_model(game: str) -> None:
    data = analyze_game(make_rules(game), full_strategy=True).to_json()
    assert AnalysisResult.model_validate(data).strategy.table


def test_the_lab_answers_the_model() -> None:
    from tablegames.server.labsolver import Job, figures

    rules = make_rules("three-card-poker")
    d = analyzer(rules)
    got = figures(Job("three-card-poker", rules, dict(rules.describe()), None, ()))
    lab = LabFigures.model_validate(got)
    a = analyze_game(rules)
    assert lab.house_edge_exact == str(a.house_edge) and [b.name for b in lab.side_bets] == list(a.side_bets)
    assert lab.strategy.chart is not None and lab.strategy.chart.row_label == d.chart_axes[0]
    assert "category" not in got["side_bets"][0]["outcomes"][0]  # as analyze --format json writes a row


def test_the_analysis_layer_imports_no_server() -> None:
    code = "import sys, tablegames.analysis.result; print(any(m.startswith('tablegames.server') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

"""``tablegames rng-test``: the table of p-values, the exit code, the report files, usage errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablegames.cli import app

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["rng-test", *args])
    return result.exit_code, " ".join(result.output.split())


def test_seeded_run_passes_and_writes_reports(tmp_path: Path) -> None:
    code, out = invoke("--source", "seeded", "--seed", "2027", "--shuffles", "20000", "--out", str(tmp_path))
    assert code == 0, out
    assert "PASS: all 10 tests pass at 99%" in out and "SeededBatch(2027)" in out
    data = json.loads((tmp_path / "rng-test-seeded.json").read_text())
    assert data["shuffles"] == 20_000 and data["passed"] and data["params"]["seed"] == 2027
    assert len(data["tests"]) == 10 and all(t["p_value"] >= 0.01 for t in data["tests"])
    assert len(data["position_counts"]) == 52 and sum(map(sum, data["position_counts"])) == 52 * 20_000
    md = (tmp_path / "rng-test-seeded.md").read_text()
    assert "suite verdict: PASS" in md and "| Card × position 52×52 |" in md
    assert "rng-test-seeded-positions.png" in md
    png = (tmp_path / "rng-test-seeded-positions.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_broken_source_fails_with_exit_code_1(tmp_path: Path) -> None:
    code, out = invoke("--source", "broken-naive", "--shuffles", "20000", "--out", str(tmp_path))
    assert code == 1 and "FAIL" in out and "Card × position" in out
    data = json.loads((tmp_path / "rng-test-broken-naive.json").read_text())
    position = next(t for t in data["tests"] if t["key"] == "position")
    assert not data["passed"] and not position["passed"] and position["p_value"] < 1e-100


def test_same_seed_same_report() -> None:
    first = invoke("--source", "seeded", "--seed", "abc", "--shuffles", "3000")
    second = invoke("--source", "seeded", "--seed", "abc", "--shuffles", "3000")
    elapsed = re.compile(r"\(\d+\.\d s\)")  # the title shows the elapsed time
    assert first[0] == second[0] and elapsed.sub("", first[1]) == elapsed.sub("", second[1])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "live", "--seed", "3"], "the live source takes no seed"),
        (["--source", "fair", "--seed", "3"], "the fair source takes no seed"),
        (["--source", "mersenne"], "unknown source 'mersenne'"),
        (["--shuffles", "999"], "--shuffles must be at least 1000"),
        (["--alpha", "1.5"], "--alpha must be between 0 and 1"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    code, out = invoke(*args)
    assert code == 2 and message in out, out


def test_help_lists_both_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "rng-test" in result.output and "verify" in result.output

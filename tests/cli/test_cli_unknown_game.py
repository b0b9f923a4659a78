"""An unknown game is one typed error (``UnknownGameError``) listing the known games; every command that takes
a game prints it cleanly (no traceback) and exits 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablegames.cli import app
from tablegames.rules.registry import GAMES

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", "NOSUCHGAME"],
        ["analyze", "NOSUCHGAME", "--format", "json"],
        ["tune", "NOSUCHGAME", "--target-house-edge", "0.02", "--solve", "flush"],
        ["report", "NOSUCHGAME", "--out", "{tmp}"],
        ["simulate", "NOSUCHGAME", "-n", "10"],
        ["simulate", "NOSUCHGAME", "-n", "10", "--side-bets", "bonus"],
        ["play", "NOSUCHGAME"],
        ["protect", "NOSUCHGAME", "--scenario", "share=2"],
    ],
)
def test_every_command_refuses_an_unknown_game(args: list[str], tmp_path: Path) -> None:
    res = runner.invoke(app, [a.replace("{tmp}", str(tmp_path / "r")) for a in args])
    assert res.exit_code == 2, res.output
    assert "unknown game 'NOSUCHGAME'" in res.output
    assert all(game in res.output for game in GAMES)  # the message lists every registered game
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)  # a clean exit, not a crash
    assert not (tmp_path / "r").exists()  # nothing was written

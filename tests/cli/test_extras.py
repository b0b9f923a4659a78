"""Install what you use (issue 23): the core (cards, randomness, rules, engine, analysis, simulation, the CLI) works
without the optional extras, and a command whose extra is missing exits with one line naming what to install.

The extras are hidden from a fresh interpreter by a ``sys.meta_path`` finder that refuses to import them, as if
they were not installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tablegames
from tablegames.cli.extras import EXTRAS

SRC = Path(tablegames.__file__).parent
ROOT = SRC.parent.parent
#: every module an extra brings (server, postgres, cluster, report) and the server's own dependencies
OPTIONAL = sorted({m for mods in EXTRAS.values() for m in mods} | {"starlette", "websockets", "psutil"})
CORE = ("cards", "randomness", "rules", "engine", "analysis", "simulation", "cli", "identity")

BLOCKER = """
import sys
BLOCKED = set(sys.argv[1].split(","))

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
"""

RUN_COMMANDS = """
import json
from typer.testing import CliRunner
from tablegames.cli import app

out = []
for args in json.loads(sys.argv[2]):
    r = CliRunner().invoke(app, args)
    crash = None if r.exception is None or isinstance(r.exception, SystemExit) else repr(r.exception)
    out.append([r.exit_code, " ".join(r.output.split()), crash])
print(json.dumps(out))
"""


def run_without(blocked: list[str], commands: list[list[str]], cwd: Path) -> list[tuple[int, str, Any]]:
    script = BLOCKER + RUN_COMMANDS
    proc = subprocess.run(
        [sys.executable, "-c", script, ",".join(blocked), json.dumps(commands)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return [tuple(r) for r in json.loads(proc.stdout.strip().splitlines()[-1])]


def test_the_core_commands_work_without_any_extra(tmp_path: Path) -> None:
    commands = [
        ["--version"],
        ["analyze", "final-count", "--format", "json"],
        ["simulate", "final-count", "-n", "200", "--quiet", "--format", "json"],
        ["play", "--help"],
    ]
    (version, analyze, simulate, play) = run_without(OPTIONAL, commands, tmp_path)
    assert version[0] == 0 and version[1].startswith("tablegames ") and version[2] is None
    assert analyze[0] == 0 and analyze[2] is None and '"house_edge"' in analyze[1]
    assert simulate[0] == 0 and simulate[2] is None and '"rounds": 200' in simulate[1]
    assert play[0] == 0 and "Usage" in play[1]


@pytest.mark.parametrize(
    ("blocked", "args", "extra"),
    [
        (OPTIONAL, ["serve", "--data-dir", "."], "server"),
        (OPTIONAL, ["tables", "list", "--data-dir", "."], "server"),
        (OPTIONAL, ["db", "upgrade", "--data-dir", "."], "server"),
        (OPTIONAL, ["loadtest", "--duration", "1"], "server"),
        (OPTIONAL, ["report", "final-count", "--out", "rep"], "report"),
        (OPTIONAL, ["simulate", "final-count", "-n", "10", "--cluster", "tcp://127.0.0.1:1"], "cluster"),
        (["psycopg"], ["tables", "list", "--database", "postgresql://u@127.0.0.1:1/x"], "postgres"),
    ],
    ids=["serve", "tables", "db", "loadtest", "report", "simulate-cluster", "postgres"],
)
def test_a_command_whose_extra_is_missing_names_the_extra_to_install(
    tmp_path: Path, blocked: list[str], args: list[str], extra: str
) -> None:
    [(code, output, crash)] = run_without(blocked, [args], tmp_path)
    assert crash is None and code != 0, output
    assert f"needs the [{extra}] extra" in output and f"pip install 'tablegames[{extra}]'" in output, output
    assert "Traceback" not in output
    assert list(tmp_path.iterdir()) == []  # nothing was written (no database, no report)


def test_the_core_modules_import_no_optional_library() -> None:
    """Every module of the core packages, imported in a fresh interpreter, leaves every optional library
    unimported (a module-level import of one, even guarded, is found)."""
    script = f"""
import importlib, json, pkgutil, sys
import tablegames
for name in {list(CORE)!r}:
    mod = importlib.import_module("tablegames." + name)
    if hasattr(mod, "__path__"):
        for info in pkgutil.walk_packages(mod.__path__, mod.__name__ + "."):
            importlib.import_module(info.name)
imported = sorted(m for m in sys.modules if m.startswith("tablegames."))
optional = sorted(m for m in sys.modules if m.split(".")[0] in {OPTIONAL!r})
print(json.dumps([imported, optional]))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    imported, optional = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "tablegames.analysis.pdf" in imported and "tablegames.simulation.runner" in imported
    assert optional == []

"""``tablegames.cli.main`` imports only the module of the command it runs (issue 28): its map of commands to
modules must name every command of the whole app, each in the module that registers it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.main import get_command

import tablegames.cli as cli


def names(app: typer.Typer) -> set[str]:
    group = get_command(app)
    assert hasattr(group, "commands")
    return set(group.commands)


def test_the_map_names_every_command_in_its_module() -> None:
    whole = names(cli.app)
    assert whole == set(cli.COMMANDS)
    for module in cli.MODULES:
        assert names(cli.build_app((module,))) == {c for c, m in cli.COMMANDS.items() if m == module}, module


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        cli.nosuch  # noqa: B018


@pytest.mark.parametrize(
    ("argv", "needs"),
    [
        (["--help"], "tablegames.cli.serve"),  # the whole app
        (["rng-test", "--help"], "tablegames.cli.rng"),
    ],
)
def test_main_builds_what_the_command_line_names(argv: list[str], needs: str) -> None:
    probe = (
        "import json, sys\n"
        f"sys.argv = ['tablegames', *{argv!r}]\n"
        "from tablegames.cli import main\n"
        "try:\n    main()\n"
        "except SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tablegames.cli.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    assert needs in loaded
    if argv[0] != "--help":
        assert "tablegames.cli.serve" not in loaded and "tablegames.cli.play" not in loaded

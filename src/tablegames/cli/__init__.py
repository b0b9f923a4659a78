"""The ``tablegames`` command line. Each sub-module registers its own commands on the one Typer app.

``main()`` imports only the module of the command it runs (:data:`COMMANDS`; a command's module may import
the server, Rich's tables or NumPy, which ``analyze --format json`` from the disk cache does not need: issue
28); ``--help``, no command or an unknown one build the whole app, as ``from tablegames.cli import app`` does.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    app: typer.Typer

MODULES = (
    "play",
    "analyze",
    "lab",
    "protect",
    "detect",
    "simulate",
    "serve",
    "history",
    "reports",
    "staff",
    "db",
    "rng",
    "loadtest",
    "docs",
    "deploy",  # `tablegames deploy` (issue 16)
)
"""The command modules, in the order their commands are listed by ``--help``."""

COMMANDS = {
    "play": "play",
    "analyze": "analyze",
    "report": "analyze",
    "tune": "lab",
    "sweep": "lab",
    "protect": "protect",
    "detect": "detect",
    "simulate": "simulate",
    "serve": "serve",
    "tables": "serve",
    "history": "history",
    "reports": "reports",
    "staff": "staff",
    "audit": "staff",
    "db": "db",
    "rng-test": "rng",
    "verify": "rng",
    "loadtest": "loadtest",
    "docs": "docs",
    "deploy": "deploy",
}
"""Each top-level command or group -> the module that registers it (``tests/cli/test_cli_lazy.py`` checks it
against the whole app)."""


def _print_version(value: bool) -> None:
    if value:
        from tablegames.identity import git_commit, version

        commit = git_commit()
        typer.echo(f"tablegames {version()}" + (f" (commit {commit})" if commit else ""))
        raise typer.Exit()


def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print the package version and exit"
        ),
    ] = False,
) -> None:
    """Casino table card games: play them, prove their math, simulate them fast."""


def build_app(modules: tuple[str, ...] = MODULES) -> typer.Typer:
    """A Typer app with the commands of ``modules`` (default: every command)."""
    built = typer.Typer(
        name="tablegames",
        help="Casino table card games: play them, prove their math, simulate them fast.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    built.callback()(_root)
    for name in modules:
        importlib.import_module(f"tablegames.cli.{name}").register(built)
    return built


_whole: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole command line, built on first use."""
    global _whole
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _whole is None:
        _whole = build_app()
    return _whole


def main() -> None:
    """The ``tablegames`` script: only the module of the command named on the command line is imported."""
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    module = COMMANDS.get(command)
    (build_app((module,)) if module is not None else build_app())()

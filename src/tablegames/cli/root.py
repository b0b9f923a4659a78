"""The ``tablegames`` Typer app: its root options and the commands of the modules asked for
(:func:`tablegames.cli.main` builds it with the one module a command line needs)."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from tablegames.cli import MODULES


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

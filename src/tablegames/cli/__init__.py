"""The ``tablegames`` command line. Each sub-module registers its own commands on the one Typer app."""

from __future__ import annotations

from typing import Annotated

import typer

from tablegames.cli import (
    analyze,
    db,
    detect,
    docs,
    history,
    lab,
    loadtest,
    play,
    protect,
    reports_sessions,
    rng,
    serve,
    simulate,
    staff,
)

app = typer.Typer(
    name="tablegames",
    help="Casino table card games: play them, prove their math, simulate them fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from tablegames.identity import git_commit, version

        commit = git_commit()
        typer.echo(f"tablegames {version()}" + (f" (commit {commit})" if commit else ""))
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="print the package version and exit"
        ),
    ] = False,
) -> None:
    """Casino table card games: play them, prove their math, simulate them fast."""


for _module in (
    play,
    analyze,
    lab,
    protect,
    detect,
    simulate,
    serve,
    history,
    staff,
    db,
    rng,
    loadtest,
    docs,
    reports_sessions,  # `tablegames reports player-sessions` (issue 26)
):
    _module.register(app)


__import__("tablegames.cli.deploy", fromlist=["register"]).register(app)  # `tablegames deploy` (issue 16)


def main() -> None:
    app()

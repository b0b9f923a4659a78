"""The ``tablegames`` command line. Each sub-module registers its own commands on the one Typer app."""

from __future__ import annotations

import typer

from tablegames.cli import analyze, lab, loadtest, play, protect, rng, serve, simulate

app = typer.Typer(
    name="tablegames",
    help="Casino table card games: play them, prove their math, simulate them fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Casino table card games: play them, prove their math, simulate them fast."""


for _module in (play, analyze, lab, protect, simulate, serve, rng, loadtest):
    _module.register(app)


__import__("tablegames.cli.deploy", fromlist=["register"]).register(app)  # `tablegames deploy` (issue 16)


def main() -> None:
    app()

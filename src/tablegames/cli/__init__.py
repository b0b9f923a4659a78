"""The ``tablegames`` command line. Each sub-module registers its own commands on the one Typer app.

``main()`` imports only the module of the command it runs (:data:`COMMANDS`; a command's module may import
the server, Rich's tables or NumPy, which ``analyze --format json`` from the disk cache does not need: issue
28); ``--help``, no command or an unknown one build the whole app, as ``from tablegames.cli import app`` does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

    from tablegames.cli.root import build_app as build_app

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


ARGV: list[str] | None = None
"""The command line :func:`main` runs (its words after the program's name), for ``analyze`` to note its
answer under (``analysis/result_cache.py``); None when the app is invoked otherwise (tests)."""

_whole: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer | Callable[..., typer.Typer]:
    """``app``: the whole command line, built on first use; ``build_app``: :func:`tablegames.cli.root.build_app`."""
    global _whole
    if name not in ("app", "build_app"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tablegames.cli.root import build_app

    if name == "build_app":
        return build_app
    if _whole is None:
        _whole = build_app()
    return _whole


def _answered_from_cache(argv: list[str]) -> bool:
    """``analyze ... --format json`` run before with the same words, in the same directory, on the same files
    and code: its answer printed from the disk cache without importing Typer, the rules or NumPy (issue 28);
    False when it was not (then the command runs as always, and notes its answer)."""
    if not argv or argv[0] != "analyze" or "--no-cache" in argv:
        return False
    from tablegames.analysis.result_cache import default_directory, recall

    directory = default_directory()
    text = None if directory is None else recall(directory, argv, Path(os.getcwd()))
    if text is None:
        return False
    sys.stdout.write(text + "\n")
    return True


def main() -> None:
    """The ``tablegames`` script: only the module of the command named on the command line is imported."""
    global ARGV
    ARGV = sys.argv[1:]
    if _answered_from_cache(ARGV):
        return
    from tablegames.cli.root import build_app

    module = COMMANDS.get(ARGV[0] if ARGV else "")
    (build_app((module,)) if module is not None else build_app())()

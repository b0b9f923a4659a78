"""The optional parts of the install (pyproject's extras) and the clean exit of a command whose part is missing.

The core (cards, rules, engine, analysis, simulation, this CLI) needs none of them; a command that does calls
:func:`require` before its lazy imports, so a missing extra is one line naming what to install, not a traceback.
"""

from __future__ import annotations

import importlib.util

from tablegames.cli.common import fail

#: extra -> the top-level modules it brings (a module missing means the extra is not installed)
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": ("fastapi", "uvicorn", "sqlalchemy", "alembic", "httpx"),
    "postgres": ("psycopg",),
    "cluster": ("dask", "distributed"),
    "report": ("reportlab",),
}


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    out = []
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(module)
    return out


def hint(extra: str) -> str:
    return f"pip install 'tablegames[{extra}]'"


def require(command: str, *extras: str) -> None:
    """Exit (status 2, as :func:`~tablegames.cli.common.fail`) with the install line when one of ``extras`` is missing."""
    for extra in extras:
        gone = missing(extra)
        if gone:
            fail(
                f"`tablegames {command}` needs the [{extra}] extra ({', '.join(gone)} not installed): {hint(extra)}"
            )


def require_database(command: str, url: str) -> None:
    """The server's extra, and the PostgreSQL driver's for a PostgreSQL URL."""
    require(command, "server")
    if url.startswith(("postgresql", "postgres:")):
        require(command, "postgres")

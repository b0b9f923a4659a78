"""Doctests: collected from the package sources only (``src/tablegames``), not from test files and their
conftests (several test folders have a ``conftest.py``, which pytest's ``--doctest-modules`` cannot import
side by side), and not from the Alembic migrations."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule

SRC = Path(__file__).parent / "src" / "tablegames"
# Alembic's env.py and revision scripts run only inside Alembic (``context.config`` exists there alone).
MIGRATIONS = SRC / "server" / "migrations"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".py" and SRC in file_path.parents and MIGRATIONS not in file_path.parents:
        return DoctestModule.from_parent(parent, path=file_path)  # type: ignore[no-any-return]
    return None

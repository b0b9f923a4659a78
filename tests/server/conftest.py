"""Fixtures of the table-server tests: every test runs on SQLite and, when TABLEGAMES_TEST_POSTGRES_URL is set
(CI: .ci/start-postgres), on PostgreSQL in a fresh schema of its own."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server_harness import ADMIN, Harness, fresh_schema, pg_url_or_skip
from tablegames.randomness import SeededRandom
from tablegames.server.app import create_app


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.sqlite3'}"
        return
    with fresh_schema("t") as url:
        yield pg_url_or_skip(url)


@pytest.fixture
def make_server(db_url: str) -> Iterator[Callable[..., Harness]]:
    """``make_server(betting_seconds=..., turn_seconds=..., decks=...)`` -> a started in-process server."""
    with ExitStack() as stack:
        counter = itertools.count(1)

        def make(**kw: Any) -> Harness:
            kw.setdefault("betting_seconds", 30.0)
            kw.setdefault("turn_seconds", 30.0)
            kw.setdefault("admin_token", ADMIN)
            if "deck_factory" not in kw:
                kw.setdefault("source_factory", lambda: SeededRandom(next(counter)))
            app = create_app(db_url, **kw)
            client = stack.enter_context(TestClient(app))
            return Harness(client, stack)

        yield make

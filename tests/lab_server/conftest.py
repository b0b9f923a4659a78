"""Fixtures of the Math lab's server tests (issue 15): an in-process server on SQLite and, when
TABLEGAMES_TEST_POSTGRES_URL is set, on PostgreSQL in a fresh schema of its own."""

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
        yield f"sqlite:///{tmp_path / 'lab.sqlite3'}"
        return
    with fresh_schema("lab") as url:
        yield pg_url_or_skip(url)


@pytest.fixture
def make_server(db_url: str) -> Iterator[Callable[..., Harness]]:
    """``make_server(**create_app options)`` -> a started in-process server dealing seeded decks."""
    with ExitStack() as stack:
        seeds = itertools.count(1)

        def make(**kw: Any) -> Harness:
            kw.setdefault("betting_seconds", 30.0)
            kw.setdefault("turn_seconds", 30.0)
            kw.setdefault("admin_token", ADMIN)
            kw.setdefault("source_factory", lambda: SeededRandom(next(seeds)))
            client = stack.enter_context(TestClient(create_app(db_url, **kw)))
            return Harness(client, stack)

        yield make


@pytest.fixture
def lab(tmp_path: Any) -> Iterator[TestClient]:
    """A server for the lab's own endpoints (SQLite: they touch no database)."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'lab.sqlite3'}", admin_token=ADMIN)) as client:
        yield client

"""Fixtures of the Math lab's server tests (issue 15): an in-process server on SQLite and, when
TABLEGAMES_TEST_POSTGRES_URL is set, on PostgreSQL in a fresh schema of its own."""

from __future__ import annotations

import itertools
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from server_harness import ADMIN, Harness
from tablegames.randomness import SeededRandom
from tablegames.server.app import create_app

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lab.sqlite3'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set (CI sets it with .ci/start-postgres)")
    schema = f"lab_{secrets.token_hex(6)}"
    admin = sa.create_engine(base)
    with admin.begin() as c:
        c.execute(sa.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    with admin.begin() as c:
        c.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


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

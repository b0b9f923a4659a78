"""Fixtures of the table-server tests: every test runs on SQLite and, when TABLEGAMES_TEST_POSTGRES_URL is set
(CI: .ci/start-postgres), on PostgreSQL in a fresh schema of its own."""

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
from test_server_support import PG_ENV

from server_harness import ADMIN, Harness
from tablegames.randomness import SeededRandom
from tablegames.server.app import create_app


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.sqlite3'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set (CI sets it with .ci/start-postgres)")
    schema = f"t_{secrets.token_hex(6)}"
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

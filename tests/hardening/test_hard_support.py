"""Helpers of the hardening tests (no tests here): an app with the hardening limits, a PostgreSQL schema of its
own, and the in-process server harness of ``server_harness`` (players, recording sockets, money invariants)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from server_harness import ADMIN, Harness, fresh_schema
from tablegames.randomness import SeededRandom
from tablegames.server.app import create_app
from tablegames.server.limits import HardeningMiddleware, Limits

PG_ENV = "TABLEGAMES_TEST_POSTGRES_URL"


def set_limits(app: FastAPI, limits: Limits) -> None:
    """Use ``limits`` for the hardening middleware that ``create_app`` installed (before the app starts)."""
    found = [m for m in app.user_middleware if m.cls is HardeningMiddleware]
    assert found, "create_app must install HardeningMiddleware"
    found[0].kwargs["limits"] = limits


def make_app(url: str, seed: int = 1, limits: Limits | None = None, **kw: Any) -> FastAPI:
    counter = itertools.count(seed)
    kw.setdefault("betting_seconds", 30.0)
    kw.setdefault("turn_seconds", 30.0)
    kw.setdefault("admin_token", ADMIN)
    kw.setdefault("source_factory", lambda: SeededRandom(next(counter)))
    app = create_app(url, **kw)
    if limits is not None:
        set_limits(app, limits)
    return app


@contextmanager
def postgres_url() -> Iterator[str | None]:
    """A fresh schema on the test PostgreSQL (None when TABLEGAMES_TEST_POSTGRES_URL is not set)."""
    with fresh_schema("h") as url:
        yield url


@contextmanager
def harness(app: FastAPI) -> Iterator[Harness]:
    with ExitStack() as stack:
        client = stack.enter_context(TestClient(app))
        yield Harness(client, stack, max_messages=1000)  # floods and retries: more pushes before an answer

"""Fixtures of the operations tests (issue 16): several server processes on one PostgreSQL database, HAProxy in
front of them. Every test here needs PostgreSQL (``TABLEGAMES_TEST_POSTGRES_URL``, set by .ci/start-postgres) and
skips without it; the proxy tests also skip when Debian's ``haproxy`` is not installed (.ci/system-deps)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ops_support import ADMIN

from server_harness import fresh_schema, pg_url_or_skip
from tablegames.loadtest.cluster import Cluster


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh schema of the test database (dropped afterwards)."""
    with fresh_schema("ops") as url:
        yield pg_url_or_skip(url)


@pytest.fixture
def make_cluster(pg_url: str, tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    """``make_cluster(servers, proxy=False, **kw)`` -> a started :class:`Cluster` on ``pg_url`` (stopped after)."""
    started: list[Cluster] = []

    def make(servers: int, **kw: Any) -> Cluster:
        kw.setdefault("log_dir", tmp_path / f"cluster{len(started)}")
        c = Cluster(pg_url, servers, ADMIN, **kw)
        started.append(c)
        return c.start()

    yield make
    for c in started:
        c.stop()

"""Fixtures of the cluster tests (issue 16): a fresh PostgreSQL schema per test (skipped when
TABLEGAMES_TEST_POSTGRES_URL is not set) and ``start_cluster(n, args=..., script=...)``, n real server processes
on it, stopped at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cluster_support import Cluster, clusters, pg_schema


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_schema() as url:
        yield url


@pytest.fixture
def start_cluster(pg_url: str, tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    with clusters(pg_url, tmp_path) as start:
        yield start

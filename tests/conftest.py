"""Shared test settings: a bounded hypothesis profile so CI time stays predictable."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


import pytest  # noqa: E402

from tablegames.cards import parse_cards  # noqa: E402


def stacked_deck(cards: str) -> list[int]:
    """A full 52-card deck whose first cards (in deal order) are ``cards``; the rest follow in index order."""
    head = [int(c) for c in parse_cards(cards)]
    return head + [c for c in range(52) if c not in head]


@pytest.fixture(autouse=True, scope="session")
def _analysis_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """``analyze --format json``'s disk cache (analysis/result_cache.py) in a directory of the test session,
    not the user's ~/.cache."""
    os.environ.setdefault("TABLEGAMES_CACHE_DIR", str(tmp_path_factory.mktemp("tablegames-cache")))


@pytest.fixture
def deck() -> object:
    return stacked_deck

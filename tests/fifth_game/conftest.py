"""The fifth game's registration: every test of this folder runs with High Card registered (and only them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tablegames.rules import registry

from .high_card import DEFINITION


@pytest.fixture(autouse=True)
def high_card_registered() -> Iterator[None]:
    with registry.registered(DEFINITION):
        yield

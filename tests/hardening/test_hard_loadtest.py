"""The load-test tool end to end, small: real rounds through the WebSocket API of a started server (its worker
threads, merged pushes and batched settlements included), then the money check: no errors, every balance equals
its entries, nothing created or lost, and every player's balance equals the buy-in plus the nets of its rounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_hard_support import postgres_url

from tablegames.loadtest import LoadConfig, LoadTestError, run_load_test

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(params=["sqlite", "postgres"])
def load_db(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "load.sqlite3")
        return
    with postgres_url() as url:
        if url is None:
            pytest.skip("TABLEGAMES_TEST_POSTGRES_URL is not set (CI sets it with .ci/start-postgres)")
        yield url


def test_a_short_load_test_plays_rounds_and_keeps_the_books(load_db: str) -> None:
    cfg = LoadConfig(
        clients=9, tables=3, duration=4.0, database=load_db, betting_seconds=1.0, turn_seconds=5.0, ramp=0.5
    )
    report = run_load_test(cfg).to_dict()
    assert report["rounds"] >= 3, report  # every table played
    assert report["errors"] == {} and report["disconnects"] == 0 and report["timeouts"] == 0, report
    assert report["latency"]["count"] > 0 and report["latency"]["p99_ms"] is not None
    money = report["money"]
    assert money["checked"] and money["ok"], money
    assert money["sum_of_all_accounts"] == 0 and money["in_play"] == 0 and money["unsettled_rounds"] == 0
    assert money["player_mismatches"] == [] and money["mismatched_balances"] == []
    assert report["ok"]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"url": "http://example.com:8000"}, "non-loopback"),
        ({"clients": 0}, "--clients"),
        ({"clients": 50, "tables": 2}, "seats a table"),
        ({"duration": 0.0}, "--duration"),
    ],
)
def test_refuses_what_it_must_not_do(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(LoadTestError, match=message):
        run_load_test(LoadConfig(**kw))

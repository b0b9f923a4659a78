"""``server/notify.py`` on PostgreSQL: a payload is delivered when its transaction commits and never when it
rolls back, in commit order; the listener reconnects after its connection is killed and says so (resync)."""

from __future__ import annotations

import queue
import time
from typing import Any

import pytest
import sqlalchemy as sa

from tablegames.server.notify import RESYNC, Listener, notify, notify_all

pytestmark = pytest.mark.timeout(60)

CHANNEL = "tablegames_ops_test"


def _take(q: queue.Queue[dict[str, Any]], timeout: float = 5.0) -> dict[str, Any]:
    return q.get(timeout=timeout)


def _listen(pg_url: str) -> tuple[Listener, queue.Queue[dict[str, Any]]]:
    got: queue.Queue[dict[str, Any]] = queue.Queue()
    listener = Listener(pg_url, got.put, loop=None, channel=CHANNEL, poll_seconds=0.1)
    listener.start()
    assert listener.listening.wait(10)
    assert _take(got) == RESYNC  # the first connection announces itself
    return listener, got


def test_notify_on_commit_only_in_commit_order(pg_url: str) -> None:
    listener, got = _listen(pg_url)
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as c:
            with c.begin():
                assert notify(c, {"n": 1}, CHANNEL)
                time.sleep(0.3)
                assert got.empty(), "delivered before the commit"
            with pytest.raises(RuntimeError), c.begin():
                notify(c, {"n": "rolled back"}, CHANNEL)
                raise RuntimeError
            with c.begin():
                assert notify_all(c, [{"n": 2}, {"n": 3}], CHANNEL) == 2
        assert [_take(got)["n"] for _ in range(3)] == [1, 2, 3]
        time.sleep(0.3)
        assert got.empty()  # the rolled-back one never came
    finally:
        listener.stop()
        engine.dispose()


def test_listener_reconnects_after_its_connection_is_killed(pg_url: str) -> None:
    listener, got = _listen(pg_url)
    engine = sa.create_engine(pg_url)
    try:
        pid = listener.backend_pid
        with engine.begin() as c:
            assert c.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
        assert _take(got, 15) == RESYNC  # reconnected (after a backoff) and says so
        assert listener.connections == 2 and listener.backend_pid != pid
        with engine.begin() as c:
            notify(c, {"after": "reconnect"}, CHANNEL)
        assert _take(got) == {"after": "reconnect"}
    finally:
        listener.stop()
        engine.dispose()


def test_notify_is_a_no_op_on_sqlite(tmp_path: Any) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with engine.begin() as c:
        assert notify(c, {"n": 1}) is False
        assert notify_all(c, [{"n": 1}, {"n": 2}]) == 0
    engine.dispose()
    with pytest.raises(ValueError, match="bad channel"):
        Listener("postgresql+psycopg://u@127.0.0.1/db", print, channel="no; drop")

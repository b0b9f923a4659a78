"""Issue 20: a database outage reads as an outage, and tables move back to a restarted process.

- The database cut off from every process for 5 s (longer than a lease; a loopback relay in front of the shared
  PostgreSQL plays the restart: every session dropped, new ones refused): every table keeps its owner *and its
  generation* (before the fix every process looked dead to the others once the database was back: all tables
  changed owner, some twice), a player's request meanwhile gets the retryable ``unavailable`` (not
  ``server_error``), on the WebSocket and over REST, its socket stays where it is, no traceback is logged; once
  the database is back the same player plays on.
- A process killed and started again gets its share of the tables back while players sit at all of them (before:
  only idle tables were given back, so the survivor kept every table with a player).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from ops_support import ADMIN, Player, create_table

from tablegames.loadtest.cluster import Cluster
from tablegames.loadtest.relay import DatabaseRelay
from tablegames.rules import registry

pytestmark = pytest.mark.timeout(180)


def leases(url: str) -> dict[int, tuple[str, int, bool]]:
    """table -> (owner, generation, lease live now)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            rows = c.execute(
                sa.text(
                    "SELECT table_id, node, generation, expires_at > EXTRACT(EPOCH FROM clock_timestamp()) "
                    "FROM table_leases ORDER BY table_id"
                )
            ).all()
    finally:
        engine.dispose()
    return {int(t): (str(n), int(g), bool(live)) for t, n, g, live in rows}


def wait_for(what: str, test: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.2)


def held(url: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for node, _, live in leases(url).values():
        if live:
            out[node] = out.get(node, 0) + 1
    return out


def test_a_database_outage_is_an_outage_not_every_process_dying(pg_url: str, tmp_path: Path) -> None:
    game = registry.DEFINITIONS[0]
    with DatabaseRelay(pg_url) as relay:
        cluster = Cluster(relay.url, 3, ADMIN, tmp_path, betting_seconds=1.0, turn_seconds=5.0).start()
        try:
            n1 = cluster.nodes[0]
            tables = [create_table(n1.url, game.key) for _ in range(6)]
            wait_for("every table owned, two a process", lambda: sorted(held(pg_url).values()) == [2, 2, 2])
            before = leases(pg_url)
            table = next(t for t, (node, _, _) in before.items() if node == "n1")
            ann = Player(n1.url, "ann", buy_in=50_000)
            ann.join(table, n1.url)

            relay.cut()  # PostgreSQL "restarts": every session dropped, none accepted for 5 s
            cut_at = time.monotonic()
            ann.send(type="wager", request_id="w-out", wagers={game.main_wager.name: 100})
            answer = ann.until(
                lambda m: m.get("request_id") == "w-out"
            )  # (never a server_error: Player.until)
            assert answer["type"] == "error" and answer["code"] == "unavailable", answer
            r = httpx.get(f"{n1.url}/me", headers=ann.headers, timeout=15)
            assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable", r.text
            time.sleep(max(0.0, 5.0 - (time.monotonic() - cut_at)))  # longer than a lease (3 s)
            relay.restore()

            time.sleep(6.0)  # the grace after an outage and several claim rounds
            after = leases(pg_url)
            assert {t: (n, g) for t, (n, g, _) in after.items()} == {
                t: (n, g) for t, (n, g, _) in before.items()
            }  # same owners, same generations: nobody took anything over
            assert all(live for _, _, live in after.values()), after  # every lease renewed
            assert sorted(after) == sorted(tables)

            ann.send(type="wager", request_id="w-back", wagers={game.main_wager.name: 100})
            assert ann.until(lambda m: m.get("request_id") == "w-back", timeout=20)["type"] == "ack"
            result = ann.until(lambda m: m["type"] == "round_result", timeout=40)
            assert result["balance"] == 50_000 + sum(x["net"] for x in result["results"])
            assert not any(m["type"] == "redirect" for m in ann.messages)  # its socket stayed where it was
            ann.close()
        finally:
            cluster.stop()
    logs = {n.name: n.log_path.read_text(errors="replace") for n in cluster.nodes}
    for name, text in logs.items():
        assert "Traceback" not in text, (name, text[-3000:])
        assert " lost table " not in text, name
    assert any("cannot reach the database" in text for text in logs.values())
    assert any("reaches the database again" in text for text in logs.values())


def test_tables_move_back_to_a_restarted_process_while_players_sit(
    make_cluster: Callable[..., Cluster], pg_url: str
) -> None:
    cluster = make_cluster(2, betting_seconds=1.0, turn_seconds=5.0)
    n1, _ = cluster.nodes
    game = registry.DEFINITIONS[0]
    tables = [create_table(n1.url, game.key) for _ in range(4)]
    wait_for("two tables a process", lambda: held(pg_url) == {"n1": 2, "n2": 2})
    players = []
    for k, table in enumerate(tables):  # somebody sits at every table
        p = Player(n1.url, f"p{k}", buy_in=10_000)
        p.join(table, n1.url)
        players.append(p)
    cluster.kill("n2")
    wait_for("n1 serves every table", lambda: held(pg_url) == {"n1": 4})
    cluster.restart("n2")
    wait_for("n2 has its share back", lambda: held(pg_url) == {"n1": 2, "n2": 2}, timeout=30)
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as c:
            seated = c.execute(sa.text("SELECT COUNT(*) FROM seatings")).scalar_one()
    finally:
        engine.dispose()
    assert seated == 4  # the players still sit (they are sent to the new owner when they come back)
    for p in players:
        p.close()

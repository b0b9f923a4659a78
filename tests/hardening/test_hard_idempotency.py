"""Hardening class: idempotency of every state-changing message (issue 11).

Random sequences of ``sit``, ``leave``, ``wager``, ``act`` and ``client_seed`` from two players with two sockets
each, mixed with exact replays of earlier requests (same ``request_id``) from either socket of the same player,
at any later point (after the state moved on, e.g. a ``sit`` replayed after a ``leave``). Every replay is answered
with the first answer marked ``"duplicate": true`` and changes nothing: seats, the round's steps and history, the
open decision, the seeds, every balance and the ledger are as they were. Runs on SQLite and, when
``TABLEGAMES_TEST_POSTGRES_URL`` is set, on PostgreSQL.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hard_support import make_app, postgres_url

from server_harness import ADMIN
from tablegames.server.ledger import check_ledger
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(600)

KINDS = ["sit", "leave", "wager", "act", "client_seed"]
LIMITS = Limits(ws_rate=10_000.0, ws_burst=10_000.0, http_rate=10_000.0, http_burst=10_000.0)


class Table:
    """A provably fair Let It Ride table with two players, two sockets each."""

    def __init__(self, url: str, stack: ExitStack) -> None:
        app = make_app(url, limits=LIMITS, source_factory=None)  # provably fair: client seeds are taken
        self.http = stack.enter_context(TestClient(app))
        self.server: Any = app.state.server
        r = self.http.post(
            "/tables",
            json={"game": "let-it-ride", "name": "idem", "seats": 2, "min_bet": 100, "max_bet": 1000},
            headers={"X-Admin-Token": ADMIN},
        )
        self.table_id = int(r.json()["table_id"])
        self.runner = self.server.runners[self.table_id]
        self.socks: list[list[Any]] = []
        self.ids = itertools.count()
        self.seeds: dict[tuple[int, str], str] = {}  # (player, commitment) -> the seed committed (issue 20)
        for i in range(2):
            body = self.http.post("/players", json={"name": f"idem{i}"}).json()
            headers = {"Authorization": f"Bearer {body['token']}"}
            self.http.post("/wallet/buy-in", json={"amount": 10**6, "request_id": "in"}, headers=headers)
            url_ws = f"/ws/tables/{self.table_id}?token={body['token']}"
            self.socks.append([stack.enter_context(self.http.websocket_connect(url_ws)) for _ in range(2)])
        self.sync()

    def sync(self) -> dict[tuple[int, int], list[dict[str, Any]]]:
        """Read every socket up to a ping marker; the messages each one got."""
        got: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for p, pair in enumerate(self.socks):
            for k, ws in enumerate(pair):
                marker = f"mark-{next(self.ids)}"
                ws.send_text(json.dumps({"type": "ping", "request_id": marker}))
                msgs = got.setdefault((p, k), [])
                while True:
                    m = ws.receive_json()
                    assert not (m["type"] == "error" and m.get("code") == "server_error"), m
                    if m["type"] == "pong" and m.get("request_id") == marker:
                        break
                    msgs.append(m)
        return got

    def send(self, p: int, k: int, msg: dict[str, Any]) -> dict[str, Any]:
        """Send from player ``p``'s socket ``k``; the ack or error answering it."""
        self.socks[p][k].send_text(json.dumps(msg))
        got = self.sync()[p, k]
        answers = [
            m for m in got if m["type"] in ("ack", "error") and m.get("request_id") == msg["request_id"]
        ]
        assert len(answers) == 1, (msg, got)
        return answers[0]

    def fresh(self, kind: str, p: int, n: int) -> dict[str, Any]:
        """A new request of ``kind`` for player ``p`` that makes sense now (it may still be refused)."""
        msg: dict[str, Any] = {"type": kind, "request_id": f"{kind}-{p}-{next(self.ids)}"}
        live = self.runner.live
        if kind == "wager":
            msg["wagers"] = {"bets": 100 + 100 * (n % 3)} if n % 4 else {"bets": 200, "bonus": 100}
        elif kind == "act":
            msg["decision"] = self.runner.decision_id()
            legal = live.rnd.legal_actions(live.rnd.to_act) if live is not None and live.rnd.to_act else []
            msg["action"] = str(legal[n % len(legal)]) if legal else "ride"
        elif kind == "client_seed":  # commit to a seed (its SHA-256), or reveal the one committed (issue 20)
            msg["commitment"] = commitment = self.runner.state.upcoming_pf().commitment
            pending = self.seeds.get((p, commitment))
            if pending is None or n % 2 == 0:
                seed = f"seed-{n}"
                msg["seed_hash"] = hashlib.sha256(seed.encode()).hexdigest()
                if not self.runner.seed_round.closed:
                    self.seeds[p, commitment] = seed
            else:
                msg["seed"] = pending
        return msg

    def snapshot(self) -> Any:
        live = self.runner.live
        with self.server.sessions() as s:
            balances = sorted(s.execute(sa.text("SELECT id, balance FROM accounts")).all())
            steps = s.execute(sa.text("SELECT COUNT(*) FROM round_steps")).scalar()
            check = check_ledger(s)
        assert check.ok, check
        return (
            {seat: p.player_id for seat, p in self.runner.occupants.items()},
            None if live is None else (live.round_id, live.steps, len(live.rnd.history), live.settled),
            self.runner.decision_id(),
            self.runner.seed_round.snapshot(),
            balances,
            steps,
        )


def run(url: str, script: list[tuple[int, int, int, bool, int]]) -> int:
    """Play ``script`` (kind, player, socket, replay?, n); returns how many replays were checked."""
    replays = 0
    with ExitStack() as stack:
        t = Table(url, stack)
        sent: list[tuple[int, dict[str, Any], dict[str, Any]]] = []  # player, request, its first answer
        for kind_i, p, k, replay, n in script:
            earlier = [x for x in sent if x[0] == p]
            if replay and earlier:
                _, msg, first = earlier[n % len(earlier)]
                before = t.snapshot()
                again = t.send(p, k, msg)
                assert again == {**first, "duplicate": True}, (msg, first, again)
                assert t.snapshot() == before, msg
                replays += 1
                continue
            msg = t.fresh(KINDS[kind_i], p, n)
            answer = t.send(p, k, msg)
            if answer["type"] == "ack":
                assert answer["duplicate"] is False, answer
                sent.append((p, msg, answer))
    return replays


steps = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 1), st.integers(0, 1), st.booleans(), st.integers(0, 10**6)),
    min_size=15,
    max_size=45,
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(script=steps)
def test_every_state_changing_message_repeated_changes_nothing_sqlite(script: list[Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="hard-idem-") as tmp:
        run(f"sqlite:///{Path(tmp) / 'idem.sqlite3'}", script)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(script=steps)
def test_every_state_changing_message_repeated_changes_nothing_postgres(script: list[Any]) -> None:
    with postgres_url() as url:
        if url is None:
            pytest.skip("TABLEGAMES_TEST_POSTGRES_URL is not set")
        run(url, script)


def test_a_fixed_script_replays_every_kind() -> None:
    """The generator's coverage, pinned: each kind is accepted once and then replayed after the state moved on."""
    script = [
        (0, 0, 0, False, 0),  # p0 sits
        (0, 1, 0, False, 0),  # p1 sits
        (4, 0, 1, False, 1),  # p0 sets a seed
        (2, 0, 0, False, 1),  # p0 wagers
        (2, 1, 1, False, 1),  # p1 wagers: dealt
        (3, 0, 0, False, 0),  # p0 acts (its turn)
        (3, 1, 0, False, 0),  # p1 acts
        (0, 0, 1, True, 0),  # replays of p0's: the sit, the seed, the wager, the act...
        (0, 0, 0, True, 1),
        (0, 0, 1, True, 2),
        (0, 0, 0, True, 3),
        (0, 1, 1, True, 2),  # ...and p1's act, from its other socket
        (3, 0, 0, False, 1),
        (3, 1, 0, False, 1),
        (1, 1, 0, False, 0),  # p1 leaves after the round
        (0, 1, 1, True, 0),  # p1's first sit replayed: it stays out
        (0, 1, 0, True, 4),
    ]
    with tempfile.TemporaryDirectory(prefix="hard-idem-") as tmp:
        assert run(f"sqlite:///{Path(tmp) / 'idem.sqlite3'}", script) >= 7

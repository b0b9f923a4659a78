"""A hypothesis state machine drives one table from several clients with random sequences of valid and invalid
WebSocket messages (sitting, leaving, wagers good and bad, repeated request ids, actions in and out of turn, for
other seats, garbage, reconnects), and now and then plays the round out.

After every step: no ``server_error`` (the WebSocket's 500), no negative balance, the ledger balances (every
account equals its entries, transactions sum to zero, all accounts sum to zero), every wallet equals its buy-in
plus the nets of its settled rounds minus what it has in play (no lost or duplicated payment), and the stakes in
play equal the open round's. When a round is over it must have been settled (no stuck table), and every card any
client received during it is checked against the engine's full history: a client only ever got a card that was
public, its own, or already revealed at that point of the round.
"""

from __future__ import annotations

import json
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from sqlalchemy import select
from test_hard_support import make_app

from secrecy import RULE_DATA, allowed, cards_in, leaked_texts, strings_in
from server_harness import ADMIN
from tablegames.rules import GAMES, registry
from tablegames.server.db import RoundPlayer
from tablegames.server.ledger import check_ledger
from tablegames.server.limits import Limits

pytestmark = pytest.mark.timeout(600)

PLAYERS = 3
BUY_IN = 1_000_000
MAX_BET = 1_000


def good_wagers(game: str) -> list[tuple[dict[str, int], dict[str, str]]]:
    """The main wager alone, and with each side bet (its fixed amount, else 100 cents; its option's default),
    from the game's definition: every registered game, a game added later included."""
    d = registry.get(game)
    rules = d.make_rules()
    main = d.main_wager.name
    out: list[tuple[dict[str, int], dict[str, str]]] = [({main: 100}, {})]
    for w in d.side_bets:
        fixed = w.fixed_cents(rules)
        options = {w.name: w.option.default or w.option.choices[0]} if w.option else {}
        out.append(({main: 300, w.name: fixed if fixed is not None else 100}, options))
    return out


WAGER_NAMES = sorted({w.name for d in registry.DEFINITIONS for w in d.wagers} | {"x"})
OPTION_TEXTS = sorted(
    {c for d in registry.DEFINITIONS for w in d.wagers if w.option for c in w.option.choices[:3]}
)
ACTIONS = [
    *sorted({x.name for d in registry.DEFINITIONS for x in d.decisions if not x.indexed}),
    *sorted(
        {f"{x.name} {i}" for d in registry.DEFINITIONS for x in d.decisions if x.indexed for i in range(4)}
    ),
    "fly",
    "",
    "discard -1",
]
GARBAGE = [
    "not json",
    "[1, 2, 3]",
    '"just a string"',
    "{}",
    '{"type": 42}',
    '{"type": "teleport"}',
    '{"type": "sit", "seat": "one"}',
    '{"type": "sit", "seat": 99}',
    '{"type": "wager", "wagers": {"main": 100}}',
    '{"type": "wager", "request_id": "", "wagers": {"main": 100}}',
    '{"type": "wager", "request_id": "' + "r" * 65 + '", "wagers": {"main": 100}}',
    '{"type": "wager", "request_id": "g1", "wagers": []}',
    '{"type": "wager", "request_id": "g2", "wagers": {"main": 100}, "options": {"main": 7}}',
    '{"type": "act"}',
    '{"type": "act", "action": ["stand"]}',
    '{"type": "hints", "on": "yes"}',
    '{"type": "wager", "request_id": "g3", "wagers": {"main": 1e400}}',
    '{"type": "wager", "request_id": "g4", "wagers": {"main": 99999999999999999999999999}}',
    "\u0000\u0001",
]
amounts = st.one_of(
    st.integers(min_value=-200, max_value=2 * MAX_BET),
    st.sampled_from([0, 1, 99, 100, MAX_BET, MAX_BET + 1, 10**15]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["100", None, True, [100], {"x": 1}]),
)


NOT_DERIVED = frozenset({"name", "message", "player", "occupants", "table", "source"}) | RULE_DATA


class Client:
    def __init__(self, client: TestClient, stack: ExitStack, token: str, table_id: int) -> None:
        self.client = client
        self.stack = stack
        self.token = token
        self.table_id = table_id
        self.open()
        self.rids: list[str] = []

    def open(self) -> None:
        self.ws = self.stack.enter_context(
            self.client.websocket_connect(f"/ws/tables/{self.table_id}?token={self.token}")
        )

    def send(self, payload: Any) -> None:
        self.ws.send_text(payload if isinstance(payload, str) else json.dumps(payload))


class TableMachine(RuleBasedStateMachine):
    game = "one-eyed-flush"

    def __init__(self) -> None:
        super().__init__()
        self.stack = ExitStack()
        self.tmp = tempfile.TemporaryDirectory(prefix="hard-sm-")
        app = make_app(
            f"sqlite:///{Path(self.tmp.name) / 'sm.sqlite3'}",
            seed=20261130,  # fixed decks: hypothesis needs the same draws for the same steps
            limits=Limits(ws_rate=10_000.0, ws_burst=10_000.0, http_rate=10_000.0, http_burst=10_000.0),
        )
        self.http = self.stack.enter_context(TestClient(app))
        self.server: Any = app.state.server
        r = self.http.post(
            "/tables",
            json={"game": self.game, "name": "fuzz", "seats": PLAYERS, "min_bet": 100, "max_bet": MAX_BET},
            headers={"X-Admin-Token": ADMIN},
        )
        self.table_id = int(r.json()["table_id"])
        self.runner = self.server.runners[self.table_id]
        self.clients: list[Client] = []
        self.players: list[dict[str, Any]] = []
        # (round_id, seat at the time, seq, message) of every message received before its round was over
        self.seen: list[tuple[int, int | None, int, dict[str, Any]]] = []
        self.checked_rounds: set[int] = set()
        self.counter = 0

    @initialize()
    def players_join(self) -> None:
        for i in range(PLAYERS):
            body = self.http.post("/players", json={"name": f"p{i}"}).json()
            headers = {"Authorization": f"Bearer {body['token']}"}
            self.http.post("/wallet/buy-in", json={"amount": BUY_IN, "request_id": "init"}, headers=headers)
            self.players.append({"id": body["player_id"], "headers": headers})
            self.clients.append(Client(self.http, self.stack, body["token"], self.table_id))
        for c in self.clients[:2]:  # two players sit down at once; the third may later
            c.send({"type": "sit", "request_id": self.rid()})
        self.sync()

    def teardown(self) -> None:
        try:
            if self.clients:
                self.sync()
                self.check_secrecy()
        finally:
            self.stack.close()
            self.tmp.cleanup()

    # --- plumbing ---------------------------------------------------------------------------------------

    def rid(self) -> str:
        self.counter += 1
        return f"r{self.counter}"

    def sync(self) -> None:
        """Read every client's messages up to a ping marker, checking each one."""
        for c in self.clients:
            marker = self.rid()
            c.send({"type": "ping", "request_id": marker})
            while True:
                m = c.ws.receive_json()
                self.check_message(m)
                if m["type"] == "pong" and m.get("request_id") == marker:
                    break

    def check_message(self, m: dict[str, Any]) -> None:
        assert not (m["type"] == "error" and m.get("code") == "server_error"), m
        if m["type"] == "error":
            assert m.get("code") and m.get("message"), m
        if m["type"] == "state":
            assert m["balance"] >= 0, m
            rnd = m.get("round")
            if rnd is not None and rnd["phase"] != "settled" and m.get("round_id") is not None:
                self.seen.append((int(m["round_id"]), m.get("seat"), int(m["seq"]), m))

    def seated_clients(self) -> dict[int, Client]:
        occupants = self.runner.occupants
        out = {}
        for seat, info in occupants.items():
            for i, p in enumerate(self.players):
                if p["id"] == info.player_id:
                    out[seat] = self.clients[i]
        return out

    # --- rules: anything a client may send --------------------------------------------------------------

    @rule(i=st.integers(0, PLAYERS - 1), seat=st.one_of(st.none(), st.integers(-1, PLAYERS + 1)))
    def sit(self, i: int, seat: int | None) -> None:
        msg: dict[str, Any] = {"type": "sit", "request_id": self.rid()}
        if seat is not None:
            msg["seat"] = seat
        self.clients[i].send(msg)
        self.sync()

    @rule(i=st.integers(0, PLAYERS - 1))
    def leave(self, i: int) -> None:
        self.clients[i].send({"type": "leave", "request_id": self.rid()})
        self.sync()

    @rule(i=st.integers(0, PLAYERS - 1), good=st.integers(0, 3))
    def good_wager(self, i: int, good: int) -> None:
        choices = good_wagers(self.game)
        wagers, options = choices[good % len(choices)]
        msg: dict[str, Any] = {"type": "wager", "request_id": self.rid(), "wagers": wagers}
        if options:
            msg["options"] = options
        self.clients[i].rids.append(msg["request_id"])
        self.clients[i].send(msg)
        self.sync()

    @rule(
        i=st.integers(0, PLAYERS - 1),
        names=st.lists(st.sampled_from(WAGER_NAMES), max_size=3),
        amount=amounts,
        option=st.one_of(st.none(), st.sampled_from([*OPTION_TEXTS, "0", "eleven", ""])),
    )
    def any_wager(self, i: int, names: list[str], amount: Any, option: str | None) -> None:
        msg: dict[str, Any] = {
            "type": "wager",
            "request_id": self.rid(),
            "wagers": {n: amount for n in names},
        }
        if option is not None:
            msg["options"] = {names[0] if names else "flip": option}
        self.clients[i].send(json.dumps(msg, allow_nan=True))
        self.sync()

    @precondition(lambda self: any(c.rids for c in self.clients))
    @rule(i=st.integers(0, PLAYERS - 1), data=st.data())
    def repeat_a_wager(self, i: int, data: st.DataObject) -> None:
        c = self.clients[i]
        if not c.rids:
            return
        rid = data.draw(st.sampled_from(c.rids))
        c.send({"type": "wager", "request_id": rid, "wagers": good_wagers(self.game)[0][0]})
        self.sync()

    @rule(
        i=st.integers(0, PLAYERS - 1),
        action=st.sampled_from(ACTIONS),
        seat=st.one_of(st.none(), st.integers(0, PLAYERS + 1)),
    )
    def act(self, i: int, action: str, seat: int | None) -> None:
        msg: dict[str, Any] = {"type": "act", "request_id": self.rid(), "action": action}
        decision = self.runner.decision_id()
        if decision is not None:
            msg["decision"] = decision
        if seat is not None:
            msg["seat"] = seat
        self.clients[i].send(msg)
        self.sync()

    @rule(
        i=st.integers(0, PLAYERS - 1),
        seed=st.one_of(st.text(max_size=70), st.none(), st.integers()),
        commitment=st.one_of(st.none(), st.sampled_from(["0" * 64, "", "x"])),
    )
    def client_seed(self, i: int, seed: Any, commitment: Any) -> None:
        """A seed at a table that deals from a test source (or a bad one): a clear refusal, nothing changed."""
        self.clients[i].send(
            {"type": "client_seed", "request_id": self.rid(), "seed": seed, "commitment": commitment}
        )
        self.sync()

    @rule(i=st.integers(0, PLAYERS - 1), text=st.one_of(st.sampled_from(GARBAGE), st.text(max_size=40)))
    def garbage(self, i: int, text: str) -> None:
        self.clients[i].send(text)
        self.sync()

    @rule(i=st.integers(0, PLAYERS - 1), on=st.booleans())
    def hints_or_state(self, i: int, on: bool) -> None:
        self.clients[i].send({"type": "hints", "on": on, "request_id": self.rid()})
        self.clients[i].send({"type": "state"})
        self.sync()

    @rule(i=st.integers(0, PLAYERS - 1))
    def reconnect(self, i: int) -> None:
        self.clients[i].ws.close()
        self.clients[i].open()
        self.sync()
        st_msg = None
        c = self.clients[i]
        c.send({"type": "state"})
        marker = self.rid()
        c.send({"type": "ping", "request_id": marker})
        while True:
            m = c.ws.receive_json()
            self.check_message(m)
            if m["type"] == "state":
                st_msg = m
            if m["type"] == "pong" and m.get("request_id") == marker:
                break
        assert st_msg is not None
        seat = next((s for s, cl in self.seated_clients().items() if cl is c), None)
        assert st_msg["seat"] == seat  # the seat comes back with the new socket

    @rule(choice=st.randoms(use_true_random=False))
    def play_round_out(self, choice: Any) -> None:
        """Every seated player wagers (if not yet), then whoever is to act takes a legal action, until the round
        is over: a table never gets stuck."""
        seated = self.seated_clients()
        if not seated:
            return
        live = self.runner.live
        joined: int | None = None  # the round the wagers below joined
        if live is None or live.rnd.is_over or live.rnd.phase.value == "betting":
            for seat, c in seated.items():
                live = self.runner.live
                if joined is not None and (live is None or live.round_id != joined or live.rnd.is_over):
                    break  # dealt by the last wager and over already (Final Count needs no decision): played
                if live is not None and not live.rnd.is_over and live.rnd.seats[seat].playing:
                    continue
                if live is not None and not live.rnd.is_over and live.rnd.phase.value != "betting":
                    break
                c.send({"type": "wager", "request_id": self.rid(), "wagers": good_wagers(self.game)[0][0]})
                self.sync()
                joined = self.runner.live.round_id if self.runner.live is not None else None
        live = self.runner.live
        assert live is not None
        round_id = live.round_id
        # the last wager is acked on the loop, the deal runs on the table's worker: give it time (a loaded box)
        for _ in range(100):
            if self.runner.live.rnd.is_over or self.runner.live.rnd.phase.value != "betting":
                break
            time.sleep(0.05)
            self.sync()
        for _ in range(40):
            rnd = self.runner.live.rnd
            if rnd.is_over:
                break
            assert rnd.phase.value == "deciding", "every seated player wagered but the cards were not dealt"
            seat = rnd.to_act
            assert seat is not None and rnd.legal_actions(seat), "a deciding round with nobody to act"
            action = choice.choice([str(a) for a in rnd.legal_actions(seat)])
            act = {
                "type": "act",
                "request_id": self.rid(),
                "action": action,
                "decision": self.runner.decision_id(),
            }
            self.seated_clients()[seat].send(act)
            self.sync()
        assert self.runner.live.rnd.is_over and self.runner.live.settled, "the round did not finish"
        assert self.http.get(f"/rounds/{round_id}").status_code == 200
        self.check_secrecy()

    @rule(choice=st.randoms(use_true_random=False))
    def play_another_round(self, choice: Any) -> None:
        self.play_round_out(choice)

    # --- invariants -----------------------------------------------------------------------------------

    @invariant()
    def money_is_conserved(self) -> None:
        if not self.players:
            return
        with self.server.sessions() as s:
            check = check_ledger(s)
            nets: dict[int, int] = {}
            for pid, net in s.execute(select(RoundPlayer.player_id, RoundPlayer.net)):
                nets[pid] = nets.get(pid, 0) + int(net)
        assert check.ok, check
        live = self.runner.live
        in_play: dict[int, int] = {}
        if live is not None and not live.settled:
            for seat, pid in live.seat_players.items():
                in_play[pid] = live.rnd.seats[seat].staked
        totals = dict(self.http_totals())
        assert totals.get("in_play", 0) == sum(in_play.values())
        for p in self.players:
            balance = int(self.http.get("/me", headers=p["headers"]).json()["balance"])
            assert balance >= 0
            assert balance == BUY_IN + nets.get(p["id"], 0) - in_play.get(p["id"], 0), p

    def http_totals(self) -> dict[str, int]:
        import sqlalchemy as sa

        with self.server.sessions() as s:
            return {
                str(k): int(v)
                for k, v in s.execute(sa.text("SELECT kind, SUM(balance) FROM accounts GROUP BY kind")).all()
            }

    def check_secrecy(self) -> None:
        """Every card any client got before its round was over was public, its own, or already revealed."""
        by_round: dict[int, list[tuple[int | None, int, dict[str, Any]]]] = {}
        for round_id, seat, seq, m in self.seen:
            by_round.setdefault(round_id, []).append((seat, seq, m))
        for round_id, messages in by_round.items():
            if round_id in self.checked_rounds:
                continue
            r = self.http.get(f"/rounds/{round_id}")
            if r.status_code != 200:
                continue  # still open: checked once it is over
            history = r.json()["events"]
            for seat, seq, m in messages:
                ok = allowed(history, seat, seq)
                shown = cards_in(m["round"]) | cards_in(m["events"])
                assert shown <= ok, (round_id, seat, seq, shown - ok)
                # no text derived from a hidden card either (a bust's "No Pair (28)")
                texts = strings_in(m["round"], NOT_DERIVED) | strings_in(m["events"], NOT_DERIVED)
                # its own hand, described to it (view "hands", shared contract 2), may match another's by chance
                texts -= strings_in(((m["round"] or {}).get("hands") or {}).get(str(seat), {}), NOT_DERIVED)
                told = leaked_texts(history, seat, seq, texts)
                assert not told, (round_id, seat, seq, told)
                # and every shown event card is the true card at that deck position
                for e in m["events"]:
                    if e["type"] == "card_dealt" and e["card"] is not None:
                        truth = next(
                            h for h in history if h["type"] == "card_dealt" and h["position"] == e["position"]
                        )
                        assert e["card"] == truth["card"]
            self.checked_rounds.add(round_id)
        self.seen = [x for x in self.seen if x[0] not in self.checked_rounds]


SETTINGS = settings(
    max_examples=8,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)


def _machine_test(game: str) -> Any:
    machine = type(f"Machine_{game}", (TableMachine,), {"game": game})
    case = machine.TestCase
    case.settings = SETTINGS
    return case


# one state machine per registered game (a game added later gets its own)
for _game in GAMES:
    globals()[f"TestTable_{_game.replace('-', '_')}"] = _machine_test(_game)


def test_the_secrecy_check_can_fail() -> None:
    """The checker itself: a face-down card of another seat, shown early, is caught."""
    history = [
        {"type": "round_started"},
        {"type": "card_dealt", "to": "seat 1", "position": 0, "card": "As", "visible_to": "seat 1"},
        {"type": "card_dealt", "to": "seat 2", "position": 1, "card": "Kd", "visible_to": "seat 2"},
        {"type": "card_dealt", "to": "dealer", "position": 2, "card": "7c", "visible_to": "all"},
        {"type": "cards_revealed", "owner": "seat 2", "cards": ["Kd"]},
    ]
    assert allowed(history, 1, 4) == {"As", "7c"}
    assert allowed(history, 1, 5) == {"As", "7c", "Kd"}
    assert allowed(history, None, 4) == {"7c"}
    assert not cards_in({"seats": [{"cards": ["Kd", None]}]}) <= allowed(history, 1, 4)
    assert cards_in({"round": {"wild_cards": ["Kd"]}}) == set()  # the table's rules, not a dealt card


def test_the_description_check_can_fail() -> None:
    """The checker itself: another seat's bust described before its cards are shown is caught (issue 11, 9)."""
    history = [
        {"type": "round_started"},
        {"type": "card_dealt", "to": "seat 1", "position": 0, "card": "As", "visible_to": "seat 1"},
        {"type": "card_dealt", "to": "seat 2", "position": 1, "card": "Kd", "visible_to": "seat 2"},
        {"type": "settled", "seat": 2, "wager": "main", "staked": 1, "returned": 0, "outcome": "bust",
         "detail": "No Pair (21)", "visible_to": "seat 2"},
        {"type": "cards_revealed", "owner": "seat 2", "cards": ["Kd"]},
    ]  # fmt: skip
    told = {"you lose", "No Pair (21)"}
    assert leaked_texts(history, 1, 4, told) == {"No Pair (21)"}
    assert leaked_texts(history, None, 4, told) == {"No Pair (21)"}
    assert leaked_texts(history, 2, 4, told) == set()  # its own hand
    assert leaked_texts(history, 1, 5, told) == set()  # shown

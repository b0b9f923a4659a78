"""Issue 28: a push builds each socket's ``state`` from parts encoded once (each seat's view once per push, each
event once per round as a seat sees it: server/push.py), and every socket still gets the very text the builder
before gave it, byte for byte: the reference below (one dict per socket, the one-viewer ``round_view``, the
events redacted by the rule as it was, the whole own part encoded at once).

Every push of whole sessions is checked, at tables of every game: three seats with every side bet, a player with
two sockets, an onlooker watching and a logged-in one, hints, a socket reconnected mid-round, rounds one after
another, tables with and without client seeds. And first: no state carries a card its socket's seat may not see
yet (the engine's history says which).
"""

from __future__ import annotations

import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_server_support import every_wager, play_round

import tablegames.server.push as push_module
from secrecy import allowed, cards_in
from server_harness import WS, Harness
from tablegames.engine import Phase
from tablegames.engine.events import PUBLIC, CardDealt, CardDiscarded, Event, Settled, seat_name
from tablegames.engine.view import round_view
from tablegames.rules import GAMES, registry
from tablegames.server.client import Connection
from tablegames.server.limits import Limits
from tablegames.server.push import Pusher
from tablegames.server.wire import decode, encode_bytes, splice

pytestmark = pytest.mark.timeout(300)

FAST = Limits(ws_rate=10_000.0, ws_burst=10_000.0, http_rate=10_000.0, http_burst=10_000.0)


def reference_event(e: Event, seat: int | None, settled: bool) -> dict[str, Any]:
    """An event as the seat saw it before (``for_viewer``'s rule written out): a card dealt or discarded face
    down to another seat as None, a settlement's detail only for its seat (all of it once the round is over)."""
    d = e.to_dict()
    if settled:
        return d
    mine = seat is not None and getattr(e, "visible_to", PUBLIC) == seat_name(seat)
    if isinstance(e, CardDealt | CardDiscarded) and not (e.visible_to == PUBLIC or mine):
        d["card"] = None
    if isinstance(e, Settled) and not (e.visible_to == PUBLIC or mine):
        d["detail"] = ""
    return d


def reference_own(p: Pusher, conn: Connection, seat: int | None, balances: dict[int, int]) -> dict[str, Any]:
    """The socket's own part as it was built before (marks its events sent, as before)."""
    state = p.state
    live = state.live
    view = None
    events: list[dict[str, Any]] = []
    if live is not None:
        rnd = live.rnd
        view = round_view(rnd, seat)
        if conn.round_key != rnd.round_no:
            conn.round_key = rnd.round_no
            conn.sent = 0
        settled = rnd.phase == Phase.SETTLED
        events = [reference_event(e, seat, settled) for e in rnd.history[conn.sent :]]
        conn.sent = len(rnd.history)
    fair = state.server.config.deck_factory is None and state.server.config.source_factory is None
    return {
        "seat": seat,
        "balance": balances.get(conn.player.account_id, state.server.balance(conn.player)),
        "client_seed": p._own_seed(conn.player.player_id) if fair else None,
        "may_seat_bots": state.server.config.practice_bots and seat is not None,
        "round": view,
        "events": events,
    }


def reference_texts(p: Pusher, conns: list[Connection]) -> list[str]:
    """Every socket's ``state`` text as the builder before made it (the common part is the same code)."""
    p.timers.schedule()
    p._meters_shown = p.live_meters()
    balances = p._balances(conns)
    try:
        head = encode_bytes(p.common_state())
        return [
            splice(head, reference_own(p, c, p.state.seat_of(c.player.player_id), balances)) for c in conns
        ]
    finally:
        p._meters_shown = None


class Checked:
    """Every ``Pusher.changed`` runs the reference first (at the same frozen clock, the sockets' marks put
    back after it), then the real push, whose ``state`` texts must be the reference's; and no state may carry
    a card its seat may not see yet."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.local = threading.local()
        self.pushes = 0
        self.texts = 0
        self.shared = 0  # texts handed to more than one socket
        self.hidden = 0  # states of an open round with a card hidden from the socket
        self.failures: list[str] = []
        self.real_changed = Pusher.changed
        real_send_all = push_module.send_all

        def send_all(messages: list[tuple[Connection, str]]) -> None:
            sent = getattr(self.local, "sent", None)
            if sent is not None:
                sent.extend(messages)
            real_send_all(messages)

        def now() -> float:
            frozen = getattr(self.local, "now", None)
            return time.time() if frozen is None else float(frozen)

        monkeypatch.setattr(push_module, "send_all", send_all)
        monkeypatch.setattr(push_module, "time", types.SimpleNamespace(time=now))

        def changed(p: Pusher, only: list[Connection] | None = None) -> dict[int, int]:
            return self.changed(p, only)

        monkeypatch.setattr(Pusher, "changed", changed)

    def changed(self, p: Pusher, only: list[Connection] | None = None) -> dict[int, int]:
        conns = list(p.state.conns) if only is None else only
        marks = [(c.round_key, c.sent) for c in conns]
        self.local.now = time.time()
        try:
            want = reference_texts(p, conns)
            for c, (key, sent) in zip(conns, marks, strict=True):
                c.round_key, c.sent = key, sent
            self.local.sent = []
            shown = self.real_changed(p, only)
            got = [(c, t) for c, t in self.local.sent if t.startswith('{"type":"state"')]
        finally:
            self.local.now = None
            self.local.sent = None
        for check in (self.same, self.secret):
            try:
                check(p, conns, want, got)
            except AssertionError as exc:  # (raised on the table's thread: kept for the test)
                self.failures.append(f"{check.__name__}: {exc}")
        return shown

    def same(
        self, p: Pusher, conns: list[Connection], want: list[str], got: list[tuple[Connection, str]]
    ) -> None:
        """Each socket's text is the reference's."""
        self.pushes += 1
        assert [c for c, _ in got] == conns
        for (c, text), ref in zip(got, want, strict=True):
            assert text == ref, (c.player.name, text, ref)
            self.texts += 1
        self.shared += len(got) - len({id(t) for _, t in got})

    def secret(
        self, p: Pusher, conns: list[Connection], want: list[str], got: list[tuple[Connection, str]]
    ) -> None:
        """No state of an open round carries a card its seat may not see yet."""
        live = p.state.live
        if live is None or live.rnd.phase == Phase.SETTLED:
            return
        history = [e.to_dict() for e in live.rnd.history]
        for c, text in got:
            seat = p.state.seat_of(c.player.player_id)
            may = allowed([*history, {"type": "(more)"}], seat, len(history))
            assert cards_in(decode(text)) <= may, (c.player.name, seat, text)
            self.hidden += bool(cards_in(history) - may)


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Checked]:
    checked = Checked(monkeypatch)
    yield checked
    assert not checked.failures, checked.failures[0]


def session(h: Harness, game: str, rounds: int) -> None:
    """A session at a new table of ``game``: Ann (two sockets, hints on), Bo and Cy seated with every side
    bet; an onlooker watching, Di logged in but not seated; Ann's second socket reconnects mid-round."""
    table = h.table(game, seats=5)
    wagers, options, _ = every_wager(registry.get(game), 300)
    tokens = {name: h.player(f"{name}{game[:4]}")[0] for name in ("Ann", "Bo", "Cy", "Di")}
    seated: dict[int, WS] = {}
    for seat, name in ((1, "Ann"), (3, "Bo"), (4, "Cy")):
        ws = h.ws(tokens[name], table)
        assert ws.request(type="sit", seat=seat)["type"] == "ack"
        seated[seat] = ws
    seated[1].request(type="hints", on=True)
    second = [h.ws(tokens["Ann"], table)]
    WS(h.client, None, table, h.stack, watch=True).until(lambda m: m["type"] == "state")
    h.ws(tokens["Di"], table)
    for n in range(rounds):
        reconnected = False

        def choose(seat: int, st: dict[str, Any], n: int = n) -> str:
            nonlocal reconnected
            if not reconnected:  # mid-round: Ann's second socket drops and comes back
                reconnected = True
                second[0].ws.close()
                second[0] = h.ws(tokens["Ann"], table)
            legal: list[str] = st["round"]["legal_actions"]
            return legal[(seat + n) % len(legal)]

        play_round(seated, dict.fromkeys(seated, wagers), dict.fromkeys(seated, options), choose=choose)


@pytest.mark.parametrize("game", GAMES)
def test_every_socket_gets_the_reference_text(
    make_server: Callable[..., Harness], checked: Checked, game: str
) -> None:
    fair = GAMES.index(game) % 2 == 0  # (client seeds on half the tables: no test source there)
    h = make_server(limits=FAST, **({"source_factory": None} if fair else {}))
    session(h, game, rounds=3)
    assert checked.pushes >= 8 and checked.texts > 5 * checked.pushes // 2
    assert checked.shared > 0  # (Ann's two sockets, sharing one text, were checked)
    assert checked.hidden > 0  # (not vacuous: states of open rounds with cards hidden from their socket)


def test_a_wrong_text_is_caught(make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: a push that showed every socket every event whole is told apart, and its hidden
    cards are found."""
    checked = Checked(monkeypatch)
    monkeypatch.setattr(
        push_module, "seen_whole", lambda rnd, seat, start=0: [True] * (len(rnd.history) - start)
    )
    h = make_server(limits=FAST)
    session(h, GAMES[0], rounds=1)
    kinds = {f.split(":")[0] for f in checked.failures}
    assert kinds == {"same", "secret"}, checked.failures[:1]

"""Player protection (issue 26): deposit and loss limits (the lowest wins, a refusal changes nothing), the 24-hour
cooling-off of an increase, the session limit, reality checks, the inactivity time-out, the previous login,
breaks and self-exclusion (sockets closed within a second, nobody lifts one early, it survives a restart). Every
time rule runs on the server's injected clock: the tests move it instead of waiting."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import TypeAdapter
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from server_harness import WS, Harness
from tablegames.cli import app
from tablegames.server.contract import ServerMessage
from tablegames.server.db import AuditEntry, PlayerSession, RoundRow
from tablegames.server.protection import CLOSE_EXCLUDED, COOLING_OFF, DAY, Guard, Guards
from tablegames.server.recovery import without_returned
from tablegames.server.sessions import CLOSE_SESSION_ENDED

pytestmark = pytest.mark.timeout(180)
SERVER = TypeAdapter(ServerMessage)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def register(h: Harness, name: str, **body: Any) -> dict[str, str]:
    r = h.client.post("/players", json={"name": name, **body})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def buy_in(h: Harness, headers: dict[str, str], amount: int, rid: str) -> Any:
    return h.client.post("/wallet/buy-in", json={"amount": amount, "request_id": rid}, headers=headers)


def protection(h: Harness, headers: dict[str, str]) -> dict[str, Any]:
    r = h.client.get("/protection", headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json())


def set_limits(h: Harness, headers: dict[str, str], **limits: Any) -> dict[str, Any]:
    r = h.client.put("/protection/limits", json=limits, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json())


def closed_with(ws: WS, code: str) -> int:
    """Read until the server closes the socket: the error it sent first has ``code``; the close code."""
    err = ws.until(lambda m: m["type"] == "error" and m.get("request_id") is None)
    assert err["code"] == code, err
    SERVER.validate_python(err)
    with pytest.raises(WebSocketDisconnect) as exc:
        for _ in range(100):
            ws.recv()
    return int(exc.value.code)


def test_deposit_limits_the_lowest_wins_and_an_increase_waits_24_hours(
    make_server: Callable[..., Harness],
) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    ann = register(h, "ann", limits={"deposit_day": 10_000})
    assert protection(h, ann)["limits"]["deposit_day"]["amount"] == 10_000  # set at once at registration
    assert buy_in(h, ann, 6_000, "a").status_code == 200
    over = buy_in(h, ann, 5_000, "b")
    assert over.status_code == 409 and over.json()["error"]["code"] == "deposit_limit", over.text
    assert "4000 cents of it are left" in over.json()["error"]["message"]
    assert h.balance(ann) == 6_000  # the refusal changed nothing
    assert buy_in(h, ann, 5_000, "b").status_code == 409  # (and was not remembered as done)
    # a weekly limit below the daily one: the lowest wins
    set_limits(h, ann, deposit_week=7_000)
    assert buy_in(h, ann, 1_500, "c").json()["error"]["code"] == "deposit_limit"
    assert buy_in(h, ann, 1_000, "d").status_code == 200
    # an increase waits for the cooling-off; a decrease is at once
    got = set_limits(h, ann, deposit_week=50_000)
    week = got["limits"]["deposit_week"]
    assert week == {
        "amount": 7_000,
        "pending": True,
        "pending_amount": 50_000,
        "effective_at": clock.now + COOLING_OFF,
    }
    clock.now += (
        DAY + 1
    )  # the day's window has rolled on; the week's still holds 7000, the increase is due now
    assert protection(h, ann)["limits"]["deposit_week"]["amount"] == 50_000
    assert buy_in(h, ann, 10_000, "e").status_code == 200  # the day's limit again
    assert buy_in(h, ann, 1, "f").json()["error"]["code"] == "deposit_limit"
    # a removal is an increase too; a decrease meanwhile cancels it and holds at once
    got = set_limits(h, ann, deposit_day=None)
    assert (
        got["limits"]["deposit_day"]["pending"] is True and got["limits"]["deposit_day"]["amount"] == 10_000
    )
    got = set_limits(h, ann, deposit_day=9_000)
    assert got["limits"]["deposit_day"] == {
        "amount": 9_000,
        "pending": False,
        "pending_amount": None,
        "effective_at": None,
    }
    clock.now += COOLING_OFF - 1
    assert protection(h, ann)["limits"]["deposit_day"]["amount"] == 9_000
    assert protection(h, ann)["used"]["deposit_week"] == 17_000
    # cash-out is never limited
    r = h.client.post("/wallet/cash-out", json={"amount": 100, "request_id": "out"}, headers=ann)
    assert r.status_code == 200
    h.check_ledger()


def test_bad_limits_are_refused(make_server: Callable[..., Harness]) -> None:
    h = make_server(clock=Clock())
    ann = register(h, "ann")
    for body in ({"deposit_year": 5}, {"loss_day": 0}, {"loss_day": 1.5}, {"session_minutes": "10"}):
        r = h.client.put("/protection/limits", json=body, headers=ann)
        assert r.status_code == 422, (body, r.text)
    r = h.client.put("/protection/limits", json={"session_minutes": 10**6}, headers=ann)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_limit"
    assert h.client.post("/players", json={"name": "bob", "limits": {"loss_week": -1}}).status_code == 422
    assert h.client.post("/players/login", json={"name": "bob", "password": "x" * 12}).status_code == 401


def test_a_wager_over_the_loss_limit_is_refused_and_changes_nothing(
    make_server: Callable[..., Harness],
) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    t1, t2 = h.table("final-count"), h.table("final-count")
    r = h.client.post("/players", json={"name": "ann", "limits": {"loss_day": 1_000}})
    token = r.json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    a, b = h.seated(token, t1), h.seated(token, t2)
    assert a.request(type="wager", wagers={"main": 600})["type"] == "ack"  # dealt: open, counted as lost
    assert protection(h, ann)["used"]["loss_day"] == 600
    before = h.balance(ann)
    refused = b.request(type="wager", wagers={"main": 600})
    assert refused["type"] == "error" and refused["code"] == "loss_limit", refused
    assert h.balance(ann) == before and b.state()["round_id"] is None  # nothing changed at the table
    assert b.request(type="wager", wagers={"main": 400})["type"] == "ack"  # exactly at the limit
    clock.now += DAY + 1  # the window has passed
    assert protection(h, ann)["used"]["loss_day"] == 0
    h.check_ledger()


def test_the_loss_limit_holds_when_two_wagers_race_past_the_first_check(
    make_server: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two wagers of one player at two tables at once: both may pass the check made before their transactions
    (it reads without a lock). Simulated by switching that check off: the check inside the wager's
    transaction, made once the wallet is locked, still refuses the one that passes the limit, and nothing of it
    is written."""
    clock = Clock()
    h = make_server(clock=clock)
    t1, t2 = h.table("final-count"), h.table("final-count")
    token = h.client.post("/players", json={"name": "ann", "limits": {"loss_day": 1_000}}).json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    a, b = h.seated(token, t1), h.seated(token, t2)
    assert a.request(type="wager", wagers={"main": 600})["type"] == "ack"
    monkeypatch.setattr(h.server.protection, "check_wager", lambda player, cost, over=False: clock.now)
    before = h.balance(ann)
    refused = b.request(type="wager", wagers={"main": 600})
    assert refused["type"] == "error" and refused["code"] == "loss_limit", refused
    assert h.balance(ann) == before and protection(h, ann)["used"]["loss_day"] == 600  # its stake not kept
    assert b.request(type="wager", wagers={"main": 400})["type"] == "ack"
    h.check_ledger()


def test_reality_checks_the_session_limit_and_the_inactivity_time_out(
    make_server: Callable[..., Harness],
) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    table = h.table("final-count")
    r = h.client.post(
        "/players", json={"name": "ann", "limits": {"reality_minutes": 1, "session_minutes": 3}}
    )
    token = r.json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200  # the session begins
    start = clock.now
    ws = h.seated(token, table)
    assert ws.request(type="wager", wagers={"main": 500})["type"] == "ack"
    clock.now += 61
    h.server.player_sessions.sweep()
    check = ws.until(lambda m: m["type"] == "reality_check")
    assert check["played_seconds"] == 61 and check["started_at"] == start and check["interval_minutes"] == 1
    assert check["wagered"] == 500 and check["net"] == check["won"] - 500 and check["games"] == 1
    SERVER.validate_python(check)  # the contract's message (server/contract)
    clock.now += 120  # three minutes: the session limit ends it, the socket is closed
    h.server.player_sessions.sweep()
    assert closed_with(ws, "session_ended") == CLOSE_SESSION_ENDED
    with h.server.sessions() as s:
        ended = s.scalars(sa.select(PlayerSession).order_by(PlayerSession.id)).all()
    assert [(e.reason, e.ended_at) for e in ended] == [("session_limit", start + 181)]
    # a new session; idle for the inactivity time-out: ended at its last request plus the time-out
    assert h.client.get("/me", headers=ann).status_code == 200
    idle_from = clock.now
    clock.now += h.server.config.inactivity_seconds + 5
    h.server.player_sessions.sweep()
    with h.server.sessions() as s:
        last = s.scalars(sa.select(PlayerSession).order_by(PlayerSession.id.desc())).first()
    assert last is not None and last.reason == "inactivity"
    assert last.ended_at == idle_from + h.server.config.inactivity_seconds
    # stopping from a reality check ends the session
    assert h.client.get("/me", headers=ann).status_code == 200
    assert h.client.post("/protection/stop", headers=ann).json() == {"ok": True}
    with h.server.sessions() as s:
        assert (
            s.scalars(sa.select(PlayerSession.reason).order_by(PlayerSession.id.desc())).first() == "logout"
        )


def test_the_previous_login_time_is_given_at_login(make_server: Callable[..., Harness]) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    ann = register(h, "ann", password="correct horse battery")
    assert h.client.get("/me", headers=ann).status_code == 200  # a session begins
    first = clock.now
    clock.now += 100
    login = h.client.post("/players/login", json={"name": "ann", "password": "correct horse battery"})
    assert login.status_code == 200 and login.json()["previous_login_at"] == first
    clock.now += 100
    again = h.client.post("/players/login", json={"name": "ann", "password": "correct horse battery"})
    assert again.json()["previous_login_at"] == first + 100
    bob = register(h, "bob", password="correct horse battery")
    assert protection(h, bob)["previous_login_at"] is None


def test_self_exclusion_closes_every_socket_refuses_play_and_nobody_lifts_it(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    t1, t2 = h.table("final-count"), h.table("three-card-poker")
    r = h.client.post("/players", json={"name": "ann"})
    token = r.json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    a, b = h.seated(token, t1), h.ws(token, t2)
    began = time.monotonic()
    r = h.client.post("/protection/self-exclusion", json={"period": "6m"}, headers=ann)
    assert r.status_code == 200, r.text
    assert r.json()["ends_at"] == clock.now + 182 * DAY and r.json()["active"] is True
    assert closed_with(a, "excluded") == CLOSE_EXCLUDED and closed_with(b, "excluded") == CLOSE_EXCLUDED
    assert time.monotonic() - began < 1.0
    # no deposits, no table; the balance can still be cashed out
    assert buy_in(h, ann, 100, "again").json()["error"]["code"] == "excluded"
    again = WS(h.client, token, t1, h.stack)
    assert closed_with(again, "excluded") == CLOSE_EXCLUDED
    r = h.client.post("/wallet/cash-out", json={"amount": 1_000, "request_id": "out"}, headers=ann)
    assert r.status_code == 200
    # a shorter break cannot replace it
    r = h.client.post("/protection/break", json={"period": "1d"}, headers=ann)
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_excluded"
    # the register, and staff cannot lift it (the attempt is audited)
    _, one_time = h.server.staff.add("console:test", "Sue", "supervisor")  # (admins: staff accounts only)
    staff = {"Authorization": f"Bearer {h.server.staff.login('Sue', one_time).token}"}
    register_rows = h.client.get("/staff/exclusions", headers=staff).json()
    assert [(x["player"], x["kind"], x["period"]) for x in register_rows] == [("ann", "self_exclusion", "6m")]
    lift = h.client.post("/staff/exclusions/ann/lift", json={"reason": "asked nicely"}, headers=staff)
    assert lift.status_code == 403 and lift.json()["error"]["code"] == "exclusion_locked", lift.text
    with h.server.sessions() as s:
        actions = s.scalars(sa.select(AuditEntry.action).order_by(AuditEntry.id)).all()
    assert "self_exclusion" in actions and actions[-1] == "lift_refused"
    assert buy_in(h, ann, 100, "still").json()["error"]["code"] == "excluded"
    # it survives a restart: another server on the same database
    h2 = make_server(clock=clock)
    assert buy_in(h2, ann, 100, "after restart").json()["error"]["code"] == "excluded"
    clock.now += 182 * DAY + 1  # over: play again
    assert buy_in(h2, ann, 100, "over").status_code == 200
    expired = h2.client.get("/staff/exclusions", headers=staff)  # (the 8-hour staff session is long over)
    assert expired.status_code == 403 and "staff session" in expired.json()["error"]["message"]


def test_a_break_ends_and_a_round_in_play_is_finished_by_its_timeouts(
    make_server: Callable[..., Harness],
) -> None:
    clock = Clock()
    h = make_server(clock=clock, turn_seconds=0.3)
    table = h.table("final-count")
    r = h.client.post("/players", json={"name": "ann"})
    token = r.json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    ws = h.seated(token, table)
    ack = ws.request(type="wager", wagers={"main": 500})
    assert ack["type"] == "ack"
    bad = h.client.post("/protection/break", json={"period": "2d"}, headers=ann)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_period"
    r = h.client.post("/protection/break", json={"period": "1d"}, headers=ann)
    assert r.status_code == 200 and r.json()["kind"] == "break"
    assert closed_with(ws, "on_break") == CLOSE_EXCLUDED
    deadline = time.monotonic() + 20
    while h.client.get(f"/rounds/{ack['round_id']}", headers=ann).json().get("status") != "settled":
        assert time.monotonic() < deadline, "the round was not finished by its timeouts"
        time.sleep(0.1)
    # her seat is given up: at once had her round still been open for betting; she played in a dealt round, so
    # once it was settled (whichever came first on the table's thread, the seat is free the same)
    while {t["table_id"]: t for t in h.client.get("/tables").json()}[table]["occupied"]:
        assert time.monotonic() < deadline, "the seat of the player on a break was kept"
        time.sleep(0.1)
    assert buy_in(h, ann, 100, "b").json()["error"]["code"] == "on_break"
    clock.now += DAY + 1
    assert buy_in(h, ann, 100, "c").status_code == 200
    again = h.ws(token, table)
    assert again.request(type="wager", wagers={"main": 500})["code"] == "not_seated"
    again = h.seated(token, table)
    assert again.request(type="wager", wagers={"main": 500})["type"] == "ack"
    h.check_ledger()


def test_the_player_sessions_report(make_server: Callable[..., Harness], db_url: str) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    table = h.table("final-count")
    r = h.client.post("/players", json={"name": "ann"})
    token = r.json()["token"]
    ann = {"Authorization": f"Bearer {token}"}
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    start = clock.now
    ws = h.seated(token, table)
    ack = ws.request(type="wager", wagers={"main": 500})
    assert ack["type"] == "ack"
    result = ws.until(lambda m: m["type"] == "round_result" or (m["type"] == "state" and m["decision"]))
    while result["type"] != "round_result":
        assert ws.request(type="act", action="stand")["type"] == "ack"
        result = ws.until(lambda m: m["type"] == "round_result" or (m["type"] == "state" and m["decision"]))
    returned = result["results"][0]["returned"]
    clock.now += 90
    assert h.client.post("/protection/stop", headers=ann).json() == {"ok": True}
    day = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%d")
    out = CliRunner().invoke(
        app, ["reports", "player-sessions", "--day", day, "--format", "json", "--database", db_url]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == [
        {
            "player": "ann",
            "session_start": datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "session_end": datetime.fromtimestamp(start + 90, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "duration_seconds": 90,
            "wagered": 500,
            "won": returned,
            "net": returned - 500,
            "games_played": 1,
            "reason_ended": "logout",
        }
    ]
    csv_out = CliRunner().invoke(app, ["reports", "player-sessions", "--day", day, "--database", db_url])
    lines = csv_out.output.strip().splitlines()
    assert (
        lines[0]
        == "player,session_start,session_end,duration_seconds,wagered,won,net,games_played,reason_ended"
    )
    assert lines[1].startswith("ann,") and lines[1].endswith(",1,logout") and len(lines) == 2
    empty = CliRunner().invoke(
        app, ["reports", "player-sessions", "--day", "2001-01-01", "--database", db_url]
    )
    assert empty.exit_code == 0 and empty.output.strip() == "No Activity"
    bad = CliRunner().invoke(app, ["reports", "player-sessions", "--day", "yesterday", "--database", db_url])
    assert bad.exit_code != 0 and "YYYY-MM-DD" in bad.output


def test_a_self_excluded_players_wagers_of_an_unstarted_round_are_returned(
    make_server: Callable[..., Harness],
) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    table = h.table("final-count")
    ann_token, ann = h.player("ann", buy_in=10_000)
    bob_token, _ = h.player("bob", buy_in=10_000)
    carl_token, _ = h.player("carl", buy_in=10_000)
    a, b = h.seated(ann_token, table), h.seated(bob_token, table)
    c = h.seated(carl_token, table)  # carl has not wagered: betting stays open
    ack = a.request(type="wager", wagers={"main": 700})
    assert ack["type"] == "ack" and b.request(type="wager", wagers={"main": 300})["type"] == "ack"
    assert h.balance(ann) == 9_300
    r = h.client.post("/protection/self-exclusion", json={"period": "1y"}, headers=ann)
    assert r.status_code == 200
    assert closed_with(a, "excluded") == CLOSE_EXCLUDED
    deadline = time.monotonic() + 10
    while h.balance(ann) != 10_000:
        assert time.monotonic() < deadline, "ann's wager was not returned"
        time.sleep(0.05)
    st = c.state()
    assert st["round_id"] == ack["round_id"] and "1" not in st["occupants"]  # ann's seat is free
    assert protection(h, ann)["used"]["loss_day"] == 0
    # the round goes on without ann: carl wagers, it is dealt (bob and carl), and it settles
    assert c.request(type="wager", wagers={"main": 100})["type"] == "ack"
    result = b.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] != "betting")
    assert result["round"]["phase"] in ("deciding", "settled")
    h.check_ledger()


def test_a_rebuilt_round_skips_the_wagers_a_return_gave_back() -> None:
    steps = [
        {"op": "wager", "seat": 1, "wager": "main", "amount": 700},
        {"op": "wager", "seat": 2, "wager": "main", "amount": 300},
        {"op": "return", "seat": 1, "player_id": 1},
        {"op": "wager", "seat": 1, "wager": "main", "amount": 200},  # (another player sat there later)
    ]
    assert without_returned(steps) == [steps[1], steps[3]]


def status_of(h: Harness, round_id: int) -> str:
    with h.server.sessions() as s:
        return str(s.scalar(sa.select(RoundRow.status).where(RoundRow.id == round_id)))


def test_a_lone_wager_returned_voids_its_round(make_server: Callable[..., Harness]) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    table = h.table("final-count")
    ann_token, ann = h.player("ann", buy_in=10_000)
    bob_token, _ = h.player("bob", buy_in=10_000)
    a, b = h.seated(ann_token, table), h.seated(bob_token, table)
    ack = a.request(type="wager", wagers={"main": 700})
    assert ack["type"] == "ack"
    assert h.client.post("/protection/break", json={"period": "1w"}, headers=ann).status_code == 200
    deadline = time.monotonic() + 10
    while h.balance(ann) != 10_000:
        assert time.monotonic() < deadline, "ann's wager was not returned"
        time.sleep(0.05)
    deadline = time.monotonic() + 10
    while status_of(h, ack["round_id"]) != "void":
        assert time.monotonic() < deadline, status_of(h, ack["round_id"])
        time.sleep(0.05)
    again = b.request(type="wager", wagers={"main": 100})  # the next round opens anew, and is dealt
    assert again["type"] == "ack" and again["round_id"] != ack["round_id"]
    h.check_ledger()


def test_a_kept_guard_is_never_stale() -> None:
    """protection.Guards (SQLite): a guard read while a change of its player is under way, or read before a
    change that ended meanwhile, is not kept; one read earlier than the clock's time now is not used."""
    guards = Guards()
    g = Guard((), (), 100.0)
    _, token = guards.get(1, 100.0)
    guards.keep(token, g)
    assert guards.get(1, 100.0)[0] is g and guards.get(1, 99.0)[0] is None  # (the clock went back: read)
    with guards.changing(1):
        assert guards.get(1, 100.0) == (None, None)  # under way: read, not kept
        _, token = guards.get(2, 100.0)
    assert guards.get(1, 100.0)[0] is None
    guards.keep(token, g)  # player 2's read began before no change of theirs: kept
    assert guards.get(2, 100.0)[0] is g
    _, token = guards.get(1, 100.0)
    with guards.changing(1):
        pass
    guards.keep(token, g)  # read before a change that ended: not kept
    assert guards.get(1, 100.0)[0] is None
    # a kept increase comes into force on the clock, without a read
    row = SimpleNamespace(kind="loss_day", amount=700, pending=True, pending_amount=5_000, effective_at=200.0)
    pending = Guard((row,), (SimpleNamespace(kind="break", started_at=90.0, ends_at=150.0),), 100.0)
    assert pending.limits_at(199.0) == {"loss_day": 700} and pending.limits_at(200.0) == {"loss_day": 5_000}
    assert pending.active(149.0) is not None and pending.active(150.0) is None


def test_a_limit_or_break_set_after_wagers_takes_effect_at_once(make_server: Callable[..., Harness]) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    t1, t2 = h.table("final-count"), h.table("final-count")
    ann = register(h, "ann")
    token = ann["Authorization"].split()[1]
    assert buy_in(h, ann, 10_000, "in").status_code == 200
    a, b = h.seated(token, t1), h.seated(token, t2)
    assert a.request(type="wager", wagers={"main": 600})["type"] == "ack"  # (the guard read, kept on SQLite)
    set_limits(h, ann, loss_day=700)
    refused = b.request(type="wager", wagers={"main": 200})
    assert refused["type"] == "error" and refused["code"] == "loss_limit", refused
    set_limits(h, ann, loss_day=5_000)  # an increase: after the cooling-off
    assert b.request(type="wager", wagers={"main": 200})["code"] == "loss_limit"
    assert b.request(type="wager", wagers={"main": 100})["type"] == "ack"  # exactly at the limit in force
    r = h.client.post("/protection/break", json={"period": "1d"}, headers=ann)
    assert r.status_code == 200, r.text
    assert closed_with(a, "on_break") == CLOSE_EXCLUDED
    assert buy_in(h, ann, 100, "again").json()["error"]["code"] == "on_break"

"""Staff accounts and the audit trail (issue 25): roles, argon2 passwords, one-time passwords, lockout after
three failed logins, sessions that expire on the server's clock, every change and login in a hash chain written
in the same transaction (fail closed), and ``tablegames audit verify`` naming the first entry altered, removed or
reordered; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from server_harness import ADMIN, Harness
from tablegames.cli import app
from tablegames.server import audit
from tablegames.server.db import AuditEntry, StaffAccount
from tablegames.server.staff import MAX_FAILED_LOGINS, SESSION_SECONDS, StaffService

pytestmark = pytest.mark.timeout(300)


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _cli(db_url: str, *args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, [*args, "--database", db_url])
    return r.exit_code, r.output


def _one_time(output: str) -> str:
    return output.strip().rsplit("one-time password: ", 1)[1]


def test_staff_log_in_with_roles_lockout_and_expiry(make_server: Callable[..., Harness], db_url: str) -> None:
    clock = Clock()
    h = make_server(clock=clock)
    code, out = _cli(db_url, "staff", "add", "Ada", "--role", "admin")
    assert code == 0 and "added Ada (admin); one-time password: " in out, out
    first = _one_time(out)
    with h.server.sessions() as s:
        stored = s.scalar(sa.select(StaffAccount.password_hash).where(StaffAccount.name == "Ada"))
    assert stored.startswith("$argon2id$") and first not in stored  # hashed, never kept
    c = h.client
    bad = c.post("/staff/login", json={"name": "Ada", "password": "wrong password"})
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "bad_login"
    ok = c.post("/staff/login", json={"name": "Ada", "password": first})
    assert ok.status_code == 200, ok.text
    login = ok.json()
    assert login["role"] == "admin" and login["must_change"] is True and login["previous_login_at"] is None
    assert login["expires_at"] == clock.now + SESSION_SECONDS
    ada = {"Authorization": f"Bearer {login['token']}"}
    assert c.post("/staff/password", json={"old": first, "new": "short"}, headers=ada).status_code == 400
    assert c.post("/staff/password", json={"old": first, "new": "a long new secret"}, headers=ada).json() == {
        "ok": True
    }

    # an admin adds an operator; an operator may not manage staff
    made = c.post("/staff", json={"name": "Otto", "role": "operator"}, headers=ada)
    assert made.status_code == 201 and made.json()["role"] == "operator"
    otto_login = c.post(
        "/staff/login", json={"name": "Otto", "password": made.json()["one_time_password"]}
    ).json()
    otto = {"Authorization": f"Bearer {otto_login['token']}"}
    me = c.get("/staff/me", headers=otto).json()
    assert (me["name"], me["role"]) == ("Otto", "operator") and "player.adjust" in me["may"]
    assert "staff.manage" not in me["may"]  # what the back office offers an operator
    assert c.get("/staff", headers=otto).status_code == 403
    assert c.post("/staff", json={"name": "Eve", "role": "admin"}, headers=otto).status_code == 403
    assert c.post("/staff", json={"name": "Eve", "role": "boss"}, headers=ada).status_code == 422
    assert c.post("/staff/Ada/disable", json={}, headers=ada).status_code == 403  # not one's own

    # three wrong passwords lock an account, even against the right one; an admin unlocks it
    for _ in range(MAX_FAILED_LOGINS):
        assert c.post("/staff/login", json={"name": "Otto", "password": "guess guess"}).status_code == 401
    locked = c.post("/staff/login", json={"name": "Otto", "password": made.json()["one_time_password"]})
    assert locked.status_code == 403 and locked.json()["error"]["code"] == "account_locked"
    assert c.post("/staff/Otto/unlock", json={"reason": "called the desk"}, headers=ada).json() == {
        "ok": True
    }
    again = c.post("/staff/login", json={"name": "Otto", "password": made.json()["one_time_password"]})
    assert again.status_code == 200 and again.json()["previous_login_at"] == clock.now

    # a session ends at its expiry on the server's clock, at logout, and when the account is disabled
    clock.now += SESSION_SECONDS
    assert c.get("/staff/me", headers=ada).status_code == 401
    ada = {
        "Authorization": "Bearer "
        + c.post("/staff/login", json={"name": "Ada", "password": "a long new secret"}).json()["token"]
    }
    otto = {"Authorization": f"Bearer {again.json()['token']}"}
    assert c.post("/staff/Otto/disable", json={"reason": "left"}, headers=ada).json() == {"ok": True}
    assert c.get("/staff/me", headers=otto).status_code == 401
    assert c.post("/staff/logout", headers=ada).json() == {"ok": True}
    assert c.get("/staff/me", headers=ada).status_code == 401

    with h.server.sessions() as s:
        actions = [e.action for e in s.scalars(sa.select(AuditEntry).order_by(AuditEntry.id))]
        verdict = audit.verify(s)
    assert actions[:6] == ["staff.add", "login.failed", "login", "staff.password", "staff.add", "login"]
    assert actions.count("login.failed") == 1 + MAX_FAILED_LOGINS and "login.refused" in actions
    assert actions[-2:] == ["staff.disable", "logout"]
    assert verdict.ok and verdict.entries == len(actions)


def test_the_trail_names_the_first_entry_altered_removed_or_reordered(
    make_server: Callable[..., Harness], db_url: str, tmp_path: Path
) -> None:
    h = make_server()
    service: StaffService = h.server.staff
    for i in range(5):
        service.add("console:test", f"member{i}", "auditor")
    code, out = _cli(db_url, "audit", "verify")
    assert code == 0 and out.startswith(
        "audit trail intact: 5 entries; ledger: 0 transactions sealed and intact"
    )
    code, out = _cli(db_url, "audit", "export", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["subject"] for r in rows] == [f"staff:member{i}" for i in range(5)]
    assert rows[1]["prev_hash"] == rows[0]["hash"]

    def tamper(sql: str) -> tuple[int, str]:
        with h.server.db.engine.begin() as conn:
            conn.execute(sa.text(sql))
        return _cli(db_url, "audit", "verify")

    code, out = tamper("UPDATE audit_entries SET reason = 'nothing' WHERE id = 3")
    assert code == 1 and "entry 3: altered" in out, out
    assert tamper("UPDATE audit_entries SET reason = '' WHERE id = 3")[0] == 0  # put back: intact again
    saved = [dict(r) for r in rows]
    code, out = tamper("DELETE FROM audit_entries WHERE id = 2")
    assert code == 1 and "entry 2: removed" in out, out
    with h.server.db.engine.begin() as conn:  # put it back, then swap the contents of 4 and 5
        r = saved[1]
        conn.execute(
            sa.insert(AuditEntry.__table__).values(**{**r, "before": r["before"], "after": r["after"]})
        )
        for a, b in ((4, -4), (5, 4), (-4, 5)):
            conn.execute(sa.text("UPDATE audit_entries SET id = :b WHERE id = :a"), {"a": a, "b": b})
    code, out = _cli(db_url, "audit", "verify")
    assert code == 1 and "entry 4: out of order" in out, out


def test_a_change_whose_audit_entry_cannot_be_written_does_not_happen(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server()
    service: StaffService = h.server.staff
    service.add("console:test", "Una", "supervisor")
    real = audit.append

    def failing(*args: object, **kw: object) -> object:
        raise RuntimeError("the audit insert failed")

    audit.append = failing  # type: ignore[assignment]
    try:
        with pytest.raises(RuntimeError):
            service.set_disabled("console:test", "Una", True, "test")
        with pytest.raises(RuntimeError):
            service.add("console:test", "Vic", "operator")
    finally:
        audit.append = real  # type: ignore[assignment]
    listed = {r["name"]: r for r in service.list()}
    assert listed["Una"]["disabled"] is False and "Vic" not in listed  # fail closed: nothing changed


def test_two_writers_appending_at_once_keep_one_chain(make_server: Callable[..., Harness]) -> None:
    """Several threads (on PostgreSQL: several connections, as several processes would) append at once."""
    h = make_server()
    service: StaffService = h.server.staff
    errors: list[BaseException] = []

    def add(prefix: str) -> None:
        try:
            for i in range(8):
                service.add("console:test", f"{prefix}{i}", "auditor")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(p,)) for p in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with h.server.sessions() as s:
        verdict = audit.verify(s)
    assert verdict.ok and verdict.entries == 24


def test_tables_opened_and_limits_changed_are_in_the_trail(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    """The admin token is a named credential of the trail (``token:admin``), the console ``console:<user>``;
    each entry says what the table was before and after."""
    h = make_server()
    table = h.table("final-count", seats=2, min_bet=200, max_bet=5000)
    r = h.client.patch(f"/tables/{table}", json={"max_bet": 8000}, headers={"X-Admin-Token": ADMIN})
    assert r.status_code == 200, r.text
    code, out = _cli(db_url, "tables", "create", "three-card-poker", "--name", "From the console")
    assert code == 0, out
    with h.server.sessions() as s:
        entries = s.scalars(sa.select(AuditEntry).order_by(AuditEntry.id)).all()
        assert audit.verify(s).ok
    opened, limits, console = entries[-3:]
    assert (opened.actor, opened.action, opened.subject) == ("token:admin", "table.open", f"table:{table}")
    assert opened.after["game"] == "final-count" and opened.after["max_bet"] == 5000 and opened.before is None
    assert opened.after["rules"]["win-pays"] == "1"  # the complete rule set it opened with
    assert (limits.action, limits.before, limits.after) == (
        "table.limits",
        {"min_bet": 200, "max_bet": 5000},
        {"min_bet": 200, "max_bet": 8000},
    )
    assert console.actor.startswith("console:") and console.after["name"] == "From the console"


def test_an_admin_changes_a_role_the_sessions_end_and_the_trail_has_it(
    make_server: Callable[..., Harness], db_url: str
) -> None:
    h = make_server()
    c = h.client
    _, ada_pw = h.server.staff.add("console:test", "Ada", "admin")
    ada = {"Authorization": f"Bearer {h.server.staff.login('Ada', ada_pw).token}"}
    _, otto_pw = h.server.staff.add("console:test", "Otto", "operator")
    otto = {"Authorization": f"Bearer {h.server.staff.login('Otto', otto_pw).token}"}
    assert (
        c.post("/staff/Otto/role", json={"role": "auditor"}, headers=otto).status_code == 403
    )  # not an admin
    assert (
        c.post("/staff/Ada/role", json={"role": "auditor"}, headers=ada).status_code == 403
    )  # not one's own
    assert c.post("/staff/Otto/role", json={"role": "boss"}, headers=ada).status_code == 422
    r = c.post("/staff/Otto/role", json={"role": "auditor", "reason": "moved to audit"}, headers=ada)
    assert r.status_code == 200, r.text
    assert c.get("/staff/me", headers=otto).status_code == 401  # the old session carried the old powers
    assert c.post("/staff/Otto/role", json={"role": "auditor"}, headers=ada).status_code == 409
    again = {"Authorization": f"Bearer {h.server.staff.login('Otto', otto_pw).token}"}
    me = c.get("/staff/me", headers=again).json()
    assert me["role"] == "auditor" and "player.adjust" not in me["may"] and "audit.read" in me["may"]
    code, out = _cli(db_url, "staff", "role", "Otto", "--role", "supervisor", "--reason", "promoted")
    assert code == 0 and "now supervisor" in out, out
    with h.server.sessions() as s:
        rows = s.execute(
            sa.select(AuditEntry.actor, AuditEntry.before, AuditEntry.after, AuditEntry.reason)
            .where(AuditEntry.action == "staff.role")
            .order_by(AuditEntry.id)
        ).all()
    assert [(a, b["role"], x["role"], why) for a, b, x, why in rows] == [
        ("staff:Ada", "operator", "auditor", "moved to audit"),
        (rows[1][0], "auditor", "supervisor", "promoted"),
    ] and rows[1][0].startswith("console:")

"""Staff accounts (issue 25): named members of the casino's staff, each with one role, an argon2 password, sessions
that expire, a lockout after :data:`MAX_FAILED_LOGINS` failed logins, and every change and login recorded in
the audit trail in the same transaction (server/audit.py: if the entry cannot be written, nothing changes).

Roles and what each may do (:data:`ROLES`; the server checks every action against them):

- ``supervisor``: open, close and pause tables, set limits within a range, see play;
- ``operator``: tables, limits, jackpot parameters, player accounts, adjustments;
- ``auditor``: reads everything, exports, verifies; changes nothing;
- ``admin``: staff accounts only (add, disable, unlock); never approves or edits their own entries.

Every time this module reads is its ``clock`` (the server's one clock: tests move it instead of waiting).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from tablegames.server import audit
from tablegames.server.checks import hash_token
from tablegames.server.db import StaffAccount, StaffSession
from tablegames.server.errors import ApiError
from tablegames.server.names import display_name
from tablegames.server.transactions import Transactions

ROLES: Final = ("supervisor", "operator", "auditor", "admin")
MAX_FAILED_LOGINS: Final = 3
SESSION_SECONDS: Final = 8 * 3600.0  # a shift
PASSWORD_MIN: Final = 10
PASSWORD_MAX: Final = 200
# Cheap enough for a REST thread (~50 ms), the OWASP minimum for argon2id (19 MiB, 2 passes).
_HASHER: Final = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


@dataclass(frozen=True)
class StaffInfo:
    staff_id: int
    name: str
    role: str

    @property
    def actor(self) -> str:
        """How the audit trail names them."""
        return f"staff:{self.name}"


@dataclass(frozen=True)
class Login:
    token: str
    staff: StaffInfo
    expires_at: float
    previous_login_at: float | None  # shown at login (issue 25), None at the first
    must_change: bool  # logged in with a one-time password: set one's own first


def _state(a: StaffAccount) -> dict[str, Any]:
    """What the trail records of an account (never its password hash)."""
    return {
        "role": a.role,
        "disabled": a.disabled,
        "failed_logins": a.failed_logins,
        "must_change": a.must_change,
    }


def check_password(password: object) -> str:
    """``password`` when it is acceptable (its length), else ``bad_password``."""
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ApiError("bad_password", f"a password is {PASSWORD_MIN}-{PASSWORD_MAX} characters", 400)
    return password


class StaffService:
    """Staff accounts and their sessions over the server's unit of work."""

    def __init__(self, db: Transactions, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    def _account(self, s: Session, name: str) -> StaffAccount:
        a = s.scalar(select(StaffAccount).where(StaffAccount.name == name))
        if a is None:
            raise ApiError("not_found", f"no staff member {name!r}", 404)
        return a

    def add(self, actor: str, name: object, role: object) -> tuple[StaffInfo, str]:
        """A new staff member with a one-time password (returned once; they set their own at first login)."""
        shown = display_name(name)
        if shown is None:
            raise ApiError("bad_name", "a staff name is 1-40 letters, digits, spaces, '-', '_' or '.'", 400)
        if role not in ROLES:
            raise ApiError("bad_role", f"role must be one of {', '.join(ROLES)}", 400)
        password = secrets.token_urlsafe(12)
        with self.db.tx() as s:
            if s.scalar(select(StaffAccount.id).where(StaffAccount.name == shown)) is not None:
                raise ApiError("name_taken", f"there is already a staff member {shown!r}", 409)
            a = StaffAccount(
                name=shown,
                role=str(role),
                password_hash=_HASHER.hash(password),
                must_change=True,
                disabled=False,
                failed_logins=0,
                created_at=self.clock(),
            )
            s.add(a)
            s.flush()
            audit.append(s, self.clock, actor, "staff.add", f"staff:{shown}", None, _state(a))
            info = StaffInfo(a.id, a.name, a.role)
        return info, password

    def list(self) -> list[dict[str, Any]]:
        with self.db.sessions() as s:
            rows = s.scalars(select(StaffAccount).order_by(StaffAccount.name)).all()
            return [
                {
                    "name": a.name,
                    **_state(a),
                    "locked": a.failed_logins >= MAX_FAILED_LOGINS,
                    "last_login_at": a.last_login_at,
                }
                for a in rows
            ]

    def set_disabled(self, actor: str, name: str, disabled: bool, reason: str = "") -> None:
        """Disable (every session of theirs ends) or enable a staff member; ``unlock``: see :meth:`unlock`."""
        with self.db.tx() as s:
            a = self._account(s, name)
            if actor == f"staff:{a.name}":
                raise ApiError("forbidden", "nobody disables or enables their own account", 403)
            before = _state(a)
            a.disabled = disabled
            if disabled:
                for sess in s.scalars(select(StaffSession).where(StaffSession.staff_id == a.id)):
                    sess.ended = True
            audit.append(
                s,
                self.clock,
                actor,
                "staff.disable" if disabled else "staff.enable",
                f"staff:{a.name}",
                before,
                _state(a),
                reason,
            )

    def set_role(self, actor: str, name: str, role: object, reason: str = "") -> None:
        """Give a staff member another role (an admin; never their own): their sessions end, so the next login
        carries the new role's powers. In the trail as ``staff.role`` with the role before and after."""
        if role not in ROLES:
            raise ApiError("bad_role", f"role must be one of {', '.join(ROLES)}", 400)
        with self.db.tx() as s:
            a = self._account(s, name)
            if actor == f"staff:{a.name}":
                raise ApiError("forbidden", "nobody changes their own role", 403)
            if a.role == role:
                raise ApiError("conflict", f"{a.name} is a {role} already", 409)
            before = _state(a)
            a.role = str(role)
            for sess in s.scalars(select(StaffSession).where(StaffSession.staff_id == a.id)):
                sess.ended = True
            audit.append(s, self.clock, actor, "staff.role", f"staff:{a.name}", before, _state(a), reason)

    def unlock(self, actor: str, name: str, reason: str = "") -> None:
        with self.db.tx() as s:
            a = self._account(s, name)
            before = _state(a)
            a.failed_logins = 0
            audit.append(s, self.clock, actor, "staff.unlock", f"staff:{a.name}", before, _state(a), reason)

    def login(self, name: object, password: object) -> Login:
        """A session for ``name`` if the password is right and the account neither disabled nor locked. Every
        attempt is in the trail; the third failure in a row locks the account."""
        refused = ApiError("bad_login", "wrong name or password", 401)
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > PASSWORD_MAX:
            raise refused
        with self.db.tx() as s:
            a = s.scalar(select(StaffAccount).where(StaffAccount.name == name))
            if a is None:
                audit.append(
                    s,
                    self.clock,
                    f"anonymous:{name[:40]}",
                    "login.failed",
                    f"staff:{name[:40]}",
                    reason="no such staff member",
                )
                raise_after = refused
            elif a.disabled or a.failed_logins >= MAX_FAILED_LOGINS:
                why = "disabled" if a.disabled else "locked"
                audit.append(s, self.clock, f"staff:{a.name}", "login.refused", f"staff:{a.name}", reason=why)
                raise_after = ApiError("account_" + why, f"this account is {why}: ask an admin", 403)
            elif not verify_password(a.password_hash, password):
                before = _state(a)
                a.failed_logins += 1
                audit.append(
                    s, self.clock, f"staff:{a.name}", "login.failed", f"staff:{a.name}", before, _state(a)
                )
                raise_after = refused
            else:
                now = self.clock()
                token = secrets.token_urlsafe(32)
                previous = a.last_login_at
                a.failed_logins = 0
                a.last_login_at = now
                s.add(
                    StaffSession(
                        token_hash=hash_token(token),
                        staff_id=a.id,
                        created_at=now,
                        expires_at=now + SESSION_SECONDS,
                        ended=False,
                    )
                )
                audit.append(s, self.clock, f"staff:{a.name}", "login", f"staff:{a.name}")
                return Login(
                    token, StaffInfo(a.id, a.name, a.role), now + SESSION_SECONDS, previous, a.must_change
                )
        raise raise_after  # (after the commit: a failed attempt is recorded)

    def authenticate(self, token: str | None) -> StaffInfo:
        """The staff member of a session token that has not ended or expired, or ``unauthorized``."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise ApiError("unauthorized", "log in with POST /staff/login and send the token", 401)
        with self.db.sessions() as s:
            row = s.execute(
                select(StaffSession, StaffAccount)
                .join(StaffAccount, StaffAccount.id == StaffSession.staff_id)
                .where(StaffSession.token_hash == hash_token(token))
            ).first()
        if row is None:
            raise ApiError("unauthorized", "unknown staff token", 401)
        sess, a = row
        if sess.ended or a.disabled or self.clock() >= sess.expires_at:
            raise ApiError("unauthorized", "this session has ended: log in again", 401)
        return StaffInfo(a.id, a.name, a.role)

    def logout(self, token: str | None) -> None:
        who = self.authenticate(token)
        with self.db.tx() as s:
            sess = s.get(StaffSession, hash_token(str(token)))
            if sess is not None:
                sess.ended = True
            audit.append(s, self.clock, who.actor, "logout", who.actor)

    def set_password(self, token: str | None, old: object, new: object) -> None:
        """A staff member's own new password (required after a one-time one)."""
        who = self.authenticate(token)
        new_password = check_password(new)
        with self.db.tx() as s:
            a = self._account(s, who.name)
            if not isinstance(old, str) or not verify_password(a.password_hash, old):
                raise ApiError("bad_login", "the current password is wrong", 401)
            before = _state(a)
            a.password_hash = _HASHER.hash(new_password)
            a.must_change = False
            audit.append(s, self.clock, who.actor, "staff.password", who.actor, before, _state(a))


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False

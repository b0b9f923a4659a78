"""Staff accounts (issue 25): ``POST /staff/login``, ``/staff/logout``, ``GET /staff/me``, ``POST
/staff/password``, and an admin's ``GET /staff``, ``POST /staff``, ``POST /staff/{name}/disable|enable|unlock``.
A staff request sends its session token as ``Authorization: Bearer <token>``; every change is in the audit
trail in the same transaction (server/staff.py, server/audit.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Request
from pydantic import Field

from tablegames.server import permissions
from tablegames.server.contract.base import Closed
from tablegames.server.routes.deps import COMMON_ERRORS, Out, ServerDep, bearer, errors, off_loop
from tablegames.server.staff import PASSWORD_MAX, ROLES, StaffInfo

router = APIRouter(tags=["staff"], responses=COMMON_ERRORS)


async def current_staff(
    request: Request, server: ServerDep, authorization: Annotated[str | None, Header()] = None
) -> StaffInfo:
    """The staff member of the ``Authorization: Bearer <token>`` header (a live session), else 401."""
    return await off_loop(request, server.staff.authenticate, bearer(authorization))


StaffDep = Annotated[StaffInfo, Depends(current_staff)]


def allowed_to(action: str) -> object:
    """A dependency: the staff member (a live session), when their role may do ``action``
    (server/permissions.py), else 403 before the route runs."""

    async def check(who: StaffDep) -> StaffInfo:
        permissions.check(permissions.Actor(who.actor, who.role), action)
        return who

    check.action = action  # type: ignore[attr-defined]  # (the permission matrix test reads it)
    return Depends(check)


AdminStaff = Annotated[StaffInfo, allowed_to(permissions.STAFF_MANAGE)]


class LoginBody(Closed):
    name: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class LoginOut(Out):
    token: str
    name: str
    role: str
    expires_at: float  # epoch seconds (the server's clock)
    previous_login_at: float | None  # the last login before this one (None: the first)
    must_change: bool  # a one-time password: set your own (POST /staff/password) before anything else


class StaffOut(Out):
    name: str
    role: str
    may: list[str]  # the actions the role may do (server/permissions.py): what the back office offers


class StaffRow(Out):
    name: str
    role: str
    disabled: bool
    locked: bool
    failed_logins: int
    must_change: bool
    last_login_at: float | None


class NewStaffBody(Closed):
    name: str = Field(min_length=1, max_length=40)
    role: Literal["supervisor", "operator", "auditor", "admin"]


class NewStaffOut(Out):
    name: str
    role: str
    one_time_password: str  # shown once: the new member sets their own at first login


class PasswordBody(Closed):
    old: str = Field(min_length=1, max_length=PASSWORD_MAX)
    new: str = Field(min_length=1, max_length=PASSWORD_MAX)


class ReasonBody(Closed):
    reason: str = Field(default="", max_length=500)
    role: Literal["supervisor", "operator", "auditor", "admin"] | None = None  # (``role``: the new one)


class Done(Out):
    ok: bool


@router.post("/staff/login", response_model=LoginOut, responses=errors(401, 403))
async def login(request: Request, server: ServerDep, body: LoginBody) -> LoginOut:
    """A session for a staff member; the third wrong password in a row locks the account (an admin unlocks
    it). Every attempt is in the audit trail."""
    got = await off_loop(request, server.staff.login, body.name, body.password)
    return LoginOut(
        token=got.token,
        name=got.staff.name,
        role=got.staff.role,
        expires_at=got.expires_at,
        previous_login_at=got.previous_login_at,
        must_change=got.must_change,
    )


@router.post("/staff/logout", response_model=Done, responses=errors(401))
async def logout(
    request: Request, server: ServerDep, authorization: Annotated[str | None, Header()] = None
) -> Done:
    await off_loop(request, server.staff.logout, bearer(authorization))
    return Done(ok=True)


@router.get("/staff/me", response_model=StaffOut, responses=errors(401))
async def me(who: StaffDep) -> StaffOut:
    return StaffOut(name=who.name, role=who.role, may=permissions.actions_of(who.role))


@router.post("/staff/password", response_model=Done, responses=errors(401))
async def password(
    request: Request,
    server: ServerDep,
    _who: StaffDep,  # a live session before the body is read: a stranger learns nothing of its checks
    body: PasswordBody,
    authorization: Annotated[str | None, Header()] = None,
) -> Done:
    await off_loop(request, server.staff.set_password, bearer(authorization), body.old, body.new)
    return Done(ok=True)


@router.get("/staff", response_model=list[StaffRow], responses=errors(401, 403))
async def list_staff(request: Request, server: ServerDep, who: AdminStaff) -> list[StaffRow]:
    return [StaffRow.model_validate(r) for r in await off_loop(request, server.staff.list)]


@router.post("/staff", status_code=201, response_model=NewStaffOut, responses=errors(401, 403, 409))
async def add_staff(request: Request, server: ServerDep, who: AdminStaff, body: NewStaffBody) -> NewStaffOut:
    info, one_time = await off_loop(request, server.staff.add, who.actor, body.name, body.role)
    return NewStaffOut(name=info.name, role=info.role, one_time_password=one_time)


@router.post("/staff/{name}/{change}", response_model=Done, responses=errors(401, 403, 404))
async def change_staff(
    request: Request,
    server: ServerDep,
    who: AdminStaff,
    name: Annotated[str, Field(min_length=1, max_length=40)],
    change: Literal["disable", "enable", "unlock", "role"],
    body: ReasonBody,
) -> Done:
    """Disable (their sessions end), enable or unlock a staff member, or give them another ``role`` (their
    sessions end); never one's own account."""
    if change == "role":
        await off_loop(request, server.staff.set_role, who.actor, name, body.role, body.reason)
    elif change == "unlock":
        await off_loop(request, server.staff.unlock, who.actor, name, body.reason)
    else:
        await off_loop(request, server.staff.set_disabled, who.actor, name, change == "disable", body.reason)
    return Done(ok=True)


__all__ = ["ROLES", "StaffDep", "allowed_to", "router"]

"""Who may do what (issue 25): every staff action with the roles allowed it, and every route of the app with the
access it declares. The server checks each action on every request (``routes/deps.py``: :func:`staff_may`);
``tests/server/test_server_permissions.py`` generates the role x endpoint matrix from the app's routes and
:data:`ROUTES`, so a route added without a declared access fails the suite.

The admin token stays for scripts (``X-Admin-Token``): it is a named credential, ``token:admin`` in the audit
trail, with the operator's powers (:data:`TOKEN_ROLE`) but the approval of another's adjustment (dual control
needs a named second person), never the admin's (staff accounts are managed by a named admin only).

>>> may("supervisor", TABLE_LIMITS), may("auditor", TABLE_LIMITS), may("admin", TABLE_OPEN)
(True, False, False)
>>> sorted(ALLOWED[PLAY_VIEW])
['auditor', 'operator', 'supervisor']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablegames.server.errors import ApiError
from tablegames.server.staff import ROLES

# --- staff actions --------------------------------------------------------------------------------------------
TABLE_OPEN: Final = "table.open"  # open a table (POST /tables)
TABLE_LIMITS: Final = "table.limits"  # change a table's limits (PATCH /tables/{id})
TABLE_BOTS: Final = "table.bots"  # seat or remove practice bots (POST/DELETE /tables/{id}/bots)
TABLE_STATUS: Final = "table.status"  # pause, resume or close a table (POST /tables/{id}/pause|resume|close)
PLAY_VIEW: Final = "play.view"  # every player's rounds, balances and hand histories
STAFF_MANAGE: Final = "staff.manage"  # staff accounts: add, list, disable, enable, unlock
PLAYER_SUSPEND: Final = "player.suspend"  # suspend or reinstate a player's account
PLAYER_ADJUST: Final = "player.adjust"  # adjust a player's balance (above the threshold: waits for approval)
ADJUST_DECIDE: Final = "adjust.decide"  # approve or reject another's pending adjustment (dual control)
ADJUST_VIEW: Final = "adjust.view"  # the adjustments and those waiting
EXCLUSIONS_VIEW: Final = "exclusions.view"  # the register of breaks and self-exclusions (issue 26)
EXCLUSION_LIFT: Final = "exclusion.lift"  # ask to lift one early: always refused and recorded (issue 26)
AUDIT_READ: Final = "audit.read"  # the audit trail: read, export, verify (GET /audit...)
REPORTS_READ: Final = "reports.read"  # the daily reports (GET /reports/...; issue 26)
DETECT_READ: Final = "detect.read"  # the live detector's flagged players and alerts (issue 27)
DETECT_ACK: Final = "detect.ack"  # acknowledge an alert (audited)

ALLOWED: Final[dict[str, frozenset[str]]] = {
    TABLE_OPEN: frozenset({"supervisor", "operator"}),
    TABLE_LIMITS: frozenset({"supervisor", "operator"}),
    TABLE_STATUS: frozenset({"supervisor", "operator"}),
    TABLE_BOTS: frozenset({"supervisor", "operator"}),
    PLAY_VIEW: frozenset({"supervisor", "operator", "auditor"}),
    STAFF_MANAGE: frozenset({"admin"}),
    PLAYER_ADJUST: frozenset({"operator"}),
    PLAYER_SUSPEND: frozenset({"operator"}),
    ADJUST_DECIDE: frozenset({"supervisor", "operator"}),
    ADJUST_VIEW: frozenset({"supervisor", "operator", "auditor"}),
    REPORTS_READ: frozenset({"supervisor", "operator", "auditor"}),
    AUDIT_READ: frozenset({"supervisor", "operator", "auditor"}),
    EXCLUSIONS_VIEW: frozenset({"supervisor", "operator", "auditor"}),
    EXCLUSION_LIFT: frozenset({"supervisor", "operator"}),
    DETECT_READ: frozenset({"supervisor", "auditor"}),
    DETECT_ACK: frozenset({"supervisor"}),
}
"""Each action's roles (server/staff.py's list of what each role may do)."""

TOKEN_ROLE: Final = "operator"
"""The role of the admin token (``X-Admin-Token``), a credential for scripts."""
TOKEN_ACTOR: Final = "token:admin"
TOKEN_ACTIONS: Final = (
    frozenset(a for a, roles in ALLOWED.items() if TOKEN_ROLE in roles) - {ADJUST_DECIDE}
) | {DETECT_READ}
"""What the admin token may do: the operator's actions but a decision of dual control, which needs a named
second person (the token is shared); and the live detector's alerts (read only: an acknowledgement names a
supervisor)."""

# --- route access ------------------------------------------------------------------------------------------------
PUBLIC: Final = "public"  # anyone (pages, the lobby's reads, the contract, the Math lab)
PLAYER: Final = "player"  # a player's own token (Authorization: Bearer)
STAFF_SESSION: Final = "staff-session"  # a staff member's own session, any role (login, logout, me, password)
PLAYER_OR = "player-or:"  # a player's own data, or everyone's for a staff action: PLAYER_OR + PLAY_VIEW
PRACTICE_OR = "practice-player-or:"  # a staff action, or (a practice server) a player seated at the table

ROUTES: Final[dict[tuple[str, str], str]] = {
    ("GET", "/"): PUBLIC,
    ("GET", "/health"): PUBLIC,
    ("GET", "/asyncapi.json"): PUBLIC,
    ("GET", "/openapi.json"): PUBLIC,
    ("GET", "/docs"): PUBLIC,
    ("GET", "/docs/oauth2-redirect"): PUBLIC,
    ("GET", "/redoc"): PUBLIC,
    ("GET", "/games"): PUBLIC,
    ("GET", "/jackpots"): PUBLIC,
    ("GET", "/jackpots/history"): PUBLIC,
    ("GET", "/lab"): PUBLIC,
    ("POST", "/lab/analyze"): PUBLIC,
    ("POST", "/lab/game-file"): PUBLIC,
    ("POST", "/players"): PUBLIC,
    ("POST", "/players/login"): PUBLIC,
    ("POST", "/players/password"): PLAYER,
    ("GET", "/me"): PLAYER,
    ("POST", "/wallet/buy-in"): PLAYER,
    ("POST", "/wallet/cash-out"): PLAYER,
    ("GET", "/wallet"): PLAYER,
    ("GET", "/rounds/{round_id}"): PUBLIC,  # balances: the reader's own, every player's for PLAY_VIEW
    ("GET", "/history"): PLAYER_OR + PLAY_VIEW,
    ("GET", "/history/export"): PLAYER_OR + PLAY_VIEW,
    ("GET", "/tables"): PUBLIC,
    ("POST", "/tables"): TABLE_OPEN,
    ("PATCH", "/tables/{table_id}"): TABLE_LIMITS,
    ("POST", "/tables/{table_id}/{change}"): TABLE_STATUS,
    ("POST", "/tables/{table_id}/bots"): PRACTICE_OR + TABLE_BOTS,
    ("DELETE", "/tables/{table_id}/bots/{seat}"): PRACTICE_OR + TABLE_BOTS,
    ("GET", "/tables/{table_id}"): PUBLIC,
    ("GET", "/tables/{table_id}/rules"): PUBLIC,
    ("GET", "/tables/{table_id}/owner"): PUBLIC,
    ("GET", "/tables/{table_id}/history"): PUBLIC,
    ("WS", "/ws/tables/{table_id}"): PLAYER,  # (or a spectator: public cards only)
    ("POST", "/staff/login"): PUBLIC,
    ("POST", "/staff/logout"): STAFF_SESSION,
    ("GET", "/staff/me"): STAFF_SESSION,
    ("POST", "/staff/password"): STAFF_SESSION,
    ("GET", "/staff"): STAFF_MANAGE,
    ("POST", "/staff"): STAFF_MANAGE,
    ("POST", "/staff/{name}/{change}"): STAFF_MANAGE,
    ("POST", "/players/{name}/adjustments"): PLAYER_ADJUST,
    ("PUT", "/players/{name}/suspension"): PLAYER_SUSPEND,
    ("GET", "/adjustments"): ADJUST_VIEW,
    ("POST", "/adjustments/{adjustment_id}/{decision}"): ADJUST_DECIDE,
    ("GET", "/reports/patron-summary"): REPORTS_READ,
    ("GET", "/reports/table-win"): REPORTS_READ,
    ("GET", "/reports/meters"): REPORTS_READ,
    ("GET", "/office"): PUBLIC,  # the page; what it shows comes from the reads below, each checked
    ("GET", "/audit"): AUDIT_READ,
    ("GET", "/audit/export"): AUDIT_READ,
    ("GET", "/audit/verify"): AUDIT_READ,
    ("GET", "/players"): PLAY_VIEW,
    ("GET", "/protection"): PLAYER,  # a player's own limits, break or exclusion and session (issue 26)
    ("PUT", "/protection/limits"): PLAYER,
    ("POST", "/protection/break"): PLAYER,
    ("POST", "/protection/self-exclusion"): PLAYER,
    ("POST", "/protection/stop"): PLAYER,
    ("GET", "/staff/exclusions"): EXCLUSIONS_VIEW,
    ("POST", "/staff/exclusions/{name}/lift"): EXCLUSION_LIFT,
    ("GET", "/detect/alerts"): DETECT_READ,
    ("POST", "/detect/alerts/{alert_id}/ack"): DETECT_ACK,
    ("WS", "/ws/staff"): STAFF_SESSION,  # its first message a staff token; the alerts for DETECT_READ only
}
"""Every route's access: :data:`PUBLIC`, :data:`PLAYER`, :data:`STAFF_SESSION`, a staff action, or
:data:`PLAYER_OR` + a staff action."""


@dataclass(frozen=True)
class Actor:
    """Who makes a staff request: the audit trail's name (``staff:NAME`` or ``token:admin``) and the role."""

    name: str
    role: str


def actions_of(role: str) -> list[str]:
    """Every action ``role`` may do, sorted (what the back office page offers: ``GET /staff/me``)."""
    return sorted(a for a, roles in ALLOWED.items() if role in roles)


def may(role: str, action: str) -> bool:
    """Whether ``role`` may do ``action`` (an unknown action: nobody)."""
    return role in ALLOWED.get(action, frozenset())


def check(actor: Actor, action: str) -> Actor:
    """``actor`` if their role may do ``action`` (the admin token: :data:`TOKEN_ACTIONS`), else ``forbidden``
    (403)."""
    if actor.name == TOKEN_ACTOR:
        if action not in TOKEN_ACTIONS:
            raise ApiError(
                "forbidden", f"the admin token may not do {action}: log in as a named staff member", 403
            )
        return actor
    if not may(actor.role, action):
        allowed = " or ".join(r for r in ROLES if r in ALLOWED.get(action, frozenset()))
        raise ApiError("forbidden", f"a {actor.role} may not do {action} (needs {allowed or 'nobody'})", 403)
    return actor

"""Staff actions on players' accounts (issue 25): suspend one (every request of theirs refused, their table
sockets closed) or reinstate it, with a reason, in the audit trail in the same transaction (``player.suspend`` /
``player.reinstate``). A suspension is not a self-exclusion (server/protection.py): staff lift it. The methods
block on the database (REST threads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from tablegames.server import audit
from tablegames.server.db import Player
from tablegames.server.errors import ApiError
from tablegames.server.queries import player_id_of
from tablegames.server.transactions import Transactions


class AccountService:
    """``close_sockets(player_id, code, message)``: tell and close every table socket of a player (with the
    exclusions' close code, 4403)."""

    def __init__(
        self, db: Transactions, clock: Callable[[], float], close_sockets: Callable[[int, str, str], Any]
    ) -> None:
        self.db = db
        self.clock = clock
        self.close_sockets = close_sockets

    def set_suspended(self, actor: str, name: object, suspended: bool, reason: object) -> dict[str, Any]:
        """Suspend or reinstate ``name``'s account; a reason is required."""
        why = reason.strip() if isinstance(reason, str) else ""
        if not why or len(why) > 500:
            raise ApiError(
                "bad_message", "a suspension or a reinstatement needs a reason (1-500 characters)", 422
            )
        if not isinstance(name, str):
            raise ApiError("bad_message", "name the player")
        with self.db.tx() as s:
            pid = player_id_of(s, name)
            p = s.scalars(select(Player).where(Player.id == pid)).one()
            if bool(p.suspended) == suspended:
                raise ApiError(
                    "conflict", f"{p.name} is {'suspended' if suspended else 'not suspended'} already", 409
                )
            p.suspended = suspended
            audit.append(
                s, self.clock, actor, "player.suspend" if suspended else "player.reinstate", f"player:{p.name}",
                {"suspended": not suspended}, {"suspended": suspended}, why,
            )  # fmt: skip
            shown = p.name
        if suspended:  # (after the commit: a socket reconnecting now is refused)
            self.close_sockets(pid, "suspended", "this account is suspended by the casino: contact its staff")
        return {"name": shown, "suspended": suspended}

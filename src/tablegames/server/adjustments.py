"""Staff adjustments of a player's balance, with dual control (issue 25; NJ N.J.A.C. 13:69O-1.8's exception
report of every adjustment with before, after and reason).

An adjustment (``player.adjust``) is a signed amount in cents with a reason: a credit moves money from the
cashier to the player's wallet, a debit back. Up to :attr:`~tablegames.server.core.Config.dual_control_cents`
(default $2,000) in either direction it is applied at once; above it, it waits (``pending``) until a second
staff member approves or rejects it (``adjust.approve``). Nobody decides their own request, and a decision needs
a named staff member's session: the admin token is a shared credential, so it may ask but never approve.

Every step is in the audit trail in the same transaction as the change (``adjust.apply`` with the balance
before and after, ``adjust.request``, ``adjust.reject``): if the entry cannot be written nothing changes. A
request is idempotent by (who asked, ``request_id``). The methods block on the database (REST threads).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tablegames.server import audit, ledger
from tablegames.server.checks import check_request_id
from tablegames.server.core import Config
from tablegames.server.db import CASHIER, Adjustment, Player
from tablegames.server.errors import ApiError
from tablegames.server.permissions import Actor
from tablegames.server.queries import player_id_of
from tablegames.server.transactions import Transactions

PENDING, APPLIED, REJECTED = "pending", "applied", "rejected"
STATUSES = (PENDING, APPLIED, REJECTED)
MAX_ADJUSTMENT = 10**10  # $100,000,000: larger is a typing error
REASON_MAX = 500


def check_adjustment(amount: object, reason: object) -> tuple[int, str]:
    """A signed whole number of cents (not zero) and a reason of 1-500 characters, else ``bad_message``."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ApiError("bad_amount", f"amount must be a whole number of cents, got {amount!r}", 422)
    if amount == 0 or abs(amount) > MAX_ADJUSTMENT:
        raise ApiError(
            "bad_amount", f"amount must be non-zero and at most {MAX_ADJUSTMENT} cents either way", 422
        )
    if not isinstance(reason, str) or not reason.strip() or len(reason) > REASON_MAX:
        raise ApiError("bad_message", f"an adjustment needs a reason (1-{REASON_MAX} characters)", 422)
    return amount, reason.strip()


def as_dict(a: Adjustment, player: str) -> dict[str, Any]:
    return {
        "id": a.id,
        "player": player,
        "amount": a.amount,
        "reason": a.reason,
        "status": a.status,
        "requested_by": a.requested_by,
        "requested_at": a.requested_at,
        "decided_by": a.decided_by,
        "decided_at": a.decided_at,
        "decision_reason": a.decision_reason,
        "transaction_id": a.transaction_id,
    }


class AdjustmentService:
    """Adjustments over the server's unit of work; ``system``: the system accounts' ids (the cashier's)."""

    def __init__(self, db: Transactions, system: dict[str, int], config: Config) -> None:
        self.db = db
        self.system = system
        self.config = config

    def request(
        self, actor: Actor, player: object, amount: object, reason: object, request_id: object
    ) -> dict[str, Any]:
        """Adjust ``player``'s balance (applied at once up to the threshold, else pending); the adjustment,
        with ``duplicate`` when this request id of this actor was answered before."""
        cents, why = check_adjustment(amount, reason)
        rid = check_request_id(request_id, required=True)
        if not isinstance(player, str):
            raise ApiError("bad_message", "name the player")
        try:
            with self.db.tx() as s:
                old = self._answered(s, actor, rid)
                if old is not None:
                    return {**old, "duplicate": True}
                pid = player_id_of(s, player)
                name = str(s.scalar(select(Player.name).where(Player.id == pid)))
                now = float(self.config.clock())
                a = Adjustment(
                    player_id=pid,
                    amount=cents,
                    reason=why,
                    request_id=rid,
                    requested_by=actor.name,
                    requested_at=now,
                    status=PENDING,
                    decision_reason="",
                )
                s.add(a)
                s.flush()
                if abs(cents) > self.config.dual_control_cents:
                    audit.append(
                        s, self.config.clock, actor.name, "adjust.request", f"adjustment:{a.id}", None,
                        {"player": name, "amount": cents, "threshold": self.config.dual_control_cents}, why,
                    )  # fmt: skip
                else:
                    self._apply(s, a, name, actor.name, why)
                return {**as_dict(a, name), "duplicate": False}
        except IntegrityError:  # the same request raced in: answered as the first one
            with self.db.sessions() as s:
                old = self._answered(s, actor, rid)
            if old is None:
                raise
            return {**old, "duplicate": True}

    def decide(self, actor: Actor, adjustment_id: int, approve: bool, reason: object = "") -> dict[str, Any]:
        """Approve (apply) or reject a pending adjustment: a named staff member other than who asked."""
        if not actor.name.startswith("staff:"):  # (not TOKEN_ACTOR, not a console)
            raise ApiError(
                "forbidden",
                "a decision needs a named staff member's session (the admin token cannot approve)",
                403,
            )
        why = reason.strip() if isinstance(reason, str) else ""
        if len(why) > REASON_MAX:
            raise ApiError("bad_message", f"a reason is at most {REASON_MAX} characters", 422)
        if not approve and not why:
            raise ApiError("bad_message", "a rejection needs a reason", 422)
        with self.db.tx() as s:
            a = s.get(Adjustment, adjustment_id, with_for_update=True)
            if a is None:
                raise ApiError("not_found", f"no adjustment {adjustment_id}", 404)
            name = str(s.scalar(select(Player.name).where(Player.id == a.player_id)))
            if a.status != PENDING:
                raise ApiError(
                    "conflict", f"adjustment {a.id} is {a.status} already (by {a.decided_by})", 409
                )
            if a.requested_by == actor.name:
                raise ApiError("forbidden", "nobody approves or rejects their own adjustment", 403)
            if approve:
                self._apply(s, a, name, actor.name, why or a.reason)
            else:
                a.status, a.decided_by, a.decided_at = REJECTED, actor.name, float(self.config.clock())
                a.decision_reason = why
                audit.append(
                    s, self.config.clock, actor.name, "adjust.reject", f"adjustment:{a.id}",
                    {"status": PENDING}, {"status": REJECTED, "player": name, "amount": a.amount}, why,
                )  # fmt: skip
            return as_dict(a, name)

    def _apply(self, s: Session, a: Adjustment, name: str, by: str, reason: str) -> None:
        """(In the transaction.) Post the adjustment and its audit entry (balance before and after)."""
        account = int(s.scalar(select(Player.account_id).where(Player.id == a.player_id)) or 0)
        before = ledger.balance(s, account)
        cashier = self.system[CASHIER]
        src, dst = (cashier, account) if a.amount > 0 else (account, cashier)
        try:
            tx_id = ledger.transfer(
                s, "adjustment", src, dst, abs(a.amount), player_id=a.player_id, memo=f"adjustment {a.id}"
            )
        except ledger.NotEnoughMoney:
            raise ApiError(
                "insufficient_funds",
                f"{name}'s balance is {before} cents: a debit of {-a.amount} cannot apply",
            ) from None
        a.status, a.transaction_id = APPLIED, tx_id
        if a.requested_by != by:  # a second staff member's approval
            a.decided_by, a.decided_at, a.decision_reason = by, float(self.config.clock()), reason
        audit.append(
            s, self.config.clock, by, "adjust.apply", f"adjustment:{a.id}",
            {"player": name, "balance": before},
            {"player": name, "balance": ledger.balance(s, account), "amount": a.amount, "transaction_id": tx_id,
             "requested_by": a.requested_by},
            reason,
        )  # fmt: skip

    def _answered(self, s: Session, actor: Actor, rid: str | None) -> dict[str, Any] | None:
        a = s.scalar(
            select(Adjustment).where(Adjustment.requested_by == actor.name, Adjustment.request_id == rid)
        )
        if a is None:
            return None
        return as_dict(a, str(s.scalar(select(Player.name).where(Player.id == a.player_id))))

    def list(self, status: str | None = None, last: int = 100) -> list[dict[str, Any]]:
        """The newest adjustments first (``status``: only those)."""
        if status is not None and status not in STATUSES:
            raise ApiError("bad_message", f"status must be one of {', '.join(STATUSES)}", 422)
        with self.db.sessions() as s:
            q = select(Adjustment, Player.name).join(Player, Player.id == Adjustment.player_id)
            if status is not None:
                q = q.where(Adjustment.status == status)
            rows = s.execute(q.order_by(Adjustment.id.desc()).limit(max(1, min(last, 500)))).all()
            return [as_dict(a, str(n)) for a, n in rows]

"""The audit trail (issue 25): one append-only chain of entries, each naming who did what to what, when (the
server's clock), the state before and after and the reason, and carrying the SHA-256 of the previous entry.

An entry is written by :func:`append` inside the transaction of the change it records (the caller's session):
if the entry cannot be written the change is rolled back with it (fail closed). Appends are serialized: on
PostgreSQL by a transaction-scoped advisory lock taken before the chain's head is read (several processes
append to one chain), on SQLite by the database's one writer. :func:`verify` recomputes the chain and names the
first entry altered, removed or put out of order; :func:`export_rows` reads it for CSV or JSON.

An entry's hash covers its fields as canonical JSON (sorted keys, no spaces, ``at`` as its exact ``repr``) with
the previous hash::

    hash = SHA-256(prev_hash + "\\n" + canonical JSON of {id, at, actor, action, subject, before, after, reason})

The first entry's ``prev_hash`` is :data:`GENESIS` (64 zeros). The entry's id is in the hash, so an entry
deleted leaves a gap that breaks the chain, and two entries swapped break it where they stand.

>>> entry_hash(GENESIS, 1, 0.5, "staff:ann", "login", "staff:ann", None, None, "")[:16]
'4fc22259a79494f2'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from tablegames.server.db import AuditEntry

GENESIS: Final = "0" * 64
ADVISORY_LOCK: Final = 0x7461626C  # "tabl": the audit chain's lock (PostgreSQL)
COLUMNS: Final = ("id", "at", "actor", "action", "subject", "before", "after", "reason", "prev_hash", "hash")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def entry_hash(
    prev_hash: str,
    entry_id: int,
    at: float,
    actor: str,
    action: str,
    subject: str,
    before: Any,
    after: Any,
    reason: str,
) -> str:
    body = {
        "id": entry_id,
        "at": repr(float(at)),
        "actor": actor,
        "action": action,
        "subject": subject,
        "before": before,
        "after": after,
        "reason": reason,
    }
    return hashlib.sha256((prev_hash + "\n" + canonical(body)).encode()).hexdigest()


def lock_chain(session: Session) -> None:
    """Take the chain's lock for the rest of ``session``'s transaction (PostgreSQL; SQLite has one writer)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})


def append(
    session: Session,
    clock: Callable[[], float],
    actor: str,
    action: str,
    subject: str,
    before: Any = None,
    after: Any = None,
    reason: str = "",
) -> AuditEntry:
    """Add one entry to the chain in ``session``'s transaction (flushed: an error here fails the caller's
    transaction, so the change it records is rolled back too)."""
    lock_chain(session)
    head = session.execute(
        select(AuditEntry.id, AuditEntry.hash).order_by(AuditEntry.id.desc()).limit(1)
    ).first()
    prev = GENESIS if head is None else str(head.hash)
    entry_id = 1 if head is None else int(head.id) + 1
    at = float(clock())
    before, after = json.loads(canonical(before)), json.loads(canonical(after))  # as stored and read back
    entry = AuditEntry(
        id=entry_id,
        at=at,
        actor=actor,
        action=action,
        subject=subject,
        before=before,
        after=after,
        reason=reason,
        prev_hash=prev,
        hash=entry_hash(prev, entry_id, at, actor, action, subject, before, after, reason),
    )
    session.add(entry)
    session.flush()
    return entry


@dataclass(frozen=True)
class Verdict:
    ok: bool
    entries: int
    problem: str = ""  # the first break, in words ("entry 7: altered (its hash ...)")
    entry_id: int | None = None


def verify(session: Session) -> Verdict:
    """Recompute the chain in id order; the first entry whose id, link or hash does not hold is named."""
    prev, expected_id, n = GENESIS, 1, 0
    for e in session.scalars(select(AuditEntry).order_by(AuditEntry.id)).yield_per(500):
        n += 1
        if e.id != expected_id:
            return Verdict(
                False, n, f"entry {expected_id}: removed (the chain goes on at {e.id})", expected_id
            )
        if e.prev_hash != prev:
            return Verdict(False, n, f"entry {e.id}: out of order or its predecessor altered", e.id)
        again = entry_hash(prev, e.id, e.at, e.actor, e.action, e.subject, e.before, e.after, e.reason)
        if again != e.hash:
            return Verdict(False, n, f"entry {e.id}: altered (its content no longer gives its hash)", e.id)
        prev, expected_id = e.hash, expected_id + 1
    return Verdict(True, n)


def count(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(AuditEntry)) or 0)


def action_is(action: str) -> Any:
    """The filter of an action: exactly it, or (ending in ``.``) every action it begins."""
    if action.endswith("."):
        return AuditEntry.action.startswith(action, autoescape=True)
    return AuditEntry.action == action


def export_rows(
    session: Session, actor: str | None = None, action: str | None = None
) -> Iterator[dict[str, Any]]:
    """The entries in order as plain dicts (``COLUMNS``), optionally only one actor's or one action's (an
    action ending in ``.``: every action it begins, as ``adjust.``)."""
    q = select(AuditEntry).order_by(AuditEntry.id)
    if actor:
        q = q.where(AuditEntry.actor == actor)
    if action:
        q = q.where(action_is(action))
    for e in session.scalars(q).yield_per(500):
        yield {c: getattr(e, c) for c in COLUMNS}

"""The ledger in the audit chain (issue 25): every ledger transaction is sealed into the audit trail, so one
altered cent, a removed or an added transaction is found by ``tablegames audit verify``.

A *seal* is an audit entry (action ``ledger.seal``) whose ``after`` holds the range of ledger transaction ids it
covers (``from``..``to``, following the previous seal's without a gap), how many there are and the SHA-256 of
their canonical form: each transaction's id, kind, round, player, memo and time with its entries (id, account,
amount, kind) in id order. The seal is chained like every entry, so it cannot be rewritten either.

Sealing every transaction in its own write would put one global lock on every wager of every table; instead the
ledger is sealed in batches: by the server every :attr:`~tablegames.server.core.Config.seal_seconds` (``serve``:
60 s), before every ``audit verify`` that may write (``--seal``), and by ``tablegames audit seal``. A transaction
is sealed once it is :data:`SETTLE_SECONDS` old on the server's clock, so a transaction with a lower id that
commits a moment after a higher one is never left outside a sealed range. What is not sealed yet is reported
by the verification (``unsealed``), never called broken.

>>> digest_row(1, "wager", None, 7, "", 1.5, [(1, 3, -500, "wager"), (2, 4, 500, "wager")])[:12]
'c2a00244b802'
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tablegames.server import audit
from tablegames.server.db import AuditEntry, Entry, LedgerTransaction

SEAL_ACTION: Final = "ledger.seal"
SETTLE_SECONDS: Final = 30.0
"""A ledger transaction is sealed once it is this old (its id allocated, its commit long done)."""
BATCH: Final = 5_000  # transactions read at a time


def digest_row(
    tx_id: int,
    kind: str,
    round_id: int | None,
    player_id: int | None,
    memo: str,
    created_at: float,
    entries: Sequence[tuple[int, int, int, str]],
) -> str:
    """The SHA-256 of one transaction with its entries (id, account, amount, kind), as the seal chains them."""
    body = {
        "id": tx_id,
        "kind": kind,
        "round_id": round_id,
        "player_id": player_id,
        "memo": memo,
        "at": repr(float(created_at)),
        "entries": [list(e) for e in entries],
    }
    return hashlib.sha256(audit.canonical(body).encode()).hexdigest()


def ledger_digest(session: Session, first: int, last: int) -> tuple[int, str]:
    """(How many transactions, their SHA-256) of the ledger transactions with ids ``first``..``last``."""
    h = hashlib.sha256()
    n = 0
    start = first
    while start <= last:
        end = min(last, start + BATCH - 1)
        txs = session.execute(
            select(LedgerTransaction)
            .where(LedgerTransaction.id.between(start, end))
            .order_by(LedgerTransaction.id)
        ).scalars()
        by_tx: dict[int, list[tuple[int, int, int, str]]] = {}
        for e in session.execute(
            select(Entry.transaction_id, Entry.id, Entry.account_id, Entry.amount, Entry.kind)
            .where(Entry.transaction_id.between(start, end))
            .order_by(Entry.id)
        ):
            by_tx.setdefault(int(e[0]), []).append((int(e[1]), int(e[2]), int(e[3]), str(e[4])))
        for t in txs:
            row = digest_row(t.id, t.kind, t.round_id, t.player_id, t.memo, t.created_at, by_tx.get(t.id, []))
            h.update(row.encode() + b"\n")
            n += 1
        start = end + 1
    return n, h.hexdigest()


def _last_sealed(session: Session) -> int:
    after = session.scalar(
        select(AuditEntry.after)
        .where(AuditEntry.action == SEAL_ACTION)
        .order_by(AuditEntry.id.desc())
        .limit(1)
    )
    return int(after["to"]) if isinstance(after, dict) else 0


def seal(session: Session, clock: Callable[[], float], actor: str = "system") -> AuditEntry | None:
    """(In ``session``'s transaction.) Seal the ledger transactions after the last seal that are
    :data:`SETTLE_SECONDS` old; the seal's entry, or None (nothing to seal)."""
    audit.lock_chain(session)  # the chain's lock first: two sealers never seal one range twice
    done = _last_sealed(session)
    bound = session.scalar(
        select(func.max(LedgerTransaction.id)).where(
            LedgerTransaction.id > done, LedgerTransaction.created_at <= float(clock()) - SETTLE_SECONDS
        )
    )
    if bound is None:
        return None
    n, digest = ledger_digest(session, done + 1, int(bound))
    after = {"from": done + 1, "to": int(bound), "transactions": n, "sha256": digest}
    return audit.append(session, clock, actor, SEAL_ACTION, f"ledger:{done + 1}-{int(bound)}", None, after)


@dataclass(frozen=True)
class LedgerVerdict:
    ok: bool
    sealed: int  # transactions covered by seals
    unsealed: int  # transactions after the last seal (not yet sealed: not a fault)
    problem: str = ""
    entry_id: int | None = None  # the audit entry of the seal that no longer holds


def verify(session: Session) -> LedgerVerdict:
    """Recompute every seal from the ledger: the first seal whose range no longer gives its count and digest
    (a transaction altered, removed or added inside it), or that does not follow the previous one, is named."""
    done, sealed = 0, 0
    for entry_id, after in session.execute(
        select(AuditEntry.id, AuditEntry.after)
        .where(AuditEntry.action == SEAL_ACTION)
        .order_by(AuditEntry.id)
    ):
        seal_of: dict[str, Any] = dict(after or {})
        first, last = int(seal_of.get("from", -1)), int(seal_of.get("to", -1))
        if first != done + 1 or last < first:
            problem = (
                f"seal in audit entry {entry_id}: covers {first}-{last}, not the next range after {done}"
            )
            return LedgerVerdict(False, sealed, 0, problem, entry_id)
        n, digest = ledger_digest(session, first, last)
        if (n, digest) != (seal_of.get("transactions"), seal_of.get("sha256")):
            problem = (
                f"ledger transactions {first}-{last} (sealed in audit entry {entry_id}): altered, removed or added"
                f" ({n} transactions now, {seal_of.get('transactions')} sealed)"
            )
            return LedgerVerdict(False, sealed, 0, problem, entry_id)
        done, sealed = last, sealed + n
    unsealed = int(
        session.scalar(select(func.count()).select_from(LedgerTransaction).where(LedgerTransaction.id > done))
        or 0
    )
    return LedgerVerdict(True, sealed, unsealed)


class Sealer:
    """Seals the ledger every ``seconds`` (a daemon thread, off the event loop; started and stopped with the
    app). Several processes may each run one: the chain's lock makes them take turns, and a range is sealed
    once."""

    def __init__(self, tx: Callable[[], Any], clock: Callable[[], float], seconds: float) -> None:
        self.tx = tx  # a context manager of one write transaction (``Transactions.tx``)
        self.clock = clock
        self.seconds = seconds
        self.seals = 0  # written by this process (diagnostics, tests)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True, name="tablegames-ledger-seal")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def seal_now(self) -> bool:
        with self.tx() as s:
            done = seal(s, self.clock) is not None
        self.seals += done
        return done

    def _run(self) -> None:
        import logging

        log = logging.getLogger("tablegames.server")
        while not self._stop.wait(self.seconds):
            try:
                self.seal_now()
            except Exception:  # a database outage: sealed at the next turn
                log.warning("sealing the ledger failed; trying again in %s s", self.seconds, exc_info=True)

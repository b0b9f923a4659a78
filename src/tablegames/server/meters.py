"""The linked jackpot meters: one per game and meter name of the registry, seeded from the house; their
values and their entries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tablegames.rules import registry
from tablegames.server import ledger
from tablegames.server.checks import iso
from tablegames.server.db import (
    HOUSE,
    JACKPOT,
    Account,
    Entry,
    LedgerTransaction,
    Meter,
    MeterHit,
    Player,
)

if TYPE_CHECKING:
    from tablegames.server.service import Server


def ensure_meters(server: Server) -> None:
    """One linked meter per game and meter name, seeded from the house at its reset value."""
    for definition in registry.DEFINITIONS:
        game = definition.key
        for spec in definition.meters(definition.make_rules()):
            with server.tx() as s:
                if s.scalar(select(Meter.id).where(Meter.game == game, Meter.name == spec.name)) is not None:
                    continue
                acc = Account(name=f"jackpot:{game}:{spec.name}", kind=JACKPOT, balance=0)
                s.add(acc)
                s.flush()
                s.add(
                    Meter(
                        game=game,
                        name=spec.name,
                        reset_cents=spec.reset_cents,
                        share=str(spec.share),
                        account_id=acc.id,
                    )
                )
                ledger.transfer(
                    s, "seed", server.system[HOUSE], acc.id, spec.reset_cents, memo=f"{game} {spec.name}"
                )


def meter_accounts(session: Session, game: str) -> dict[str, int]:
    return {
        n: int(a) for n, a in session.execute(select(Meter.name, Meter.account_id).where(Meter.game == game))
    }


def jackpots(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Meter.game, Meter.name, Account.balance, Meter.reset_cents, Meter.share)
        .join(Account, Account.id == Meter.account_id)
        .order_by(Meter.id)
    ).all()
    return [{"game": g, "meter": n, "value": int(b), "reset": int(r), "share": sh} for g, n, b, r, sh in rows]


def jackpot_history(
    session: Session, game: str | None, meter: str | None, last: int, before: int | None = None
) -> list[dict[str, Any]]:
    """Meter entries, newest first; ``before``: only entries with an ``entry_id`` below it (the next page)."""
    q = (
        select(
            Entry.id,
            Meter.game,
            Meter.name,
            Entry.kind,
            Entry.amount,
            LedgerTransaction.round_id,
            LedgerTransaction.created_at,
            Player.name,
            MeterHit.seq,
        )
        .join(Entry, Entry.account_id == Meter.account_id)
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .outerjoin(Player, Player.id == LedgerTransaction.player_id)
        .outerjoin(
            MeterHit, (MeterHit.transaction_id == LedgerTransaction.id) & (MeterHit.meter_id == Meter.id)
        )
        .order_by(Entry.id.desc())
        .limit(max(1, min(last, 1000)))
    )
    if game:
        q = q.where(Meter.game == game)
    if meter:
        q = q.where(Meter.name == meter)
    if before is not None:
        q = q.where(Entry.id < before)
    return [
        {
            "entry_id": i,
            "game": g,
            "meter": n,
            "kind": k,
            "amount": int(a),
            "round_id": r,
            "time": iso(c),
            "player": p,
            "hit_seq": seq,  # a hit's place in the meter's order of hits (1, 2, ...); None for other entries
        }
        for i, g, n, k, a, r, c, p, seq in session.execute(q).all()
    ]

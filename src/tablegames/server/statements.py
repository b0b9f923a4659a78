"""Prebuilt SQL statements of the table hot paths (wagers, steps, settlements): compiled once, no ORM unit of
work."""

from __future__ import annotations

from sqlalchemy import bindparam, func, insert, select, update

from tablegames.server.db import Account, IdempotencyKey, MeterHit, Player, RoundPlayer, RoundRow, RoundStep

# Prebuilt statements of the table hot paths (wagers, steps, settlements): compiled once, no ORM unit of work.
IDEMPOTENT = select(IdempotencyKey.response).where(
    IdempotencyKey.player_id == bindparam("player"), IdempotencyKey.request_id == bindparam("key")
)
INSERT_KEY = insert(IdempotencyKey)
INSERT_ROUND = insert(RoundRow).returning(RoundRow.id)
INSERT_STEP = insert(RoundStep)
INSERT_ROUND_PLAYERS = insert(RoundPlayer)
# (who sits where is stored when the cards are dealt: until then the wager steps say it)
SET_STATUS = (
    update(RoundRow)
    .where(RoundRow.id == bindparam("rid"))
    .values(
        status=bindparam("status"),
        seat_players=bindparam("seat_players", type_=RoundRow.__table__.c.seat_players.type),
    )
)
ROUND_FOR_SETTLEMENT = (
    select(
        RoundRow.status,
        RoundRow.server_seed,
        RoundRow.client_seed,
        RoundRow.nonce,
        RoundRow.deck,
        RoundRow.commitment,
    )
    .where(RoundRow.id == bindparam("rid"))
    .with_for_update()
)
LAST_HIT = select(func.max(MeterHit.seq)).where(MeterHit.meter_id == bindparam("meter"))
INSERT_HITS = insert(MeterHit)
WALLETS = select(Player.id, Player.account_id).where(Player.id.in_(bindparam("players", expanding=True)))
ACCOUNT_BALANCES = select(Account.id, Account.balance).where(
    Account.id.in_(bindparam("accounts", expanding=True))
)
FINISH_ROUND = (
    update(RoundRow)
    .where(RoundRow.id == bindparam("rid"))
    .values(
        status=bindparam("status"),
        seat_players=bindparam("seat_players", type_=RoundRow.__table__.c.seat_players.type),
        events=bindparam("events", type_=RoundRow.__table__.c.events.type),
        settled_at=bindparam("settled_at"),
        recovered=bindparam("recovered"),
        result=bindparam("result", type_=RoundRow.__table__.c.result.type),
    )
)

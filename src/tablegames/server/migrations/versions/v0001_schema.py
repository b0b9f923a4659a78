"""the schema as of the first versioned release (adopts an unversioned database of an older server)

A new database gets every table. A database made before the schema was versioned (the server created its
tables with ``create_all`` and added columns by hand at start-up) keeps its tables and data: the tables it lacks
are created, and the columns older servers lacked are added: ``players.name_key`` (filled in, with its unique
index; two old players whose names share a key keep their names, the later one's key gets ``#<id>`` so that
neither can be impersonated by a new registration and both still log in), ``tables.rule_set`` (issue 15) and
``tables.edge_confirmation`` (issue 20).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def _accounts() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_not_negative"),
        sa.CheckConstraint("kind <> 'in_play' OR balance >= 0", name="in_play_not_negative"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )


def _players() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_hash"),
    )


def _tables() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("min_bet", sa.BigInteger(), nullable=False),
        sa.Column("max_bet", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("paytable", sa.String(length=80), nullable=True),
        sa.Column("rule_set", sa.String(length=80), nullable=True),
        sa.Column("edge_confirmation", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.CheckConstraint("seats >= 1 AND seats <= 7", name="seats_1_7"),
        sa.CheckConstraint("min_bet > 0 AND max_bet >= min_bet", name="limits"),
        sa.PrimaryKeyConstraint("id"),
    )


def _rounds() -> None:
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.Column("server_seed", sa.String(length=64), nullable=True),
        sa.Column("commitment", sa.String(length=64), nullable=True),
        sa.Column("client_seed", sa.String(length=64), nullable=True),
        sa.Column("nonce", sa.Integer(), nullable=True),
        sa.Column("seat_players", sa.JSON(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("recovered", sa.Boolean(), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("settled_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "round_no", name="round_no_per_table"),
    )
    op.create_index("ix_rounds_table_id", "rounds", ["table_id"])
    op.create_index("ix_rounds_status", "rounds", ["status"])


def _ledger_transactions() -> None:
    op.create_table(
        "ledger_transactions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("memo", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ledger_transactions_round_id", "ledger_transactions", ["round_id"])
    op.create_index("ix_ledger_transactions_player_id", "ledger_transactions", ["player_id"])


def _ledger_entries() -> None:
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("transaction_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
        sa.ForeignKeyConstraint(["transaction_id"], ["ledger_transactions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ledger_entries_transaction_id", "ledger_entries", ["transaction_id"])
    op.create_index("ix_ledger_entries_account_id", "ledger_entries", ["account_id"])


def _seatings() -> None:
    op.create_table(
        "seatings",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.PrimaryKeyConstraint("table_id", "seat"),
        sa.UniqueConstraint("table_id", "player_id", name="one_seat_per_table"),
    )


def _round_steps() -> None:
    op.create_table(
        "round_steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("round_id", "seq", name="step_seq"),
    )
    op.create_index("ix_round_steps_round_id", "round_steps", ["round_id"])


def _round_players() -> None:
    op.create_table(
        "round_players",
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("staked", sa.BigInteger(), nullable=False),
        sa.Column("returned", sa.BigInteger(), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.Column("balance_before", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
        sa.PrimaryKeyConstraint("round_id", "seat"),
    )
    op.create_index("ix_round_players_player_id", "round_players", ["player_id"])


def _meters() -> None:
    op.create_table(
        "meters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("reset_cents", sa.BigInteger(), nullable=False),
        sa.Column("share", sa.String(length=24), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game", "name", name="meter_per_game"),
    )


def _meter_hits() -> None:
    op.create_table(
        "meter_hits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("meter_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("transaction_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["meter_id"], ["meters.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
        sa.ForeignKeyConstraint(["transaction_id"], ["ledger_transactions.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("meter_id", "seq", name="hit_seq_per_meter"),
        sa.UniqueConstraint("transaction_id"),
    )
    op.create_index("ix_meter_hits_round_id", "meter_hits", ["round_id"])


def _idempotency_keys() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("player_id", "request_id"),
    )


def _table_leases() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("node", sa.String(length=120), nullable=False),
        sa.Column("advertise", sa.String(length=300), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("taken_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.PrimaryKeyConstraint("table_id"),
    )


def _cluster_nodes() -> None:
    op.create_table(
        "cluster_nodes",
        sa.Column("node", sa.String(length=120), nullable=False),
        sa.Column("advertise", sa.String(length=300), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("node"),
    )


#: every table, each after the tables its foreign keys name
TABLES: tuple[tuple[str, Callable[[], None]], ...] = (
    ("accounts", _accounts),
    ("players", _players),
    ("tables", _tables),
    ("rounds", _rounds),
    ("ledger_transactions", _ledger_transactions),
    ("ledger_entries", _ledger_entries),
    ("seatings", _seatings),
    ("round_steps", _round_steps),
    ("round_players", _round_players),
    ("meters", _meters),
    ("meter_hits", _meter_hits),
    ("idempotency_keys", _idempotency_keys),
    ("table_leases", _table_leases),
    ("cluster_nodes", _cluster_nodes),
)


def _fill_name_keys(bind: sa.Connection) -> None:
    """Every player without a look-alike key gets one (the later of two that collide: ``<key>#<id>``)."""
    from tablegames.server.names import name_key

    players = sa.table("players", sa.column("id", sa.Integer), sa.column("name"), sa.column("name_key"))
    pending = list(
        bind.execute(
            sa.select(players.c.id, players.c.name).where(players.c.name_key.is_(None)).order_by("id")
        )
    )
    if not pending:
        return
    taken = {k for (k,) in bind.execute(sa.select(players.c.name_key).where(players.c.name_key.is_not(None)))}
    for pid, name in pending:
        key = name_key(name)
        if key in taken:
            key = f"{key[:50]}#{pid}"
        taken.add(key)
        bind.execute(sa.update(players).where(players.c.id == pid).values(name_key=key))


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    existing = set(inspector.get_table_names())
    for name, create in TABLES:
        if name not in existing:
            create()
    if "players" in existing:  # an unversioned database of an older server
        if "name_key" not in {c["name"] for c in inspector.get_columns("players")}:
            op.add_column("players", sa.Column("name_key", sa.String(length=64), nullable=True))
        _fill_name_keys(bind)
    if "players_look_alike_key" not in {i["name"] for i in inspector.get_indexes("players")}:
        op.create_index("players_look_alike_key", "players", ["name_key"], unique=True)
    if "tables" in existing:
        columns = {c["name"] for c in inspector.get_columns("tables")}
        if "rule_set" not in columns:
            op.add_column("tables", sa.Column("rule_set", sa.String(length=80), nullable=True))
        if "edge_confirmation" not in columns:
            op.add_column("tables", sa.Column("edge_confirmation", sa.JSON(), nullable=True))


def downgrade() -> None:
    for name, _ in reversed(TABLES):
        op.drop_table(name)

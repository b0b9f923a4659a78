"""player protection: limits, breaks and self-exclusions, sessions (issue 26)

New tables only: ``player_limits`` (a player's deposit, loss, session and reality-check limits with a pending
increase and when it takes effect), ``exclusions`` (the register of breaks and self-exclusions),
``player_sessions`` (GLI-19 2.13's sessions) and ``player_money`` (deposits, stakes and returns on the server's
clock, what the limits and the session report sum). An upgraded database keeps everything it had.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # (a database adopted unversioned from this schema has them already: revision 0001 replays over it)
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "player_limits" not in existing:
        op.create_table(
            "player_limits",
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("kind", sa.String(length=24), nullable=False),
            sa.Column("amount", sa.BigInteger(), nullable=True),
            sa.Column("pending", sa.Boolean(), nullable=False),
            sa.Column("pending_amount", sa.BigInteger(), nullable=True),
            sa.Column("effective_at", sa.Float(), nullable=True),
            sa.Column("updated_at", sa.Float(), nullable=False),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("player_id", "kind"),
        )
    if "exclusions" not in existing:
        op.create_table(
            "exclusions",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("period", sa.String(length=8), nullable=False),
            sa.Column("started_at", sa.Float(), nullable=False),
            sa.Column("ends_at", sa.Float(), nullable=False),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_exclusions_player_id"), "exclusions", ["player_id"], unique=False)
        op.create_index(op.f("ix_exclusions_ends_at"), "exclusions", ["ends_at"], unique=False)
    if "player_sessions" not in existing:
        op.create_table(
            "player_sessions",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("started_at", sa.Float(), nullable=False),
            sa.Column("last_seen_at", sa.Float(), nullable=False),
            sa.Column("ended_at", sa.Float(), nullable=True),
            sa.Column("reason", sa.String(length=24), nullable=True),
            sa.Column("next_check_at", sa.Float(), nullable=True),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index(op.f("ix_player_sessions_player_id"), "player_sessions", ["player_id"], unique=False)
        op.create_index(
            op.f("ix_player_sessions_started_at"), "player_sessions", ["started_at"], unique=False
        )
    if "player_money" not in existing:
        op.create_table(
            "player_money",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
            sa.Column("kind", sa.String(length=8), nullable=False),
            sa.Column("amount", sa.BigInteger(), nullable=False),
            sa.Column("round_id", sa.Integer(), nullable=True),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("player_money_by_time", "player_money", ["player_id", "at"], unique=False)


def downgrade() -> None:
    for name in ("player_money", "player_sessions", "exclusions", "player_limits"):
        op.drop_table(name)

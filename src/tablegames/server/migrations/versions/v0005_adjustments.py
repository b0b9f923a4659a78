"""staff adjustments of players' balances, with dual control (issue 25)

A new table only: ``adjustments`` (a signed amount in cents, the reason, who asked and when, the status —
``pending`` above the dual-control threshold until a second staff member decides, ``applied`` or ``rejected`` —,
who decided and the ledger transaction once applied). An upgraded database keeps everything it had.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "adjustments" in set(sa.inspect(op.get_bind()).get_table_names()):
        return  # (a database adopted unversioned from this schema has it already)
    op.create_table(
        "adjustments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("requested_by", sa.String(length=80), nullable=False),
        sa.Column("requested_at", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("decided_by", sa.String(length=80), nullable=True),
        sa.Column("decided_at", sa.Float(), nullable=True),
        sa.Column("decision_reason", sa.String(length=500), nullable=False),
        sa.Column("transaction_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["transaction_id"], ["ledger_transactions.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("requested_by", "request_id", name="adjustments_request"),
    )
    op.create_index(op.f("ix_adjustments_player_id"), "adjustments", ["player_id"], unique=False)
    op.create_index(op.f("ix_adjustments_status"), "adjustments", ["status"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_adjustments_status"), table_name="adjustments")
    op.drop_index(op.f("ix_adjustments_player_id"), table_name="adjustments")
    op.drop_table("adjustments")

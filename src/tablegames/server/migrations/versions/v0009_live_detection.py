"""live detection: the players' tests, the scored rounds, the watermark, the alerts (issue 27)

New tables only: ``detect_tests`` (one sequential test per player, game and scenario), ``detect_rounds`` (the
rounds scored, each once), ``detect_mark`` (the watermark below which every round is done) and
``detect_alerts`` (players flagged, acknowledged by a supervisor). An upgraded database keeps everything it had.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # (a database adopted unversioned from this schema has them already: revision 0001 replays over it)
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "detect_tests" not in existing:
        op.create_table(
            "detect_tests",
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("game", sa.String(length=32), nullable=False),
            sa.Column("scenario", sa.String(length=32), nullable=False),
            sa.Column("logs", sa.JSON(), nullable=False),
            sa.Column("hands", sa.Integer(), nullable=False),
            sa.Column("mistakes", sa.Integer(), nullable=False),
            sa.Column("supported", sa.Integer(), nullable=False),
            sa.Column("flagged_at", sa.Integer(), nullable=True),
            sa.Column("evidence", sa.JSON(), nullable=False),
            sa.Column("capped", sa.Boolean(), nullable=False),
            sa.Column("updated_at", sa.Float(), nullable=False),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("player_id", "game", "scenario"),
        )
    if "detect_rounds" not in existing:
        op.create_table(
            "detect_rounds",
            sa.Column("round_id", sa.Integer(), nullable=False),
            sa.Column("scored_at", sa.Float(), nullable=False),
            sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
            sa.PrimaryKeyConstraint("round_id"),
        )
    if "detect_mark" not in existing:
        op.create_table(
            "detect_mark",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("below", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
    if "detect_alerts" not in existing:
        op.create_table(
            "detect_alerts",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("game", sa.String(length=32), nullable=False),
            sa.Column("scenario", sa.String(length=32), nullable=False),
            sa.Column("round_id", sa.Integer(), nullable=False),
            sa.Column("hand", sa.Integer(), nullable=False),
            sa.Column("log10_evidence", sa.Float(), nullable=False),
            sa.Column("threshold", sa.Float(), nullable=False),
            sa.Column("created_at", sa.Float(), nullable=False),
            sa.Column("acknowledged_by", sa.String(length=80), nullable=True),
            sa.Column("acknowledged_at", sa.Float(), nullable=True),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("player_id", "game", "scenario", name="detect_alert_per_test"),
        )
        op.create_index(op.f("ix_detect_alerts_player_id"), "detect_alerts", ["player_id"], unique=False)
        op.create_index(op.f("ix_detect_alerts_created_at"), "detect_alerts", ["created_at"], unique=False)


def downgrade() -> None:
    for name in ("detect_alerts", "detect_mark", "detect_rounds", "detect_tests"):
        op.drop_table(name)

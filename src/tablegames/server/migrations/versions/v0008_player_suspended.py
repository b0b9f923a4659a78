"""staff may suspend a player's account (issue 25)

``players.suspended``: false for every player before this revision.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("players")}
    if "suspended" not in columns:  # (a database adopted unversioned from this schema has it already)
        op.add_column(
            "players", sa.Column("suspended", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("suspended")

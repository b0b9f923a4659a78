"""players may have a password (issue 25)

``players.password_hash``: the argon2 hash of a player's password, null for a player known by their token alone
(every player before this revision, and the demo's).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("players")}
    if "password_hash" not in columns:  # (a database adopted unversioned from this schema has it already)
        op.add_column("players", sa.Column("password_hash", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("password_hash")

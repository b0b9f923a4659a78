"""tables can be paused or closed by staff (issue 25)

``tables.status``: ``open`` (every table before this revision), ``paused`` (no new round; the round in play
finishes) or ``closed`` (the same, for good).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("tables")}
    if "status" not in columns:  # (a database adopted unversioned from this schema has it already)
        op.add_column(
            "tables", sa.Column("status", sa.String(length=16), nullable=False, server_default="open")
        )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("status")

"""staff accounts, their sessions and the audit trail (issue 25)

New tables only: ``staff`` (a name, one role, an argon2 password hash, the failed logins since the last good
one), ``staff_sessions`` (a login's token hash and expiry) and ``audit_entries`` (the hash-chained trail of
staff actions, server/audit.py). An upgraded database keeps everything it had and starts an empty trail.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # (a database adopted unversioned from this schema has them already: revision 0001 replays over it)
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "staff" not in existing:
        _staff()
    if "staff_sessions" not in existing:
        _sessions()
    if "audit_entries" not in existing:
        _audit()


def _staff() -> None:
    op.create_table(
        "staff",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("must_change", sa.Boolean(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_login_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )


def _sessions() -> None:
    op.create_table(
        "staff_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("staff_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["staff_id"], ["staff.id"]),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index(op.f("ix_staff_sessions_staff_id"), "staff_sessions", ["staff_id"], unique=False)


def _audit() -> None:
    op.create_table(
        "audit_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("subject", sa.String(length=120), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("hash"),
    )


def downgrade() -> None:
    op.drop_table("audit_entries")
    op.drop_index(op.f("ix_staff_sessions_staff_id"), table_name="staff_sessions")
    op.drop_table("staff_sessions")
    op.drop_table("staff")

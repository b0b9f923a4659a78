"""change notices: PostgreSQL triggers announcing changed balances and player guards to the other processes

PostgreSQL only (SQLite has one server per database: nothing to announce). Every change of an account's row
sends ``NOTIFY tablegames_changes, '<schema> <origin> a <account id>'``; every change of a player's limits,
breaks or exclusions ``'<schema> <origin> p <player id>'``. ``origin`` is the writing connection's
``tablegames.origin`` setting (a server's, see ``server/caches.py``; empty for anyone else). PostgreSQL
delivers a notice only if its transaction commits, after the commit, in commit order: each server process
drops what it keeps of those rows (``server/caches.py``). No table or column changes.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels = None
depends_on = None

# (table, kind, the changed row's key): a trigger and its function each
NOTICES = (
    ("accounts", "a", "id"),
    ("player_limits", "p", "player_id"),
    ("exclusions", "p", "player_id"),
)


def _function(table: str, kind: str, key: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION tablegames_notice_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN changed := OLD.{key}; ELSE changed := NEW.{key}; END IF;
    PERFORM pg_notify('tablegames_changes', TG_TABLE_SCHEMA || ' '
        || coalesce(current_setting('tablegames.origin', true), '') || ' {kind} ' || changed::text);
    RETURN NULL;
END $$"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, kind, key in NOTICES:
        op.execute(_function(table, kind, key))
        events = "UPDATE" if kind == "a" else "INSERT OR UPDATE OR DELETE"
        op.execute(f"DROP TRIGGER IF EXISTS tablegames_notice ON {table}")
        op.execute(
            f"CREATE TRIGGER tablegames_notice AFTER {events} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION tablegames_notice_{table}()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, _, _ in NOTICES:
        op.execute(f"DROP TRIGGER IF EXISTS tablegames_notice ON {table}")
        op.execute(f"DROP FUNCTION IF EXISTS tablegames_notice_{table}()")

"""The database schema's migrations (Alembic; the revisions are in ``server/migrations/versions``).

Every server start, ``tablegames tables ...`` and ``tablegames db upgrade`` bring the database to the newest
revision (:func:`upgrade`): a new database gets the whole schema; a database made before the schema was versioned
is adopted (its missing tables and columns added, its data kept), then upgraded like any other. On PostgreSQL the
whole upgrade is one transaction under an advisory lock, so processes starting together upgrade one at a time
(the later ones find it done). ``python -m tablegames.server.migrate DATABASE_URL`` is the old name of
``tablegames db upgrade --database DATABASE_URL``. docs/database.md tells how to add a revision.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATE_LOCK = 0x74616D67  # the advisory lock of a PostgreSQL schema upgrade ("tamg")


@dataclass(frozen=True)
class Revision:
    """One revision of the schema: its id, the one before it, its first docstring line."""

    id: str
    down: str | None
    doc: str


def _config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    """The newest revision's id."""
    rev = _scripts().get_current_head()
    assert rev is not None
    return rev


def history() -> list[Revision]:
    """Every revision, newest first."""
    return [
        Revision(s.revision, s.down_revision if isinstance(s.down_revision, str) else None, s.doc)
        for s in _scripts().walk_revisions()
    ]


def current_of(connection: Connection) -> str | None:
    """The revision the database is at (None: not versioned yet, i.e. new or made by an older server)."""
    return MigrationContext.configure(connection).get_current_revision()


def current(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return current_of(conn)


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Bring the schema to ``revision`` (the newest by default); the revisions before and after. Nothing is done
    (and nothing locked) when the database is already there."""
    target = head() if revision == "head" else revision
    if current(engine) == target:
        return target, target
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATE_LOCK})
        before = current_of(conn)
        if before != target:
            command.upgrade(_config(conn), revision)
        after = current_of(conn)
    return before, after


def main(argv: list[str] | None = None) -> int:
    """``python -m tablegames.server.migrate DATABASE_URL``: the old name of ``tablegames db upgrade``."""
    from tablegames.server.db import make_engine

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: tablegames db upgrade --database DATABASE_URL", file=sys.stderr)
        return 2
    engine = make_engine(args[0])
    try:
        before, after = upgrade(engine)
    finally:
        engine.dispose()
    print(f"database at revision {after}" + (f" (was {before or 'unversioned'})" if before != after else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

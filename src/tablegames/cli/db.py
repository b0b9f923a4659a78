"""``tablegames db upgrade|current|history``: the database schema's migrations (docs/database.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from tablegames.cli.common import fail
from tablegames.cli.extras import require_database
from tablegames.cli.serve import DEFAULT_DATA_DIR, DatabaseOpt, DataDirOpt, database_url

db_app = typer.Typer(
    name="db", help="The database schema: its migrations (Alembic revisions).", no_args_is_help=True
)


def _shown(url: str) -> str:
    return url.split("@")[-1] if "@" in url else url


@db_app.command("upgrade")
def upgrade(database: DatabaseOpt = None, data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR)) -> None:
    """Bring the database to the newest schema revision (a new one is created; one made by an older version is
    upgraded with its data). The server does this on every start too; running it again does nothing."""
    url = database_url(database, data_dir)
    require_database("db upgrade", url)
    from tablegames.server import migrate
    from tablegames.server.db import make_engine

    engine = make_engine(url)
    try:
        before, after = migrate.upgrade(engine)
    finally:
        engine.dispose()
    if before == after:
        typer.echo(f"{_shown(url)}: already at revision {after} (nothing to do)")
    else:
        typer.echo(f"{_shown(url)}: upgraded from {before or 'an unversioned schema'} to revision {after}")


@db_app.command("current")
def current(database: DatabaseOpt = None, data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR)) -> None:
    """Print the database's schema revision (and whether it is the newest)."""
    url = database_url(database, data_dir)
    require_database("db current", url)
    from tablegames.server import migrate
    from tablegames.server.db import make_engine, normalize_url

    sqlite_file = normalize_url(url).partition("sqlite:///")[2]
    if sqlite_file and sqlite_file != ":memory:" and not Path(sqlite_file).exists():
        fail(f"no database at {sqlite_file} (`tablegames db upgrade` creates it)")
    engine = make_engine(url)
    try:
        rev = migrate.current(engine)
    finally:
        engine.dispose()
    newest = migrate.head()
    state = "the newest" if rev == newest else f"the newest is {newest}: run `tablegames db upgrade`"
    typer.echo(f"{rev or 'unversioned'} ({state})")


@db_app.command("history")
def history() -> None:
    """List the schema revisions, newest first."""
    require_database("db history", "")
    from tablegames.server import migrate

    for rev in migrate.history():
        typer.echo(f"{rev.down or '<base>'} -> {rev.id}: {rev.doc}")


def register(app: typer.Typer) -> None:
    app.add_typer(db_app)

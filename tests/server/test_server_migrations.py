"""The schema's Alembic migrations (``server/migrations``): a new database upgraded to the newest revision is exactly
the models' schema (Alembic's own comparison finds no difference), a database made by an older, unversioned
server is adopted with its data, an upgrade of a database already there changes nothing, processes upgrading one
PostgreSQL database at once do not collide, and ``tablegames db upgrade|current|history`` say what they did."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from typer.testing import CliRunner

from server_harness import fresh_schema, pg_url_or_skip
from tablegames.cli import app
from tablegames.server import migrate
from tablegames.server.db import Base, create_schema, make_engine


def schema_diff(engine: sa.Engine) -> list[Any]:
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, Base.metadata))


def test_a_new_database_upgraded_to_head_is_the_models_schema(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        assert migrate.current(engine) is None
        assert schema_diff(engine) != []  # (the comparison sees a missing schema)
        before, after = migrate.upgrade(engine)
        assert (before, after) == (None, migrate.head())
        assert schema_diff(engine) == []
        assert migrate.current(engine) == migrate.head()
    finally:
        engine.dispose()


OLD_PLAYERS = [(1, "Ann"), (2, "ann"), (3, "bob")]
NEWER_TABLES = (
    "staff_sessions",  # revision 0003 (issue 25)
    "staff",
    "audit_entries",
    "adjustments",  # revision 0005 (issue 25)
    "player_limits",  # revision 0007 (issue 26)
    "exclusions",
    "player_sessions",
    "player_money",
)


def make_old_database(engine: sa.Engine) -> None:
    """A database as a server from before the versioned schema left it: no ``players.name_key`` (nor its index),
    no ``tables.rule_set`` or ``tables.edge_confirmation``, no ``round_steps``/``meter_hits``/``table_leases``/
    ``cluster_nodes`` tables nor revision 0003's, no ``alembic_version``; with players, a table and money in it."""
    Base.metadata.create_all(engine)
    with engine.begin() as c:
        for name in ("meter_hits", "round_steps", "table_leases", "cluster_nodes", *NEWER_TABLES):
            c.execute(sa.text(f"DROP TABLE {name}"))
        c.execute(sa.text("DROP INDEX players_look_alike_key"))
        c.execute(sa.text("ALTER TABLE players DROP COLUMN name_key"))
        c.execute(sa.text("ALTER TABLE tables DROP COLUMN rule_set"))
        c.execute(sa.text("ALTER TABLE tables DROP COLUMN edge_confirmation"))
        c.execute(sa.text("ALTER TABLE players DROP COLUMN password_hash"))  # revision 0004
        c.execute(sa.text("ALTER TABLE tables DROP COLUMN status"))  # revision 0006
        c.execute(sa.text("ALTER TABLE players DROP COLUMN suspended"))  # revision 0008
        c.execute(
            sa.text("INSERT INTO accounts (id, name, kind, balance) VALUES (:i, :n, 'wallet', :b)"),
            [{"i": pid, "n": f"wallet:{name}", "b": 1000 * pid} for pid, name in OLD_PLAYERS],
        )
        c.execute(
            sa.text(
                "INSERT INTO players (id, name, token_hash, account_id, created_at) VALUES (:i, :n, :t, :i, 0)"
            ),
            [{"i": pid, "n": name, "t": f"hash{pid}"} for pid, name in OLD_PLAYERS],
        )
        c.execute(
            sa.text(
                "INSERT INTO tables (id, name, game, seats, min_bet, max_bet, rules, created_at) "
                "VALUES (7, 'Old table', 'final-count', 5, 100, 10000, '{}', 0)"
            )
        )


def test_an_old_unversioned_database_is_upgraded_and_keeps_its_data(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        make_old_database(engine)
        assert schema_diff(engine) != []
        assert migrate.upgrade(engine) == (None, migrate.head())
        assert schema_diff(engine) == []
        with engine.connect() as c:
            players = c.execute(sa.text("SELECT id, name, name_key FROM players ORDER BY id")).all()
            balances = c.execute(sa.text("SELECT id, balance FROM accounts ORDER BY id")).all()
            table = c.execute(sa.text("SELECT name, game, rule_set, edge_confirmation FROM tables")).one()
        # the later of two look-alike names gets a key of its own; both keep their names
        assert [tuple(p) for p in players] == [(1, "Ann", "ann"), (2, "ann", "ann#2"), (3, "bob", "bob")]
        assert [tuple(b) for b in balances] == [(1, 1000), (2, 2000), (3, 3000)]
        assert tuple(table) == ("Old table", "final-count", None, None)
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as c:  # the look-alike index is there
            c.execute(
                sa.text(
                    "INSERT INTO players (name, name_key, token_hash, account_id, created_at) "
                    "VALUES ('ANN', 'ann', 'hash9', 1, 0)"
                )
            )
        assert migrate.upgrade(engine) == (migrate.head(), migrate.head())  # again: nothing to do
    finally:
        engine.dispose()


def test_the_server_start_up_path_and_the_old_command_upgrade_too(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    try:
        make_old_database(engine)
        create_schema(engine)  # what Server.start and `tablegames tables ...` call
        assert migrate.current(engine) == migrate.head() and schema_diff(engine) == []
    finally:
        engine.dispose()
    other = (
        tmp_path / "other.sqlite3"
    )  # `python -m tablegames.server.migrate URL`: the old name of `db upgrade`
    assert migrate.main([str(other)]) == 0 and migrate.main([str(other)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"database at revision {migrate.head()} (was unversioned)",
        f"database at revision {migrate.head()}",
    ]


def tables_dump(engine: sa.Engine) -> dict[str, list[tuple[Any, ...]]]:
    names = sorted(sa.inspect(engine).get_table_names())
    with engine.connect() as c:
        return {n: [tuple(r) for r in c.execute(sa.text(f"SELECT * FROM {n} ORDER BY 1"))] for n in names}


def test_db_upgrade_twice_is_a_no_op_and_current_and_history_tell_the_revision(db_url: str) -> None:
    runner = CliRunner()
    if db_url.startswith("sqlite"):  # `db current` reads: it does not create a database file
        missing = runner.invoke(app, ["db", "current", "--database", db_url])
        assert missing.exit_code == 2 and "no database at" in missing.output
        assert not Path(db_url.partition("sqlite:///")[2]).exists()
    else:
        unversioned = runner.invoke(app, ["db", "current", "--database", db_url])
        assert unversioned.exit_code == 0
        assert (
            unversioned.output.strip()
            == f"unversioned (the newest is {migrate.head()}: run `tablegames db upgrade`)"
        )
    first = runner.invoke(app, ["db", "upgrade", "--database", db_url])
    assert first.exit_code == 0, first.output
    assert f"upgraded from an unversioned schema to revision {migrate.head()}" in first.output
    engine = make_engine(db_url)
    try:
        dumped = tables_dump(engine)
        assert dumped["alembic_version"] == [(migrate.head(),)]
        second = runner.invoke(app, ["db", "upgrade", "--database", db_url])
        assert second.exit_code == 0, second.output
        assert f"already at revision {migrate.head()} (nothing to do)" in second.output
        assert tables_dump(engine) == dumped
    finally:
        engine.dispose()
    current = runner.invoke(app, ["db", "current", "--database", db_url])
    assert current.exit_code == 0 and current.output.strip() == f"{migrate.head()} (the newest)"
    history = runner.invoke(app, ["db", "history"])
    assert history.exit_code == 0
    lines = history.output.strip().splitlines()
    assert lines == [f"{r.down or '<base>'} -> {r.id}: {r.doc}" for r in migrate.history()]
    assert len(lines) >= 2 and lines[0].endswith(f"-> {migrate.head()}: " + migrate.history()[0].doc)
    assert lines[-1].startswith("<base> -> 0001: the schema")


def test_processes_upgrading_one_postgresql_database_at_once_do_not_collide() -> None:
    with fresh_schema("m") as maybe_url:
        url = pg_url_or_skip(maybe_url)
        engines = [make_engine(url) for _ in range(4)]
        results: list[tuple[str | None, str | None]] = []
        errors: list[BaseException] = []
        start = threading.Barrier(len(engines))

        def one(engine: sa.Engine) -> None:
            try:
                start.wait()
                results.append(migrate.upgrade(engine))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=one, args=(e,)) for e in engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        try:
            assert errors == []
            head = migrate.head()
            # exactly one of them created the schema; the others found it done
            assert sorted(results, key=str) == sorted([(None, head)] + [(head, head)] * 3, key=str)
            assert schema_diff(engines[0]) == []
        finally:
            for e in engines:
                e.dispose()

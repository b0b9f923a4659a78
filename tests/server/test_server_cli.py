"""The commands: ``tablegames tables create|list`` and ``tablegames history`` (Rich table) on the server database."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_server_support import play_round
from typer.testing import CliRunner

from server_harness import Harness
from tablegames.cli import app

pytestmark = pytest.mark.timeout(120)


def test_tables_create_and_history(make_server: Callable[..., Harness], db_url: str) -> None:
    runner = CliRunner()
    out = runner.invoke(
        app,
        ["tables", "create", "one-eyed-flush", "--name", "High", "--seats", "3", "--min-bet", "500",
         "--max-bet", "50000", "--rule", "ties=tournament", "--database", db_url],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "created table 1: High (one-eyed-flush, 3 seats, $5.00-$500.00" in out.output
    assert "'ties': 'tournament'" in out.output
    bad = runner.invoke(app, ["tables", "create", "poker", "--database", db_url])
    assert bad.exit_code == 2 and "unknown game" in bad.output
    bad = runner.invoke(app, ["tables", "create", "final-count", "--seats", "9", "--database", db_url])
    assert bad.exit_code == 2 and "1-7 seats" in bad.output
    listing = runner.invoke(app, ["tables", "list", "--database", db_url])
    assert listing.exit_code == 0 and "High" in listing.output

    h = make_server()  # the server picks up the table created by the command
    assert [t["name"] for t in h.client.get("/tables").json()] == ["High"]
    more = runner.invoke(app, ["tables", "create", "final-count", "--database", db_url])
    assert more.exit_code == 0, more.output
    assert [t["name"] for t in h.client.get("/tables").json()] == ["High", "Final Count"]  # while running
    tok, _ = h.player("zoe", 20_000)
    tok2, _ = h.player("yan", 20_000)
    a, b = h.ws(tok, 1), h.ws(tok2, 1)
    a.request(type="sit", seat=1)
    b.request(type="sit", seat=2)
    for _ in range(2):
        play_round({1: a, 2: b}, {1: {"main": 500}, 2: {"main": 1000}}, choose=lambda s, st: "stand")
    hist = runner.invoke(
        app, ["history", "--player", "zoe", "--last", "5", "--database", db_url], env={"COLUMNS": "200"}
    )
    assert hist.exit_code == 0, hist.output
    assert "Last 2 rounds of zoe" in hist.output
    assert hist.output.count("one-eyed-flush") == 2 and "zoe" in hist.output and "yan" in hist.output
    assert "$200.00" in hist.output  # zoe's balance before the first round
    narrow = runner.invoke(
        app, ["history", "--player", "zoe", "--last", "5", "--database", db_url], env={"COLUMNS": "80"}
    )
    # issue 24: at 80 columns nothing is cut to an ellipsis and every amount is whole
    assert narrow.exit_code == 0 and "…" not in narrow.output, narrow.output
    assert max(len(line) for line in narrow.output.splitlines()) <= 80
    assert "$200.00" in narrow.output and "zoe" in narrow.output
    nobody = runner.invoke(app, ["history", "--player", "nobody", "--database", db_url])
    assert nobody.exit_code == 2 and "no player" in nobody.output


def test_serve_table_threads_is_checked_and_reaches_the_server(tmp_path: object) -> None:
    from tablegames.server.app import create_app

    result = CliRunner().invoke(app, ["serve", "--table-threads", "0", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and "--table-threads must be 1-64, got 0" in result.output
    with pytest.raises(ValueError, match="table_threads must be 1-64"):
        create_app("sqlite://", table_threads=65)
    server = create_app("sqlite://", table_threads=3).state.server
    assert server.config.table_threads == 3 and server.workers._max_workers == 3
    # the default by database (issue 28): SQLite's steps take turns at its one writer anyway
    server = create_app("sqlite://").state.server
    assert server.config.table_threads == 1 and server.workers._max_workers == 1
    # a bare path is a SQLite file too (``serve --database FILE`` and the load test's server pass one)
    server = create_app(str(tmp_path / "tables.sqlite3")).state.server  # type: ignore[operator]
    assert server.config.table_threads == 1 and server.workers._max_workers == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--request-timeout", "0"], "--request-timeout must be 0.1-3600 seconds, got 0.0"),
        (["--keep-alive-timeout", "-1"], "--keep-alive-timeout must be 0.1-3600 seconds"),
        (["--max-connections-per-address", "0"], "--max-connections-per-address must be 1-1000000, got 0"),
        (["--max-connections", "10", "--max-connections-per-address", "20"], "is above max-connections (10)"),
    ],
)
def test_serve_connection_bounds_are_checked(tmp_path: object, options: list[str], message: str) -> None:
    """Issue 11 (defect 5): the connection bounds are options of serve, refused clearly when they make no sense."""
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), *options], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and message in result.output, result.output

"""``tablegames history`` (finished rounds as a table) and ``tablegames history export`` (a player's hand
history as JSON Lines or CSV, :mod:`tablegames.server.handhistory`), read from the server's database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tablegames.cli.common import fail
from tablegames.cli.extras import require_database
from tablegames.cli.serve import DEFAULT_DATA_DIR, DatabaseOpt, DataDirOpt, _money, database_url

history_app = typer.Typer(
    name="history",
    help="Finished rounds: show them, or export a player's hand history.",
    invoke_without_command=True,
)


def read_database(database: str | None, data_dir: Path, command: str, fn: Any) -> Any:
    """``fn(session)`` on the database, a clear error (nothing changed) when it cannot be read."""
    url = database_url(database, data_dir)
    require_database(command, url)
    from tablegames.server.errors import ApiError
    from tablegames.server.transactions import Transactions

    db = Transactions(url)
    try:
        with db.sessions() as s:
            return fn(s)
    except ApiError as exc:
        fail(exc.message)
    except Exception as exc:
        fail(f"cannot read the database: {exc}")
    finally:
        db.dispose()


@history_app.callback()
def history_cmd(
    ctx: typer.Context,
    player: Annotated[str | None, typer.Option("--player", help="only rounds this player played")] = None,
    last: Annotated[int, typer.Option("--last", help="number of rounds")] = 20,
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Show finished rounds: time, table, game, players, wagers, wins, balances before and after."""
    if ctx.invoked_subcommand is not None:
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from tablegames.server.queries import history

    if last < 1:
        fail("--last must be at least 1")
    rows = read_database(database, data_dir, "history", lambda s: history(s, player, last))
    # 80 columns hold it (issue 24: every cell was an ellipsis): the table and its game in one cell, the
    # time to the minute, amounts never cut, words folded rather than cut
    out = Table(
        title=f"Last {len(rows)} rounds" + (f" of {player}" if player else ""),
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    out.add_column("round", justify="right", no_wrap=True)
    out.add_column("time", overflow="fold")
    out.add_column("table · game", overflow="fold")
    out.add_column("seat", justify="right", no_wrap=True)
    out.add_column("player", overflow="fold")
    for col in ("staked", "returned", "net", "before", "after"):
        out.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        for i, p in enumerate(r["players"]):
            first = i == 0
            out.add_row(
                str(r["round_id"]) if first else "",
                (r["settled_at"] or "")[5:16].replace("T", " ") if first else "",
                f"{r['table']} · {r['game']}" if first else "",
                str(p["seat"]),
                p["player"],
                _money(p["staked"]),
                _money(p["returned"]),
                _money(p["net"]),
                _money(p["balance_before"]),
                _money(p["balance_after"]),
            )
    Console().print(out)


@history_app.command("export")
def export_cmd(
    player: Annotated[str, typer.Option("--player", help="the player whose hand history to export")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl (one record per line) or csv")] = "jsonl",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="file to write (default: standard output)")
    ] = None,
    last: Annotated[int, typer.Option("--last", help="the player's last N rounds (at most 1000)")] = 100,
    before: Annotated[int | None, typer.Option("--before", help="only rounds below this round id")] = None,
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Export a player's hand history, oldest round first: each round with its rule set, the player's cards
    with the dealer's, wagers, decisions, results, balances and provably-fair record (amounts in cents; the
    JSON Lines schema is schemas/hand-history.schema.json)."""
    from tablegames.server.handhistory import EXPORT_MAX, FORMATS, export, render
    from tablegames.server.queries import player_id_of

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if not 1 <= last <= EXPORT_MAX:
        fail(f"--last must be 1 to {EXPORT_MAX}")
    if out is not None and out.is_dir():
        fail(f"--out {out} is a directory")
    records = read_database(
        database, data_dir, "history export", lambda s: export(s, player_id_of(s, player), last, before)
    )
    text = render(records, fmt)
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    typer.echo(f"{len(records)} round(s) of {player} written to {out} ({fmt})", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(history_app)

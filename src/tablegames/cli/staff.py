"""``tablegames staff add|list|disable|enable|unlock`` (staff accounts, issue 25) and ``tablegames audit
verify|export`` (the audit trail), on the server's database. The console is a named credential in the trail
(``console:<user>``)."""

from __future__ import annotations

import csv
import getpass
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from tablegames.cli.common import fail
from tablegames.cli.extras import require_database
from tablegames.cli.serve import DEFAULT_DATA_DIR, DatabaseOpt, DataDirOpt, database_url

T = TypeVar("T")
staff_app = typer.Typer(
    name="staff", help="Staff accounts: add, list, disable, enable, unlock.", no_args_is_help=True
)
audit_app = typer.Typer(
    name="audit", help="The audit trail: verify its chain, export it.", no_args_is_help=True
)


def console_actor() -> str:
    """The audit trail's name of whoever runs a command: ``console:<user>``."""
    try:
        return f"console:{getpass.getuser()}"
    except Exception:
        return "console:unknown"


def _with(database: str | None, data_dir: Path, command: str, fn: Callable[[Any], T]) -> T:
    """``fn(Transactions)`` on the database brought to the newest schema; errors in words, nothing changed."""
    url = database_url(database, data_dir)
    require_database(command, url)
    from tablegames.server.db import create_schema
    from tablegames.server.errors import ApiError
    from tablegames.server.transactions import Transactions

    db = Transactions(url)
    try:
        create_schema(db.engine)
        return fn(db)
    except ApiError as exc:
        fail(exc.message)
    except Exception as exc:
        fail(f"cannot use the database: {exc}")
    finally:
        db.dispose()


def _service(db: Any) -> Any:
    from tablegames.server.staff import StaffService

    return StaffService(db, time.time)


@staff_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="the staff member's name")],
    role: Annotated[str, typer.Option("--role", help="supervisor, operator, auditor or admin")],
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Add a staff member; prints a one-time password (they set their own at the first login)."""
    info, password = _with(
        database, data_dir, "staff add", lambda db: _service(db).add(console_actor(), name, role)
    )
    typer.echo(f"added {info.name} ({info.role}); one-time password: {password}")


@staff_app.command("list")
def list_cmd(database: DatabaseOpt = None, data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR)) -> None:
    """Every staff member: role, state, last login."""
    rows = _with(database, data_dir, "staff list", lambda db: _service(db).list())
    if not rows:
        typer.echo("no staff yet: tablegames staff add NAME --role ROLE")
    for r in rows:
        state = "disabled" if r["disabled"] else "locked" if r["locked"] else "active"
        last = (
            time.strftime("%Y-%m-%d %H:%M", time.gmtime(r["last_login_at"]))
            if r["last_login_at"]
            else "never"
        )
        typer.echo(f"{r['name']:<20} {r['role']:<10} {state:<8} last login {last} UTC")


def _change(kind: str) -> Callable[..., None]:
    def command(
        name: Annotated[str, typer.Argument(help="the staff member's name")],
        reason: Annotated[str, typer.Option("--reason", help="why (kept in the audit trail)")] = "",
        database: DatabaseOpt = None,
        data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
    ) -> None:
        def run(db: Any) -> None:
            service = _service(db)
            if kind == "unlock":
                service.unlock(console_actor(), name, reason)
            else:
                service.set_disabled(console_actor(), name, kind == "disable", reason)

        _with(database, data_dir, f"staff {kind}", run)
        typer.echo(f"{name}: {kind}d" if kind != "disable" else f"{name}: disabled (their sessions ended)")

    command.__doc__ = {
        "disable": "Disable a staff member (every session of theirs ends).",
        "enable": "Enable a disabled staff member.",
        "unlock": "Unlock a staff member locked out by failed logins.",
    }[kind]
    return command


for _kind in ("disable", "enable", "unlock"):
    staff_app.command(_kind)(_change(_kind))


@staff_app.command("role")
def role_cmd(
    name: Annotated[str, typer.Argument(help="the staff member's name")],
    role: Annotated[str, typer.Option("--role", help="the new role: supervisor, operator, auditor or admin")],
    reason: Annotated[str, typer.Option("--reason", help="why (kept in the audit trail)")] = "",
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Give a staff member another role (their sessions end; in the audit trail as staff.role)."""
    _with(
        database,
        data_dir,
        "staff role",
        lambda db: _service(db).set_role(console_actor(), name, role, reason),
    )
    typer.echo(f"{name}: now {role} (their sessions ended)")


@audit_app.command("verify")
def verify(
    seal_first: Annotated[
        bool, typer.Option("--seal", help="seal the ledger transactions not sealed yet before verifying")
    ] = False,
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Recompute the audit trail's hash chain and every ledger seal in it; exit 1 naming the first entry
    altered, removed or reordered, or the first sealed range of ledger transactions that no longer holds."""
    from tablegames.server import audit, ledger_seal

    def run(db: Any) -> Any:
        if seal_first:
            with db.tx() as s:
                ledger_seal.seal(s, time.time, console_actor())
        with db.sessions() as s:
            return audit.verify(s), ledger_seal.verify(s)

    verdict, books = _with(database, data_dir, "audit verify", run)
    if not verdict.ok:
        typer.echo(f"audit trail BROKEN at {verdict.problem}", err=True)
        raise typer.Exit(1)
    if not books.ok:
        typer.echo(f"ledger BROKEN: {books.problem}", err=True)
        raise typer.Exit(1)
    typer.echo(
        f"audit trail intact: {verdict.entries} entries; ledger: {books.sealed} transactions sealed and intact"
        + (f", {books.unsealed} not sealed yet" if books.unsealed else "")
    )


@audit_app.command("seal")
def seal(database: DatabaseOpt = None, data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR)) -> None:
    """Seal the ledger transactions not sealed yet (those 30 s old) into the audit chain."""
    from tablegames.server import ledger_seal

    def run(db: Any) -> Any:
        with db.tx() as s:
            entry = ledger_seal.seal(s, time.time, console_actor())
            return None if entry is None else dict(entry.after)

    after = _with(database, data_dir, "audit seal", run)
    if after is None:
        typer.echo("nothing to seal")
    else:
        typer.echo(f"sealed ledger transactions {after['from']}-{after['to']} ({after['transactions']})")


@audit_app.command("export")
def export(
    fmt: Annotated[str, typer.Option("--format", help="csv or json")] = "csv",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="file (default: standard output)")] = None,
    actor: Annotated[str | None, typer.Option("--actor", help="only this actor's entries")] = None,
    action: Annotated[str | None, typer.Option("--action", help="only this action")] = None,
    database: DatabaseOpt = None,
    data_dir: DataDirOpt = Path(DEFAULT_DATA_DIR),
) -> None:
    """Export the audit trail (every column, the hashes too, so the export can be verified on its own)."""
    from tablegames.server import audit

    if fmt not in ("csv", "json"):
        fail(f"--format must be csv or json, not {fmt!r}")

    def run(db: Any) -> list[dict[str, Any]]:
        with db.sessions() as s:
            return list(audit.export_rows(s, actor, action))

    rows = _with(database, data_dir, "audit export", run)
    if fmt == "json":
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    else:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=audit.COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: audit.canonical(v) if k in ("before", "after") else v for k, v in r.items()})
        text = buf.getvalue()
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{len(rows)} entries written to {out}", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(staff_app)
    app.add_typer(audit_app)

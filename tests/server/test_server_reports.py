"""The daily reports (issue 26): a seeded day of play (buy-ins, cash-outs, every game's every wager, a meter hit,
a table whose deck is stacked for the player), then every report: the patrons' win/loss is minus the tables'
win to the cent, every report reconciles to the ledger, the meters reconcile exactly, the stacked table is
flagged, an empty day says "No Activity"; the files' shapes, the PDF's page numbers, the CLI's and REST's
refusals."""

from __future__ import annotations

import csv
import datetime as dt
import json
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_server_support import every_wager, play_round, rigged_deck
from typer.testing import CliRunner

from server_harness import ADMIN, Harness
from tablegames.cards import CARDS
from tablegames.cli import app
from tablegames.rules import registry
from tablegames.server.reports import NO_ACTIVITY, Report, meters_report, patron_summary, render, table_win

pytestmark = pytest.mark.timeout(300)

TODAY = dt.datetime.now(dt.UTC).date()
EMPTY_DAY = "2001-02-03"
# one seat, three cards each, dealt seat, dealer, seat, ...: the seat holds three aces, the dealer does not
# qualify (a game of the registry whose main wager this deck wins for the player)
STACKED = rigged_deck(["Ah", "2c", "Ad", "3d", "As", "5h"])


def _random_deck(seed: int) -> list[int]:
    deck = [int(c) for c in CARDS]
    random.Random(seed).shuffle(deck)
    return deck


@pytest.fixture
def day(make_server: Callable[..., Harness]) -> tuple[Harness, int]:
    """A day of play; the stacked table's id."""
    decks: dict[int, list[int]] = {}
    dealt = iter(range(10**6))
    h = make_server(deck_factory=lambda t: decks.get(t) or _random_deck(next(dealt)))
    tok_a, hdr_a = h.player("ann", 200_000)
    tok_b, hdr_b = h.player("bob", 200_000)
    for definition in registry.DEFINITIONS:
        table = h.table(definition.key)
        a, b = h.ws(tok_a, table), h.ws(tok_b, table)
        a.request(type="sit", seat=1)
        b.request(type="sit", seat=3)
        wagers, options, _ = every_wager(definition)
        for _ in range(2):
            play_round({1: a, 3: b}, {1: wagers, 3: wagers}, {1: options, 3: options})
        a.request(type="leave")
        b.request(type="leave")
    # a meter hit: the game whose meter pays the deal J♥ J♠ K♦ (tests/server/test_server_play.py)
    hit_game = "one-eyed-flush"
    hit_table = h.table(hit_game)
    decks[hit_table] = rigged_deck(["Jh", "2c", "Js", "3c", "Kd", "4c"])
    ws = h.seated(tok_b, hit_table)
    res = play_round({1: ws}, {1: {"main": 500, "jackpot": 100}}, choose=lambda s, st: "stand")[1]
    assert res["jackpot_hits"], res
    # the stacked table: eight rounds the player wins
    stacked = h.table("three-card-poker")
    decks[stacked] = STACKED
    ws = h.seated(tok_a, stacked)
    for _ in range(8):
        res = play_round({1: ws}, {1: {"ante": 1000}}, choose=lambda s, st: "play")[1]
        assert res["results"][0]["net"] > 0, res
    for hdr, amount in ((hdr_a, 1234), (hdr_b, 5678)):
        r = h.client.post("/wallet/cash-out", json={"amount": amount, "request_id": "out"}, headers=hdr)
        assert r.status_code == 200, r.text
    h.check_ledger()
    return h, stacked


def _reports(h: Harness) -> dict[str, Report]:
    with h.server.sessions() as s:
        return {
            "patron-summary": patron_summary(s, TODAY),
            "table-win": table_win(s, TODAY),
            "meters": meters_report(s, TODAY),
        }


def test_every_report_of_a_day_reconciles_to_the_ledger(day: tuple[Harness, int]) -> None:
    h, stacked = day
    reports = _reports(h)
    for name, r in reports.items():
        assert r.reconciles, (name, [c for c in r.checks if "!=" in c])
        assert r.checks and not r.empty, name
    patrons = reports["patron-summary"]
    by_name = {r.player: r for r in patrons.rows}
    assert set(by_name) == {"ann", "bob"}
    assert by_name["ann"].deposits == 200_000 and by_name["ann"].withdrawals == 1234
    assert by_name["bob"].withdrawals == 5678 and by_name["bob"].beginning_balance == 0
    for r in patrons.rows:
        assert r.ending_balance == _wallet(h, r.player)  # everything happened today
        assert r.funds_on_game_start == r.funds_on_game_end == 0  # every round settled
        assert r.bonus_issued == r.bonus_used == 0
    # the patrons' win/loss is minus the tables' win, to the cent
    tables = reports["table-win"]
    day_totals = [t for t in tables.rows if t.period == "day" and t.wager == "all wagers"]
    assert len(day_totals) == len(registry.DEFINITIONS) + 2
    assert patrons.totals["win_loss"] == -sum(t.win for t in day_totals) == -tables.totals["day win"]
    assert patrons.totals["win_loss"] != 0
    # month and year to date hold the day (one day of play)
    for period in ("month to date", "year to date"):
        assert [(t.table, t.wager, t.win) for t in tables.rows if t.period == period] == [
            (t.table, t.wager, t.win) for t in tables.rows if t.period == "day"
        ]
    # every wager of every game has its theoretical hold from the exact analysis
    for t in tables.rows:
        if t.wager not in ("all wagers", "neighbour bonus") and t.period == "day":
            assert t.theoretical_hold_pct is not None, t
            assert t.low_95_pct is not None and t.high_95_pct is not None
            assert t.low_95_pct < t.theoretical_hold_pct <= t.high_95_pct
    # the stacked table is flagged: the player won every round
    flagged = {t.table for t in tables.rows if t.flag}
    stacked_name = h.client.get(f"/tables/{stacked}").json()["name"]
    assert stacked_name in flagged
    stacked_main = next(t for t in tables.rows if t.table == stacked_name and t.period == "day" and t.placed)
    assert stacked_main.hold_pct is not None and stacked_main.low_95_pct is not None
    assert stacked_main.hold_pct < stacked_main.low_95_pct and stacked_main.win < 0
    # meters: exact, one hit paid, the liability above reset as the meter account says
    meters = reports["meters"]
    hits = [m for m in meters.rows if m.hit_count]
    assert len(hits) == 1 and hits[0].hits > hits[0].reset
    for m in meters.rows:
        assert m.end == m.start + m.contributions - m.hits + m.resets + m.other
        assert m.liability_above_reset == m.end - m.reset
    values = {(j["game"], j["meter"]): j["value"] for j in h.client.get("/jackpots").json()}
    assert {(m.game, m.meter): m.end for m in meters.rows} == {k: values[k] for k in values}


def _wallet(h: Harness, name: str) -> int:
    import sqlalchemy as sa

    from tablegames.server.db import Account, Player

    with h.server.sessions() as s:
        q = (
            sa.select(Account.balance)
            .join(Player, Player.account_id == Account.id)
            .where(Player.name == name)
        )
        return int(s.scalar(q))


def test_a_report_that_does_not_reconcile_says_so(day: tuple[Harness, int]) -> None:
    """The checks can fail: a wallet entry moved by hand (its account's balance with it) breaks the patron
    summary's win/loss check; a meter entry changed breaks the meter's."""
    import sqlalchemy as sa

    h, _ = day
    with h.server.db.tx() as s:
        s.execute(
            sa.text(
                "UPDATE ledger_entries SET amount = amount - 1 WHERE kind = 'payout' AND id = "
                "(SELECT MIN(id) FROM ledger_entries WHERE kind = 'payout' AND amount > 0)"
            )
        )
        s.execute(
            sa.text(
                "UPDATE ledger_entries SET amount = amount + 1 WHERE kind = 'contribution' AND id = "
                "(SELECT MIN(id) FROM ledger_entries WHERE kind = 'contribution' AND amount > 0)"
            )
        )
    reports = _reports(h)
    assert not reports["patron-summary"].reconciles
    assert not reports["table-win"].reconciles
    assert not reports["meters"].reconciles


def test_the_files_of_a_day_and_of_an_empty_day(day: tuple[Harness, int], tmp_path: Path) -> None:
    h, _ = day
    reports = _reports(h)
    patrons = reports["patron-summary"]
    text = render(patrons, "csv").decode()
    assert text.startswith("# report: Patron summary")
    assert "# generated: " in text and f"# filters: day={TODAY}, tz=UTC" in text
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))
    assert [r["player"] for r in rows] == ["ann", "bob"]
    assert sum(int(r["win_loss"]) for r in rows) == patrons.totals["win_loss"]
    data = json.loads(render(reports["table-win"], "json"))
    assert (
        data["status"] == "ok" and data["reconciles"] is True and data["filters"]["day"] == TODAY.isoformat()
    )
    assert set(data["rows"][0]) == set(data["columns"])
    with h.server.sessions() as s:
        empty = patron_summary(s, dt.date.fromisoformat(EMPTY_DAY))
    assert empty.empty and empty.reconciles
    assert NO_ACTIVITY in render(empty, "csv").decode()
    assert json.loads(render(empty, "json"))["status"] == NO_ACTIVITY
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    for report, want in ((empty, NO_ACTIVITY), (reports["table-win"], "OUTSIDE")):
        pdf = tmp_path / f"{report.name}.pdf"
        pdf.write_bytes(render(report, "pdf"))
        got = subprocess.run(
            ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
        )
        pages = got.stdout.count("\f")
        assert "page 1 of " in got.stdout and f"page {pages} of {pages}" in got.stdout
        assert want in got.stdout and report.title in got.stdout and "generated" in got.stdout


def test_the_cli_writes_each_report_and_refuses_bad_input(
    day: tuple[Harness, int], db_url: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    for name in ("patron-summary", "table-win", "meters"):
        for fmt in ("csv", "json", "pdf"):
            out = tmp_path / f"{name}.{fmt}"
            args = ["reports", name, "--day", TODAY.isoformat(), "--database", db_url, "--format", fmt]
            r = runner.invoke(app, [*args, "--out", str(out)])
            assert r.exit_code == 0, r.output
            assert out.stat().st_size > 0
    r = runner.invoke(
        app,
        [
            "reports",
            "patron-summary",
            "--day",
            TODAY.isoformat(),
            "--database",
            db_url,
            "--player",
            "ann",
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0 and [p["player"] for p in json.loads(r.output)["rows"]] == ["ann"], r.output
    r = runner.invoke(
        app, ["reports", "patron-summary", "--day", "2026-01-01", "--database", db_url, "--player", "zed"]
    )
    assert r.exit_code == 2 and "no player" in r.output
    got = json.loads((tmp_path / "meters.json").read_text())
    assert got["report"] == "meters" and got["reconciles"] is True
    assert (tmp_path / "table-win.pdf").read_bytes().startswith(b"%PDF")
    for args, message in (
        (["reports", "meters", "--day", "2026-13-01"], "--day must be a date"),
        (["reports", "meters", "--day", "yesterday"], "--day must be a date"),
        (["reports", "meters", "--day", "2026-01-01", "--tz", "Mars/Base"], "unknown time zone"),
        (["reports", "meters", "--day", "2026-01-01", "--format", "xls"], "--format must be one of"),
    ):
        out = tmp_path / "never.csv"
        r = runner.invoke(app, [*args, "--database", db_url, "--out", str(out)])
        assert r.exit_code == 2 and message in r.output, (args, r.output)
        assert not out.exists()
    r = runner.invoke(app, ["reports", "no-such-report", "--day", "2026-01-01", "--database", db_url])
    assert r.exit_code == 2


def test_the_reports_over_rest_for_readers_only(day: tuple[Harness, int]) -> None:
    h, _ = day
    c = h.client
    for role in ("auditor", "supervisor", "operator", "admin"):
        _, one_time = h.server.staff.add("console:test", role.title(), role)
        token = h.server.staff.login(role.title(), one_time).token
        r = c.get(
            "/reports/patron-summary",
            params={"day": TODAY.isoformat()},
            headers={"Authorization": f"Bearer {token}"},
        )
        if role == "admin":  # staff accounts only (server/permissions.py: reports.read)
            assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        else:
            assert r.status_code == 200 and r.json()["reconciles"] is True, r.text
    assert c.get("/reports/meters").status_code == 403  # no staff identity
    admin = {"X-Admin-Token": ADMIN}
    r = c.get("/reports/table-win", params={"format": "csv"}, headers=admin)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.text.startswith("# report: Table win")
    r = c.get("/reports/meters", params={"format": "pdf", "day": EMPTY_DAY}, headers=admin)
    assert r.status_code == 200 and r.content.startswith(b"%PDF")
    r = c.get("/reports/meters", params={"day": "2026-02-30"}, headers=admin)
    assert r.status_code == 400 and "--day must be a date" in r.json()["error"]["message"]
    assert c.get("/reports/meters", params={"format": "xls"}, headers=admin).status_code == 422
    assert c.get("/reports/nothing", headers=admin).status_code == 404
    data: dict[str, Any] = c.get("/reports/meters", params={"day": EMPTY_DAY}, headers=admin).json()
    assert data["status"] == NO_ACTIVITY and data["rows"] == []


def test_the_stakes_of_a_round_not_settled_are_funds_on_game(make_server: Callable[..., Harness]) -> None:
    """A round dealt but not finished at the report: its stakes are on the game (not lost), the win/loss is zero,
    no table has won anything yet, and everything still reconciles."""
    h = make_server()
    definition = registry.DEFINITIONS[0]
    token, _ = h.player("cat", 10_000)
    ws = h.seated(token, h.table(definition.key))
    wagers, options, cost = every_wager(definition)
    assert ws.request(type="wager", wagers=wagers, options=options)["type"] == "ack"
    reports = _reports(h)
    (row,) = reports["patron-summary"].rows
    assert (row.transfers_to_games, row.funds_on_game_start, row.funds_on_game_end) == (cost, 0, cost)
    assert row.win_loss == 0 and row.ending_balance == 10_000 - cost
    assert reports["table-win"].empty
    assert all(r.reconciles for r in reports.values())

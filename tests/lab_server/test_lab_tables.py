"""A table's complete rule set (issue 15): a table created from a game file (``POST /tables``, ``tablegames
tables create --game-file``) or from a partial rule set stores every parameter and the rule set's name, shows
them at the table (``GET /tables``, its state) and in every recall (``/rounds/{id}``, the histories); a
refused value creates nothing and names its field. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from lab_support import CONVERTED, bad_value, changed_rule_set, play_one_round
from sqlalchemy import select
from typer.testing import CliRunner

from server_harness import ADMIN, Harness
from tablegames.cli import app as cli
from tablegames.rules import gamefile
from tablegames.rules.definition import GameDefinition
from tablegames.server.db import GameTable

pytestmark = pytest.mark.timeout(300)
OPERATOR = {"X-Admin-Token": ADMIN}
CONFIRM = {"confirm_negative_edge": "lab tests"}  # (a changed rule set may pay the players: issue 20)


def stored(h: Harness, table_id: int) -> GameTable:
    with h.server.sessions() as s:
        row = s.scalar(select(GameTable).where(GameTable.id == table_id))
        assert row is not None
        return row


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_a_table_from_a_game_file_stores_and_shows_its_full_rule_set_and_recalls_it(
    make_server: Callable[..., Harness], d: GameDefinition
) -> None:
    h = make_server()
    rules = d.make_rules(changed_rule_set(d))
    full = d.rule_set(rules)
    text = gamefile.dumps(gamefile.GameFile(d.key, "Lab rules", rules))
    res = h.client.post(
        "/tables", json={"name": "Lab table", "game_file": text, "min_bet": 100, **CONFIRM}, headers=OPERATOR
    )
    assert res.status_code == 201, res.text
    table = res.json()
    assert (table["game"], table["rules"], table["rule_set"]) == (d.key, full, "Lab rules")
    row = stored(h, table["table_id"])
    assert (row.rules, row.rule_set) == (full, "Lab rules")  # the complete rule set, not the file's text
    shown = h.client.get(f"/tables/{table['table_id']}").json()
    assert (shown["rules"], shown["rule_set"]) == (full, "Lab rules")
    listed = next(t for t in h.client.get("/tables").json() if t["table_id"] == table["table_id"])
    assert (listed["rules"], listed["rule_set"]) == (full, "Lab rules")

    token, headers = h.player("lab")
    ws = h.seated(token, table["table_id"])
    welcome = ws.seen_or_next(lambda m: m["type"] == "welcome")  # the table as a socket first sees it
    assert (welcome["table"]["rules"], welcome["table"]["rule_set"]) == (full, "Lab rules")
    result = play_one_round(ws, 100)
    recall = h.client.get(f"/rounds/{result['round_id']}", headers=headers).json()
    assert (recall["rules"], recall["rule_set"]) == (full, "Lab rules")
    started = next(e for e in recall["events"] if e["type"] == "round_started")
    assert started["rules"] == full
    for page in (
        h.client.get(f"/tables/{table['table_id']}/history").json(),
        h.client.get("/history", headers=headers).json(),
        h.client.get("/history", headers=OPERATOR).json(),
    ):
        assert [(r["rules"], r["rule_set"]) for r in page] == [(full, "Lab rules")]


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_a_partial_rule_set_is_stored_complete(
    make_server: Callable[..., Harness], d: GameDefinition
) -> None:
    h = make_server()
    options = dict(list(changed_rule_set(d).items())[:1])
    body = {"game": d.key, "name": "Partial", "rules": options, "rule_set": "one change", **CONFIRM}
    res = h.client.post("/tables", json=body, headers=OPERATOR)
    assert res.status_code == 201, res.text
    full = d.rule_set(d.make_rules(options))
    assert set(full) == {p.name for p in d.parameters if p.listed}
    row = stored(h, res.json()["table_id"])
    assert (row.rules, row.rule_set) == (full, "one change")
    assert res.json()["rules"] == full
    plain = h.client.post("/tables", json={"game": d.key, "name": "Plain"}, headers=OPERATOR).json()
    assert plain["rule_set"] is None and stored(h, plain["table_id"]).rules == d.rule_set(d.make_rules())


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_a_refused_rule_set_creates_nothing_and_names_the_field(
    make_server: Callable[..., Harness], d: GameDefinition
) -> None:
    h = make_server()
    p = next(p for p in d.parameters if p.listed and p.kind != "text")
    text = gamefile.dumps(gamefile.GameFile(d.key, "x", d.make_rules()))
    other = next((g for g in CONVERTED if g.key != d.key), None)
    bad = [
        ({"game": d.key, "name": "Bad", "rules": {p.name: bad_value(p)}}, p.name),
        ({"game": d.key, "name": "Bad", "rules": {"no-such-rule": "1"}}, "no-such-rule"),
        ({"name": "Bad", "game_file": text, "rules": {p.name: bad_value(p)}}, p.name),
        ({"name": "Bad", "game_file": "game = 3"}, None),
        ({"name": "Bad", "game_file": text, "paytable": "standard"}, "paytable"),
    ]
    if other is not None:
        bad.append(({"game": other.key, "name": "Bad", "game_file": text}, "game"))
    for body, field in bad:
        res = h.client.post("/tables", json=body, headers=OPERATOR)
        assert res.status_code == 400, (body, res.text)
        assert res.json()["error"]["code"] == "bad_rules" and res.json()["error"]["field"] == field, body
    assert h.client.get("/tables").json() == []


@pytest.mark.parametrize("d", CONVERTED[:1], ids=lambda d: d.key)
def test_tables_create_with_a_game_file(
    make_server: Callable[..., Harness], db_url: str, tmp_path: object, d: GameDefinition
) -> None:
    from pathlib import Path

    rules = d.make_rules(changed_rule_set(d))
    path = Path(str(tmp_path)) / "house.toml"
    gamefile.save(path, gamefile.GameFile(d.key, "House", rules))
    runner = CliRunner()
    out = runner.invoke(
        cli, ["tables", "create", "--game-file", str(path), "--name", "From file", "--database", db_url]
    )
    assert out.exit_code == 0, out.output
    assert "rules 'House'" in out.output
    h = make_server()
    (table,) = h.client.get("/tables").json()
    assert (table["name"], table["game"], table["rules"], table["rule_set"]) == (
        "From file",
        d.key,
        d.rule_set(rules),
        "House",
    )
    p = next(p for p in d.parameters if p.listed and p.kind != "text")
    out = runner.invoke(
        cli,
        [
            "tables",
            "create",
            "--game-file",
            str(path),
            "--rule",
            f"{p.name}={bad_value(p)}",
            "--database",
            db_url,
        ],
    )
    assert out.exit_code == 2 and p.name in out.output and "house.toml" in out.output
    missing = runner.invoke(
        cli, ["tables", "create", "--game-file", str(path) + ".nope", "--database", db_url]
    )
    assert missing.exit_code == 2 and "cannot be read" in missing.output
    assert len(h.client.get("/tables").json()) == 1

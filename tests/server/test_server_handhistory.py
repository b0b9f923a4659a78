"""Hand histories (issue 24): ``GET /history/export`` and ``tablegames history export`` give a player their
rounds of every registered game as JSON Lines (valid against ``schemas/hand-history.schema.json``) and CSV,
with the rule set, their cards and never another seat's, decisions, results, balances and a fairness record
that verifies."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from test_server_support import every_wager, first_legal, play_round
from typer.testing import CliRunner

from server_harness import ADMIN, Harness
from tablegames.cli import app
from tablegames.randomness.fairness import RoundRecord, verify_record
from tablegames.rules import registry
from tablegames.server.handhistory import CSV_COLUMNS, SCHEMA_FILE, schema_text

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]


def _played(h: Harness) -> tuple[dict[str, str], dict[str, str], list[dict[str, Any]]]:
    """ann (every wager) and bob (the main wager) play one round at a table of each registered game; the
    rounds' recalls as the operator reads them."""
    ann, ann_h = h.player("ann", 500_000)
    bob, bob_h = h.player("bob", 500_000)
    recalls = []
    for d in registry.DEFINITIONS:
        table = h.table(d.key, seats=2)
        a, b = h.ws(ann, table), h.ws(bob, table)
        assert a.request(type="sit", seat=1)["type"] == "ack"
        assert b.request(type="sit", seat=2)["type"] == "ack"
        wagers, options, _ = every_wager(d)
        main = next(w.name for w in d.wagers if w.main)
        done = play_round({1: a, 2: b}, {1: wagers, 2: {main: 500}}, {1: options}, choose=first_legal)
        rid = done[1]["round_id"]
        recall = h.client.get(f"/rounds/{rid}", headers={"X-Admin-Token": ADMIN})
        assert recall.status_code == 200, recall.text
        recalls.append(recall.json())
    return ann_h, bob_h, recalls


def test_a_player_exports_every_game_they_played_and_nothing_of_another_seat(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server(source_factory=None)  # provably fair decks: each round has its record
    ann_h, bob_h, recalls = _played(h)
    r = h.client.get("/history/export", headers=ann_h)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    assert r.headers["content-disposition"] == 'attachment; filename="hand-history-ann.jsonl"'
    records = [json.loads(line) for line in r.text.splitlines()]
    published = json.loads((ROOT / SCHEMA_FILE).read_text())
    for rec in records:
        jsonschema.validate(rec, published)
    assert [rec["game"] for rec in records] == [d.key for d in registry.DEFINITIONS]  # oldest first
    for rec, recall, game in zip(records, recalls, registry.DEFINITIONS, strict=True):
        assert rec["round_id"] == recall["round_id"] and rec["rules"] == recall["rules"]
        assert rec["seat"] == 1 and rec["player"] == "ann"
        events = recall["events"]
        mine = [e["card"] for e in events if e["type"] == "card_dealt" and e["to"] == "seat 1"]
        theirs = {e["card"] for e in events if e["type"] == "card_dealt" and e["to"] == "seat 2"}
        assert rec["cards"]["seat 1"] == mine and "seat 2" not in rec["cards"]
        shared = [c for owner, cs in rec["cards"].items() if owner != "seat 1" for c in cs]
        assert not theirs & set(shared)  # the dealer's and community cards only
        assert [d["action"] for d in rec["decisions"]] == [
            e["action"] for e in events if e["type"] == "action" and e["seat"] == 1
        ]
        placed = [(e["wager"], e["amount"]) for e in events if e["type"] == "wager_placed" and e["seat"] == 1]
        assert [(w["wager"], w["amount"]) for w in rec["wagers"]] == placed
        assert {w for w, _ in placed} == {w.name for w in game.wagers}  # every side bet too
        settled = [e for e in events if e["type"] == "settled" and e["seat"] == 1]
        assert [x["returned"] for x in rec["results"]] == [e["returned"] for e in settled]
        player = next(p for p in recall["players"] if p["seat"] == 1)
        assert (rec["staked"], rec["returned"], rec["net"]) == (
            player["staked"],
            player["returned"],
            player["net"],
        )
        assert rec["net"] == rec["returned"] - rec["staked"]
        assert (
            rec["balance_before"] == player["balance_before"]
            and rec["balance_after"] == player["balance_after"]
        )
        assert rec["fairness"] == recall["fairness"]
        assert verify_record(RoundRecord.from_json(rec["fairness"])).ok

    as_csv = h.client.get("/history/export", params={"format": "csv", "last": 2}, headers=ann_h)
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(as_csv.text)))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 3  # the last two rounds
    by = dict(zip(CSV_COLUMNS, rows[-1], strict=True))
    assert by["round_id"] == str(records[-1]["round_id"]) and by["net"] == str(records[-1]["net"])
    assert json.loads(by["fairness"]) == records[-1]["fairness"]

    # theirs only; the operator may name a player; bad input changes nothing and says why
    assert h.client.get("/history/export", params={"player": "ann"}, headers=bob_h).status_code == 403
    assert h.client.get("/history/export").status_code == 401
    assert h.client.get("/history/export", headers={"X-Admin-Token": ADMIN}).status_code == 400
    assert h.client.get("/history/export", params={"format": "xml"}, headers=ann_h).status_code == 422
    assert h.client.get("/history/export", params={"last": 1001}, headers=ann_h).status_code == 422
    op = h.client.get("/history/export", params={"player": "ann"}, headers={"X-Admin-Token": ADMIN})
    assert [json.loads(line) for line in op.text.splitlines()] == records
    bobs = [json.loads(x) for x in h.client.get("/history/export", headers=bob_h).text.splitlines()]
    assert [rec["seat"] for rec in bobs] == [2] * len(records) and all(
        "seat 1" not in x["cards"] for x in bobs
    )


def test_the_command_exports_to_a_file_and_refuses_bad_options(
    make_server: Callable[..., Harness], db_url: str, tmp_path: Path
) -> None:
    h = make_server()
    tok, _ = h.player("zoe", 20_000)
    table = h.table("final-count", seats=1)
    ws = h.seated(tok, table)
    for _ in range(2):
        play_round({1: ws}, {1: {"main": 500}}, choose=lambda s, st: "stand")
    runner = CliRunner()
    out = tmp_path / "zoe.csv"
    done = runner.invoke(
        app,
        ["history", "export", "--player", "zoe", "--format", "csv", "--out", str(out), "--database", db_url],
    )
    assert done.exit_code == 0, done.output
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 3 and {r[6] for r in rows[1:]} == {"zoe"}
    assert "2 round(s) of zoe written to" in done.output
    jsonl = runner.invoke(app, ["history", "export", "--player", "zoe", "--last", "1", "--database", db_url])
    assert jsonl.exit_code == 0 and len(jsonl.stdout.splitlines()) == 1
    assert json.loads(jsonl.stdout)["fairness"] is None  # a seeded test deck has no record
    for bad, says in (
        (["--format", "xml"], "--format must be one of jsonl, csv"),
        (["--last", "0"], "--last must be 1 to 1000"),
        (["--out", str(tmp_path)], "is a directory"),
    ):
        r = runner.invoke(app, ["history", "export", "--player", "zoe", *bad, "--database", db_url])
        assert r.exit_code == 2 and says in " ".join(r.output.split()), r.output
    nobody = runner.invoke(app, ["history", "export", "--player", "nobody", "--database", db_url])
    assert nobody.exit_code == 2 and "no player" in nobody.output


def test_the_published_schema_is_the_models() -> None:
    assert (ROOT / SCHEMA_FILE).read_text() == schema_text(), (
        f"{SCHEMA_FILE} is stale: python -m tablegames.server.handhistory"
    )

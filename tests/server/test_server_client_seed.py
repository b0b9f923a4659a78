"""Client seeds (issue 11 defect 11: the README said players may set one, the protocol had no message for it).

Every state publishes ``next_commitment``: the SHA-256 commitment of the next round's server seed, fixed before
any seed is taken. ``{"type": "client_seed", "seed": ..., "commitment": <that commitment>}`` sets (or changes) the
player's seed for that round and the ones after; once that round was dealt its commitment is no longer the next
one and the message is refused (``stale_commitment``), nothing changed. The round's client seed is the SHA-256 of
the seated players' seeds in seat order (``combine_client_seeds``), the record lists them, and
``tablegames verify`` checks the combination and the deck."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_server_support import play_round
from typer.testing import CliRunner

from server_harness import WS, Harness
from tablegames.cli import app as cli
from tablegames.randomness import derive_deck
from tablegames.randomness.fairness import ServerSeed, default_client_seed

pytestmark = pytest.mark.timeout(120)


def combine_client_seeds(seeds: list[tuple[int, str]]) -> str:
    """The documented rule (docs/protocol.md), written out: SHA-256 hex of the compact JSON [[seat, seed], ...]
    in seat order."""
    text = json.dumps(
        [[seat, seed] for seat, seed in sorted(seeds)], separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


def fair_server(make_server: Callable[..., Harness]) -> Harness:
    """A server dealing provably fair rounds (as in production: no test source)."""
    return make_server(source_factory=None)


def verify(record: dict[str, Any], tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / f"round-{record['round_id']}.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(cli, ["verify", str(path)])
    return result.exit_code, result.output


def set_seed(ws: WS, seed: Any, commitment: Any = None) -> dict[str, Any]:
    if commitment is None:
        commitment = ws.state()["next_commitment"]
    return ws.request(type="client_seed", seed=seed, commitment=commitment)


def stand_round(seated: dict[int, WS], main: int = 100) -> dict[int, dict[str, Any]]:
    return play_round(
        seated,
        {seat: {"main": main} for seat in seated},
        choose=lambda seat, st: "stand" if "stand" in st["round"]["legal_actions"] else "turn",
    )


def test_a_round_dealt_with_a_players_seed_verifies_and_the_seed_changes_the_deck(
    make_server: Callable[..., Harness], tmp_path: Path
) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok, _ = h.player("seedy")
    ws = h.seated(tok, table)
    before = ws.state()
    assert before["client_seed"] is None and len(before["next_commitment"]) == 64
    ack = set_seed(ws, "lucky seven", before["next_commitment"])
    assert ack["type"] == "ack" and ack["duplicate"] is False
    assert ack["seed"] == "lucky seven" and ack["commitment"] == before["next_commitment"]
    after = ws.state()
    assert after["client_seed"] == "lucky seven" and after["next_commitment"] == before["next_commitment"]
    results = stand_round({1: ws})
    round_id = results[1]["round_id"]
    recall = h.client.get(f"/rounds/{round_id}").json()
    record = recall["fairness"]
    assert (
        record["fairness"]["commitment"] == before["next_commitment"]
    )  # published before the seed was taken
    assert record["client_seeds"] == [{"seat": 1, "seed": "lucky seven"}]
    assert record["fairness"]["client_seed"] == combine_client_seeds([(1, "lucky seven")])
    code, out = verify(record, tmp_path)
    assert code == 0, out
    assert "VERIFIED" in out and "lucky seven" in out
    # the seed made the deck: the same server seed with another seed (or none) deals another deck
    fair = record["fairness"]
    seed = ServerSeed.from_hex(fair["server_seed"])
    dealt = [str(c) for c in derive_deck(seed, fair["client_seed"], fair["nonce"])]
    assert record["deck"] == dealt
    other = [str(c) for c in derive_deck(seed, combine_client_seeds([(1, "unlucky")]), fair["nonce"])]
    default = [str(c) for c in derive_deck(seed, default_client_seed(fair["commitment"]), fair["nonce"])]
    assert record["deck"] != other and record["deck"] != default
    # a record whose seeds were tampered with does not verify
    forged = {**record, "client_seeds": [{"seat": 1, "seed": "unlucky"}]}
    code, out = verify(forged, tmp_path)
    assert code == 1 and "not the combination" in out
    # the seed stays for the next round, which has a fresh commitment
    nxt = ws.state()
    assert nxt["client_seed"] == "lucky seven" and nxt["next_commitment"] != before["next_commitment"]


def test_a_seed_for_a_round_already_dealt_is_refused_and_changes_nothing(
    make_server: Callable[..., Harness],
) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok_a, _ = h.player("early")
    tok_b, _ = h.player("later")
    a, b = h.seated(tok_a, table), h.seated(tok_b, table)
    first = a.state()["next_commitment"]
    assert set_seed(a, "mine", first)["type"] == "ack"
    a.request(type="wager", wagers={"main": 100})
    st = a.state()
    assert (
        st["commitment"] == first and st["next_commitment"] != first
    )  # round dealt from the deck of `first`
    # bob names the commitment of the round now in play: too late for it, refused, nothing changed
    late = set_seed(b, "bob's", first)
    assert late["type"] == "error" and late["code"] == "stale_commitment"
    assert b.state()["client_seed"] is None
    # a seed for the next round is taken during this one (it does not touch this round)
    upcoming = st["next_commitment"]
    assert set_seed(b, "bob's", upcoming)["type"] == "ack"
    assert b.request(type="wager", wagers={"main": 100})["type"] == "ack"
    done = play_out({1: a, 2: b})
    first_record = h.client.get(f"/rounds/{done}").json()["fairness"]
    assert first_record["client_seeds"] == [{"seat": 1, "seed": "mine"}]
    again = stand_round({1: a, 2: b})
    second = h.client.get(f"/rounds/{again[1]['round_id']}").json()["fairness"]
    assert second["fairness"]["commitment"] == upcoming
    assert second["client_seeds"] == [{"seat": 1, "seed": "mine"}, {"seat": 2, "seed": "bob's"}]
    assert second["fairness"]["client_seed"] == combine_client_seeds([(2, "bob's"), (1, "mine")])
    # a commitment that never was the next one is refused the same way
    assert set_seed(a, "x", "0" * 64)["code"] == "stale_commitment"
    assert a.state()["client_seed"] == "mine"


def play_out(seated: dict[int, WS]) -> int:
    """Both have wagered: stand (or turn) whenever it is a seat's turn; the round id once it is over."""
    watcher = seated[1]
    while True:
        st = watcher.state()
        rnd = st["round"]
        if rnd["phase"] == "settled":
            return int(st["round_id"])
        if rnd["phase"] == "deciding":
            seat = rnd["to_act"]
            legal = seated[seat].state()["round"]["legal_actions"]
            action = "stand" if "stand" in legal else legal[0]
            assert seated[seat].request(type="act", action=action)["type"] == "ack"


@pytest.mark.parametrize(
    "seed", ["x" * 65, "", "new\nline", "nul\x00", 42, None, ["seed"]], ids=lambda s: repr(s)[:12]
)
def test_bad_seeds_are_refused_and_change_nothing(make_server: Callable[..., Harness], seed: Any) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok, _ = h.player("bad")
    ws = h.seated(tok, table)
    assert set_seed(ws, "kept")["type"] == "ack"
    err = set_seed(ws, seed)
    assert err["type"] == "error" and err["code"] == "bad_seed", err
    assert ws.state()["client_seed"] == "kept"


def test_a_table_dealing_from_a_test_source_takes_no_seed(make_server: Callable[..., Harness]) -> None:
    h = make_server()  # seeded decks (tests): no provably fair rounds
    table = h.table("final-count", seats=2)
    tok, _ = h.player("plain")
    ws = h.seated(tok, table)
    assert ws.state()["next_commitment"] is None
    err = ws.request(type="client_seed", seed="abc", commitment="0" * 64)
    assert err["type"] == "error" and err["code"] == "not_provably_fair"


def test_without_seeds_the_round_uses_the_default_seed(
    make_server: Callable[..., Harness], tmp_path: Path
) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok, _ = h.player("noseed")
    ws = h.seated(tok, table)
    results = stand_round({1: ws})
    record = h.client.get(f"/rounds/{results[1]['round_id']}").json()["fairness"]
    assert "client_seeds" not in record
    assert record["fairness"]["client_seed"] == default_client_seed(record["fairness"]["commitment"])
    assert verify(record, tmp_path)[0] == 0

"""Client seeds (issue 11 defect 11: the README said players may set one, the protocol had no message for it;
issue 20 defect 3: the last seed set decided the deck).

Every state publishes ``next_commitment``: the SHA-256 commitment of the next round's server seed, fixed before
any seed is taken. A player commits to a seed for that round (``{"type": "client_seed", "seed_hash": SHA-256 of
the seed, "commitment": <that commitment>}``) and reveals it later (``"seed": ...``); the first reveal closes the
round's commitments, so no seat can choose its seed after seeing another's. Once the round was dealt its
commitment is no longer the next one and the message is refused (``stale_commitment``), nothing changed. The
round's client seed is the SHA-256 of the revealed seeds in seat order (``combine_client_seeds``); the record
lists every committed seat (a seat that did not reveal in time: dropped), and ``tablegames verify`` checks the
order, the hashes, the combination and the deck."""

from __future__ import annotations

import hashlib
import json
import time
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


def sha(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def commit(ws: WS, seed: str, commitment: Any = None) -> dict[str, Any]:
    """Commit to ``seed``: send its SHA-256 (the seed stays with the player)."""
    if commitment is None:
        commitment = ws.state()["next_commitment"]
    return ws.request(type="client_seed", seed_hash=sha(seed), commitment=commitment)


def reveal(ws: WS, seed: Any, commitment: Any = None) -> dict[str, Any]:
    if commitment is None:
        commitment = ws.state()["next_commitment"]
    return ws.request(type="client_seed", seed=seed, commitment=commitment)


def set_seed(ws: WS, seed: str, commitment: Any = None) -> dict[str, Any]:
    """Commit, then reveal (a player alone at the table: nobody else's commitment to wait for)."""
    ack = commit(ws, seed, commitment)
    assert ack["type"] == "ack", ack
    return reveal(ws, seed, commitment)


def stand_round(seated: dict[int, WS], main: int = 100) -> dict[int, dict[str, Any]]:
    return play_round(
        seated,
        {seat: {"main": main} for seat in seated},
        choose=lambda seat, st: "stand" if "stand" in st["round"]["legal_actions"] else "turn",
    )


def entry(
    seat: int, seed: str | None, committed: int, revealed: int | None, hashed: str = ""
) -> dict[str, Any]:
    return {
        "seat": seat,
        "seed_hash": hashed or sha(seed or ""),
        "seed": seed,
        "committed": committed,
        "revealed": revealed,
    }


def test_a_round_dealt_with_a_players_seed_verifies_and_the_seed_changes_the_deck(
    make_server: Callable[..., Harness], tmp_path: Path
) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok, _ = h.player("seedy")
    ws = h.seated(tok, table)
    before = ws.state()
    assert before["client_seed"] is None and len(before["next_commitment"]) == 64
    assert before["seeds"] == {"closed": False, "committed": []}
    committed = commit(ws, "lucky seven", before["next_commitment"])
    assert committed["type"] == "ack" and committed["duplicate"] is False and committed["position"] == 0
    assert committed["seed_hash"] == sha("lucky seven") and committed["seed"] is None
    mid = ws.state()
    assert mid["client_seed"] == {"seed_hash": sha("lucky seven"), "seed": None}
    assert mid["seeds"] == {
        "closed": False,
        "committed": [{"seat": 1, "seed_hash": sha("lucky seven"), "revealed": False}],
    }
    ack = reveal(ws, "lucky seven", before["next_commitment"])
    assert ack["type"] == "ack" and ack["duplicate"] is False and ack["position"] == 1
    assert ack["seed"] == "lucky seven" and ack["commitment"] == before["next_commitment"]
    after = ws.state()
    assert after["client_seed"] == {"seed_hash": sha("lucky seven"), "seed": "lucky seven"}
    assert after["next_commitment"] == before["next_commitment"] and after["seeds"]["closed"] is True
    results = stand_round({1: ws})
    round_id = results[1]["round_id"]
    recall = h.client.get(f"/rounds/{round_id}").json()
    record = recall["fairness"]
    assert (
        record["fairness"]["commitment"] == before["next_commitment"]
    )  # published before the seed was taken
    assert record["client_seeds"] == [entry(1, "lucky seven", 0, 1)]
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
    forged = {**record, "client_seeds": [entry(1, "unlucky", 0, 1)]}
    code, out = verify(forged, tmp_path)
    assert code == 1 and "not the combination" in out
    # the next round has a fresh commitment and needs a fresh seed: a revealed seed protects nobody any more
    nxt = ws.state()
    assert nxt["next_commitment"] != before["next_commitment"]
    assert nxt["client_seed"] is None and nxt["seeds"] == {"closed": False, "committed": []}


def test_a_seed_sent_after_another_seats_seed_was_shown_does_not_count(
    make_server: Callable[..., Harness], tmp_path: Path
) -> None:
    """Issue 20 defect 3 (regression): the operator knows the server seed; a seat it controls that sets its seed
    after another seat's is known could try seeds offline until the deck suits it. A seed given in the clear
    without a commitment, and a commitment after another seat's seed was revealed, are refused and do not touch
    the deck: it is exactly what the server seed and the honest seat's seed deal."""
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok_a, _ = h.player("honest")
    tok_b, _ = h.player("house-shill")
    a, b = h.seated(tok_a, table), h.seated(tok_b, table)
    upcoming = a.state()["next_commitment"]
    shown = commit(a, "ann 8c41d0e2", upcoming), reveal(a, "ann 8c41d0e2", upcoming)
    # the shill has seen ann's seed (the server shows it to its operator): too late to choose one now
    late = b.request(type="client_seed", seed="chosen offline", commitment=upcoming)
    assert late["type"] == "error" and late["code"] == "no_seed_hash", late  # today's code took it
    assert [m["type"] for m in shown] == ["ack", "ack"], shown
    late = commit(b, "chosen offline", upcoming)
    assert late["type"] == "error" and late["code"] == "seeds_closed", late
    assert reveal(b, "chosen offline", upcoming)["code"] == "no_seed_hash"
    assert b.state()["client_seed"] is None
    assert [e["seat"] for e in b.state()["seeds"]["committed"]] == [1]
    done = stand_round({1: a, 2: b})
    record = h.client.get(f"/rounds/{done[1]['round_id']}").json()["fairness"]
    assert record["client_seeds"] == [entry(1, "ann 8c41d0e2", 0, 1)]
    fair = record["fairness"]
    assert fair["commitment"] == upcoming
    honest = derive_deck(fair["server_seed"], combine_client_seeds([(1, "ann 8c41d0e2")]), fair["nonce"])
    assert record["deck"] == [str(c) for c in honest]  # the late seed did not influence the deck
    assert verify(record, tmp_path)[0] == 0


def test_a_seat_that_commits_and_does_not_reveal_is_dropped_and_the_record_says_so(
    make_server: Callable[..., Harness], tmp_path: Path
) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok_a, _ = h.player("reveals")
    tok_b, _ = h.player("withholds")
    a, b = h.seated(tok_a, table), h.seated(tok_b, table)
    upcoming = a.state()["next_commitment"]
    assert commit(a, "ann 77f0", upcoming)["position"] == 0
    assert commit(b, "bob e1d2", upcoming)["position"] == 1
    # before any reveal a commitment may still be replaced (it takes a new position)
    assert commit(b, "bob 90aa", upcoming)["position"] == 2
    assert reveal(a, "ann 77f0", upcoming)["position"] == 3
    # a reveal of another seed than the committed one is refused and changes nothing
    wrong = reveal(b, "bob e1d2", upcoming)
    assert wrong["type"] == "error" and wrong["code"] == "seed_mismatch"
    assert b.state()["client_seed"] == {"seed_hash": sha("bob 90aa"), "seed": None}
    assert b.state()["seeds"]["committed"] == [
        {"seat": 1, "seed_hash": sha("ann 77f0"), "revealed": True},
        {"seat": 2, "seed_hash": sha("bob 90aa"), "revealed": False},
    ]
    done = stand_round({1: a, 2: b})  # bob never reveals: his seed is dropped
    record = h.client.get(f"/rounds/{done[1]['round_id']}").json()["fairness"]
    assert record["client_seeds"] == [entry(1, "ann 77f0", 0, 3), entry(2, None, 2, None, sha("bob 90aa"))]
    assert record["fairness"]["client_seed"] == combine_client_seeds([(1, "ann 77f0")])
    code, out = verify(record, tmp_path)
    assert code == 0 and "seat 2 (not revealed: dropped)" in out, out
    # too late now: the commitment named was dealt
    assert reveal(b, "bob 90aa", upcoming)["code"] == "stale_commitment"


def test_a_repeated_seed_request_answers_its_first_answer(make_server: Callable[..., Harness]) -> None:
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok, _ = h.player("again")
    ws = h.seated(tok, table)
    upcoming = ws.state()["next_commitment"]
    first = ws.request(type="client_seed", request_id="c-1", seed_hash=sha("one 51"), commitment=upcoming)
    assert first["type"] == "ack" and first["duplicate"] is False
    assert reveal(ws, "one 51", upcoming)["type"] == "ack"  # commitments are closed now
    again = ws.request(type="client_seed", request_id="c-1", seed_hash=sha("one 51"), commitment=upcoming)
    assert again == {**first, "duplicate": True}
    # the same id with another body still gets the first answer and changes nothing
    other = ws.request(type="client_seed", request_id="c-1", seed_hash=sha("two"), commitment=upcoming)
    assert other == {**first, "duplicate": True}
    assert ws.state()["client_seed"] == {"seed_hash": sha("one 51"), "seed": "one 51"}


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
    late = commit(b, "bob's", first)
    assert late["type"] == "error" and late["code"] == "stale_commitment"
    assert b.state()["client_seed"] is None
    # a seed for the next round is taken during this one (it does not touch this round)
    upcoming = st["next_commitment"]
    assert commit(a, "mine 2", upcoming)["type"] == "ack"
    assert commit(b, "bob's", upcoming)["type"] == "ack"
    assert reveal(b, "bob's", upcoming)["type"] == "ack"
    assert reveal(a, "mine 2", upcoming)["type"] == "ack"
    assert b.request(type="wager", wagers={"main": 100})["type"] == "ack"
    done = play_out({1: a, 2: b})
    first_record = h.client.get(f"/rounds/{done}").json()["fairness"]
    assert first_record["client_seeds"] == [entry(1, "mine", 0, 1)]
    again = stand_round({1: a, 2: b})
    second = h.client.get(f"/rounds/{again[1]['round_id']}").json()["fairness"]
    assert second["fairness"]["commitment"] == upcoming
    assert second["client_seeds"] == [entry(1, "mine 2", 0, 3), entry(2, "bob's", 1, 2)]
    assert second["fairness"]["client_seed"] == combine_client_seeds([(2, "bob's"), (1, "mine 2")])
    # a commitment that never was the next one is refused the same way
    assert commit(a, "x", "0" * 64)["code"] == "stale_commitment"
    assert a.state()["client_seed"] is None


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
    assert commit(ws, "kept")["type"] == "ack"
    err = reveal(ws, seed)
    assert err["type"] == "error" and err["code"] == "bad_seed", err
    err = ws.request(type="client_seed", seed_hash=seed, commitment=ws.state()["next_commitment"])
    assert err["type"] == "error" and err["code"] == "bad_seed", err
    both = ws.request(type="client_seed", seed="kept", seed_hash=sha("kept"), commitment="0" * 64)
    assert both["type"] == "error" and both["code"] == "bad_message", both
    assert ws.state()["client_seed"] == {"seed_hash": sha("kept"), "seed": None}
    # a watcher (not seated) gives no seed: its reveal would close the seated players' commitments
    tok_w, _ = h.player("watcher")
    watcher = h.ws(tok_w, table)
    assert commit(watcher, "mine")["code"] == "not_seated"
    assert ws.state()["seeds"]["committed"] == [{"seat": 1, "seed_hash": sha("kept"), "revealed": False}]


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


def test_a_round_recovered_after_a_restart_keeps_its_seeds_in_the_record(
    make_server: Callable[..., Harness], db_url: str, tmp_path: Path
) -> None:
    """The round's first step stores every committed seat's entry: a round resumed by recovery (another
    server on the same database) and finished there lists them in its record as the live one would, and verifies."""
    if not db_url.startswith("sqlite"):
        pytest.skip(
            "on PostgreSQL the first server keeps the table's lease: a second one does not recover it"
        )
    h = fair_server(make_server)
    table = h.table("final-count", seats=2)
    tok_a, _ = h.player("ann-r")
    tok_b, _ = h.player("bob-r")
    a, b = h.seated(tok_a, table), h.seated(tok_b, table)
    upcoming = a.state()["next_commitment"]
    commit(a, "ann 3b7e", upcoming)
    commit(b, "bob 0c5d", upcoming)
    assert reveal(a, "ann 3b7e", upcoming)["type"] == "ack"
    ack = a.request(type="wager", wagers={"main": 100})  # bob waits: the round stays open
    assert ack["type"] == "ack"
    # a restart: the open round resumes (issue 20 defect 7) on short clocks, is dealt and finished by them
    again = make_server(source_factory=None, betting_seconds=0.3, turn_seconds=0.3)
    deadline = time.monotonic() + 30
    while (res := again.client.get(f"/rounds/{ack['round_id']}")).status_code != 200:
        assert time.monotonic() < deadline, res.text
        time.sleep(0.1)
    record = res.json()["fairness"]
    assert record["client_seeds"] == [entry(1, "ann 3b7e", 0, 2), entry(2, None, 1, None, sha("bob 0c5d"))]
    assert verify(record, tmp_path)[0] == 0

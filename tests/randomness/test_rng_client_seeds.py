"""Players' client seeds (issue 11 defect 11, issue 20 defect 3): how the seeds of a table's players are committed,
revealed and combined into the round's one client seed (step 8 of ``tablegames.randomness.fairness``,
``tablegames.randomness.client_seeds``), and how a record listing them is verified: every commitment before every
reveal, each seed matching its hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablegames.cli import app as cli
from tablegames.randomness.client_seeds import (
    SeedEntry,
    SeedError,
    SeedRound,
    counted_seeds,
    seed_hash,
    seed_order_problems,
)
from tablegames.randomness.fairness import (
    MAX_PLAYER_SEED,
    ProvablyFair,
    RecordFormatError,
    RoundRecord,
    check_player_seed,
    combine_client_seeds,
    fairness_record,
    verify_record,
)

seeds = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=MAX_PLAYER_SEED)
seat_seeds = st.dictionaries(st.integers(1, 7), seeds, min_size=1, max_size=7)


@given(seat_seeds, st.randoms(use_true_random=False))
def test_the_combination_is_sha256_of_the_seats_seeds_in_seat_order(
    by_seat: dict[int, str], rnd: object
) -> None:
    pairs = list(by_seat.items())
    rnd.shuffle(pairs)  # type: ignore[attr-defined]
    text = json.dumps(sorted(by_seat.items()), separators=(",", ":"), ensure_ascii=False)
    assert combine_client_seeds(pairs) == hashlib.sha256(text.encode()).hexdigest()


def test_every_seed_changes_the_combination() -> None:
    base = combine_client_seeds([(1, "a"), (2, "b")])
    assert combine_client_seeds([(1, "a"), (2, "c")]) != base
    assert combine_client_seeds([(1, "b"), (2, "a")]) != base  # the seat matters, not only the set
    assert combine_client_seeds([(1, "a")]) != base


@pytest.mark.parametrize("bad", ["", "x" * (MAX_PLAYER_SEED + 1), "tab\there", "\x00", 7, None])
def test_bad_player_seeds_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="client seed"):
        check_player_seed(bad)


def sha(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def entries_of(players: list[tuple[int, str]], dropped: tuple[int, ...] = ()) -> list[SeedEntry]:
    """Every seat commits (positions 0..n-1), then the seats not ``dropped`` reveal, in seat order."""
    book = SeedRound()
    seats = dict(players)
    for seat in sorted(seats):
        book.commit(seat, sha(seats[seat]))
    for seat in sorted(seats):
        if seat not in dropped:
            book.reveal(seat, seats[seat])
    return list(book.entries({seat: seat for seat in seats}))


def record_with(entries: list[SeedEntry]) -> dict[str, object]:
    counted = counted_seeds(entries)
    pf = ProvablyFair(nonce=3, client_seed=combine_client_seeds(counted) if counted else None)
    deck = [int(c) for c in pf.deck()]
    return fairness_record(
        game="final-count",
        round_id=9,
        server_seed=pf.server_seed,
        client_seed=pf.client_seed,
        nonce=3,
        deck=deck,
        dealt=[(0, "seat 1"), (1, "seat 2")],
        client_seeds=entries,
    )


def problems_of(record: dict[str, object]) -> tuple[str, ...]:
    return verify_record(RoundRecord.from_json(record)).problems


def test_a_record_with_the_players_seeds_verifies_and_a_changed_seed_does_not() -> None:
    rec = record_with(entries_of([(2, "bob"), (1, "ann")]))
    assert rec["client_seeds"] == [
        {"seat": 1, "seed_hash": sha("ann"), "seed": "ann", "committed": 0, "revealed": 2},
        {"seat": 2, "seed_hash": sha("bob"), "seed": "bob", "committed": 1, "revealed": 3},
    ]
    assert problems_of(rec) == ()
    # another seed with its own (matching) hash: the combination is not the record's client seed
    eve = {"seat": 2, "seed_hash": sha("eve"), "seed": "eve", "committed": 1, "revealed": 3}
    forged = {**rec, "client_seeds": [rec["client_seeds"][0], eve]}  # type: ignore[index]
    problems = problems_of(forged)
    assert len(problems) == 1 and "not the combination" in problems[0]
    # a seed that does not hash to its commitment
    swapped = {**eve, "seed_hash": sha("bob")}
    problems = problems_of({**rec, "client_seeds": [rec["client_seeds"][0], swapped]})  # type: ignore[index]
    assert any("does not hash to its commitment" in p for p in problems), problems
    with pytest.raises(RecordFormatError, match="client_seeds"):
        RoundRecord.from_json({**rec, "client_seeds": [{**eve, "seed": "x" * 65}]})
    with pytest.raises(ValueError, match="combination"):
        fairness_record(
            game="final-count", round_id=1, server_seed=bytes(32), client_seed="not-it", nonce=1,
            deck=list(range(52)), dealt=[], client_seeds=entries_of([(1, "ann")]),
        )  # fmt: skip


def test_the_verifier_refuses_a_seed_committed_after_another_was_revealed() -> None:
    """Issue 20 defect 3: a record claiming that seat 2 committed after seat 1's seed was shown (so seat 2 could
    have chosen its seed to suit the deck) is refused, although its seeds, hashes and deck are consistent."""
    late = [
        SeedEntry(1, sha("ann"), "ann", 0, 1),
        SeedEntry(2, sha("chosen"), "chosen", 2, 3),  # committed at 2: after ann's reveal at 1
    ]
    counted = combine_client_seeds(counted_seeds(late))
    pf = ProvablyFair(nonce=3, client_seed=counted)
    honest = record_with(entries_of([(1, "ann"), (2, "chosen")]))
    forged = {
        **honest,
        "fairness": {**honest["fairness"], "client_seed": counted},  # type: ignore[dict-item]
        "client_seeds": [e.to_json() for e in late],
    }
    forged["fairness"]["server_seed"] = pf.server_seed.hex  # type: ignore[index]
    forged["fairness"]["commitment"] = pf.commitment  # type: ignore[index]
    forged["deck"] = [str(c) for c in pf.deck()]
    forged["dealt"] = [{"position": 0, "card": forged["deck"][0], "to": "seat 1"}]  # type: ignore[index]
    problems = problems_of(forged)
    assert len(problems) == 1 and problems[0].startswith("out of order: seat 2 committed"), problems
    with pytest.raises(ValueError, match="out of order"):
        fairness_record(
            game="final-count", round_id=1, server_seed=pf.server_seed, client_seed=counted, nonce=3,
            deck=[int(c) for c in pf.deck()], dealt=[], client_seeds=late,
        )  # fmt: skip
    # the honest order of the same seeds verifies
    assert problems_of(honest) == ()


def test_the_verifier_cli_says_not_verified_for_a_forged_order(tmp_path: Path) -> None:
    rec = record_with(entries_of([(1, "ann"), (2, "bob")]))
    seeds = rec["client_seeds"]
    seeds[1]["committed"], seeds[0]["revealed"] = seeds[0]["revealed"], seeds[1]["committed"]  # type: ignore[index]
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec))
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1 and "out of order" in result.output and "NOT VERIFIED" in result.output
    old = {**rec, "client_seeds": [{"seat": 1, "seed": "ann"}]}  # a record before commitments: refused
    path.write_text(json.dumps(old))
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 2 and "seed_hash" in result.output, result.output


def test_a_dropped_seat_is_listed_and_does_not_count() -> None:
    entries = entries_of([(1, "ann"), (2, "bob")], dropped=(2,))
    assert [(e.seat, e.seed, e.revealed) for e in entries] == [(1, "ann", 2), (2, None, None)]
    rec = record_with(entries)
    assert rec["fairness"]["client_seed"] == combine_client_seeds([(1, "ann")])  # type: ignore[index]
    assert problems_of(rec) == ()
    everyone_dropped = record_with(entries_of([(1, "ann")], dropped=(1,)))
    assert problems_of(everyone_dropped) == ()  # the default client seed
    # a seed shown for a dropped seat (or a reveal without a seed) is refused
    seeds: Any = everyone_dropped["client_seeds"]
    shown = {**everyone_dropped, "client_seeds": [{**seeds[0], "revealed": 1}]}
    assert any("reveal position" in p for p in problems_of(shown)), problems_of(shown)


def test_the_seed_round_refuses_what_the_rule_forbids_and_changes_nothing() -> None:
    book = SeedRound()
    with pytest.raises(SeedError) as err:
        book.reveal(1, "ann")
    assert err.value.code == "no_seed_hash"
    assert book.commit(1, sha("ann")) == 0
    assert book.commit(1, sha("ann")) == 0  # the same commitment again: nothing changes
    with pytest.raises(SeedError) as err:
        book.reveal(1, "not ann")
    assert err.value.code == "seed_mismatch" and not book.closed
    assert book.commit(2, sha("bob")) == 1
    assert book.reveal(2, "bob") == 2 and book.closed
    before = book.snapshot()
    for late in (lambda: book.commit(3, sha("cy")), lambda: book.commit(1, sha("ann 2"))):
        with pytest.raises(SeedError) as err:
            late()
        assert err.value.code == "seeds_closed"
    assert book.snapshot() == before
    assert book.reveal(2, "bob") == 2 and book.reveal(1, "ann") == 3
    with pytest.raises(ValueError, match="seed_hash"):
        book.commit(4, "ABC")


@given(
    st.lists(
        st.tuples(st.sampled_from(["commit", "reveal"]), st.integers(1, 4), st.sampled_from(["a", "b", "c"])),
        max_size=30,
    )
)
def test_whatever_the_messages_the_record_is_in_order_and_verifies(
    script: list[tuple[str, int, str]],
) -> None:
    """Any sequence of commitments and reveals (refusals included): the entries the table records satisfy the
    order rule, count exactly the revealed seeds, and their record verifies."""
    book = SeedRound()
    for kind, seat, seed in script:
        try:
            if kind == "commit":
                book.commit(seat, seed_hash(f"{seat}{seed}"))
            else:
                book.reveal(seat, f"{seat}{seed}")
        except SeedError:
            pass
    entries = list(book.entries({s: s for s in range(1, 5)}))
    assert seed_order_problems(entries) == []
    first = min((e.revealed for e in entries if e.revealed is not None), default=None)
    assert all(first is None or e.committed < first for e in entries)
    if entries:
        assert problems_of(record_with(entries)) == ()

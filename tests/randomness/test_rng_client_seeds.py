"""Players' client seeds (issue 11 defect 11): how the seeds of a table's players combine into the round's one
client seed (step 8 of ``tablegames.randomness.fairness``), and how a record listing them is verified."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def record_with(players: list[tuple[int, str]]) -> dict[str, object]:
    combined = combine_client_seeds(players)
    pf = ProvablyFair(nonce=3, client_seed=combined)
    deck = [int(c) for c in pf.deck()]
    return fairness_record(
        game="final-count",
        round_id=9,
        server_seed=pf.server_seed,
        client_seed=combined,
        nonce=3,
        deck=deck,
        dealt=[(0, "seat 1"), (1, "seat 2")],
        client_seeds=players,
    )


def test_a_record_with_the_players_seeds_verifies_and_a_changed_seed_does_not() -> None:
    rec = record_with([(2, "bob"), (1, "ann")])
    assert rec["client_seeds"] == [{"seat": 1, "seed": "ann"}, {"seat": 2, "seed": "bob"}]
    assert verify_record(RoundRecord.from_json(rec)).ok
    forged = {**rec, "client_seeds": [{"seat": 1, "seed": "ann"}, {"seat": 2, "seed": "eve"}]}
    report = verify_record(RoundRecord.from_json(forged))
    assert not report.ok and "not the combination" in report.problems[0]
    with pytest.raises(RecordFormatError, match="client_seeds"):
        RoundRecord.from_json({**rec, "client_seeds": [{"seat": 1, "seed": "x" * 65}]})
    with pytest.raises(ValueError, match="combination"):
        fairness_record(
            game="final-count", round_id=1, server_seed=bytes(32), client_seed="not-it", nonce=1,
            deck=list(range(52)), dealt=[], client_seeds=[(1, "ann")],
        )  # fmt: skip

"""The round record's checks without the JSON Schema round trip (issue 28: a settlement builds one a round):
``fairness_record`` refuses exactly the records whose JSON the schema (``RoundRecord.from_json``) refuses."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.cards import CARDS
from tablegames.randomness.fairness import (
    ROUND_RECORD_SCHEMA,
    DealtCard,
    FairnessInfo,
    RecordFormatError,
    RoundRecord,
    SeedEntry,
    ServerSeed,
    _record_problem,
    derive_deck,
    fairness_record,
)

SEED = ServerSeed(bytes(range(32)))
DECK = derive_deck(SEED, "c", 1)
HASH = hashlib.sha256(b"ann").hexdigest()

GAMES: list[Any] = ["final-count", "", 5]
ROUND_IDS: list[Any] = [7, "t1-r7", 0, True, 1.5, None]
POSITIONS: list[Any] = [[0, 1, 2], [], [0, 0], [-1], [52], [51], [True], ["3"]]
TOS: list[Any] = ["dealer", "seat 1", "", 3]
SEATS: list[Any] = [1, 7, 0, 8, True]
HASHES: list[Any] = [HASH, HASH.upper(), "ab", 3, HASH + "\n", "\n" + HASH]
PLAYER_SEEDS: list[Any] = ["ann", None, "", "x" * 64, "x" * 65, 4]
COUNTS: list[Any] = [0, 5, -1, True, None]


def schema_refuses(record: RoundRecord) -> bool:
    """The reference: the record's JSON through the schema and ``from_json``'s own checks."""
    try:
        RoundRecord.from_json(record.to_json())
    except RecordFormatError:
        return True
    return False


@st.composite
def records(draw: st.DrawFn) -> RoundRecord:
    to = draw(st.sampled_from(TOS))
    dealt = tuple(
        DealtCard(p, DECK[p] if isinstance(p, int) and 0 <= p < 52 else DECK[0], to)
        for p in draw(st.sampled_from(POSITIONS))
    )
    seeds: tuple[SeedEntry, ...] | None = None
    if draw(st.booleans()):
        entries = [
            SeedEntry(
                draw(st.sampled_from(SEATS)),
                draw(st.sampled_from(HASHES)),
                draw(st.sampled_from(PLAYER_SEEDS)),
                draw(st.sampled_from(COUNTS[:-1])),
                draw(st.sampled_from(COUNTS)),
            )
            for _ in range(draw(st.sampled_from([0, 1, 2, 8])))
        ]
        seeds = tuple(entries)
    return RoundRecord(
        game=draw(st.sampled_from(GAMES)),
        round_id=draw(st.sampled_from(ROUND_IDS)),
        fairness=FairnessInfo(SEED.commitment, SEED.hex, "c", 1),
        deck=DECK,
        dealt=dealt,
        client_seeds=seeds,
    )


@settings(max_examples=400, deadline=None)
@given(records())
def test_the_checks_refuse_what_the_schema_refuses(record: RoundRecord) -> None:
    assert (_record_problem(record) is not None) == schema_refuses(record), record


def test_the_examples_reach_both_answers() -> None:
    """Not vacuous: a record the schema takes and one for each kind of thing it refuses."""
    good = RoundRecord(
        "g", 1, FairnessInfo(SEED.commitment, SEED.hex, "c", 1), DECK, (DealtCard(0, DECK[0], "d"),)
    )
    assert _record_problem(good) is None and not schema_refuses(good)
    for bad in (
        RoundRecord("", 1, good.fairness, DECK, good.dealt),
        RoundRecord("g", True, good.fairness, DECK, good.dealt),
        RoundRecord("g", 1, good.fairness, DECK, (DealtCard(52, DECK[0], "d"),)),
        RoundRecord("g", 1, good.fairness, DECK, (*good.dealt, *good.dealt)),
        RoundRecord("g", 1, good.fairness, DECK, good.dealt, (SeedEntry(8, HASH, "ann", 0, 1),)),
    ):
        assert _record_problem(bad) is not None and schema_refuses(bad), bad


@pytest.mark.parametrize(
    ("dealt", "match"),
    [
        ([(-1, "dealer")], "position"),
        ([(0, "dealer"), (0, "seat 1")], "more than once"),
        ([(0, "")], "dealt/0"),
    ],
)
def test_fairness_record_refuses_a_record_the_schema_would(dealt: list[tuple[int, str]], match: str) -> None:
    with pytest.raises(RecordFormatError, match=match):
        fairness_record(
            game="g", round_id=1, server_seed=SEED, client_seed="c", nonce=1, deck=DECK, dealt=dealt
        )


def test_a_built_record_validates_against_the_schema() -> None:
    rec = fairness_record(
        game="g", round_id="r", server_seed=SEED, client_seed="c", nonce=1, deck=DECK,
        dealt=[(p, "seat 1") for p in range(7)],
    )  # fmt: skip
    jsonschema.Draft202012Validator(ROUND_RECORD_SCHEMA).validate(rec)
    assert rec["deck"] == [str(c) for c in DECK] and sorted(DECK) == list(CARDS)


GOOD = RoundRecord(
    "g",
    1,
    FairnessInfo(SEED.commitment, SEED.hex, "c", 1),
    DECK,
    (DealtCard(0, DECK[0], "d"),),
    (SeedEntry(1, HASH, "ann", 0, 1),),
)


def one_change(field: str, value: Any) -> RoundRecord:
    """GOOD with one value changed (a dealt entry's or the seed entry's field: ``dealt.X``, ``seeds.X``)."""
    part, _, name = field.partition(".")
    if part == "dealt":
        return dataclasses.replace(GOOD, dealt=(dataclasses.replace(GOOD.dealt[0], **{name: value}),))
    if part == "seeds":
        assert GOOD.client_seeds is not None
        return dataclasses.replace(
            GOOD, client_seeds=(dataclasses.replace(GOOD.client_seeds[0], **{name: value}),)
        )
    return dataclasses.replace(GOOD, **{field: value})


CHANGES = [
    *(("game", v) for v in GAMES),
    *(("round_id", v) for v in ROUND_IDS),
    *(("dealt.position", v) for v in (0, 51, -1, 52, True, "3")),
    *(("dealt.to", v) for v in TOS),
    *(("seeds.seat", v) for v in SEATS),
    *(("seeds.seed_hash", v) for v in HASHES),
    *(("seeds.seed", v) for v in PLAYER_SEEDS),
    *(("seeds.committed", v) for v in COUNTS[:-1]),
    *(("seeds.revealed", v) for v in COUNTS),
]


@pytest.mark.parametrize(("field", "value"), CHANGES)
def test_each_value_alone_is_refused_as_the_schema_refuses_it(field: str, value: Any) -> None:
    record = one_change(field, value)
    assert (_record_problem(record) is not None) == schema_refuses(record)

"""Provably fair rounds: the deck derivation, the round record and ``tablegames verify`` (R-0.1)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablegames.cards import CARDS
from tablegames.cli import app
from tablegames.randomness import (
    ProvablyFair,
    ProvablyFairRandom,
    RecordFormatError,
    RoundRecord,
    ServerSeed,
    derive_deck,
    fairness_record,
    shuffle_deck,
    verify_record,
)
from tablegames.randomness.fairness import ROUND_RECORD_SCHEMA, default_client_seed

runner = CliRunner()
SEED = bytes(range(32))


def reference_deck(server_seed: bytes, client_seed: str, nonce: int) -> list[int]:
    """An independent implementation of the published algorithm (module docstring of fairness.py)."""
    stream = bytearray()
    counter = 0

    def take(count: int) -> int:
        nonlocal counter
        while len(stream) < count:
            msg = f"{client_seed}:{nonce}:{counter}".encode()
            stream.extend(hmac.new(server_seed, msg, hashlib.sha256).digest())
            counter += 1
        value = int.from_bytes(stream[:count], "big")
        del stream[:count]
        return value

    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        b = (n - 1).bit_length()
        while True:
            j = take((b + 7) // 8) & ((1 << b) - 1)
            if j < n:
                break
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def honest_record(nonce: int = 4, client_seed: str = "alice-7") -> dict[str, Any]:
    deck = derive_deck(SEED, client_seed, nonce)
    dealt = [(0, "seat 1"), (1, "seat 2"), (2, "dealer"), (3, "seat 1"), (4, "seat 2"), (5, "dealer")]
    return fairness_record(
        game="final-count",
        round_id="t1-r4",
        server_seed=SEED,
        client_seed=client_seed,
        nonce=nonce,
        deck=deck,
        dealt=dealt,
    )


def run_verify(tmp_path: Path, record: object, raw: str | None = None) -> tuple[int, str]:
    path = tmp_path / "round.json"
    path.write_text(raw if raw is not None else json.dumps(record), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(path)])
    return result.exit_code, " ".join(result.output.split())  # error messages may be wrapped to the terminal


# ------------------------------------------------------------------------------------------------ derivation


def test_known_answer_vector() -> None:
    """Pinned: SHA-256 of bytes 0..31 (a published test vector) and the deck it deals; must never change."""
    seed = ServerSeed(SEED)
    assert seed.commitment == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    deck = derive_deck(seed, "player", 1)
    assert " ".join(map(str, deck[:8])) == "2s Ac 8h 2h 9c 6c 9h 4h"


@given(st.binary(min_size=32, max_size=32), st.text(min_size=1, max_size=40), st.integers(0, 10**12))
def test_deck_equals_an_independent_implementation(server_seed: bytes, client_seed: str, nonce: int) -> None:
    deck = shuffle_deck(ProvablyFairRandom(server_seed, client_seed, nonce))
    assert [int(c) for c in deck] == reference_deck(server_seed, client_seed, nonce)


@given(st.binary(min_size=32, max_size=32), st.text(min_size=1, max_size=20), st.integers(0, 1000))
def test_same_inputs_same_deck_and_any_change_changes_it(seed: bytes, client: str, nonce: int) -> None:
    deck = derive_deck(seed, client, nonce)
    assert deck == derive_deck(seed.hex(), client, nonce) and sorted(deck) == list(CARDS)
    assert derive_deck(seed, client, nonce + 1) != deck
    assert derive_deck(seed, client + "x", nonce) != deck
    assert derive_deck(bytes([seed[0] ^ 1]) + seed[1:], client, nonce) != deck


def test_round_flow_commit_deal_reveal() -> None:
    pf = ProvablyFair(nonce=12)
    published = pf.commitment
    assert pf.client_seed == default_client_seed(published) == published[:16]
    pf.set_client_seed("my lucky seed")
    deck = pf.deck()
    with pytest.raises(RuntimeError, match="after the deal"):
        pf.set_client_seed("too late")
    assert pf.server_seed.secret and "secret" in repr(pf.server_seed)  # repr never leaks the secret seed
    assert pf.server_seed.hex not in repr(pf.server_seed)
    record = pf.record(game="let-it-ride", round_id=12, deck=deck, dealt=[(0, "seat 1"), (1, "dealer")])
    assert not pf.server_seed.secret  # the record published it
    fair = record["fairness"]
    assert fair["commitment"] == published == hashlib.sha256(bytes.fromhex(fair["server_seed"])).hexdigest()
    assert fair["client_seed"] == "my lucky seed" and fair["nonce"] == 12
    assert verify_record(RoundRecord.from_json(record)).ok


def test_server_seeds_are_fresh_32_byte_secrets() -> None:
    seeds = {ServerSeed.generate().hex for _ in range(50)}
    assert len(seeds) == 50 and all(len(s) == 64 for s in seeds)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((b"short", "c", 1), "exactly 32 bytes"),
        (("zz" * 32, "c", 1), "not hex"),
        ((SEED, "", 1), "client seed"),
        ((SEED, "x" * 257, 1), "client seed"),
        ((SEED, "c", -1), "nonce"),
        ((SEED, "c", True), "nonce"),
    ],
)
def test_bad_inputs_are_refused(args: tuple[Any, str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProvablyFairRandom(*args)


# -------------------------------------------------------------------------------------------------- the record


def test_record_has_the_documented_shape_and_validates() -> None:
    record = honest_record()
    jsonschema.Draft202012Validator(ROUND_RECORD_SCHEMA).validate(record)
    assert record["game"] == "final-count" and record["round_id"] == "t1-r4"
    assert set(record["fairness"]) >= {"commitment", "server_seed", "client_seed", "nonce"}
    assert len(record["deck"]) == 52 and record["deck"][0] == str(derive_deck(SEED, "alice-7", 4)[0])
    assert record["dealt"][2] == {"position": 2, "card": record["deck"][2], "to": "dealer"}


def test_fairness_record_refuses_inconsistent_input() -> None:
    deck = derive_deck(SEED, "c", 1)
    with pytest.raises(ValueError, match="commitment"):
        fairness_record(
            game="g",
            round_id=1,
            server_seed=SEED,
            client_seed="c",
            nonce=1,
            deck=deck,
            dealt=[],
            commitment="0" * 64,
        )
    with pytest.raises(ValueError, match="full 52-card order"):
        fairness_record(
            game="g", round_id=1, server_seed=SEED, client_seed="c", nonce=1, deck=deck[:51], dealt=[]
        )


# ----------------------------------------------------------------------------------------------------- verify


def test_verify_accepts_an_honest_round(tmp_path: Path) -> None:
    code, out = run_verify(tmp_path, honest_record())
    assert code == 0, out
    assert "VERIFIED" in out and "all 6 dealt cards" in out


def test_verify_rejects_one_changed_card(tmp_path: Path) -> None:
    """The dealer's card at position 5 swapped for a different card, in both the deck and the dealt list."""
    record = honest_record()
    true_card = record["deck"][5]
    fake = next(str(c) for c in CARDS if str(c) != true_card)
    record["deck"][5] = fake
    record["dealt"][5]["card"] = fake
    code, out = run_verify(tmp_path, record)
    assert code == 1
    assert f"deck differs first at position 5: the record has {fake}, the seeds give {true_card}" in out
    assert f"dealt card #5 ({fake} to dealer) sits at position 5, where the seeds put {true_card}" in out
    assert "not 52 distinct cards" in out and "NOT VERIFIED" in out


def test_verify_rejects_two_swapped_cards(tmp_path: Path) -> None:
    record = honest_record()
    record["deck"][10], record["deck"][40] = record["deck"][40], record["deck"][10]
    code, out = run_verify(tmp_path, record)
    assert code == 1 and "deck differs first at position 10" in out and "(2 of 52 positions differ)" in out


def test_verify_rejects_a_different_server_seed(tmp_path: Path) -> None:
    record = honest_record()
    other = bytes(reversed(SEED)).hex()
    record["fairness"]["server_seed"] = other
    code, out = run_verify(tmp_path, record)
    assert code == 1 and "commitment mismatch" in out and "deck differs first at position" in out
    # a forger who also replaces the commitment still cannot make the seeds deal the recorded cards
    record["fairness"]["commitment"] = hashlib.sha256(bytes.fromhex(other)).hexdigest()
    code, out = run_verify(tmp_path, record)
    assert code == 1 and "commitment mismatch" not in out and "deck differs first at position" in out


def test_verify_rejects_a_different_client_seed_or_nonce(tmp_path: Path) -> None:
    for key, value in (("client_seed", "alice-8"), ("nonce", 5)):
        record = honest_record()
        record["fairness"][key] = value
        code, out = run_verify(tmp_path, record)
        assert code == 1 and "deck differs first at position" in out, key


def test_verify_checks_dealt_cards_against_the_seeds(tmp_path: Path) -> None:
    record = honest_record()
    record["dealt"][1]["position"] = 30  # the card claimed to be dealt was not at position 30
    code, out = run_verify(tmp_path, record)
    assert code == 1 and "dealt card #1" in out and "sits at position 30" in out


def _mutate(record: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("fairness",), KeyError, "'fairness' is a required property"),
        (("fairness", "server_seed"), "xyz", "fairness/server_seed"),
        (("fairness", "commitment"), "ABC", "fairness/commitment"),
        (("fairness", "nonce"), -1, "fairness/nonce"),
        (("fairness", "nonce"), "4", "fairness/nonce"),
        (("fairness", "extra"), 1, "Additional properties are not allowed"),
        (("deck",), ["Ah"] * 51, "deck"),
        (("deck", 3), "1x", "deck/3"),
        (("dealt", 0, "position"), 52, "dealt/0/position"),
        (("dealt", 0, "to"), KeyError, "'to' is a required property"),
        (("dealt", 1, "position"), 0, "position 0 is listed more than once"),
        (("game",), 7, "game"),
        (("fairness",), None, "fairness is null: this round was not dealt by a provably fair table"),
    ],
)
def test_malformed_records_exit_2_naming_the_problem(
    tmp_path: Path, path: tuple[Any, ...], value: Any, message: str
) -> None:
    code, out = run_verify(tmp_path, _mutate(honest_record(), path, value))
    assert code == 2, out
    assert "malformed round record" in out and message in out


def test_unreadable_files_exit_2(tmp_path: Path) -> None:
    code, out = run_verify(tmp_path, None, raw='{"game": "x",')
    assert code == 2 and "not valid JSON" in out
    code, out = run_verify(tmp_path, None, raw="[1, 2]")
    assert code == 2 and "is not of type 'object'" in out
    result = runner.invoke(app, ["verify", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "cannot read the file" in " ".join(result.output.split())
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 2 and "give the round record FILE" in " ".join(result.output.split())


def test_verify_schema_option_prints_the_schema() -> None:
    result = runner.invoke(app, ["verify", "--schema"])
    assert result.exit_code == 0 and json.loads(result.output) == ROUND_RECORD_SCHEMA


def test_record_format_error_is_a_value_error() -> None:
    with pytest.raises(RecordFormatError, match="required property"):
        RoundRecord.from_json({"game": "x"})

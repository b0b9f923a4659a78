"""Final Count's parameters (issue 15) in play: each number and choice of RULES.md §3 is a named, validated
rule whose default is RULES.md's, and the round engine plays by it (R-FC-1 values, R-FC-5 tie and pays)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tablegames.engine import STAND, Table
from tablegames.engine.events import Settled
from tablegames.rules import RuleError, make_rules, registry
from tablegames.rules.final_count import DEFAULT_VALUES, RANK_NAMES, FinalCountRules, Tie
from tablegames.rules.gamefile import dumps, load

Deck = Callable[[str], list[int]]


def play(options: dict[str, str], cards: str, deck: Deck, act: bool = True) -> Settled:
    """One seat, 500 cents on the main wager, standing when it has the choice."""
    t = Table(make_rules("final-count", options), seats=1)
    r = t.new_round(deck=deck(cards))
    r.place_wager(1, "main", 500)
    r.deal()
    if act and not r.is_over:
        r.act(1, STAND)
    assert r.is_over
    return next(e for e in r.history if isinstance(e, Settled) and e.seat == 1)


def outcome(s: Settled) -> tuple[str, int]:
    return s.outcome, s.returned


def test_defaults_are_rules_md() -> None:
    """R-FC-1, R-FC-5: A = 1, 2-10 pip value, J/Q/K = 10; ties push; both wins pay 1 to 1."""
    rules = make_rules("final-count")
    assert rules == FinalCountRules()
    assert dict(zip(RANK_NAMES, DEFAULT_VALUES, strict=True)) == {
        **{str(v): v for v in range(2, 11)},
        "J": 10,
        "Q": 10,
        "K": 10,
        "A": 1,
    }
    described = rules.describe()
    assert described == {
        "value.A": "1",
        **{f"value.{v}": str(v) for v in range(2, 11)},
        "value.J": "10",
        "value.Q": "10",
        "value.K": "10",
        "tie": "push",
        "win-pays": "1",
        "dealer-bust-pays": "1",
    }
    assert {p.ruling for p in registry.get("final-count").parameters} == {"R-FC-1", "R-FC-5"}


def test_R_FC_1_a_card_value_changes_the_totals_and_the_forced_turn(deck: Deck) -> None:
    """R-FC-1 with value.K=3: Kc 4d is 7 (odd), so the dealer turns the third card (R-FC-3); by default it
    is 14 (even) and the player stands."""
    cards = "Kc 6c 4d 2d 3h 4h"  # dealer 6c 2d 4h = 12
    assert outcome(play({}, cards, deck)) == ("win", 1_000)  # stands on 14 > 12
    s = play({"value.K": "3"}, cards, deck, act=False)  # 3 + 4 + 3 = 10 < 12
    assert (outcome(s), s.detail) == (("lose", 0), "10 vs dealer 12")


def test_face_value_preset_writes_j_q_k_and_a_later_value_wins() -> None:
    zero = make_rules("final-count", {"face-value": "0"})
    assert isinstance(zero, FinalCountRules)
    assert zero.values[9:12] == (0, 0, 0) and zero.values[:9] == DEFAULT_VALUES[:9]
    mixed = make_rules("final-count", {"face-value": "0", "value.K": "13"})
    assert isinstance(mixed, FinalCountRules)
    assert mixed.values[9:12] == (0, 0, 13)


@pytest.mark.parametrize(
    ("tie", "expected"), [("push", ("push", 500)), ("win", ("win", 1_000)), ("lose", ("lose", 0))]
)
def test_R_FC_5_tie_rule(tie: str, expected: tuple[str, int], deck: Deck) -> None:
    """R-FC-5: equal even totals push by default; ``tie=win`` pays them at win-pays, ``tie=lose`` loses."""
    assert outcome(play({"tie": tie}, "Tc 6c 4d 2d 9h 6h", deck)) == expected  # 14 vs 6 + 2 + 6
    assert outcome(play({"tie": "win", "win-pays": "3"}, "Tc 6c 4d 2d 9h 6h", deck)) == ("win", 2_000)


def test_R_FC_5_win_pays(deck: Deck) -> None:
    """A higher even total wins ``win-pays`` to 1; the dealer's bust still pays its own odds."""
    higher = "Tc 6c Td 2d 9h 4h"  # 20 vs 12
    assert outcome(play({"win-pays": "3"}, higher, deck)) == ("win", 2_000)
    assert outcome(play({"win-pays": "0"}, higher, deck)) == ("push", 500)
    bust = "9c 5s 3d 4h 2d 2c"  # player 12 stands; dealer 5 + 4 + 2 = 11 odd
    assert outcome(play({"win-pays": "3"}, bust, deck)) == ("win", 1_000)


def test_R_FC_5_dealer_bust_pays(deck: Deck) -> None:
    """``dealer-bust-pays=X``: an odd dealer total pays X to 1 (1 = even money, 0 = the wager back)."""
    bust = "9c 5s 3d 4h 2d 2c"  # player 12 stands; dealer 11 (odd)
    assert outcome(play({}, bust, deck)) == ("win", 1_000)
    assert outcome(play({"dealer-bust-pays": "2"}, bust, deck)) == ("win", 1_500)
    assert outcome(play({"dealer-bust-pays": "0"}, bust, deck)) == ("push", 500)
    # an odd player total still loses at once, whatever the dealer's bust pays (R-FC-3)
    assert outcome(play({"dealer-bust-pays": "5"}, "2c 5s 5d 4h 8h 2s", deck)) == ("lose", 0)


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("value.K", "14", "a whole number from 0 to 13"),
        ("value.A", "-1", "a whole number from 0 to 13"),
        ("tie", "half", "push | win | lose"),
        ("win-pays", "101", "a whole number from 0 to 100"),
        ("dealer-bust-pays", "1.5", "a whole number from 0 to 100"),
        ("face-value", "3", "10 | 0"),
    ],
)
def test_an_impossible_value_names_the_field_and_what_is_allowed(name: str, value: str, allowed: str) -> None:
    with pytest.raises(RuleError, match=f"rule '{name}'.*allowed: {allowed}"):
        make_rules("final-count", {name: value})


def test_rules_object_checks_its_values() -> None:
    with pytest.raises(RuleError, match="card values: 13 whole numbers from 0 to 13"):
        FinalCountRules(values=(1,) * 12)
    with pytest.raises(RuleError, match="no pay table"):
        make_rules("final-count", None, "seed")


def test_pays_and_net_by_category() -> None:
    r: Any = make_rules("final-count", {"tie": "lose", "win-pays": "2", "dealer-bust-pays": "3"})
    assert r.tie is Tie.LOSE
    assert r.pays == (3, 2, -1, -1, -1)
    assert (r.net(20, 13), r.net(20, 12), r.net(12, 12), r.net(10, 12), r.net(None, 13)) == (3, 2, -1, -1, -1)


GAME_FILES = Path(__file__).parents[2] / "games" / "final-count"


def test_shipped_game_files_load_and_default_is_rules_md() -> None:
    """games/final-count/: RULES.md's rules (default.toml), its variant face-value=0, and a tuned set; each
    loads, is written as ``dumps`` writes it (every parameter) and names its game."""
    files = {f.name: load(f) for f in sorted(GAME_FILES.glob("*.toml"))}
    assert {"default.toml", "face-value-0.toml"} <= set(files)
    for name, game_file in files.items():
        assert game_file.game == "final-count", name
        assert dumps(game_file) == (GAME_FILES / name).read_text(encoding="utf-8"), name
    assert files["default.toml"].rules == make_rules("final-count")
    assert files["face-value-0.toml"].rules == make_rules("final-count", {"face-value": "0"})

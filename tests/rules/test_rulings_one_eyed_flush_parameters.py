"""One Eyed Flush's parameters (issue 15): each changes play as RULES.md §2 says, through the round engine on
stacked decks (heads-up deal order: seat, dealer, seat, dealer = the Flip Card, seat, dealer; then the draws),
and an impossible value is a RuleError naming the field and what is allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablegames.analysis.common import stacked_deck
from tablegames.cards import parse_cards
from tablegames.engine import Table
from tablegames.engine.events import CardDiscarded, HandResult, JackpotContribution, JackpotHit, Settled
from tablegames.rules import RuleError, make_rules, registry
from tablegames.rules.gamefile import GameFile, dumps, load, loads
from tablegames.rules.one_eyed_flush import Category, OneEyedFlushRules

GAME = "one-eyed-flush"
GAMES_DIR = Path(__file__).resolve().parents[2] / "games" / GAME


def play(
    options: dict[str, str],
    seat: str,
    dealer: str,
    then: str = "",
    action: str = "stand",
    wagers: tuple[tuple[str, int, str | None], ...] = (("main", 500, None),),
) -> Any:
    rules = make_rules(GAME, options)
    table = Table(rules, seats=1)
    deck = list(stacked_deck(parse_cards(seat), parse_cards(dealer), parse_cards(then) if then else ()))
    rnd = table.new_round(deck=deck)
    for name, amount, option in wagers:
        rnd.place_wager(1, name, amount, option)
    rnd.deal()
    rnd.act(1, action)
    assert rnd.is_over
    return rnd


def settled(rnd: Any) -> dict[str, Settled]:
    return {e.wager: e for e in rnd.history if isinstance(e, Settled)}


def dealer_drew(rnd: Any) -> bool:
    return any(isinstance(e, CardDiscarded) and e.owner == "dealer" for e in rnd.history)


def test_bust_limit_R_OEF_6() -> None:
    """R-OEF-6: a No Pair worth more than ``bust-limit`` after a draw busts: 2 3 T = 15 busts at 14, not 15."""
    args = ("2c 3d Kh", "5s 8d 6c", "Ts 4h", "discard 2")
    assert settled(play({}, *args))["main"].outcome == "bust"
    at15 = settled(play({"bust-limit": "15"}, *args))["main"]
    assert at15.outcome != "bust"  # 15 vs the dealer's drawn 5 6 4 = 15: the dealer wins the equal value
    assert settled(play({"bust-limit": "15", "ties": "tournament"}, *args))["main"].outcome == "push"
    # bust=always with a lower limit: a standing No Pair over the limit busts too
    assert (
        settled(play({"bust": "always", "bust-limit": "8"}, "2c 3d 4h", "Ks Qd Tc"))["main"].outcome == "bust"
    )
    assert settled(play({"bust-limit": "8"}, "2c 3d 4h", "Ks Qd Tc"))["main"].outcome == "win"


def test_dealer_pair_draws_from_R_OEF_7() -> None:
    """R-OEF-7: the dealer's natural Pair draws when its remaining card is worth ``dealer-pair-draws-from``."""
    args = ("2c 3d 4h", "8s 5c 8d", "Kc")  # the dealer's pair of 8s, remaining 5 (the Flip Card)
    assert dealer_drew(play({}, *args))
    assert not dealer_drew(play({"dealer-pair-draws-from": "6"}, *args))
    assert dealer_drew(play({"dealer-pair-draws-from": "1"}, "2c 3d 4h", "8s Ac 8d", "Kc"))
    assert not dealer_drew(play({"dealer-pair-draws-from": "11"}, "2c 3d 4h", "8s Tc 8d", "Kc"))


def test_dealer_no_pair_draws_from_R_OEF_7() -> None:
    """R-OEF-7: the dealer's No Pair draws when its highest card is worth ``dealer-no-pair-draws-from``."""
    args = ("2c 3d 4h", "7s 2d 5c", "Kc")  # highest card 7
    assert dealer_drew(play({}, *args))
    assert not dealer_drew(play({"dealer-no-pair-draws-from": "8"}, *args))
    assert dealer_drew(play({"dealer-no-pair-draws-from": "5"}, "2c 3d 4h", "5s 2d 3c", "Kc"))
    assert not dealer_drew(play({"dealer-no-pair-draws-from": "11"}, "2c 3d 4h", "Ks Qd 9c", "Kc"))


def test_wild_cards_R_OEF_1() -> None:
    """R-OEF-1: ``wild-cards`` names the wild cards: the 2♣ wild pairs, the J♥ (no longer wild) does not; the
    Flip Card's one-eyed outcome and the dealer's wild draw follow the set."""
    rules = make_rules(GAME, {"wild-cards": "2c Qs"})
    assert str(rules.evaluate(parse_cards("2c 5d 9h"))) == "Pair With Wild (remaining 5)"
    assert str(rules.evaluate(parse_cards("Jh 5c 9d"))) == "No Pair (24)"
    assert rules.evaluate(parse_cards("2c Qs 9d")).category == Category.TRIPS_WITH_WILD
    assert make_rules(GAME, {"wild-cards": "2c Qs 3h"}).evaluate(parse_cards("2c Qs 3h")).category == (
        Category.ONE_EYED_FLUSH
    )
    flip = (("main", 500, None), ("flip", 100, "one-eyed"))
    rnd = play({"wild-cards": "2c Qs"}, "4c 6d 8h", "Ks 2c 9d", wagers=flip)
    assert settled(rnd)["flip"].returned == 1_600  # the 2♣ Flip Card is wild: 15 to 1
    assert settled(play({}, "4c 6d 8h", "Ks 2c 9d", wagers=flip))["flip"].returned == 0
    seat = [e.hand for e in rnd.history if isinstance(e, HandResult) and e.owner != "dealer"]
    assert seat == ["No Pair (18)"]
    none = make_rules(GAME, {"wild-cards": "none"})
    assert none.wild_cards == () and str(none.evaluate(parse_cards("Jh Js Kd"))) == "Pair (remaining 10)"


def test_main_paytable_pays_by_the_winning_category_R_OEF_8() -> None:
    """R-OEF-8: ``main.<category>`` is the win's odds; a win with a Pair with a Wild Card at 3 to 1 returns 4x."""
    args = ("Jh 5c 9d", "2s 3d 7c", "4h")
    assert settled(play({}, *args))["main"].returned == 1_000
    assert settled(play({"main.pair-with-wild": "3"}, *args))["main"].returned == 2_000
    assert settled(play({"main.no-pair": "2"}, *args))["main"].returned == 1_000  # another category's odds


def test_jackpot_wager_prizes_meter_R_OEF_9() -> None:
    """R-OEF-9: the fixed wager, the fixed prizes, the meter's reset and share, and the meter's hand."""
    rules = make_rules(GAME, {"jackpot.wager": "$2", "jackpot.reset": "$1000", "jackpot.share": "25%"})
    assert registry.get(GAME).wagers[1].fixed_cents(rules) == 200
    (meter,) = registry.get(GAME).meters(rules)
    assert (meter.reset_cents, meter.contribution(200)) == (100_000, 50)
    jp = (("main", 500, None), ("jackpot", 100, None))
    trips = ("7c 7d 7h", "2s 3d 4c")
    assert settled(play({}, *trips, wagers=jp))["jackpot"].returned == 3_000
    assert settled(play({"jackpot.trips": "$50"}, *trips, wagers=jp))["jackpot"].returned == 5_000
    assert settled(play({"jackpot.pair": "$2"}, "7c 7d 2h", "2s 3d 4c", wagers=jp))["jackpot"].returned == 200
    # the meter goes to Three of a Kind with a Wild Card instead (its fixed prize goes), the One Eyed Flush
    # takes a fixed prize: both in one rule set, which reads back from its own description
    opts = {"jackpot.meter-hand": "trips-with-wild", "jackpot.one-eyed-flush": "$500"}
    rnd = play(opts, "Jh 7d 7h", "2s 3d 4c", wagers=jp)
    hit = [e for e in rnd.history if isinstance(e, JackpotHit)]
    assert len(hit) == 1 and settled(rnd)["jackpot"].returned == 500_010
    assert settled(play(opts, "Jh Js Kd", "2s 3d 4c", wagers=jp))["jackpot"].returned == 50_000
    moved = make_rules(GAME, opts)
    assert make_rules(GAME, registry.get(GAME).rule_set(moved)) == moved
    assert loads(dumps(GameFile(GAME, "moved", moved))).rules == moved
    rnd = play({"jackpot.share": "1/2"}, "2c 3d 4h", "Ks Qd Tc", wagers=jp)
    assert [e.amount for e in rnd.history if isinstance(e, JackpotContribution)] == [50]


def test_flip_card_odds_R_OEF_10() -> None:
    """R-OEF-10: ``flip.value``, ``flip.ten-value``, ``flip.one-eyed`` are the outcomes' odds."""
    ten = (("main", 500, None), ("flip", 100, "ten-value"))
    assert settled(play({}, "2c 3d 4h", "5s Qd 9c", wagers=ten))["flip"].returned == 300
    assert settled(play({"flip.ten-value": "3"}, "2c 3d 4h", "5s Qd 9c", wagers=ten))["flip"].returned == 400
    seven = (("main", 500, None), ("flip", 100, "7"))
    assert settled(play({"flip.value": "9"}, "2c 3d 4h", "5s 7d 9c", wagers=seven))["flip"].returned == 1_000
    eyed = (("main", 500, None), ("flip", 100, "one-eyed"))
    assert (
        settled(play({"flip.one-eyed": "20"}, "2c 3d 4h", "5s Kd 9c", wagers=eyed))["flip"].returned == 2_100
    )


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"bust-limit": "4"}, r"rule 'bust-limit' .*out of range; allowed: a whole number from 5 to 30"),
        ({"bust-limit": "x"}, r"rule 'bust-limit' .*not a whole number"),
        ({"dealer-pair-draws-from": "12"}, r"rule 'dealer-pair-draws-from' .*from 1 to 11"),
        ({"dealer-no-pair-draws-from": "0"}, r"rule 'dealer-no-pair-draws-from' .*from 1 to 11"),
        ({"wild-cards": "Jh Jh"}, r"rule 'wild-cards' .*named twice"),
        ({"wild-cards": "Zz"}, r"rule 'wild-cards' .*allowed: cards like"),
        ({"main.pair": "0"}, r"rule 'main.pair' .*allowed: a whole number from 1"),
        ({"main.pair": "-"}, r"rule 'main.pair': - is not allowed; allowed: a whole number >= 1"),
        ({"jackpot.wager": "0"}, r"rule 'jackpot.wager' .*out of range"),
        ({"jackpot.share": "1"}, r"rule 'jackpot.share': 1 is out of range; allowed: a fraction in \[0, 1\)"),
        (
            {"jackpot.meter-hand": "trips", "jackpot.trips": "500"},
            r"rule 'jackpot.trips': the trips hand takes",
        ),
        ({"jackpot.one-eyed-flush": "500"}, r"rule 'jackpot.one-eyed-flush': the one-eyed-flush hand takes"),
        ({"jackpot.meter-hand": "flush"}, r"rule 'jackpot.meter-hand' .*not a choice"),
        ({"flip.value": "-1"}, r"rule 'flip.value' .*out of range"),
    ],
)
def test_an_impossible_value_names_the_field_and_what_is_allowed(options: dict[str, str], match: str) -> None:
    with pytest.raises(RuleError, match=match):
        make_rules(GAME, options)


def test_the_old_rule_names_and_the_paytable_file_keep_working(tmp_path: Path) -> None:
    """``--rule ties|bust|dealer-wild-draw`` as before; a ``--paytable`` file's ``[main]`` table (a category not
    listed wins 1 to 1, R-OEF-8), with ``--rule main.X`` on top."""
    r = make_rules(GAME, {"ties": "tournament", "bust": "always", "dealer-wild-draw": "never"})
    assert (r.ties.value, r.bust.value, r.dealer_wild_draw.value) == ("tournament", "always", "never")
    p = tmp_path / "bonus.toml"
    p.write_text('name = "bonus"\n[main]\npair-with-wild = 2\n')
    r = make_rules(GAME, {"main.trips": "3"}, str(p))
    assert r.win_odds(Category.PAIR_WITH_WILD) == 2 and r.win_odds(Category.TRIPS) == 3
    assert r.win_odds(Category.NO_PAIR) == 1
    assert make_rules(GAME, {"main-paytable": "even-money"}) == make_rules(GAME)


def test_shipped_game_files_load_and_default_is_rules_md() -> None:
    """games/one-eyed-flush/*.toml: every file loads; default.toml is RULES.md's rules, written by ``dumps``;
    one file per RULES.md variant."""
    files = sorted(GAMES_DIR.glob("*.toml"))
    loaded = {f.stem: load(f) for f in files}
    assert all(g.game == GAME for g in loaded.values())
    default = loaded["default"]
    assert default.rules == make_rules(GAME) == OneEyedFlushRules()
    assert (GAMES_DIR / "default.toml").read_text() == dumps(
        GameFile(GAME, default.name, default.rules, default.description)
    )
    variants = {
        "ties-tournament": {"ties": "tournament"},
        "bust-always": {"bust": "always"},
        "dealer-wild-draw-always": {"dealer-wild-draw": "always"},
        "dealer-wild-draw-never": {"dealer-wild-draw": "never"},
    }
    for stem, options in variants.items():
        assert loaded[stem].rules == make_rules(GAME, options), stem

"""Let It Ride's parameters (issue 15): every number and choice of RULES.md §1 can be set, each changes play as
its ruling reads (the engine on stacked decks, and the exact analysis), a bad value names the field and what is
allowed, and the shipped game files are RULES.md's rules and its variants."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablegames.analysis import let_it_ride as lira
from tablegames.analysis.api import analyze_game
from tablegames.analysis.common import stacked_deck
from tablegames.cards import parse_cards
from tablegames.engine import BadWager, Table
from tablegames.engine.events import JackpotContribution, JackpotHit, NeighbourBonusPaid, Settled
from tablegames.rules import RuleError, make_rules, registry
from tablegames.rules.gamefile import dumps, load
from tablegames.rules.let_it_ride import BonusHand, LetItRideRules, LirHand, Qualifier

GAME = "let-it-ride"
GAME_FILES = Path(__file__).parents[2] / "games" / GAME


def play(
    options: dict[str, str],
    seat: str,
    dealer: str,
    *,
    others: tuple[str, ...] = (),
    bet: int = 500,
    side: Callable[[LetItRideRules], dict[str, int]] = lambda r: {},
    actions: tuple[str, str] = ("ride", "ride"),
) -> tuple[Any, dict[int, dict[str, Settled]]]:
    """A round on a stacked deck: seat 1's cards (then the others'), the dealer's (burn, community 1 and 2);
    every seat wagers ``bet`` on the bets and ``side(rules)``, and takes ``actions``; each seat's settlements by
    ``"<wager> <part>"``."""
    rules = make_rules(GAME, options)
    seats = 1 + len(others)
    deck = stacked_deck(parse_cards(seat), parse_cards(dealer), others=[parse_cards(o) for o in others])
    rnd = Table(rules, seats=seats).new_round(deck=list(deck))
    for s in range(1, seats + 1):
        rnd.place_wager(s, "bets", bet)
        for w, amount in side(rules).items():
            rnd.place_wager(s, w, amount)
    rnd.deal()
    for a in actions:
        for s in range(1, seats + 1):
            rnd.act(s, a)
    assert rnd.is_over
    out: dict[int, dict[str, Settled]] = {s: {} for s in range(1, seats + 1)}
    for e in rnd.history:
        if isinstance(e, Settled):
            out[e.seat][f"{e.wager} {e.part}".strip()] = e
    return rnd, out


def test_qualifier_r_lir_4_the_lowest_paying_pair() -> None:
    """``qualifier=jacks``: a pair of tens loses, a pair of jacks pays 1 to 1; the analysis counts the
    paying pairs of four ranks (4 x 84,480 of C(52,5)) and the edge rises."""
    tens = ("Th Tc 2d", "5s 9h 3c")
    assert play({}, *tens)[1][1]["bets 1 2 $"].outcome == "win"
    assert play({"qualifier": "jacks"}, *tens)[1][1]["bets 1 2 $"].outcome == "lose"
    assert play({"qualifier": "jacks"}, "Jh Jc 2d", "5s 9h 3c")[1][1]["bets 1 2 $"].returned == 3_000
    jacks = make_rules(GAME, {"qualifier": "jacks"})
    assert jacks.qualifier == Qualifier.JACKS and jacks.qualifier_rank == 11
    assert lira.five_card_counts(11)[LirHand.TENS_OR_BETTER] == 4 * 84_480
    assert lira.five_card_counts(10)[LirHand.TENS_OR_BETTER] == 5 * 84_480
    assert analyze_game(jacks).house_edge > analyze_game(make_rules(GAME)).house_edge


def test_main_pay_table_r_lir_4() -> None:
    """``main.straight=7``: a straight pays 7 to 1 on every bet up; ``main.tens-or-better=-``: the pair loses."""
    _, s = play({"main.straight": "7"}, "4c 5d 6h", "2s 7s 8d")
    assert (s[1]["bets 1 2 $"].staked, s[1]["bets 1 2 $"].returned) == (1_500, 1_500 * 8)
    assert play({"main.tens-or-better": "-"}, "Th Tc 2d", "5s 9h 3c")[1][1]["bets 1 2 $"].returned == 0
    a = analyze_game(make_rules(GAME, {"main.straight": "7"}))
    assert next(o for o in a.outcomes if o.name == "straight, 3 up").payout == 21


def test_cap_r_lir_5() -> None:
    """``cap=$1,000``: a three-up straight at $100 a bet wins $1,500, capped at $1,000; the analysis at that bet
    applies the same cap and its strategy depends on the bet."""
    opts = {"cap": "$1000"}
    _, s = play(opts, "4c 5d 6h", "2s 7s 8d", bet=10_000)
    assert s[1]["bets 1 2 $"].returned == 30_000 + 100_000 and s[1]["bets 1 2 $"].capped_from == 30_000 * 6
    rules = make_rules(GAME, opts)
    assert lira.strategy_bet(rules, 10_000) == 10_000
    a = analyze_game(rules, bet_cents=10_000)
    assert next(o for o in a.outcomes if o.name == "straight, 3 up").payout == 10  # $1,000 on a $100 unit


def test_bonus_pay_table_r_lir_6() -> None:
    """``bonus.pair=2`` (on top of a preset): the 3-Card Bonus pays a pair 2 to 1; the side bet's table too."""
    opts = {"bonus-paytable": "50-40-30-6-4-1", "bonus.pair": "2"}
    rules = make_rules(GAME, opts)
    assert rules.bonus_paytable.odds(BonusHand.FLUSH) == 4 and rules.bonus_paytable.odds(BonusHand.PAIR) == 2
    _, s = play(opts, "8c 8d 2h", "3s 4d Kc", side=lambda r: {"bonus": 100}, actions=("pull", "pull"))
    assert s[1]["bonus"].returned == 300
    pair = next(o for o in lira.bonus_side_bet(rules.bonus_paytable).outcomes if o.name == "pair")
    assert pair.payout == 2


def test_progressive_wager_prizes_and_meters_r_lir_7() -> None:
    """``progressive.wager=$5`` is the fixed amount (and feeds the meters by their shares); a prize may be an
    amount (``progressive.trips=$20``) or a meter (``progressive.full-house=major``); ``meter.*.reset`` and
    ``meter.*.share`` set where a meter starts and what each wager adds."""
    opts = {
        "progressive.wager": "$5",
        "progressive.trips": "$20",
        "progressive.full-house": "major",
        "meter.major.reset": "$1000",
        "meter.major.share": "20%",
    }
    rules = make_rules(GAME, opts)
    table = Table(rules)
    assert table.meters["major"] == 100_000
    rnd = table.new_round()
    rnd.place_wager(1, "bets", 500)
    with pytest.raises(BadWager, match="fixed"):
        rnd.place_wager(1, "progressive", 100)
    rnd.place_wager(1, "progressive", 500)
    rnd.deal()
    assert [e.amount for e in rnd.history if isinstance(e, JackpotContribution) and e.meter == "major"] == [
        100
    ]
    prog = {"progressive": 500}
    _, s = play(opts, "7c 7d 7h", "2d 2s 9c", side=lambda r: prog)
    assert s[1]["progressive"].returned == 2_000
    rnd, s = play(opts, "9c 9d 9h", "2d 5s 5c", side=lambda r: prog)
    assert [(e.meter, e.amount) for e in rnd.history if isinstance(e, JackpotHit)] == [
        ("major", 100_000 + 100)
    ]
    assert s[1]["progressive"].meter == "major" and s[1]["progressive"].returned == 100_100
    side = lira.progressive_side_bet(rules)
    assert next(o for o in side.outcomes if o.name == "trips").payout == Fraction(2_000 - 500, 500)


def test_envy_amounts_r_lir_8() -> None:
    """``envy.quads=$50``: quads at seat 1 pay seat 2 (with a Progressive wager) $50; ``envy.royal-flush=0``
    takes the royal's Envy away."""
    opts = {"envy.quads": "$50", "envy.royal-flush": "0"}
    prog = {"progressive": 100}
    rnd, _ = play(opts, "8c 8s 8d", "2d 8h 9d", others=("Kd 4c 2s",), side=lambda r: prog)
    assert [(e.seat, e.amount) for e in rnd.history if isinstance(e, NeighbourBonusPaid)] == [(2, 5_000)]
    rnd, _ = play(opts, "As Ks Qs", "2h Js Ts", others=("Kd 4c 2c",), side=lambda r: prog)
    assert not [e for e in rnd.history if isinstance(e, NeighbourBonusPaid)]
    assert lira.envy_value(make_rules(GAME, opts)) == Fraction(624 * 5_000 + 36 * 30_000, 2_598_960 * 100)


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("qualifier", "tenz", "twos | threes"),
        ("main.straight", "-3", "a whole number from 0"),
        ("cap", "lots", "whole cents >= 0"),
        ("progressive.wager", "0", "whole cents >= 1"),
        ("progressive.trips", "gold", "mega, major, minor"),
        ("meter.mega.share", "1", "a fraction from 0 to 99/100"),
        ("envy.quads", "-1", "whole cents >= 0"),
        ("bonus-paytable", "99-1", "seed | 50-40-30-6-3-1"),
    ],
)
def test_a_bad_value_names_the_field_and_what_is_allowed(name: str, value: str, allowed: str) -> None:
    with pytest.raises(RuleError, match=f"rule '{name}'") as exc:
        make_rules(GAME, {name: value})
    assert "allowed: " in str(exc.value) and allowed in str(exc.value)


def test_the_rule_set_is_complete_and_the_old_names_keep_working(tmp_path: Path) -> None:
    d = registry.get(GAME)
    rules = make_rules(GAME, {"bonus-paytable": "50-40-30-6-3-1"})
    assert rules.bonus_paytable.name == "50-40-30-6-3-1"
    listed = rules.describe()
    assert listed == d.rule_set(rules) and listed["bonus.trips"] == "30" and listed["qualifier"] == "tens"
    groups = {p.name.split(".")[0] for p in d.parameters}
    assert {"qualifier", "main", "cap", "bonus", "progressive", "meter", "envy"} <= groups
    assert not [p.name for p in d.parameters if p.name.startswith("main.") and p.structural]  # payouts
    pays = tmp_path / "pays.toml"
    pays.write_text("[main]\nroyal-flush = 500\n")
    assert make_rules(GAME, None, str(pays)).main_paytable.odds(LirHand.ROYAL_FLUSH) == 500  # --paytable


def test_shipped_game_files_load_and_default_is_rules_md() -> None:
    """games/let-it-ride/: RULES.md's rules (default.toml), its 3-Card Bonus variants and a tuned set; each
    loads, is written as ``dumps`` writes it (every parameter) and names its game."""
    files = {f.name: load(f) for f in sorted(GAME_FILES.glob("*.toml"))}
    assert {"default.toml", "bonus-50-40-30-6-3-1.toml", "bonus-50-40-30-6-4-1.toml"} <= set(files)
    for name, game_file in files.items():
        assert game_file.game == GAME, name
        assert dumps(game_file) == (GAME_FILES / name).read_text(encoding="utf-8"), name
    assert files["default.toml"].rules == make_rules(GAME)
    for table in ("50-40-30-6-3-1", "50-40-30-6-4-1"):
        assert files[f"bonus-{table}.toml"].rules == make_rules(GAME, {"bonus-paytable": table})
    tuned = analyze_game(files["three-percent.toml"].rules).house_edge
    assert abs(tuned - Fraction(3, 100)) <= Fraction(1, 1000)

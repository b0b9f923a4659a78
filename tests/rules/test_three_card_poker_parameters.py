"""Three Card Poker's parameters (issue 15): every number and choice of RULES.md §4, each changing play as its
ruling says, played through the engine on stacked decks; the old ``--rule`` names, the ``--paytable`` file and
the shipped game files (``games/three-card-poker/*.toml``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablegames.cards import CARDS, parse_cards
from tablegames.engine import Table
from tablegames.rules import RuleError, make_rules, registry
from tablegames.rules import three_card_poker as tcp
from tablegames.rules.gamefile import GameFile, dumps, load

GAME = "three-card-poker"
GAMES_DIR = Path(__file__).resolve().parents[2] / "games" / GAME


def deck(*hands: str) -> list[int]:
    """Seat 1's three cards, then the dealer's, dealt one at a time in seat order (R-0.2)."""
    cards = [parse_cards(h) for h in hands]
    head = [int(cards[j][i]) for i in range(3) for j in range(len(cards))]
    return head + [int(c) for c in CARDS if int(c) not in head]


def net(
    options: dict[str, str],
    seat: str,
    dealer: str,
    action: str = "play",
    wagers: dict[str, int] | None = None,
) -> int:
    """Seat 1's net (cents) for one round heads-up under ``options``."""
    table = Table(make_rules(GAME, options), seats=1)
    rnd = table.new_round(deck=deck(seat, dealer))
    for name, amount in (wagers or {"ante": 100}).items():
        rnd.place_wager(1, name, amount)
    rnd.deal()
    while rnd.to_act is not None:
        rnd.act(rnd.to_act, action)
    assert rnd.is_over
    return int(rnd.history[-1].net_by_seat[1])  # type: ignore[attr-defined]


def test_the_default_rule_set_is_rules_md_and_lists_every_parameter() -> None:
    """R-TCP-4..6: the defaults; the complete rule set is what describe() gives and reads back."""
    rules = make_rules(GAME)
    assert rules == tcp.ThreeCardPokerRules()
    values = rules.describe()
    assert values["qualifier"] == "queen-high" and values["ties"] == "push"
    assert (values["ante-pays"], values["play-pays"]) == ("1", "1")
    assert (values["no-qualify-ante"], values["no-qualify-play"]) == ("1", "0")
    assert [values[f"ante-bonus.{h}"] for h in ("straight-flush", "trips", "straight", "flush", "pair")] == [
        "5",
        "4",
        "1",
        "-",
        "-",
    ]
    assert [values[f"pair-plus.{h}"] for h in ("straight-flush", "trips", "straight", "flush", "pair")] == [
        "40",
        "30",
        "6",
        "4",
        "1",
    ]
    assert make_rules(GAME, values) == rules


@pytest.mark.parametrize(
    ("qualifier", "dealer", "qualifies"),
    [
        ("queen-high", "Qh 3d 2c", True),
        ("queen-high", "Jh Td 8c", False),
        ("jack-high", "Jh 3d 2c", True),
        ("jack-high", "Th 9d 7c", False),
        ("king-high", "Kh 3d 2c", True),
        ("king-high", "Qh Jd 9c", False),
        ("ace-high", "Ah 4d 2c", True),
        ("ace-high", "Kh Qd Tc", False),
        ("pair", "2h 2d 3c", True),
        ("pair", "Ah Kd Jc", False),
        ("none", "5h 3d 2c", True),
    ],
)
def test_R_TCP_4_qualifier_decides_whether_the_dealer_qualifies(
    qualifier: str, dealer: str, qualifies: bool
) -> None:
    """R-TCP-4 with ``qualifier=…``: the weakest dealer hand that qualifies and the best that does not, and the
    engine's settlement of a played 6-4-2 against them (loses both to a qualifying hand, wins the Ante else)."""
    rules = make_rules(GAME, {"qualifier": qualifier})
    assert rules.qualifies(parse_cards(dealer)) is qualifies
    # seat 1 plays 2-4-6 offsuit: loses to any qualifying dealer hand here, wins the Ante otherwise
    seat = "2s 4s 6d" if qualifier != "none" else "2s 4d Ts"
    want = -200 if qualifies else 100
    if qualifier == "none":
        want = 200  # 10-4-2 beats 5-3-2: the dealer always qualifies, so Ante and Play both win
    assert net({"qualifier": qualifier}, seat, dealer) == want


def test_R_TCP_4_ante_and_play_payouts() -> None:
    """``ante-pays`` / ``play-pays``: a higher hand against a qualifying dealer; ``no-qualify-ante`` /
    ``no-qualify-play``: the dealer does not qualify (0 = a push)."""
    win = ("Kh Kd 7c", "Qh 9d 8s")  # pair of kings over a qualifying queen high
    assert net({}, *win) == 200
    assert net({"ante-pays": "2"}, *win) == 300
    assert net({"play-pays": "3"}, *win) == 400
    assert net({"ante-pays": "0", "play-pays": "0"}, *win) == 0
    no_q = ("2h 5d 7c", "Jh 9d 8s")  # the dealer's jack high does not qualify
    assert net({}, *no_q) == 100
    assert net({"no-qualify-ante": "0"}, *no_q) == 0
    assert net({"no-qualify-play": "1"}, *no_q) == 200
    assert net({"no-qualify-ante": "2", "no-qualify-play": "1"}, *no_q) == 300
    # the loss is not a parameter: both lose whatever the payouts
    assert net({"ante-pays": "5", "play-pays": "5", "no-qualify-ante": "5"}, "Qh 9d 7c", "Qs 9c 8s") == -200


def test_R_TCP_4_ties_push_or_the_dealer_wins() -> None:
    """``ties``: an equal hand against a qualifying dealer pushes both (RULES.md) or loses both."""
    equal = ("Qh 9d 8c", "Qs 9c 8s")
    assert net({}, *equal) == 0
    assert net({"ties": "dealer-wins"}, *equal) == -200
    # a non-qualifying dealer is not a tie: the Ante still pays
    assert net({"ties": "dealer-wins"}, "Jh 9d 8c", "Js 9c 8s") == 100


def test_R_TCP_5_ante_bonus_entries_and_preset() -> None:
    """``ante-bonus.HAND``: the bonus on a played Ante, whatever the dealer holds; ``-`` pays none."""
    flush_loses = ("2h 7h 9h", "Ah Ad As")  # a flush loses to the dealer's trips
    assert net({}, *flush_loses) == -200
    assert net({"ante-bonus.flush": "2"}, *flush_loses) == -200 + 200
    straight = ("4h 5d 6c", "9h 9d 9s")
    assert net({}, *straight) == -200 + 100
    assert net({"ante-bonus.straight": "-"}, *straight) == -200
    assert net({"ante-bonus.straight": "3"}, *straight) == -200 + 300
    trips = ("8h 8d 8c", "Jh 9d 7s")  # trips against a non-qualifying dealer: Ante 1 to 1, Play pushes
    assert net({"ante-bonus.trips": "7"}, *trips) == 100 + 700
    # folded: no bonus whatever the table says
    assert net({"ante-bonus.pair": "9"}, "Th Td 2c", "Ah Kd 8s", action="fold") == -100
    rules = make_rules(GAME, {"ante-bonus": "5-4-1", "ante-bonus.trips": "3"})
    assert rules.ante_bonus.odds(tcp.TcpHand.TRIPS) == 3 and rules.ante_bonus.name == "custom"
    named = make_rules(GAME, {"ante-bonus.trips": "3", "ante-bonus.name": "5-3-1"})
    assert named.describe()["ante-bonus.name"] == "5-3-1"


def test_R_TCP_6_pair_plus_entries_and_presets() -> None:
    """``pair-plus.HAND``: Pair Plus on the player's cards, played or folded; the presets still work."""
    pp = {"pair-plus": 100}
    assert net({}, "Th Td 2c", "Ah Kd 8s", wagers=pp) == 100
    assert net({"pair-plus.pair": "2"}, "Th Td 2c", "Ah Kd 8s", wagers=pp) == 200
    assert net({"pair-plus.pair": "-"}, "Th Td 2c", "Ah Kd 8s", wagers=pp) == -100
    both = {"ante": 100, "pair-plus": 100}
    assert net({"pair-plus.flush": "7"}, "2h 7h 9h", "Ah Kd 8s", "fold", both) == -100 + 700
    low = make_rules(GAME, {"pair-plus": "40-30-6-3-1"})
    assert low.pair_plus == tcp.PAIR_PLUS_PAYTABLES["40-30-6-3-1"]
    assert low.describe()["pair-plus.name"] == "40-30-6-3-1" and low.describe()["pair-plus.flush"] == "3"
    # a preset first, then an entry on top of it, whatever the order given
    mixed = make_rules(GAME, {"pair-plus.straight": "5", "pair-plus": "40-30-6-3-1"})
    assert mixed.pair_plus.odds(tcp.TcpHand.STRAIGHT) == 5 and mixed.pair_plus.odds(tcp.TcpHand.FLUSH) == 3


def test_bad_values_name_the_field_and_what_is_allowed() -> None:
    with pytest.raises(RuleError, match=r"rule 'qualifier'.*allowed: queen-high \| jack-high"):
        make_rules(GAME, {"qualifier": "ten-high"})
    with pytest.raises(RuleError, match=r"rule 'ante-pays'.*out of range; allowed: a whole number from 0"):
        make_rules(GAME, {"ante-pays": "-1"})
    with pytest.raises(RuleError, match=r"rule 'pair-plus.flush'.*not a whole number"):
        make_rules(GAME, {"pair-plus.flush": "lots"})
    with pytest.raises(RuleError, match=r"rule 'ties'.*allowed: push \| dealer-wins"):
        make_rules(GAME, {"ties": "split"})
    with pytest.raises(RuleError, match="no-qualify-play must be a whole number"):
        tcp.ThreeCardPokerRules(no_qualify_play=-1)


def test_a_paytable_file_then_rules_on_top(tmp_path: Path) -> None:
    f = tmp_path / "pp.toml"
    f.write_text('game = "three-card-poker"\n[pair-plus]\nstraight-flush = 50\ntrips = 30\nflush = 4\n')
    rules = make_rules(GAME, {"pair-plus.pair": "2"}, str(f))
    assert rules.pair_plus.odds(tcp.TcpHand.STRAIGHT_FLUSH) == 50
    assert rules.pair_plus.odds(tcp.TcpHand.STRAIGHT) is None and rules.pair_plus.odds(tcp.TcpHand.PAIR) == 2


def test_the_shipped_game_files_load_and_default_is_rules_md() -> None:
    """games/three-card-poker/: default.toml is RULES.md's rule set (written by dumps), one file per variant."""
    files = sorted(GAMES_DIR.glob("*.toml"))
    names = {f.stem for f in files}
    assert {"default", "pair-plus-40-30-6-3-1"} <= names
    default = load(GAMES_DIR / "default.toml")
    assert default.game == GAME and default.rules == make_rules(GAME)
    assert (GAMES_DIR / "default.toml").read_text() == dumps(
        GameFile(GAME, default.name, make_rules(GAME), default.description)
    )
    low = load(GAMES_DIR / "pair-plus-40-30-6-3-1.toml")
    assert low.rules == make_rules(GAME, {"pair-plus": "40-30-6-3-1"})
    for f in files:
        g = load(f)
        assert g.game == GAME and g.description, f.name
        assert registry.get(GAME).rule_set(g.rules) == g.rules.describe()

"""Generic wager legality (issue 12, for a fourth game such as Three Card Poker's Pair Plus alone, issue 13): a
seat's wagers are legal when they include the main wager, or are only side wagers that need none
(``requires=None``); such a seat is dealt in, takes no decisions and is settled with the others. Shown on a
synthetic game registered for the test (no registered game has such a wager yet)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from tablegames.cards import CARDS
from tablegames.engine import Bot, SideBetWithoutMain, Table, WrongSeat
from tablegames.engine.postings import net_by_role, postings, wallet
from tablegames.randomness import SeededRandom
from tablegames.rules import registry
from tablegames.rules.definition import Decision, DecisionContext, GameDefinition, Wager
from tablegames.rules.flow import DEALER, PUBLIC, Action, BaseFlow, RoundOps, SeatOps, seat_name

KEY = "high-card-test"
STAND = Action("stand")


@dataclass(frozen=True)
class HighCardRules:
    game: ClassVar[str] = KEY

    @classmethod
    def from_options(cls, options: Mapping[str, str] | None, paytable: str | None) -> HighCardRules:
        return cls()

    def describe(self) -> dict[str, str]:
        return {}


@dataclass(frozen=True)
class HighCardDecision(DecisionContext):
    game: ClassVar[str] = KEY
    card: int


def rank(card: int) -> int:
    return int(CARDS[card].rank)


class HighCardFlow(BaseFlow):
    """One card each, face up; the main wager beats the dealer's card at even money; ``red`` (no main wager
    needed) pays even money on a red card; ``pair`` (needs the main wager) on the dealer's rank."""

    def __init__(self, rules: HighCardRules) -> None:
        self.rules = rules

    def deal(self, r: RoundOps) -> None:
        for s in r.active_seats:
            s.cards.append(r.draw(seat_name(s.seat), PUBLIC))
        r.dealer.append(r.draw(DEALER, ""))

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [STAND]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        state.decided = True

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, tuple(r.dealer))

    def settle_all(self, r: RoundOps) -> None:
        dealer = rank(r.dealer[0])
        for s in r.active_seats:
            mine = rank(s.cards[0])
            if "main" in s.wagers:
                stake = s.wagers["main"]
                result = (mine > dealer) - (mine < dealer)
                r.settle(s, "main", stake, stake * (1 + result), {1: "win", 0: "push", -1: "lose"}[result])
            if "red" in s.wagers:
                stake = s.wagers["red"]
                red = str(CARDS[s.cards[0]])[1] in "dh"
                r.settle(s, "red", stake, 2 * stake if red else 0, "win" if red else "lose")
            if "pair" in s.wagers:
                stake = s.wagers["pair"]
                r.settle(
                    s, "pair", stake, 2 * stake if mine == dealer else 0, "win" if mine == dealer else "lose"
                )

    def context(self, r: RoundOps, state: SeatOps) -> HighCardDecision:
        return HighCardDecision(state.cards[0])


def _describe(rules: Any, cards: Sequence[int | None]) -> str:
    return " ".join(str(CARDS[c]) for c in cards if c is not None)


DEFINITION = GameDefinition(
    key=KEY,
    title="High Card (test)",
    tagline="",
    rules_type=HighCardRules,
    rule_options=(),
    paytables=(),
    wagers=(Wager("main", "main", main=True), Wager("red", "Red"), Wager("pair", "Pair", requires="main")),
    meters=lambda rules: (),
    decisions=(Decision("stand", "stands"),),
    default_action="stand",
    context_type=HighCardDecision,
    rule_of_thumb=lambda ctx: "stand",
    describe_hand=_describe,
    flow=HighCardFlow,
)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(registry.REGISTRY, KEY, DEFINITION)  # type: ignore[index]
    yield


def table(seats: int, seed: int = 1) -> Table:
    return Table(
        HighCardRules(), seats=seats, source=SeededRandom(seed), bankrolls=dict.fromkeys(range(1, 8), 10_000)
    )


def test_a_side_wager_needing_no_main_wager_may_be_placed_alone() -> None:
    rnd = table(3).new_round()
    assert rnd.check_wagers(1, [("red", 300, None)]) == 300
    rnd.place_wager(1, "red", 300)
    rnd.place_wager(2, "main", 500)
    rnd.place_wager(3, "red", 200)
    with pytest.raises(SideBetWithoutMain):  # a side wager that requires the main wager still needs it
        rnd.place_wager(3, "pair", 100)
    assert rnd.seats[3].wagers == {"red": 200}
    rnd.deal()
    assert all(len(rnd.seats[s].cards) == 1 for s in (1, 2, 3))  # the side-only seats are dealt in
    assert rnd.to_act == 2 and rnd.legal_actions(1) == [] and rnd.legal_actions(3) == []
    with pytest.raises(WrongSeat):
        rnd.verify_act(1, "stand")
    rnd.act(2, "stand")
    assert rnd.is_over
    assert (
        rnd.seats[1].settled == {"red"}
        and rnd.seats[3].settled == {"red"}
        and rnd.seats[2].settled == {"main"}
    )
    bank = rnd.table.bankrolls
    assert bank is not None
    for s in (1, 3):
        red = str(CARDS[rnd.seats[s].cards[0]])[1] in "dh"
        assert bank[s] == 10_000 + (rnd.seats[s].wagers["red"] if red else -rnd.seats[s].wagers["red"])
    assert sum(bank[s] - 10_000 for s in (1, 2, 3)) + rnd.table.house_net == 0
    net = net_by_role(postings(rnd.history))  # the ledger's postings agree with the engine, seat by seat
    assert {s: net.get(wallet(s), 0) for s in (1, 2, 3)} == {s: bank[s] - 10_000 for s in (1, 2, 3)}


def test_a_round_of_side_only_seats_takes_no_decision() -> None:
    t = table(2, seed=5)
    rnd = t.new_round()
    for s in (1, 2):
        rnd.place_wager(s, "red", 100)
    rnd.deal()
    assert rnd.is_over and rnd.to_act is None
    assert all(rnd.seats[s].settled == {"red"} for s in (1, 2))
    assert sum(rnd.seats[s].returned - rnd.seats[s].staked for s in (1, 2)) == -t.house_net


def test_bots_and_the_registry_games_keep_their_rule() -> None:
    """Every registered game's side wagers that require its main wager are refused alone."""
    for d in registry.DEFINITIONS:
        rules = d.make_rules()
        for w in d.side_bets:
            if w.requires is None:
                continue  # may be played alone (tested above on a synthetic game)
            rnd = Table(rules, seats=1, bankrolls={1: 10_000}).new_round()
            option = w.option.default if w.option is not None else None
            amount = w.fixed_cents(rules) or 100
            with pytest.raises(SideBetWithoutMain):
                rnd.check_wagers(1, [(w.name, amount, option)])
    rnd = table(1).new_round()
    rnd.place_wager(1, "main", 100)
    rnd.deal()
    assert Bot().choose(rnd, 1) == STAND

"""Properties of the round engine (R-0.1 .. R-0.4): any sequence of legal and illegal actions keeps 52 distinct
cards, conserves money, leaves state untouched on refusal; seeded rounds replay identically."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablegames.engine import (
    MAX_SEATS,
    Action,
    Bot,
    IllegalAction,
    Table,
)
from tablegames.engine.events import CardDealt, JackpotContribution, JackpotHit, NeighbourBonusPaid, Settled
from tablegames.engine.replay import replay
from tablegames.randomness import LiveRandom, SeededRandom, shuffle_deck
from tablegames.rules import GAMES, make_rules, registry


def every_wager(game: str) -> list[tuple[str, Any, str | None]]:
    """The main wager and every side bet of ``game``, from its definition in the registry (a game added
    later inherits these properties)."""
    definition = registry.get(game)
    rules = definition.make_rules()
    out: list[tuple[str, Any, str | None]] = []
    for w in definition.wagers:
        fixed = w.fixed_cents(rules)
        amount = 500 if w.main else fixed if fixed is not None else 100 if w.option is None else 200
        out.append((w.name, amount, w.option.default if w.option is not None else None))
    return out


WAGERS = {game: every_wager(game) for game in GAMES}
BAD_WAGERS: list[tuple[Any, str, Any, str | None]] = [
    (1, "main", 0, None),
    (1, "main", -5, None),
    (1, "main", 2.5, None),
    (1, "bets", 1.001, None),
    (9, "main", 500, None),
    (0, "bets", 500, None),
    (1, "nonsense", 500, None),
    (1, "bonus", 100, None),
    (1, "flip", 100, "eleven"),
    (1, "progressive", 700, None),
    (1, "main", 10**12, None),
]
ACTIONS = [
    "ride",
    "pull",
    "stand",
    "turn",
    "discard 0",
    "discard 2",
    "discard 3",
    "discard -1",
    "fold",
    "x y z",
]


def snapshot(table: Table) -> str:
    rnd = table.current
    assert rnd is not None
    return repr(
        (
            [vars(s) for s in rnd.seats.values()],
            rnd.dealer,
            len(rnd.history),
            rnd.next_card,
            rnd.phase,
            table.meters,
            table.bankrolls,
            table.house_net,
            getattr(rnd, "stage", None),
            getattr(rnd, "community", None),
        )
    )


def check_cards(table: Table) -> None:
    rnd = table.current
    assert rnd is not None
    assert sorted(rnd.deck) == list(range(52))  # 52 distinct cards, always
    dealt = [e.card for e in rnd.history if isinstance(e, CardDealt)]
    assert len(dealt) == len(set(dealt)) == rnd.next_card
    assert dealt == rnd.deck[: rnd.next_card]  # cards come off the deck in order, never back
    in_hands = [c for s in rnd.seats.values() for c in s.cards] + rnd.dealer
    assert len(in_hands) == len(set(in_hands))


@given(
    game=st.sampled_from(GAMES),
    seats=st.integers(1, MAX_SEATS),
    seed=st.integers(0, 2**32),
    ops=st.lists(
        st.one_of(
            st.tuples(st.just("act"), st.integers(0, 8), st.sampled_from(ACTIONS)),
            st.tuples(st.just("wager"), st.sampled_from(range(len(BAD_WAGERS))), st.just("")),
            st.tuples(st.just("bot"), st.just(0), st.just("")),
        ),
        max_size=40,
    ),
)
def test_any_sequence_keeps_cards_and_money(
    game: str, seats: int, seed: int, ops: list[tuple[str, int, str]]
) -> None:
    bank = {s: 1_000_000 for s in range(1, seats + 1)}
    table = Table(make_rules(game), seats=seats, source=SeededRandom(seed), bankrolls=bank)
    total = sum(bank.values()) + sum(table.meters.values())
    for _ in range(2):
        rnd = table.new_round()
        for s in range(1, seats + 1):
            for wager, amount, option in WAGERS[game][: 1 + (s % len(WAGERS[game]))]:
                rnd.place_wager(s, wager, amount, option)
        for kind, a, _b in ops[:5]:  # illegal wagers before the deal are refused without a trace
            if kind == "wager":
                before = snapshot(table)
                seat, wager, amount, option = BAD_WAGERS[a]
                with pytest.raises(IllegalAction):
                    rnd.place_wager(seat, wager, amount, option)
                assert snapshot(table) == before
        rnd.deal()
        for kind, a, b in ops:
            check_cards(table)
            if rnd.is_over:
                break
            before = snapshot(table)
            try:
                if kind == "act":
                    rnd.act(a, b)
                elif kind == "bot" and rnd.to_act is not None:
                    rnd.act(rnd.to_act, Bot().choose(rnd, rnd.to_act), by="bot")
                else:
                    rnd.place_wager(1, "main", 500)
            except IllegalAction:
                assert snapshot(table) == before  # refused: nothing changed
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            rnd.act(seat, Bot().choose(rnd, seat), by="bot")
        check_cards(table)
        # money: every seat's balance moved by exactly its settlements; nothing created or lost
        assert sum(table.bankrolls.values()) + sum(table.meters.values()) + table.house_net == total  # type: ignore[union-attr]
        for s in rnd.active_seats:
            paid = sum(e.returned for e in rnd.history if isinstance(e, Settled) and e.seat == s.seat)
            paid += sum(
                e.amount for e in rnd.history if isinstance(e, NeighbourBonusPaid) and e.seat == s.seat
            )
            assert paid == s.returned
            wagers = {e.wager for e in rnd.history if isinstance(e, Settled) and e.seat == s.seat}
            # every wager settled (a main wager of several bets settles bet by bet, under other names)
            assert wagers >= {w for w in s.wagers if registry.get(game).wager(w).cost_multiple == 1}  # type: ignore[union-attr]
        meters_delta = sum(table.meters.values()) - sum(rnd.meters_before.values())
        contrib = sum(e.amount for e in rnd.history if isinstance(e, JackpotContribution))
        hits = sum(e.amount - e.reset_to for e in rnd.history if isinstance(e, JackpotHit))
        assert meters_delta == contrib - hits


@pytest.mark.parametrize("game", GAMES)
def test_R_0_1_same_seed_same_round_and_replay(game: str) -> None:
    def play(seed: int) -> list[dict[str, Any]]:
        t = Table(make_rules(game), seats=3, source=SeededRandom(seed))
        out = []
        for _ in range(3):
            r = t.new_round()
            for s in (1, 2, 3):
                r.place_wager(s, WAGERS[game][0][0], 500)
            r.deal()
            while not r.is_over:
                r.act(r.to_act, Bot().choose(r, r.to_act))  # type: ignore[arg-type]
            out += [e.to_dict() for e in r.history]
            again = replay(t.rules, r.history)
            assert [e.to_dict() for e in again.history[1:]] == [e.to_dict() for e in r.history[1:]]
        return out

    assert play(11) == play(11)
    assert play(11) != play(12)


@given(st.integers(0, 2**64))
def test_live_shuffle_never_repeats_a_seeded_path(seed: int) -> None:
    assert shuffle_deck(LiveRandom()) != shuffle_deck(SeededRandom(seed))


def test_R_0_2_deal_order_seats_then_dealer_one_at_a_time() -> None:
    t = Table(make_rules("final-count"), seats=3, source=SeededRandom(1))
    r = t.new_round()
    for s in (1, 3):  # seat 2 sits out: no wager, no cards
        r.place_wager(s, "main", 100)
    r.deal()
    owners = [e.to for e in r.history if isinstance(e, CardDealt)]
    assert owners[:9] == ["seat 1", "seat 3", "dealer"] * 3
    assert r.seats[2].cards == []


def test_R_0_3_to_one_and_for_one() -> None:
    """X to 1 returns the wager plus X times it; "$Y" pays Y and keeps the wager."""
    from tablegames.cards import parse_cards

    head = [int(c) for c in parse_cards("7c 2s 7d 3s 7h 4s")]
    deck = head + [c for c in range(52) if c not in head]
    t = Table(make_rules("one-eyed-flush"), seats=1)
    r = t.new_round(deck=deck)
    r.place_wager(1, "main", 500)
    r.place_wager(1, "jackpot", 100)
    r.deal()
    r.act(1, "stand")
    got = {e.wager: e for e in r.history if isinstance(e, Settled)}
    assert got["jackpot"].returned == 3_000  # $30 for natural trips, the $1 wager is not returned
    assert got["main"].returned in (0, 500, 1_000)  # 1 to 1 returns the wager plus one times it


def test_R_0_4_early_loss_stays_settled() -> None:
    from tablegames.cards import parse_cards

    head = [int(c) for c in parse_cards("5c 9s 4d 7h Ac Qc 6h")]
    deck = head + [c for c in range(52) if c not in head]
    t = Table(make_rules("one-eyed-flush"), seats=1)
    r = t.new_round(deck=deck)
    r.place_wager(1, "main", 500)
    r.deal()
    r.act(1, Action("discard", 2))
    main = [e for e in r.history if isinstance(e, Settled) and e.wager == "main"]
    assert len(main) == 1 and main[0].outcome == "bust"  # settled once, nothing later changes it


def test_illegal_actions_are_typed_and_explained() -> None:
    from tablegames.engine import BadIndex, BadWager, SideBetWithoutMain, UnknownAction, WrongPhase, WrongSeat

    t = Table(make_rules("one-eyed-flush"), seats=2, source=SeededRandom(2), bankrolls={1: 1_000, 2: 1_000})
    r = t.new_round()
    with pytest.raises(WrongPhase, match="no decisions now"):
        r.act(1, "stand")
    with pytest.raises(SideBetWithoutMain, match="needs the main wager"):
        r.place_wager(1, "jackpot", 100)
    with pytest.raises(BadWager, match="whole number of cents"):
        r.place_wager(1, "main", 1.5)  # type: ignore[arg-type]
    with pytest.raises(BadWager, match="positive"):
        r.place_wager(1, "main", 0)
    from tablegames.engine import InsufficientFunds

    with pytest.raises(InsufficientFunds, match=r"has \$10;"):
        r.place_wager(1, "main", 5_000)
    r.place_wager(1, "main", 500)
    r.place_wager(2, "main", 500)
    r.deal()
    with pytest.raises(WrongPhase, match="wagers are closed"):
        r.place_wager(1, "jackpot", 100)
    with pytest.raises(WrongSeat, match="not seat 2's turn"):
        r.act(2, "stand")
    with pytest.raises(WrongSeat, match="no seat 8"):
        r.act(8, "stand")
    with pytest.raises(UnknownAction, match="fold is not a legal action"):
        r.act(1, "fold")
    with pytest.raises(BadIndex, match="out of range"):
        r.act(1, "discard 3")

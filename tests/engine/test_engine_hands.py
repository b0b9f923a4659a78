"""The view's hand descriptions (shared contract item 2): ``view["hands"]`` and ``view["dealer_hand"]`` hold the
definition's ``describe_hand`` (and ``total``) of exactly the cards that viewer may see, for its own seat always
and for another seat or the dealer only once one of its cards is shown; never a word about a hidden card."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.cards import CARDS
from tablegames.engine import Table
from tablegames.engine.base import Round
from tablegames.randomness import SeededRandom
from tablegames.rules import GAMES, make_rules, registry


def allowed(rnd: Round, viewer: int | None) -> set[int]:
    """Cards ``viewer`` may see so far, from the history's own visibility marks."""
    me = f"seat {viewer}" if viewer is not None else None
    out: set[int] = set()
    for e in rnd.history:
        d = e.to_dict()
        if d["type"] in ("card_dealt", "card_discarded") and d["visible_to"] in ("all", me):
            out.add(int(e.card))
        elif d["type"] == "cards_revealed":
            out.update(int(c) for c in e.cards)
    return out


def expected(rnd: Round, cards: list[int], ok: set[int]) -> dict[str, Any]:
    seen = [c if c in ok else None for c in cards]
    d = rnd.definition
    return {"description": d.describe_hand(rnd.rules, seen), "total": d.total(rnd.rules, seen)}


def check(rnd: Round, viewer: int | None) -> None:
    view = rnd.view(viewer)
    ok = allowed(rnd, viewer)
    hands = view["hands"]
    for s in rnd.active_seats:
        shown = any(c in ok for c in s.cards)
        if s.seat == viewer or shown:
            assert hands[str(s.seat)] == expected(rnd, s.cards, ok), (viewer, s.seat)
        else:
            assert str(s.seat) not in hands, (viewer, s.seat, hands)
    assert set(hands) <= {str(s.seat) for s in rnd.active_seats}
    if any(c in ok for c in rnd.dealer):
        assert view["dealer_hand"] == expected(rnd, rnd.dealer, ok)
    else:
        assert view["dealer_hand"] is None


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(GAMES),
    seats=st.integers(1, 4),
    seed=st.integers(0, 10**6),
    choices=st.randoms(use_true_random=False),
)
def test_hands_in_the_view_are_of_visible_cards_only(game: str, seats: int, seed: int, choices: Any) -> None:
    table = Table(make_rules(game), seats=seats, source=SeededRandom(seed))
    rnd = table.new_round()
    for s in range(1, seats + 1):
        rnd.place_wager(s, rnd.main_wager(), 500)
    for viewer in [None, *range(1, seats + 1)]:
        assert rnd.view(viewer)["hands"] == ({str(viewer): expected(rnd, [], set())} if viewer else {})
    rnd.deal()
    while not rnd.is_over:
        for viewer in [None, *range(1, seats + 1)]:
            check(rnd, viewer)
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, choices.choice(rnd.legal_actions(seat)))
    # settled: every hand of every seat, described from all its cards
    for viewer in [None, 1]:
        hands = rnd.view(viewer)["hands"]
        for s in rnd.active_seats:
            assert hands[str(s.seat)] == expected(rnd, s.cards, set(s.cards))


def test_let_it_ride_hides_other_hands_until_shown() -> None:
    """R-LIR-1: a seat's three cards are its own: nobody else is told what they make before the showdown."""
    rnd = Table(make_rules("let-it-ride"), seats=2, source=SeededRandom(4)).new_round()
    for s in (1, 2):
        rnd.place_wager(s, "bets", 500)
    rnd.deal()
    mine = rnd.view(1)["hands"]
    assert (
        set(mine) == {"1"} and mine["1"]["description"].endswith("(3 cards)") and mine["1"]["total"] is None
    )
    assert rnd.view(None)["hands"] == {} and rnd.view(None)["dealer_hand"] is None
    assert set(rnd.view(2)["hands"]) == {"2"}


def test_final_count_total_counts_only_the_face_up_cards() -> None:
    """R-FC-2: the third card is face down for everyone, the seat too: its total is of the two up cards."""
    rules = make_rules("final-count")
    d = registry.get("final-count")
    for seed in range(30):
        rnd = Table(rules, seats=2, source=SeededRandom(seed)).new_round()
        for s in (1, 2):
            rnd.place_wager(s, "main", 500)
        rnd.deal()
        seat = rnd.to_act
        if seat is None:
            continue
        cards = rnd.seats[seat].cards
        for viewer in (None, 1, 2):
            hand = rnd.view(viewer)["hands"][str(seat)]
            assert hand["total"] == rules.total(cards[:2])
            assert hand == {"description": d.describe_hand(rules, [*cards[:2], None]), "total": hand["total"]}
        dealer = rnd.view(None)["dealer_hand"]
        assert dealer["total"] == rules.total(rnd.dealer[:2])
        assert str(CARDS[rnd.dealer[2]]) not in str(rnd.view(None))
        return
    raise AssertionError("no seed gave a decision")

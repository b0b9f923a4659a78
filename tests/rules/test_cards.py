"""Cards: parsing and printing in the usual notations; clear errors naming the bad token."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablegames.cards import CARDS, Card, CardParseError, Rank, Suit, format_cards, parse_card, parse_cards


@pytest.mark.parametrize(
    ("token", "rank", "suit"),
    [
        ("Ah", Rank.ACE, Suit.HEARTS),
        ("AH", Rank.ACE, Suit.HEARTS),
        ("Td", Rank.TEN, Suit.DIAMONDS),
        ("10d", Rank.TEN, Suit.DIAMONDS),
        ("A♥", Rank.ACE, Suit.HEARTS),
        ("2♣", Rank.TWO, Suit.CLUBS),
        ("k♦", Rank.KING, Suit.DIAMONDS),
        ("Qs", Rank.QUEEN, Suit.SPADES),
        ("J♠", Rank.JACK, Suit.SPADES),
    ],
)
def test_parse_notations(token: str, rank: Rank, suit: Suit) -> None:
    card = parse_card(token)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("token", ["1h", "Ax", "11d", "", "A", "hA", "0s", "AAh", "T♥x"])
def test_bad_token_is_named(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_parse_cards_names_the_bad_token_in_a_list() -> None:
    with pytest.raises(CardParseError, match="'Zz'"):
        parse_cards("Ah Kd Zz 2c")


def test_all_52_distinct_and_round_trip() -> None:
    assert len({str(c) for c in CARDS}) == 52
    assert len({c.pretty for c in CARDS}) == 52
    for c in CARDS:
        assert parse_card(str(c)) == c
        assert parse_card(c.pretty) == c
        assert Card.of(c.rank, c.suit) == c


@given(st.lists(st.sampled_from(CARDS), min_size=1, max_size=10))
def test_format_then_parse_is_identity(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, pretty=True)) == cards


def test_card_index_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        Card(52)

"""Cards: ranks, suits and integer cards, with parsing and printing in the usual notations.

A card is an ``int`` from 0 to 51 (``(rank - 2) * 4 + suit``), so that tables and NumPy arrays
can index by card directly, as in PH Evaluator.  :class:`Card` is an ``int`` subclass that knows its
rank and suit and prints itself.

>>> c = parse_card("Ah")
>>> c.rank, c.suit
(<Rank.ACE: 14>, <Suit.HEARTS: 2>)
>>> str(c), c.pretty, int(c)
('Ah', 'A♥', 50)
>>> parse_cards("10d Td T♦") == [parse_card("Td")] * 3
True
>>> parse_card("1x")
Traceback (most recent call last):
...
tablegames.cards.CardParseError: not a card: '1x' (expected rank 2-10/T/J/Q/K/A then suit c/d/h/s or ♣♦♥♠)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "cdhs"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


class Rank(IntEnum):
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        return "23456789TJQKA"[self - 2]


class CardParseError(ValueError):
    """A token that is not a card; the message names the token."""


class Card(int):
    """One of the 52 cards, as an int ``(rank - 2) * 4 + suit``."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if not 0 <= int(value) < 52:
            raise ValueError(f"card index out of range 0..51: {value}")
        return super().__new__(cls, value)

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        return CARDS[(int(rank) - 2) * 4 + int(suit)]

    @property
    def rank(self) -> Rank:
        return Rank(int(self) // 4 + 2)

    @property
    def suit(self) -> Suit:
        return Suit(int(self) % 4)

    @property
    def pretty(self) -> str:
        """Rank letter and suit symbol, e.g. ``A♥``."""
        return self.rank.letter + self.suit.symbol

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({self})"


CARDS: Final[tuple[Card, ...]] = tuple(int.__new__(Card, i) for i in range(52))
"""All 52 cards in index order (2c 2d 2h 2s 3c ... As)."""

_NAMES: Final[tuple[str, ...]] = tuple(c.rank.letter + c.suit.letter for c in CARDS)  # str(card), looked up

_RANK_TOKENS: Final[dict[str, Rank]] = {r.letter: r for r in Rank} | {"10": Rank.TEN}
_SUIT_TOKENS: Final[dict[str, Suit]] = {s.letter: s for s in Suit} | {s.symbol: s for s in Suit}
_SUIT_TOKENS.update({"♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♤": Suit.SPADES, "♧": Suit.CLUBS})


def parse_card(token: str) -> Card:
    """Parse ``Ah``, ``AH``, ``Td``, ``10d`` or ``A♥`` (case-insensitive)."""
    text = token.strip()
    if len(text) >= 2:
        rank = _RANK_TOKENS.get(text[:-1].upper())
        suit = _SUIT_TOKENS.get(text[-1].lower())
        if rank is not None and suit is not None:
            return Card.of(rank, suit)
    raise CardParseError(f"not a card: {token!r} (expected rank 2-10/T/J/Q/K/A then suit c/d/h/s or ♣♦♥♠)")


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of tokens.

    >>> [str(c) for c in parse_cards("J♥, 5c 9D")]
    ['Jh', '5c', '9d']
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[int], pretty: bool = False) -> str:
    """Cards as text, e.g. ``Ah Kd`` or ``A♥ K♦``.

    >>> format_cards(parse_cards("Ah Kd"), pretty=True)
    'A♥ K♦'
    """
    return " ".join(CARDS[c].pretty if pretty else str(CARDS[c]) for c in cards)


def check_distinct(cards: Sequence[int]) -> None:
    """Raise ``ValueError`` naming the first card that appears twice."""
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"card {CARDS[c]} appears twice")
        seen.add(c)


DECK_SIZE: Final = 52

"""Poker hand categories for three- and five-card hands (no wild cards).

The category of a hand depends only on its ranks and on whether all cards share a suit, so the core
functions take ``(ranks, flush)``; vectorized analyzers build their lookup tables by calling these same
functions once per rank pattern (one definition of each game).

>>> from tablegames.cards import parse_cards
>>> five_card_category(parse_cards("Ah Kh Qh Jh Th")).name
'ROYAL_FLUSH'
>>> five_card_category(parse_cards("Ah 2d 3c 4s 5h")).name
'STRAIGHT'
>>> three_card_category(parse_cards("Qs Ks As")).name
'MINI_ROYAL'
>>> three_card_category(parse_cards("Ah 2d 3c")).name
'STRAIGHT'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum

from tablegames.cards import CARDS


class FiveCardCategory(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


class ThreeCardCategory(IntEnum):
    """Three-card poker categories: a straight outranks a flush (R-LIR-6)."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    TRIPS = 4
    STRAIGHT_FLUSH = 5
    MINI_ROYAL = 6


def is_straight(ranks: Sequence[int]) -> bool:
    """True when the ranks are consecutive and distinct; the ace plays high or low (R-LIR-4, R-LIR-6)."""
    distinct = sorted(set(ranks))
    if len(distinct) != len(ranks):
        return False
    if distinct[-1] - distinct[0] == len(ranks) - 1:
        return True
    # Ace low: A-2-3(-4-5)
    return distinct[-1] == 14 and distinct[:-1] == list(range(2, len(ranks) + 1))


def five_card_category_of(ranks: Sequence[int], flush: bool) -> FiveCardCategory:
    """Category of a five-card hand from its five ranks (2..14) and whether it is one suit."""
    if len(ranks) != 5:
        raise ValueError(f"a five-card hand needs 5 ranks, got {len(ranks)}")
    counts = sorted(Counter(ranks).values(), reverse=True)
    straight = counts[0] == 1 and is_straight(ranks)
    if straight and flush:
        return FiveCardCategory.ROYAL_FLUSH if min(ranks) == 10 else FiveCardCategory.STRAIGHT_FLUSH
    if counts[0] == 4:
        return FiveCardCategory.QUADS
    if counts[:2] == [3, 2]:
        return FiveCardCategory.FULL_HOUSE
    if flush:
        return FiveCardCategory.FLUSH
    if straight:
        return FiveCardCategory.STRAIGHT
    if counts[0] == 3:
        return FiveCardCategory.TRIPS
    if counts[:2] == [2, 2]:
        return FiveCardCategory.TWO_PAIR
    if counts[0] == 2:
        return FiveCardCategory.PAIR
    return FiveCardCategory.HIGH_CARD


def three_card_category_of(ranks: Sequence[int], flush: bool) -> ThreeCardCategory:
    """Category of a three-card hand from its three ranks and whether it is one suit."""
    if len(ranks) != 3:
        raise ValueError(f"a three-card hand needs 3 ranks, got {len(ranks)}")
    distinct = len(set(ranks))
    if distinct == 1:
        return ThreeCardCategory.TRIPS
    if distinct == 2:
        return ThreeCardCategory.PAIR
    straight = is_straight(ranks)
    if straight and flush:
        return (
            ThreeCardCategory.MINI_ROYAL
            if sorted(ranks) == [12, 13, 14]
            else ThreeCardCategory.STRAIGHT_FLUSH
        )
    if straight:
        return ThreeCardCategory.STRAIGHT
    if flush:
        return ThreeCardCategory.FLUSH
    return ThreeCardCategory.HIGH_CARD


def ranks_and_flush(cards: Sequence[int]) -> tuple[list[int], bool]:
    """The ranks of ``cards`` and whether they all share one suit."""
    ranks = [int(CARDS[c].rank) for c in cards]
    flush = len({c % 4 for c in cards}) == 1
    return ranks, flush


def five_card_category(cards: Sequence[int]) -> FiveCardCategory:
    """Category of five cards."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise ValueError("a five-card hand needs 5 distinct cards")
    return five_card_category_of(*ranks_and_flush(cards))


def three_card_category(cards: Sequence[int]) -> ThreeCardCategory:
    """Category of three cards."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("a three-card hand needs 3 distinct cards")
    return three_card_category_of(*ranks_and_flush(cards))


def pair_rank(ranks: Sequence[int]) -> int:
    """The highest rank that appears at least twice, or 0."""
    paired = [r for r, n in Counter(ranks).items() if n >= 2]
    return max(paired, default=0)

"""Exhaustive checks: every 3-card and 5-card hand falls into the published category counts."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from tablegames.rules.poker import (
    FiveCardCategory,
    ThreeCardCategory,
    five_card_category,
    five_card_category_of,
    three_card_category,
)


def test_all_22100_three_card_hands() -> None:
    counts = Counter(three_card_category(h) for h in combinations(range(52), 3))
    assert sum(counts.values()) == 22_100
    assert counts == {
        ThreeCardCategory.MINI_ROYAL: 4,
        ThreeCardCategory.STRAIGHT_FLUSH: 44,
        ThreeCardCategory.TRIPS: 52,
        ThreeCardCategory.STRAIGHT: 720,
        ThreeCardCategory.FLUSH: 1_096,
        ThreeCardCategory.PAIR: 3_744,
        ThreeCardCategory.HIGH_CARD: 16_440,
    }


def test_all_2598960_five_card_hands() -> None:
    """Every one of the 2,598,960 hands is classified by ``five_card_category_of`` (memoised per
    rank-pattern and flush flag, which is all the category depends on)."""
    memo: dict[tuple[tuple[int, ...], bool], FiveCardCategory] = {}
    counts: Counter[FiveCardCategory] = Counter()
    for hand in combinations(range(52), 5):
        ranks = tuple(c // 4 + 2 for c in hand)  # hands are sorted, so are their ranks
        s = hand[0] & 3
        flush = (hand[1] & 3) == s and (hand[2] & 3) == s and (hand[3] & 3) == s and (hand[4] & 3) == s
        key = (ranks, flush)
        cat = memo.get(key)
        if cat is None:
            cat = memo[key] = five_card_category_of(ranks, flush)
        counts[cat] += 1
    assert sum(counts.values()) == 2_598_960
    assert counts == {
        FiveCardCategory.ROYAL_FLUSH: 4,
        FiveCardCategory.STRAIGHT_FLUSH: 36,
        FiveCardCategory.QUADS: 624,
        FiveCardCategory.FULL_HOUSE: 3_744,
        FiveCardCategory.FLUSH: 5_108,
        FiveCardCategory.STRAIGHT: 10_200,
        FiveCardCategory.TRIPS: 54_912,
        FiveCardCategory.TWO_PAIR: 123_552,
        FiveCardCategory.PAIR: 1_098_240,
        FiveCardCategory.HIGH_CARD: 1_302_540,
    }


def test_memo_agrees_with_card_function_on_a_sample() -> None:
    for i, hand in enumerate(combinations(range(52), 5)):
        if i % 9973 == 0:
            ranks = tuple(c // 4 + 2 for c in hand)
            flush = len({c & 3 for c in hand}) == 1
            assert five_card_category(hand) == five_card_category_of(ranks, flush)

"""Let It Ride's hand classes and its published basic strategy (RULES.md §1, R-LIR-4 and R-LIR-6): pure
functions of the cards, a part of :mod:`tablegames.rules.let_it_ride` (which re-exports every name).

>>> from tablegames.cards import parse_cards
>>> lir_hand(parse_cards("Jh Jc 2d 5s 9h"), Qualifier.QUEENS.rank).name
'NOTHING'
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, IntEnum

from tablegames.rules.poker import (
    FiveCardCategory,
    ThreeCardCategory,
    five_card_category_of,
    is_straight,
    pair_rank,
    ranks_and_flush,
    three_card_category_of,
)


class LirHand(IntEnum):
    """The final five-card hand as the base game pays it (R-LIR-4)."""

    NOTHING = 0
    TENS_OR_BETTER = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


BonusHand = ThreeCardCategory
"""3-Card Bonus hands (R-LIR-6)."""


_FIVE_TO_LIR = {
    FiveCardCategory.TWO_PAIR: LirHand.TWO_PAIR,
    FiveCardCategory.TRIPS: LirHand.TRIPS,
    FiveCardCategory.STRAIGHT: LirHand.STRAIGHT,
    FiveCardCategory.FLUSH: LirHand.FLUSH,
    FiveCardCategory.FULL_HOUSE: LirHand.FULL_HOUSE,
    FiveCardCategory.QUADS: LirHand.QUADS,
    FiveCardCategory.STRAIGHT_FLUSH: LirHand.STRAIGHT_FLUSH,
    FiveCardCategory.ROYAL_FLUSH: LirHand.ROYAL_FLUSH,
}


class Qualifier(Enum):
    """The lowest pair the base game pays (R-LIR-4: tens); the hand keeps its name ``tens-or-better``."""

    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    SEVENS = "sevens"
    EIGHTS = "eights"
    NINES = "nines"
    TENS = "tens"
    JACKS = "jacks"
    QUEENS = "queens"
    KINGS = "kings"
    ACES = "aces"

    @property
    def rank(self) -> int:
        """The pair's rank, 2 .. 14 (ace)."""
        return 2 + list(Qualifier).index(self)


def lir_hand_of(ranks: Sequence[int], flush: bool, qualifier: int = 10) -> LirHand:
    """Base-game class of five ranks (R-LIR-4): a pair pays only when of rank ``qualifier`` or better.

    >>> lir_hand_of([10, 10, 2, 5, 9], False), lir_hand_of([10, 10, 2, 5, 9], False, 11)
    (<LirHand.TENS_OR_BETTER: 1>, <LirHand.NOTHING: 0>)
    """
    cat = five_card_category_of(ranks, flush)
    if cat == FiveCardCategory.PAIR:
        return LirHand.TENS_OR_BETTER if pair_rank(ranks) >= qualifier else LirHand.NOTHING
    return _FIVE_TO_LIR.get(cat, LirHand.NOTHING)


def lir_hand(cards: Sequence[int], qualifier: int = 10) -> LirHand:
    """Base-game class of the player's three cards plus the two community cards."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise ValueError("Let It Ride needs 5 distinct cards")
    return lir_hand_of(*ranks_and_flush(cards), qualifier)


def bonus_hand(cards: Sequence[int]) -> BonusHand:
    """3-Card Bonus class of the player's first three cards (R-LIR-6)."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("the 3-Card Bonus needs 3 distinct cards")
    return three_card_category_of(*ranks_and_flush(cards))


# --- published basic strategy (Wizard of Odds / Grochowski) -------------------------------------

HIGH = 10  # ten through ace are "high cards" in the strategy


def _sf_draw(ranks: Sequence[int]) -> tuple[int, int] | None:
    """For suited distinct ranks, the (gaps, high cards) of the best straight-flush window, or None."""
    best: tuple[int, int] | None = None
    rs = set(ranks)
    for low in range(1, 11):  # windows A-5 (low=1) .. T-A (low=10)
        window = {14 if r == 1 else r for r in range(low, low + 5)}
        if rs <= window:
            span = sorted(1 if (r == 14 and low == 1) else r for r in rs)
            gaps = span[-1] - span[0] + 1 - len(span)
            highs = sum(1 for r in ranks if r >= HIGH and not (r == 14 and low == 1))
            cand = (gaps, highs)
            if best is None or (cand[0], -cand[1]) < (best[0], -best[1]):
                best = cand
    return best


def ride_first(cards: Sequence[int], qualifier: int = 10) -> bool:
    """Let bet 1 ride on these three cards? (the published strategy; ``qualifier``: the lowest paying pair)

    Ride with: a paying hand (pair of tens or better, trips); three to a royal flush; three suited in a
    row except 2-3-4 and A-2-3; three to a straight flush with one gap and at least one high card; three to
    a straight flush with two gaps and at least two high cards.

    >>> from tablegames.cards import parse_cards
    >>> [ride_first(parse_cards(h)) for h in ("Th Tc 2d", "9h 9c 2d", "3s 4s 5s", "2s 3s 4s", "9s Js Kd", "9s Js Qs")]
    [True, False, True, False, False, True]
    """
    ranks, flush = ranks_and_flush(cards)
    if pair_rank(ranks) >= qualifier or len(set(ranks)) == 1:
        return True
    if not flush or len(set(ranks)) != 3:
        return False
    if min(ranks) >= 10:
        return True  # three to a royal
    if is_straight(ranks):
        return sorted(ranks) not in ([2, 3, 4], [2, 3, 14])
    draw = _sf_draw(ranks)
    if draw is None:
        return False
    gaps, highs = draw
    return (gaps == 1 and highs >= 1) or (gaps == 2 and highs >= 2)


def ride_second(cards: Sequence[int], qualifier: int = 10) -> bool:
    """Let bet 2 ride on the three cards plus the first community card? (the published strategy)

    Ride with: a paying hand; four to a flush; four to an outside straight with at least one high card.
    The published chart also lets it ride on four to an outside straight with no high card and on four to
    an inside straight with four high cards; both are worth exactly zero, so by the cautious tie-break of
    RULES.md ("where two choices have exactly equal value ... pull the wager") they are pulled.

    >>> from tablegames.cards import parse_cards
    >>> [ride_second(parse_cards(h)) for h in ("2h 5h 9h Kh", "8c 9d Th Js", "4c 5d 6h 7s", "Tc Jd Qh As", "2c 2d 5h 9s")]
    [True, True, False, False, False]
    """
    ranks, flush = ranks_and_flush(cards)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts[0] >= 3 or counts[:2] == [2, 2] or pair_rank(ranks) >= qualifier:
        return True
    if flush:
        return True
    if len(set(ranks)) != 4:
        return False
    srt = sorted(ranks)
    outside = srt[-1] - srt[0] == 3 and srt[-1] <= 13  # open-ended: no ace at either end
    return outside and srt[-1] >= HIGH

"""One Eyed Flush's cards and hands (RULES.md §2, R-OEF-1..3, 6, 7), part of :mod:`tablegames.rules.one_eyed_flush`
(which imports these names back): point values, hand evaluation with wilds, comparison, bust and the dealer's
draw. Every function takes the numbers and choices it applies (the wild cards, the bust limit, the dealer's
thresholds) as arguments, RULES.md's values the defaults; the rules object passes the table's.

>>> from tablegames.cards import parse_cards
>>> h = evaluate(parse_cards("J♥ 5♣ 9♦")); h.category.name, h.key
('PAIR_WITH_WILD', 5)
>>> compare(h, evaluate(parse_cards("8♠ 8♦ 2♣")))
1
>>> compare(evaluate(parse_cards("J♠ K♦ 4♣")), evaluate(parse_cards("J♥ 7♣ 7♦")))
0
>>> evaluate(parse_cards("5c 9d Kd"), wild=parse_cards("5c")).category.name
'PAIR_WITH_WILD'
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from functools import lru_cache
from typing import Any, Final

from tablegames.cards import CARDS, Card, Rank, Suit
from tablegames.rules.common import returned_at_odds
from tablegames.rules.flow import Action
from tablegames.rules.indexing import CardClasses

WILD_CARDS: Final[frozenset[Card]] = frozenset(
    {Card.of(Rank.JACK, Suit.HEARTS), Card.of(Rank.JACK, Suit.SPADES), Card.of(Rank.KING, Suit.DIAMONDS)}
)
"""R-OEF-1: the one-eyed cards (the default of ``wild-cards``)."""
DEFAULT_WILD: Final[tuple[int, ...]] = tuple(sorted(int(c) for c in WILD_CARDS))


@lru_cache(maxsize=64)
def card_classes(wild: tuple[int, ...]) -> CardClasses:
    """R-OEF-1/2: a card plays by its rank unless it is wild; suits play no other role. The classes the exact
    analysis and the simulation both enumerate (13 natural ranks and the wild class) for a set of wilds."""
    return CardClasses(wild)


CLASSES: Final = card_classes(DEFAULT_WILD)
"""The card classes of the default wild cards."""


def is_wild(card: int, wild: Collection[int] = WILD_CARDS) -> bool:
    return card in wild


_RANKS: Final[tuple[int, ...]] = tuple(int(c.rank) for c in CARDS)
_POINTS: Final[tuple[int, ...]] = tuple(1 if r == 14 else min(r, 10) for r in _RANKS)


def point_value(card: int) -> int:
    """R-OEF-1: A = 1, 2-10 pip value, J/Q/K = 10."""
    return _POINTS[card]


class Category(IntEnum):
    """R-OEF-2, best last (higher value = better hand)."""

    NO_PAIR = 0
    PAIR = 1
    TRIPS = 2
    PAIR_WITH_WILD = 3
    TRIPS_WITH_WILD = 4
    ONE_EYED_FLUSH = 5


@dataclass(frozen=True, order=True)
class Hand:
    """An evaluated hand: its category and key (remaining card value for pairs, total for No Pair)."""

    category: Category
    key: int = 0

    @property
    def has_pair_or_better(self) -> bool:
        return self.category != Category.NO_PAIR

    def __str__(self) -> str:
        name = self.category.name.replace("_", " ").title()
        if self.category in (Category.PAIR, Category.PAIR_WITH_WILD):
            return f"{name} (remaining {self.key})"
        if self.category == Category.NO_PAIR:
            return f"No Pair ({self.key})"
        return name


def _rank_key(card: int) -> int:
    """Rank used for pairing (R-OEF-1: by rank, not by point value)."""
    return _RANKS[card]


def evaluate(cards: Sequence[int], wild: Collection[int] = WILD_CARDS) -> Hand:
    """Category and key of three cards; a wild always plays as best it can (R-OEF-2)."""
    return _evaluate(tuple(int(c) for c in cards), wild if isinstance(wild, frozenset) else frozenset(wild))


@lru_cache(maxsize=1 << 16)
def _evaluate(cards: tuple[int, ...], wild: frozenset[int]) -> Hand:
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("One Eyed Flush hands are 3 distinct cards")
    naturals = [c for c in cards if c not in wild]
    wilds = 3 - len(naturals)
    if wilds == 3:
        return Hand(Category.ONE_EYED_FLUSH)
    if wilds == 2:
        return Hand(Category.TRIPS_WITH_WILD)
    if wilds == 1:
        a, b = naturals
        if _rank_key(a) == _rank_key(b):
            return Hand(Category.TRIPS_WITH_WILD)
        # The wild pairs with the higher-valued card; the lower-valued one remains.
        return Hand(Category.PAIR_WITH_WILD, min(point_value(a), point_value(b)))
    ranks = [_rank_key(c) for c in cards]
    distinct = set(ranks)
    if len(distinct) == 1:
        return Hand(Category.TRIPS)
    if len(distinct) == 2:
        odd = next(c for c in cards if ranks.count(_rank_key(c)) == 1)
        return Hand(Category.PAIR, point_value(odd))
    return Hand(Category.NO_PAIR, sum(point_value(c) for c in cards))


class Ties(Enum):
    CASINO = "casino"
    TOURNAMENT = "tournament"


class BustRule(Enum):
    AFTER_DRAW = "after-draw"
    ALWAYS = "always"


class DealerWildDraw(Enum):
    VS_WILD = "vs-wild"
    ALWAYS = "always"
    NEVER = "never"


_PUSH_CATEGORIES = frozenset({Category.ONE_EYED_FLUSH, Category.TRIPS_WITH_WILD, Category.TRIPS})


def compare(player: Hand, dealer: Hand, ties: Ties = Ties.CASINO) -> int:
    """+1 player wins, 0 standoff, -1 dealer wins (R-OEF-3)."""
    if player.category != dealer.category:
        return 1 if player.category > dealer.category else -1
    if player.category in _PUSH_CATEGORIES:
        return 0
    if player.key != dealer.key:
        return 1 if player.key < dealer.key else -1  # lower remaining card / lower total wins
    return 0 if ties == Ties.TOURNAMENT else -1  # "player must be lower"


BUST_LIMIT: Final = 14
"""R-OEF-6: the default of ``bust-limit``."""
PAIR_DRAWS_FROM: Final = 5
"""R-OEF-7: the default of ``dealer-pair-draws-from`` (a natural Pair's remaining card)."""
NO_PAIR_DRAWS_FROM: Final = 7
"""R-OEF-7: the default of ``dealer-no-pair-draws-from`` (a No Pair's highest card)."""


def is_bust(hand: Hand, drew: bool, rule: BustRule = BustRule.AFTER_DRAW, limit: int = BUST_LIMIT) -> bool:
    """R-OEF-6: a No Pair over ``limit`` (14) busts, after a draw only (or always, by variant)."""
    if hand.category != Category.NO_PAIR or hand.key <= limit:
        return False
    return drew or rule == BustRule.ALWAYS


def _discard_order(card: int) -> tuple[int, int]:
    """Sort key: higher value first, then higher rank (K, Q, J, 10) on equal value (R-OEF-7)."""
    return (point_value(card), _rank_key(card))


def discard_preference(card: int, wild: Collection[int] = WILD_CARDS) -> tuple[int, int]:
    """R-0.5: the order of discards of *exactly* equal expected value: the one whose card has the highest key is
    made. A natural card keys by its point value, then its rank (K, Q, J, 10 on equal value), as the dealer
    discards (R-OEF-7); suits never decide. A wild card has no point value (R-OEF-1): it keys below every
    natural card (``(0, 0)``, it is kept). The key depends on the card's class only (its rank, or wild), so
    the exact analysis (by classes), the advisor, the bots, the hints and the kernels order alike; two cards
    of one class are the same discard, and callers take the first of them (the lower index).

    The analysis' decision of a tied deal, A-2-4 against a wild Flip Card (discarding the 2 or the 4 is worth
    the same): the 4 is discarded.

    >>> from tablegames.cards import parse_cards
    >>> cards = parse_cards("Ac 2d 4h")
    >>> max(range(3), key=lambda i: discard_preference(cards[i]))
    2
    >>> [discard_preference(c) for c in parse_cards("Kc Tc Ah Jh")]
    [(10, 13), (10, 10), (1, 14), (0, 0)]
    """
    if card in wild:
        return (0, 0)
    return _discard_order(card)


def dealer_discard(
    cards: Sequence[int],
    player_holds_wild: bool,
    rule: DealerWildDraw = DealerWildDraw.VS_WILD,
    *,
    pair_from: int = PAIR_DRAWS_FROM,
    no_pair_from: int = NO_PAIR_DRAWS_FROM,
    wild: Collection[int] = WILD_CARDS,
) -> int | None:
    """Index of the card the dealer discards before drawing, or None to stand (R-OEF-7).

    ``player_holds_wild``: some player still in the round (not busted) holds a final hand with a wild card;
    ``pair_from`` / ``no_pair_from``: the natural Pair's remaining card / the No Pair's highest card from
    which the dealer draws.

    >>> from tablegames.cards import parse_cards
    >>> dealer_discard(parse_cards("8s 8d 5c"), False), dealer_discard(parse_cards("8s 8d 4c"), False)
    (2, None)
    >>> dealer_discard(parse_cards("2s Qc Kh"), False)
    2
    >>> dealer_discard(parse_cards("Jh 5c 9d"), False), dealer_discard(parse_cards("Jh 5c 9d"), True)
    (None, 2)
    """
    hand = evaluate(cards, wild)
    naturals = [i for i, c in enumerate(cards) if c not in wild]
    if hand.category == Category.PAIR:
        if hand.key >= pair_from:
            return next(i for i in naturals if [_rank_key(c) for c in cards].count(_rank_key(cards[i])) == 1)
        return None
    if hand.category == Category.NO_PAIR:
        top = max(naturals, key=lambda i: _discard_order(cards[i]))
        return top if point_value(cards[top]) >= no_pair_from else None
    if hand.category == Category.PAIR_WITH_WILD:
        draw = rule == DealerWildDraw.ALWAYS or (rule == DealerWildDraw.VS_WILD and player_holds_wild)
        return max(naturals, key=lambda i: _discard_order(cards[i])) if draw else None
    return None


def tie_break(ctx: Any, action: Action) -> tuple[int, ...]:
    """R-0.5, for the bots and hints (the definition's ``tie_break``, ``ctx`` a decision context with ``cards``
    and ``wild``): among discards of exactly equal expected value, the highest key is played:
    :func:`discard_preference` of the card, then the lower index (two cards of one class). Standing, the
    cautious choice, is taken before any discard on a tie (RULES.md).

    >>> from types import SimpleNamespace
    >>> from tablegames.cards import parse_cards
    >>> ctx = SimpleNamespace(cards=parse_cards("Ac 2d 4h"), wild=DEFAULT_WILD)
    >>> max((Action("discard", i) for i in range(3)), key=lambda a: tie_break(ctx, a))
    Action(name='discard', index=2)
    """
    if action.index is None:
        return ()
    return (*discard_preference(ctx.cards[action.index], ctx.wild), -action.index)


def holds_wild(cards: Sequence[int], wild: Collection[int] = WILD_CARDS) -> bool:
    return any(c in wild for c in cards)


# --- rule-of-thumb player strategy (replaced by the exact optimal one where available) ---------


def rule_of_thumb_discard(
    cards: Sequence[int], flip_card: int, wild: Collection[int] = WILD_CARDS, bust_limit: int = BUST_LIMIT
) -> int | None:
    """A simple documented strategy: index to discard, or None to stand.

    Keep any hand with a wild card, trips, and pairs whose remaining card is 4 or less; otherwise draw to a
    pair by throwing the remaining card; with No Pair, stand on the bust limit (14) or less and throw the
    highest card otherwise.

    >>> from tablegames.cards import parse_cards
    >>> rule_of_thumb_discard(parse_cards("5c 5d 9h"), 0), rule_of_thumb_discard(parse_cards("Ac 2d 3h"), 0)
    (2, None)
    >>> rule_of_thumb_discard(parse_cards("9c Qd 8h"), 0)
    1
    """
    hand = evaluate(cards, wild)
    if hand.category == Category.PAIR:
        if hand.key <= 4:
            return None
        return next(
            i
            for i, c in enumerate(cards)
            if point_value(c) == hand.key and [_rank_key(x) for x in cards].count(_rank_key(c)) == 1
        )
    if hand.category == Category.NO_PAIR:
        if hand.key <= bust_limit:
            return None
        return max(range(3), key=lambda i: _discard_order(cards[i]))
    return None


# --- R-OEF-7's "a live player holds a wild" and R-OEF-8's payout, in integers (issue 21: each rule written once) --
# The flow calls them, the simulation kernel compiles them (``njit(inline="always")``) and the exact solver builds
# its tables from them.


def live_wild(busted: int, wilds: int) -> int:
    """R-OEF-7: 1 when a seat makes the dealer's Pair with a Wild Card draw (the vs-wild rule): it is still in
    the round (``busted`` 0: a busted seat has lost already, R-OEF-6, R-0.4) and its final hand holds a wild card
    (``wilds``: how many, or 1 for any); else 0. The dealer draws against a wild when any seat gives 1.

    >>> live_wild(0, 1), live_wild(1, 1), live_wild(0, 0)
    (1, 0, 0)
    """
    return 1 if busted == 0 and wilds > 0 else 0


def main_return(result: int, stake: int, odds: int) -> int:
    """R-OEF-8: what a main wager of ``stake`` cents that was not busted returns, ``result`` R-OEF-3's
    comparison (+1 the player wins, 0 a standoff, -1 the dealer wins): a win pays ``odds`` to 1 (the winning
    category's, R-0.3), a standoff returns the stake, a loss nothing.

    >>> main_return(1, 100, 1), main_return(1, 100, 4), main_return(0, 100, 4), main_return(-1, 100, 4)
    (200, 500, 100, 0)
    """
    if result > 0:
        return returned_at_odds(stake, odds)
    if result == 0:
        return stake
    return 0

"""One Eyed Flush's lookup tables by card class (RULES.md §2), built from the rule functions of the rules object
(``rules.evaluate``, ``rules.dealer_discard``, ``rules.is_bust``, ``compare``) for the exact analysis
(:mod:`tablegames.analysis.one_eyed_flush`) and its state loop (:mod:`tablegames.analysis.one_eyed_flush_kernel`).

The tables depend only on the structure of the rules (:func:`structure`: the wild cards, ties, the bust rule and
limit, the dealer's draw), never on a payout: they are cached by it.

>>> t = _tables(OneEyedFlushRules())
>>> int(t.ways3.sum()), len(t.hands) > 20
(22100, True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, permutations
from math import comb

import numpy as np
import numpy.typing as npt

from tablegames.rules.indexing import CardClasses
from tablegames.rules.one_eyed_flush import (
    CLASSES,
    EVEN_MONEY,
    Category,
    FlipOdds,
    Hand,
    JackpotConfig,
    OneEyedFlushRules,
    compare,
    discard_preference,
    live_wild,
    main_return,
    point_value,
)

IntArray = npt.NDArray[np.int64]
NC = (
    CLASSES.n
)  # 13 natural ranks (rank - 2) and the wild class (rules.indexing.CardClasses), for any wild cards
WILD = CLASSES.wild_class
D = 48 * 47 * 46 * 45
RESULTS = ("win", "push", "lose", "bust")
"""The main wager's results: the engine's settlement outcomes (R-OEF-6, R-OEF-8), the kernel's labels."""
NCAT = len(Category)


def class_name(k: int) -> str:
    return CLASSES.letters[k]


def class_value(k: int) -> int:
    """R-OEF-1: the point value of the natural cards of class ``k`` (rank index ``k``: 0 = deuce, 12 = ace)."""
    return point_value(4 * k)


def structure(rules: OneEyedFlushRules) -> OneEyedFlushRules:
    """What the tables and the tallies depend on: the rules with every payout (the main pay table, the Jackpot and
    the Flip Card odds) at its default. The key of the structural caches."""
    return dataclasses.replace(rules, main_paytable=EVEN_MONEY, jackpot=JackpotConfig(), flip=FlipOdds())


@dataclass(frozen=True, eq=False)
class _Tables:
    classes: CardClasses  # the rules' card classes (their wild cards)
    counts: IntArray  # [NC]
    hand_of: IntArray  # [NC, NC, NC] -> hand id (any order), -1 if impossible
    hands: tuple[Hand, ...]  # id -> Hand
    hand_cat: IntArray  # [H]
    result: IntArray  # [H, H]: main-wager result for player id vs dealer id: 0 win, 1 push, 2 loss
    bust_stand: npt.NDArray[np.bool_]  # [H]
    bust_draw: npt.NDArray[np.bool_]  # [H]
    live: (
        IntArray  # [H, 2]: (hand, drew) -> 1 when the seat makes the dealer draw vs a wild (R-OEF-7), else 0
    )
    ddisc: IntArray  # [NC, NC, NC, 2]: position the dealer discards (w = player holds a wild), -1 stands
    ways3: IntArray  # [NC, NC, NC] (sorted): the sets of real cards of each class triple
    prefer: IntArray  # [NC]: order of each class on an exact tie of discards (higher: discarded)


def _hands(classes: CardClasses = CLASSES) -> Iterator[tuple[tuple[int, int, int], list[int]]]:
    """Every multiset of three card classes (a <= b <= c) that real cards can make, with representative cards."""
    for key in combinations_with_replacement(range(NC), 3):
        cards = classes.representative(key)
        if cards is not None:
            yield key, cards


def _ways(classes: tuple[int, ...], counts: Sequence[int] | IntArray) -> int:
    """How many sets of real cards fall in these classes (``counts[k]``: the cards of class k)."""
    ways = 1
    for k in set(classes):
        ways *= comb(int(counts[k]), classes.count(k))
    return ways


def _tables(rules: OneEyedFlushRules) -> _Tables:
    return _structural_tables(structure(rules))


@lru_cache(maxsize=16)
def _structural_tables(rules: OneEyedFlushRules) -> _Tables:
    classes = rules.classes
    counts = np.array([len(x) for x in classes.class_cards()], dtype=np.int64)
    hand_ids: dict[Hand, int] = {}
    wilds: dict[int, int] = {}  # hand id -> whether it holds a wild (the same for every hand of the id)
    hand_of = np.full((NC, NC, NC), -1, dtype=np.int64)
    ddisc = np.full((NC, NC, NC, 2), -1, dtype=np.int64)
    ways3 = np.zeros((NC, NC, NC), dtype=np.int64)
    for key, cards in _hands(classes):
        hid = hand_ids.setdefault(rules.evaluate(cards), len(hand_ids))
        assert wilds.setdefault(hid, int(rules.holds_wild(cards))) == int(rules.holds_wild(cards))
        ways3[key] = _ways(key, counts)
        dropped = []
        for w in (0, 1):
            i = rules.dealer_discard(cards, bool(w))
            dropped.append(None if i is None else key[i])
        # every order of the same classes: same hand; the discarded class found at its position
        for perm in set(permutations(key)):
            hand_of[perm] = hid
            for w in (0, 1):
                k = dropped[w]
                ddisc[(*perm, w)] = -1 if k is None else perm.index(k)
    hands = tuple(sorted(hand_ids, key=hand_ids.__getitem__))
    result = np.array(
        [[(0, 1, 2)[1 - compare(hp, hd, rules.ties)] for hd in hands] for hp in hands], dtype=np.int64
    )
    # R-0.5: the rules' order of equal-EV discards (rules.one_eyed_flush.discard_preference), by class
    keys = [discard_preference(c[0], classes.wild) if c else (0, 0) for c in classes.class_cards()]
    order = sorted(set(keys))
    return _Tables(
        classes=classes,
        counts=counts,
        hand_of=hand_of,
        hands=hands,
        hand_cat=np.array([int(h.category) for h in hands], dtype=np.int64),
        result=result,
        bust_stand=np.array([rules.is_bust(h, False) for h in hands], dtype=np.bool_),
        bust_draw=np.array([rules.is_bust(h, True) for h in hands], dtype=np.bool_),
        live=np.array(  # R-OEF-7: the rules' live_wild, of the bust rule (R-OEF-6) and the wild held
            [
                [live_wild(int(rules.is_bust(h, bool(d))), wilds[i]) for d in (0, 1)]
                for i, h in enumerate(hands)
            ],
            dtype=np.int64,
        ),
        ddisc=ddisc,
        ways3=ways3,
        prefer=np.array([order.index(k) for k in keys], dtype=np.int64),
    )


def pay_matrix(rules: OneEyedFlushRules) -> IntArray:
    """``[category, result]``: the main wager's net in units (R-OEF-8): the win odds, a push 0, a loss or bust -1."""
    pay = np.zeros((NCAT, 4), dtype=np.int64)
    for c in Category:  # the rules' main_return of a unit: win, push, lose; a bust returns nothing (R-OEF-6)
        pay[c] = [main_return(result, 1, rules.win_odds(c)) - 1 for result in (1, 0, -1)] + [-1]
    return pay

"""Lookup tables for the simulation kernels, built by calling the rules layer (never a second hand ranker).

Every table is filled by calling the plain functions of ``tablegames.rules`` once per *pattern* (rank tuple and
flush flag, or card class), then expanded with NumPy to every ordered tuple so that a kernel needs no sorting:

* Let It Ride: ``lir_hand_of`` for every five-rank tuple and flush flag, ``three_card_category_of`` for the
  3-Card Bonus;
* One Eyed Flush: ``evaluate``, ``compare``, ``is_bust`` and ``dealer_discard`` for every ordered triple of
  *card classes* (13 natural ranks + "wild"; suits play no other role in the game, R-OEF-1/2);
* Final Count: ``FinalCountRules.value`` per card.

Indexing (rank indices, pattern tables, card classes) is :mod:`tablegames.rules.indexing`, shared with the
exact analysis: a card ``c`` has rank index ``c >> 2`` (0 = deuce .. 12 = ace) and suit ``c & 3``; a rank tuple
``(r0, .., rk)`` has index ``((r0 * 13 + r1) * 13 + ..) * 13 + rk``.

>>> t = lir_tables(LetItRideRules())
>>> from tablegames.cards import parse_cards
>>> int(t.five[lir_index(parse_cards("Ah Kh Qh Jh Th"))]) == LirHand.ROYAL_FLUSH
True
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from tablegames.rules import final_count as fc
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.indexing import R3, R4, R5, expand_sorted, pattern_tables, rank_index, rank_multisets
from tablegames.rules.let_it_ride import LetItRideRules, LirHand, lir_hand_of
from tablegames.rules.poker import three_card_category_of

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

NO_PRIZE = -1
"""Marks "this hand loses" in odds tables (a paying hand has odds >= 0)."""

_expand = expand_sorted
_multisets = rank_multisets


def lir_index(cards: Sequence[int]) -> int:
    """Index of five cards into :attr:`LirTables.five` (flush flag included).

    >>> from tablegames.cards import parse_cards
    >>> lir_index(parse_cards("2c 2d 2h 2s 3c"))
    1
    """
    flush = len({c & 3 for c in cards}) == 1
    base: int = 13 ** len(cards)
    return int(flush) * base + rank_index([c >> 2 for c in cards])


@dataclass(frozen=True)
class LirTables:
    five: I8  # [2 * 13^5]: LirHand by (flush, ranks); -1 for impossible patterns
    bonus: I8  # [2 * 13^3]: ThreeCardCategory by (flush, ranks)
    main_odds: I64  # [10] by LirHand: "X to 1", or -1 (lose)
    bonus_odds: I64  # [7] by ThreeCardCategory
    prog_meter: I64  # [10] by LirHand: index of the meter it wins, or -1
    prog_fixed: I64  # [10] by LirHand: fixed prize in cents
    envy: I64  # [10] by LirHand: Envy Bonus paid to each other progressive seat (R-LIR-8)
    meter_names: tuple[str, ...]
    meter_resets: tuple[int, ...]


@lru_cache(maxsize=1)
def _lir_hand_tables() -> tuple[I8, I8]:
    """The base-game class of every ordered five-rank tuple and the 3-Card Bonus class of every ordered
    three-rank tuple, plain then flush, from the rules' pattern tables (shared with the exact analysis)."""
    plain, flush = pattern_tables(5, lir_hand_of)
    five = np.concatenate([expand_sorted(plain, 5), expand_sorted(flush, 5)])
    p3, f3 = pattern_tables(3, three_card_category_of)
    bonus = np.concatenate([expand_sorted(p3, 3), expand_sorted(f3, 3)])
    five.setflags(write=False)
    bonus.setflags(write=False)
    return five, bonus


@lru_cache(maxsize=16)
def lir_tables(rules: LetItRideRules) -> LirTables:
    """Let It Ride tables for ``rules`` (R-LIR-4..8)."""
    five, bonus = _lir_hand_tables()
    cfg = rules.progressive
    names = tuple(m.name for m in cfg.meters)

    def odds_of(paytable: object, hands: Sequence[object]) -> I64:
        return np.array(
            [NO_PRIZE if (o := paytable.odds(h)) is None else o for h in hands],  # type: ignore[attr-defined]
            dtype=np.int64,
        )

    from tablegames.rules.let_it_ride import BonusHand

    return LirTables(
        five=five,
        bonus=bonus,
        main_odds=odds_of(rules.main_paytable, list(LirHand)),
        bonus_odds=odds_of(rules.bonus_paytable, list(BonusHand)),
        prog_meter=np.array(
            [names.index(cfg.meter_prizes[h]) if h in cfg.meter_prizes else -1 for h in LirHand],
            dtype=np.int64,
        ),
        prog_fixed=np.array([cfg.fixed_prizes_cents.get(h, 0) for h in LirHand], dtype=np.int64),
        envy=np.array([cfg.envy_cents.get(h, 0) for h in LirHand], dtype=np.int64),
        meter_names=names,
        meter_resets=tuple(m.reset_cents for m in cfg.meters),
    )


# --- One Eyed Flush: card classes ----------------------------------------------------------------

WILD_CLASS = oef.CLASSES.wild_class
N_CLASSES = oef.CLASSES.n
CLASS_LETTERS = oef.CLASSES.letters
card_class = oef.CLASSES.card_class
class_cards = oef.CLASSES.class_cards
representative = oef.CLASSES.representative
triple_index = oef.CLASSES.triple_index


@dataclass(frozen=True)
class OefTables:
    card_class: I64  # [52]
    hand_code: I64  # [14^3] ordered class triple -> code of its evaluated Hand (-1 impossible)
    has_wild: I64  # [14^3]
    hands: tuple[oef.Hand, ...]  # code -> Hand
    category: I64  # [codes] Category value
    compare: I64  # [codes * codes] player code, dealer code -> +1 / 0 / -1 (R-OEF-3)
    bust: I64  # [codes * 2] (code, drew) -> 1 when the hand busts (R-OEF-6)
    win_odds: I64  # [codes] main-wager odds on a win with this hand (R-OEF-8)
    dealer_discard: I64  # [14^3 * 2] (triple, some live player holds a wild) -> position or -1 (R-OEF-7)
    jackpot_meter: I64  # [codes] 1 when the first three cards win the jackpot meter (R-OEF-9)
    jackpot_fixed: I64  # [codes] fixed prize in cents
    flip_odds: I64  # [len(ALL_FLIP_BETS), 52] odds of each Flip Card bet on each card, or -1 (R-OEF-10)
    meter_reset: int


def _class_triples() -> list[tuple[int, ...]]:
    return [t for t in itertools.product(range(N_CLASSES), repeat=3) if representative(t) is not None]


@lru_cache(maxsize=16)
def oef_tables(rules: oef.OneEyedFlushRules) -> OefTables:
    """One Eyed Flush tables for ``rules`` (R-OEF-1..10)."""
    n3 = N_CLASSES**3
    triples = _class_triples()
    hand_code = np.full(n3, -1, dtype=np.int64)
    has_wild = np.zeros(n3, dtype=np.int64)
    codes: dict[oef.Hand, int] = {}
    dealer = np.full(n3 * 2, -1, dtype=np.int64)
    for t in triples:
        cards = representative(t)
        assert cards is not None
        hand = oef.evaluate(cards)
        i = triple_index(t)
        hand_code[i] = codes.setdefault(hand, len(codes))
        has_wild[i] = int(oef.holds_wild(cards))
        for w in (0, 1):
            d = oef.dealer_discard(cards, bool(w), rules.dealer_wild_draw)
            dealer[i * 2 + w] = -1 if d is None else d
    hands = tuple(codes)
    compare = np.array(
        [oef.compare(p, d, rules.ties) for p in hands for d in hands], dtype=np.int64
    )  # row-major [p, d]
    bust = np.array(
        [int(oef.is_bust(h, bool(drew), rules.bust)) for h in hands for drew in (0, 1)], dtype=np.int64
    )
    jp = rules.jackpot
    flip = np.array(
        [
            [NO_PRIZE if (o := oef.flip_odds(b, c)) is None else o for c in range(52)]
            for b in oef.ALL_FLIP_BETS
        ],
        dtype=np.int64,
    )
    return OefTables(
        card_class=np.array([card_class(c) for c in range(52)], dtype=np.int64),
        hand_code=hand_code,
        has_wild=has_wild,
        hands=hands,
        category=np.array([int(h.category) for h in hands], dtype=np.int64),
        compare=compare,
        bust=bust,
        win_odds=np.array([rules.win_odds(h.category) for h in hands], dtype=np.int64),
        dealer_discard=dealer,
        jackpot_meter=np.array(
            [int(h.category == oef.Category.ONE_EYED_FLUSH) for h in hands], dtype=np.int64
        ),
        jackpot_fixed=np.array([jp.fixed_prizes_cents.get(h.category, 0) for h in hands], dtype=np.int64),
        flip_odds=flip,
        meter_reset=jp.reset_cents,
    )


def flip_bet_index(bet: oef.FlipBet) -> int:
    return oef.ALL_FLIP_BETS.index(bet)


# --- Final Count ----------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def fc_values(rules: fc.FinalCountRules) -> I64:
    """Point value of each card (R-FC-1)."""
    return np.array([rules.value(c) for c in range(52)], dtype=np.int64)


__all__ = [
    "CLASS_LETTERS",
    "NO_PRIZE",
    "N_CLASSES",
    "R3",
    "R4",
    "R5",
    "WILD_CLASS",
    "LirTables",
    "OefTables",
    "card_class",
    "fc_values",
    "lir_index",
    "lir_tables",
    "oef_tables",
    "rank_index",
    "representative",
    "triple_index",
]

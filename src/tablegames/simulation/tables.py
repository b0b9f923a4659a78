"""Lookup tables for the simulation kernels, built by calling the rules layer (never a second hand ranker).

Every table is filled by calling the plain functions of ``tablegames.rules`` once per *pattern* (rank tuple and
flush flag, or card class), then expanded with NumPy to every ordered tuple so that a kernel needs no sorting:

* Let It Ride: ``lir_hand_of`` for every five-rank tuple and flush flag, ``three_card_category_of`` for the
  3-Card Bonus;
* One Eyed Flush: ``evaluate``, ``compare``, ``is_bust`` and ``dealer_discard`` for every ordered triple of
  *card classes* (13 natural ranks + "wild"; suits play no other role in the game, R-OEF-1/2);
* Final Count: ``FinalCountRules.value`` per card.

Indexing: a card ``c`` has rank index ``c >> 2`` (0 = deuce .. 12 = ace) and suit ``c & 3``.  A rank tuple
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

from tablegames.cards import CARDS
from tablegames.rules import final_count as fc
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.let_it_ride import LetItRideRules, LirHand, lir_hand_of
from tablegames.rules.poker import three_card_category_of

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

R3, R4, R5 = 13**3, 13**4, 13**5
NO_PRIZE = -1
"""Marks "this hand loses" in odds tables (a paying hand has odds >= 0)."""


def rank_index(ranks: Sequence[int]) -> int:
    """Base-13 index of rank indices (0 = deuce .. 12 = ace)."""
    out = 0
    for r in ranks:
        out = out * 13 + int(r)
    return out


def lir_index(cards: Sequence[int]) -> int:
    """Index of five cards into :attr:`LirTables.five` (flush flag included).

    >>> from tablegames.cards import parse_cards
    >>> lir_index(parse_cards("2c 2d 2h 2s 3c"))
    1
    """
    flush = len({c & 3 for c in cards}) == 1
    base: int = 13 ** len(cards)
    return int(flush) * base + rank_index([c >> 2 for c in cards])


def _expand(sorted_table: npt.NDArray[np.int8], k: int) -> npt.NDArray[np.int8]:
    """From a table filled at sorted rank tuples to every ordered tuple (the value depends on the multiset)."""
    grid = np.indices((13,) * k).reshape(k, -1).T  # every ordered tuple, in index order
    srt = np.sort(grid, axis=1)
    idx = np.zeros(len(srt), dtype=np.int64)
    for j in range(k):
        idx = idx * 13 + srt[:, j]
    return sorted_table[idx]


def _multisets(k: int) -> list[tuple[int, ...]]:
    return [
        m for m in itertools.combinations_with_replacement(range(13), k) if max(m.count(r) for r in m) <= 4
    ]


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
    five = np.full(2 * R5, -1, dtype=np.int8)
    srt = np.full(2 * R5, -1, dtype=np.int8)
    for ms in _multisets(5):
        ranks = [r + 2 for r in ms]
        idx = rank_index(ms)
        srt[idx] = lir_hand_of(ranks, False)
        if len(set(ms)) == 5:
            srt[R5 + idx] = lir_hand_of(ranks, True)
    five[:R5] = _expand(srt[:R5], 5)
    five[R5:] = _expand(srt[R5:], 5)
    s3 = np.full(2 * R3, -1, dtype=np.int8)
    for ms in _multisets(3):
        idx = rank_index(ms)
        s3[idx] = three_card_category_of([r + 2 for r in ms], False)
        if len(set(ms)) == 3:
            s3[R3 + idx] = three_card_category_of([r + 2 for r in ms], True)
    bonus = np.concatenate([_expand(s3[:R3], 3), _expand(s3[R3:], 3)])
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

WILD_CLASS = 13
N_CLASSES = 14
CLASS_LETTERS = "23456789TJQKAW"


def card_class(card: int) -> int:
    """0..12 for a natural card by rank (deuce .. ace), 13 for a one-eyed (wild) card (R-OEF-1)."""
    return WILD_CLASS if oef.is_wild(card) else card >> 2


def class_cards() -> list[list[int]]:
    """The cards of each class, in index order."""
    out: list[list[int]] = [[] for _ in range(N_CLASSES)]
    for c in range(52):
        out[card_class(c)].append(c)
    return out


def representative(classes: Sequence[int], taken: Sequence[int] = ()) -> list[int] | None:
    """Distinct cards of the given classes (in order), avoiding ``taken``; None when the deck has too few."""
    pool = class_cards()
    used = set(taken)
    out = []
    for k in classes:
        card = next((c for c in pool[k] if c not in used), None)
        if card is None:
            return None
        used.add(card)
        out.append(card)
    return out


def triple_index(classes: Sequence[int]) -> int:
    return (classes[0] * N_CLASSES + classes[1]) * N_CLASSES + classes[2]


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


def card_text(c: int) -> str:
    return str(CARDS[c])


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

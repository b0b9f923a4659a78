"""Three Card Poker's decisions checked in arrays for ``tablegames detect --database`` (issue 27): which are
mistakes under the legal information (play with a hand whose play value is below the lost Ante, or fold one
above it, R-TCP-2), by the strategy's table indexed by the hand's colex index, as
:meth:`~tablegames.analysis.three_card_poker_detect.ThreeCardPokerScorer.mistake_dealt` reads it (tested
equal on every hand and action); and the mistakes' scores under each ``dealer-K`` by the scorer's exposure tables
(tested equal to ``score_dealt``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.detect_chunk import Decisions
from tablegames.analysis.three_card_poker_detect import (
    PERMS,
    Exposure,
    ThreeCardPokerScorer,
    exposure,
    hand_perm,
)
from tablegames.analysis.three_card_poker_detect_pairs import ThreeCardPokerPairScorer, pair_table
from tablegames.rules.three_card_poker import FOLD, PLAY

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
Answer = tuple[bool, Any, bool]


def mistakes(scorer: ThreeCardPokerScorer, d: Decisions) -> tuple[BoolArray, BoolArray]:
    """Which decisions are read here (three distinct cards dealt to the seat, play or fold), and which of
    them are mistakes; the others go to the scorer one by one."""
    play = np.asarray([a == PLAY for a in d.actions] or [False], dtype=np.bool_)[d.action]
    fold = np.asarray([a == FOLD for a in d.actions] or [False], dtype=np.bool_)[d.action]
    hand = np.sort(d.cards[:, :3] if d.cards.shape[1] >= 3 else np.full((len(d.seat), 3), -1), axis=1)
    a, b, c = hand[:, 0], hand[:, 1], hand[:, 2]
    ok = (d.count == 3) & (a >= 0) & (a < b) & (b < c) & (c < 52) & (play | fold)
    i = np.where(ok, a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6, 0)  # colex_of
    value = scorer.strategy.play_sum[i]
    mistake = np.where(play, value < -tcpa.DEALER_HANDS, value > -tcpa.DEALER_HANDS)
    return ok, ok & mistake


def answers(scorers: list[ThreeCardPokerScorer], d: Decisions) -> tuple[BoolArray, list[list[Answer]]]:
    """The mistakes ``d`` scored under each scenario (``dealer-K``: its scorer's): which are read here (the
    dealer's three cards dealt, none of them the player's), and for those, per scenario, the score's
    ``mistake``, ``p`` and ``supported``, from the exposure tables the scorer reads (the player's hand class,
    the seen cards relabelled alike, :meth:`ThreeCardPokerScorer.score_cards`)."""
    hand = np.sort(d.cards[:, :3], axis=1)
    i = _colex(hand)
    dealer = d.dealer[:, :3] if d.dealer.shape[1] >= 3 else np.full((len(i), 3), -1)
    ok = (d.dealer_count >= 3) & (dealer >= 0).all(axis=1) & (dealer < 52).all(axis=1)
    ok &= ~(dealer[:, :, None] == hand[:, None, :]).any(axis=(1, 2))
    ok &= (dealer[:, 0] != dealer[:, 1]) & (dealer[:, 0] != dealer[:, 2]) & (dealer[:, 1] != dealer[:, 2])
    t = tcpa._hands()
    rep = t.rep[t.cls[i]]
    perm = PERMS[hand_perm()[i]]
    seen = (dealer >> 2) * 4 + np.take_along_axis(perm, dealer & 3, axis=1)
    play = np.asarray([a == PLAY for a in d.actions] or [False], dtype=np.bool_)[d.action]
    rows = np.flatnonzero(ok)
    out: list[list[Answer]] = [[] for _ in rows]
    order, reps, starts, ends = _classes(rep[rows])
    played = play[rows][order]
    for lo in starts:  # the tables a class at a time (its dealer hands' values built once for the scenarios)
        for sc in scorers:
            _table(sc, int(reps[lo]))
    for sc in scorers:
        s = np.sort(seen[rows][order, : sc.k], axis=1)
        key = (s * (52 ** np.arange(sc.k))).sum(axis=1)
        informed = np.zeros(len(rows), dtype=np.bool_)
        found = np.zeros(len(rows), dtype=np.int64)
        p: list[Fraction] = []
        for lo, hi in zip(starts, ends, strict=True):
            table = _table(sc, int(reps[lo]))
            j = np.minimum(table.keys.searchsorted(key[lo:hi]), len(table.keys) - 1)
            found[lo:hi] = table.keys[j]
            informed[lo:hi] = table.plays[j]
            support = sc._supports[int(reps[lo])]
            on, off = support[PLAY], support[FOLD]
            p.extend(on if pl else off for pl in played[lo:hi].tolist())
        assert (found == key).all(), "the seen cards are not among the hand's dealer cards"
        supported = (informed == played).tolist()
        for k, row in enumerate(order.tolist()):
            out[row].append((True, p[k], supported[k]))
    return ok, out


def _classes(rep: IntArray) -> tuple[IntArray, IntArray, list[int], list[int]]:
    """Rows by hand class (a class's rows together, in order): the order, the classes in it, each class's
    first and end position."""
    order = np.argsort(rep, kind="stable")
    reps = rep[order]
    bounds = np.flatnonzero(np.diff(reps)) + 1
    starts, ends = np.concatenate([[0], bounds]).tolist(), np.concatenate([bounds, [len(reps)]]).tolist()
    return order, reps, starts, ends


def _colex(hand: IntArray) -> IntArray:
    """Each row of three ascending cards' colex index (``colex_of``)."""
    out: IntArray = (
        hand[:, 0]
        + hand[:, 1] * (hand[:, 1] - 1) // 2
        + hand[:, 2] * (hand[:, 2] - 1) * (hand[:, 2] - 2) // 6
    )
    return out


def _distinct(cards: IntArray) -> BoolArray:
    """Rows of three cards, each a card (0-51), none twice."""
    inside = (cards >= 0).all(axis=1) & (cards < 52).all(axis=1)
    differ = (cards[:, 0] != cards[:, 1]) & (cards[:, 0] != cards[:, 2]) & (cards[:, 1] != cards[:, 2])
    out: BoolArray = inside & differ
    return out


def pair_answers(
    scorers: list[ThreeCardPokerPairScorer], d: Decisions, partner: IntArray, partner_count: IntArray
) -> tuple[BoolArray, list[list[Answer]]]:
    """The mistakes ``d`` scored under each collusion scenario (``share=2``: its pair scorer's) against a
    partner's dealt cards (``partner``, padded with -1 past ``partner_count``): which are read here (three cards
    each, all six distinct; play or fold), and for those the score's ``mistake``, ``p`` and ``supported``, from
    the pair tables the scorer reads (the player's hand class, the partner's cards relabelled alike,
    :meth:`ThreeCardPokerPairScorer.score_cards`; tested equal to ``score_dealt``)."""
    n = len(d.seat)
    mine = np.sort(d.cards[:, :3] if d.cards.shape[1] >= 3 else np.full((n, 3), -1), axis=1)
    theirs = partner[:, :3] if partner.shape[1] >= 3 else np.full((n, 3), -1)
    play = np.asarray([a == PLAY for a in d.actions] or [False], dtype=np.bool_)[d.action]
    fold = np.asarray([a == FOLD for a in d.actions] or [False], dtype=np.bool_)[d.action]
    ok = (d.count == 3) & (partner_count == 3) & _distinct(mine) & _distinct(theirs) & (play | fold)
    ok &= ~(theirs[:, :, None] == mine[:, None, :]).any(axis=(1, 2))
    rows = np.flatnonzero(ok)
    i = _colex(mine[rows])
    t = tcpa._hands()
    perm = PERMS[hand_perm()[i]]
    seen = np.sort((theirs[rows] >> 2) * 4 + np.take_along_axis(perm, theirs[rows] & 3, axis=1), axis=1)
    key = _colex(seen)
    order, reps, starts, ends = _classes(t.rep[t.cls[i]])
    played = play[rows][order].tolist()
    out: list[list[Answer]] = [[] for _ in rows]
    for sc in scorers:
        for lo, hi in zip(starts, ends, strict=True):
            table = pair_table(sc.rules, int(reps[lo]))
            at = order[lo:hi]
            j = np.minimum(table.rows.searchsorted(key[at]), len(table.rows) - 1)
            assert (table.rows[j] == key[at]).all(), "the partner's cards overlap the player's"
            support = table.support()
            for row, informed, pl in zip(at.tolist(), table.plays[j].tolist(), played[lo:hi], strict=True):
                out[row].append((True, support[PLAY] if pl else support[FOLD], bool(informed) == pl))
    return ok, out


def _table(sc: ThreeCardPokerScorer, rep: int) -> Exposure:
    """The scorer's exposure table of a hand class (built once, as :meth:`ThreeCardPokerScorer.score_cards`
    builds it)."""
    table = sc._exposures.get(rep)
    if table is None:
        table = sc._exposures[rep] = exposure(sc.rules, rep, sc.k)
        sc._supports[rep] = table.support()
    return table

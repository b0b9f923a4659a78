"""Final Count's simulation kernel adapter (R-FC-1..5): the kernel's arguments, its strategy tables, the
strategy-file keys and the layout of its outcome counts."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from tablegames.engine.actions import Action
from tablegames.engine.events import CardsRevealed, Event
from tablegames.rules import final_count as fc
from tablegames.rules.final_count import STAND, TURN
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.kernels import add_square, add_square_times, game_kernel, load_round
from tablegames.simulation.strategy import named_strategy_tables, rank_cards, rank_text
from tablegames.simulation.tables import R4, rank_index

D_FC = 2  # detail columns per seat

fc_category = njit(inline="always")(fc.category_of)
"""R-FC-3..5: the rules module's ``category_of``, compiled into the kernel (one source of the rule)."""


@game_kernel
def fc_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    rng,
    scratch,
    nseats,
    stake,
    value,
    turn,
    categories,
    pays,
    wager_acc,
    seat_acc,
    hist,
    seat1,
    detail,
):
    """Final Count rounds (R-FC-1..5). Wager row 0: main. ``value``: each card's value, ``categories``: the
    category by totals (:func:`fc_category_table`), ``pays``: the net
    of one unit by category (dealer odd, higher, tie, lower, player odd: the table's pays and tie rule).
    ``hist``: [dealer odd, higher, tie, lower, player odd], turned by choice, turned by the dealer (odd
    two-card total), stood, then the wager's settlement outcome by the table's pays: [win, push, lose]."""
    S = nseats
    k = 3 * (S + 1)
    cards = scratch[0:k]
    if S == 1 and seat1.shape[0] == 0 and detail.shape[0] == 0:
        # Heads-up: a round's money is a function of its class (category, how the hand was played), so the
        # rounds are counted by class and each class settled once, with the same code as below.
        counts = scratch[k : k + 15]
        counts[:] = 0
        for r in range(start, end):
            load_round(r, 6, decks, deck, rng, cards)  # a constant: the deal unrolled
            cat, how, _ = fc_seat(cards, 1, 0, value, turn, categories)
            counts[cat * 3 + how] += 1
        for cls in range(15):
            if counts[cls] > 0:
                x = fc_add(wager_acc, seat_acc, hist, 0, cls // 3, cls % 3, stake[0], pays, counts[cls])
                add_square_times(wager_acc, 0, 4, x, counts[cls])
        return end
    for r in range(start, end):
        load_round(r, k, decks, deck, rng, cards)
        x = 0
        for s in range(S):
            cat, how, turned = fc_seat(cards, S, s, value, turn, categories)
            net = fc_add(wager_acc, seat_acc, hist, s, cat, how, stake[s], pays, 1)
            x += net
            if s == 0 and seat1.shape[0] > 0:
                seat1[r] = net
            if detail.shape[0] > 0:
                detail[r, s, 0] = net + stake[s]
                detail[r, s, 1] = turned
        add_square(wager_acc, 0, 4, x)
    return end


@njit(cache=True, nogil=True)
def fc_category_table(width):  # type: ignore[no-untyped-def]
    """R-FC-3..5 by ``[player's final total, dealer's total]``, both below ``width``: the rules' ``category_of``
    (an odd final total has lost)."""
    out = np.empty((width, width), dtype=np.int64)
    for tot in range(width):
        for dt in range(width):
            out[tot, dt] = fc_category(tot & 1, tot, dt)
    return out


@njit(cache=True, nogil=True, inline="always")
def fc_seat(cards, S, s, value, turn, categories):  # type: ignore[no-untyped-def]
    """Seat ``s``'s play of a round dealt as ``cards``: ``(category, how it was played: 0 turned by choice,
    1 turned by the dealer, 2 stood; whether the third card was turned)``, without a branch."""
    d0 = cards[S]
    d1 = cards[2 * S + 1]
    dt = value[d0] + value[d1] + value[cards[3 * S + 2]]
    a = cards[s]
    b = cards[S + 1 + s]
    two = value[a] + value[b]
    odd = two & 1  # R-FC-3: an odd two-card total has its third card turned; else R-FC-4, the strategy's
    turned = odd | np.int64(turn[(((a >> 2) * 13 + (b >> 2)) * 13 + (d0 >> 2)) * 13 + (d1 >> 2)])
    tot = two + value[cards[2 * (S + 1) + s]] * turned
    return categories[tot, dt], 2 - 2 * turned + odd, turned  # R-FC-3..5, the rules' function's table


@njit(cache=True, nogil=True, inline="always")
def fc_add(wager_acc, seat_acc, hist, s, cat, how, ms, pays, n):  # type: ignore[no-untyped-def]
    """Count ``n`` hands of seat ``s`` of one class (category, how played) with stake ``ms``; returns the
    net of one of them."""
    hist[cat] += n
    hist[5 + how] += n
    # the engine's outcome: win / push / lose by the return (rules.common.outcome_of)
    hist[8 if pays[cat] > 0 else (9 if pays[cat] == 0 else 10)] += n
    ret = ms * (1 + pays[cat])
    wager_acc[0, 0] += n
    wager_acc[0, 1] += n * ms
    wager_acc[0, 2] += n * ms
    wager_acc[0, 3] += n * ret
    seat_acc[s, 0] += n * ms
    seat_acc[s, 1] += n * ms
    seat_acc[s, 2] += n * ret
    add_square_times(seat_acc, s, 3, ret - ms, n)
    return ret - ms


@lru_cache(maxsize=16)
def fc_values(rules: fc.FinalCountRules) -> I64:
    """Point value of each card (R-FC-1)."""
    return np.array([rules.value(c) for c in range(52)], dtype=np.int64)


class FinalCountKernel(Kernel):
    detail_width = D_FC
    with_hits = False

    def kernel(self) -> Any:
        return fc_run

    def prepare(self, rules: fc.FinalCountRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        st = named_strategy_tables(rules, strategy)
        pays = np.asarray(rules.pays, dtype=np.int64)
        value = fc_values(rules)
        categories = fc_category_table(3 * int(value.max()) + 1)
        args = (wagers.main * np.ones(seats, dtype=np.int64), value, st.fc_turn, categories, pays)
        return KernelJob(deal_cards=3 * (seats + 1), wager_rows=("main",), hist_size=11, args=args)

    def strategy_tables(self, rules: fc.FinalCountRules, decide: Decide) -> StrategyTables:
        turn_sorted = np.zeros(R4, dtype=np.int8)
        pairs = list(itertools.combinations_with_replacement(range(13), 2))
        for p in pairs:
            for d in pairs:
                ranks = [*p, *d]
                if max(ranks.count(r) for r in ranks) > 4:
                    continue
                cards = rank_cards(ranks, False)
                player, dealer = tuple(cards[:2]), tuple(cards[2:])
                total = rules.total(player)
                if fc.must_turn(total):
                    turn = True  # R-FC-3: the dealer turns it, no choice
                else:
                    turn = decide(fc.FcDecision(player, dealer, total, rules.total(dealer))) == TURN
                turn_sorted[rank_index(ranks)] = int(turn)
        # Expand: sort within the player's pair and within the dealer's pair.
        grid = np.indices((13,) * 4).reshape(4, -1).T
        ps = np.sort(grid[:, :2], axis=1)
        ds = np.sort(grid[:, 2:], axis=1)
        idx = ((ps[:, 0] * 13 + ps[:, 1]) * 13 + ds[:, 0]) * 13 + ds[:, 1]
        return StrategyTables({"fc_turn": turn_sorted[idx]})

    def hand_key(self, context: fc.FcDecision) -> str:
        return rank_text(context.player_up) + "|" + rank_text(context.dealer_up)

    def file_action(self, text: str, context: fc.FcDecision) -> Action | None:
        return {"stand": STAND, "turn": TURN}.get(text)

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h, hands = hist, counts[0]
        block("main", ["win", "push", "lose"], h[8:11], hands)  # the engine's settlement outcomes
        block("showdown", list(fc.CATEGORIES), h[0:5], hands)  # R-FC-3..5, whatever each pays
        block("decision", ["turned by choice", "turned (odd two-card total)", "stood"], h[5:8], hands)

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: main returned, and whether its third card was turned (by choice or an odd total)."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        for e in settled(history):
            out[e.seat - 1, 0] = e.returned
        for ev in history:
            if isinstance(ev, CardsRevealed) and ev.owner.startswith("seat ") and len(ev.cards) == 1:
                out[int(ev.owner.split()[1]) - 1, 1] = 1  # R-FC-3: only a turned third card is shown alone
        return out


KERNEL = FinalCountKernel()

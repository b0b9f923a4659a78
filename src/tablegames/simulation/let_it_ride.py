"""Let It Ride's simulation kernel adapter (R-LIR-1..8): the kernel's lookup tables and arguments, its strategy
tables, the strategy-file keys and the layout of its outcome counts.

>>> t = lir_tables(lir.LetItRideRules())
>>> from tablegames.cards import parse_cards
>>> int(t.five[lir_index(parse_cards("Ah Kh Qh Jh Th"))]) == lir.LirHand.ROYAL_FLUSH
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tablegames.engine.actions import Action
from tablegames.engine.events import Event, HandResult, NeighbourBonusPaid
from tablegames.rules import let_it_ride as lir
from tablegames.rules.common import enum_key, returned_at_odds
from tablegames.rules.let_it_ride import PULL, RIDE
from tablegames.rules.poker import ThreeCardCategory, three_card_category_of
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.kernels import add_square, add_square_times, compiled_rule, game_kernel, load_round
from tablegames.simulation.strategy import named_strategy_tables, rank_cards, rank_text
from tablegames.simulation.tables import (
    R3,
    R4,
    expand_sorted,
    odds_array,
    pattern_tables,
    rank_index,
    rank_multisets,
)

I8 = npt.NDArray[np.int8]

lir_up_return = compiled_rule(lir.bets_up_return, lir.capped_base_win)
"""R-LIR-4, R-LIR-5: the rules module's ``bets_up_return`` (its cap ``capped_base_win``), compiled into the
kernel (one source of the bets' return and the cap)."""
lir_pulled_return = compiled_rule(lir.pulled_return)
lir_returned_at_odds = compiled_rule(returned_at_odds)
"""R-LIR-2, R-LIR-3: the rules module's ``pulled_return``."""


D_LIR = 8  # detail columns per seat


@njit(cache=True, nogil=True, inline="always")
def lir_seat_hand(cards, S, s, first, second, five):  # type: ignore[no-untyped-def]
    """Seat ``s``'s play of a round dealt as ``cards`` (R-LIR-1..3): ``(final hand, rode bet 1, rode bet 2,
    its first three cards' flush flag and rank index)``; the community cards are the dealer's second and third
    (the first is burnt)."""
    c1 = cards[S + 1 + S]
    c2 = cards[2 * (S + 1) + S]
    a = cards[s]
    b = cards[S + 1 + s]
    c = cards[2 * (S + 1) + s]
    sa = a & 3
    f3 = 1 if ((b & 3) == sa and (c & 3) == sa) else 0
    i3 = ((a >> 2) * 13 + (b >> 2)) * 13 + (c >> 2)
    ride1 = np.int64(first[f3 * 2197 + i3])
    f4 = 1 if (f3 == 1 and (c1 & 3) == sa) else 0
    i4 = i3 * 13 + (c1 >> 2)
    ride2 = np.int64(second[(ride1 * 2 + f4) * 28561 + i4])
    f5 = 1 if (f4 == 1 and (c2 & 3) == sa) else 0
    h = np.int64(five[f5 * 371293 + i4 * 13 + (c2 >> 2)])
    return h, ride1, ride2, f3, i3


@njit(cache=True, nogil=True, inline="always")
def lir_bets(u, up, odds, cap):  # type: ignore[no-untyped-def]
    """The three bets of ``u`` with ``up`` of them riding to a final hand paid ``odds``: ``(staked, returned,
    returned by the bets up)``."""
    returned = (3 - up) * lir_pulled_return(u)  # pulled bets (R-LIR-2, R-LIR-3)
    base_ret = lir_up_return(up, u, odds, cap)  # R-LIR-4, R-LIR-5: the rules' own function
    return 3 * u, returned + base_ret, base_ret


@njit(cache=True, nogil=True, inline="always")
def lir_add_bets(wager_acc, hist, h, up, u, odds, staked, returned, c):  # type: ignore[no-untyped-def]
    """Count ``c`` seats' bets of one class (final hand ``h``, ``up`` bets riding) in the bets' row."""
    hist[h * 4 + up] += c
    hist[67 if odds >= 0 else 68] += c  # the engine's outcome of the bets up: win / lose (R-LIR-4)
    wager_acc[0, 0] += c
    wager_acc[0, 1] += c * u
    wager_acc[0, 2] += c * staked
    wager_acc[0, 3] += c * returned


@njit(cache=True, nogil=True, inline="always")
def lir_heads_up_class(cards, bets_up, five):  # type: ignore[no-untyped-def]
    """The class ``final hand * 4 + bets up`` of a heads-up round: what :func:`lir_seat_hand` gives, the
    number of bets up read at once from :func:`lir_bets_up_table` (two independent lookups)."""
    a = cards[0]
    b = cards[2]
    c = cards[4]
    c1 = cards[3]
    c2 = cards[5]
    sa = a & 3
    f3 = 1 if ((b & 3) == sa and (c & 3) == sa) else 0
    f4 = 1 if (f3 == 1 and (c1 & 3) == sa) else 0
    f5 = 1 if (f4 == 1 and (c2 & 3) == sa) else 0
    i4 = (((a >> 2) * 13 + (b >> 2)) * 13 + (c >> 2)) * 13 + (c1 >> 2)
    return np.int64(five[f5 * 371293 + i4 * 13 + (c2 >> 2)]) * 4 + np.int64(bets_up[(f3 + f4) * 28561 + i4])


def lir_bets_up_table(first: I8, second: I8) -> I8:
    """The bets up at the showdown (1 + rode bet 1 + rode bet 2) by four cards, ``[(f3 + f4) * 13^4 + i4]``
    (``f3``: the first three suited, ``f4``: the four; ``i4``: their rank index), from the strategy's
    tables: ``1 + first[f3 * 13^3 + i4 // 13] + second[(ride1 * 2 + f4) * 13^4 + i4]``.

    >>> lir_bets_up_table(np.ones(2 * R3, np.int8), np.zeros(4 * R4, np.int8))[:3].tolist()
    [2, 2, 2]
    """
    i4 = np.arange(R4)
    out = np.empty(3 * R4, dtype=np.int8)
    for flags, (f3, f4) in enumerate(((0, 0), (1, 0), (1, 1))):
        ride1 = first[f3 * R3 + i4 // 13].astype(np.int64)
        out[flags * R4 : (flags + 1) * R4] = 1 + ride1 + second[(ride1 * 2 + f4) * R4 + i4]
    return out


@njit(cache=True, nogil=True)
def lir_settle_classes(counts, u, main_odds, cap, wager_acc, seat_acc, hist):  # type: ignore[no-untyped-def]
    """Add heads-up rounds counted by class (``counts[hand * 4 + bets up]``, the bets only) to the
    accumulators: what playing them one by one adds (the same settlement, times the count)."""
    for cls in range(40):
        c = counts[cls]
        if c == 0:
            continue
        h = cls // 4
        up = cls % 4
        odds = main_odds[h]
        staked, returned, _ = lir_bets(u, up, odds, cap)
        lir_add_bets(wager_acc, hist, h, up, u, odds, staked, returned, c)
        seat_acc[0, 0] += c * u
        seat_acc[0, 1] += c * staked
        seat_acc[0, 2] += c * returned
        add_square_times(wager_acc, 0, 4, returned - staked, c)
        add_square_times(seat_acc, 0, 3, returned - staked, c)


@game_kernel
def lir_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    rng,
    scratch,
    nseats,
    bet,
    bonus_stake,
    prog_stake,
    five,
    bonus3,
    first,
    second,
    bets_up,
    main_odds,
    bonus_odds,
    prog_meter,
    prog_fixed,
    envy,
    cap,
    wager_acc,
    seat_acc,
    hist,
    hits,
    nhits,
    seat1,
    detail,
):
    """Let It Ride rounds (R-LIR-1..8). Wager rows: 0 bets, 1 bonus, 2 progressive, 3 its fixed prizes,
    4 its Envy Bonus. ``hist``: [hand * 4 + bets up] (40), bonus category (7), progressive hand (10), envy
    payments by the hitter's hand (10)."""
    S = nseats
    k = 3 * (S + 1)
    cards = scratch[0:k]
    if S == 1 and bonus_stake[0] == 0 and prog_stake[0] == 0 and seat1.shape[0] == 0 and detail.shape[0] == 0:
        # Heads-up, the bets only: a round's money is a function of its class (final hand, bets up), so the
        # rounds are counted by class and each class settled once (lir_settle_classes), exactly as below.
        counts = scratch[k : k + 40]
        counts[:] = 0
        for r in range(start, end):
            load_round(r, 6, decks, deck, rng, cards)  # a constant: the deal unrolled
            counts[lir_heads_up_class(cards, bets_up, five)] += 1
        lir_settle_classes(counts, bet[0], main_odds, cap, wager_acc, seat_acc, hist)
        return end, nhits
    hand = scratch[k : k + S]
    ret_prog = scratch[k + S : k + 2 * S]
    net_seat = scratch[k + 2 * S : k + 3 * S]
    envy_seat = scratch[k + 3 * S : k + 4 * S]
    for r in range(start, end):
        if nhits + S > hits.shape[0]:
            return r, nhits
        load_round(r, k, decks, deck, rng, cards)
        x_bets = 0
        x_bonus = 0
        x_prog = 0
        x_fixed = 0
        hit_from = nhits
        for s in range(S):
            h, ride1, ride2, f3, i3 = lir_seat_hand(cards, S, s, first, second, five)
            hand[s] = h
            up = 1 + ride1 + ride2
            u = bet[s]
            odds = main_odds[h]
            staked, returned, base_ret = lir_bets(u, up, odds, cap)
            lir_add_bets(wager_acc, hist, h, up, u, odds, staked, returned, 1)
            x_bets += returned - staked
            seat_units = u
            seat_staked = staked
            seat_ret = returned
            bonus_ret = 0
            bs = bonus_stake[s]
            if bs > 0:
                bh = np.int64(bonus3[f3 * 2197 + i3])
                bonus_ret = lir_returned_at_odds(bs, bonus_odds[bh])  # R-LIR-6, R-0.3
                hist[40 + bh] += 1
                wager_acc[1, 0] += 1
                wager_acc[1, 1] += bs
                wager_acc[1, 2] += bs
                wager_acc[1, 3] += bonus_ret
                x_bonus += bonus_ret - bs
                seat_units += bs
                seat_staked += bs
                seat_ret += bonus_ret
            ret_prog[s] = 0
            ps = prog_stake[s]
            if ps > 0:
                hist[47 + h] += 1
                m = prog_meter[h]
                if m >= 0:
                    hits[nhits, 0] = r
                    hits[nhits, 1] = s
                    hits[nhits, 2] = m
                    nhits += 1
                else:
                    ret_prog[s] = prog_fixed[h]
                x_fixed += ret_prog[s]
                wager_acc[2, 0] += 1
                wager_acc[2, 1] += ps
                wager_acc[2, 2] += ps
                wager_acc[2, 3] += ret_prog[s]
                wager_acc[3, 0] += 1
                wager_acc[3, 1] += ps
                wager_acc[3, 3] += ret_prog[s]
                seat_units += ps
                seat_staked += ps
                seat_ret += ret_prog[s]
            seat_acc[s, 0] += seat_units
            seat_acc[s, 1] += seat_staked
            seat_acc[s, 2] += seat_ret
            net_seat[s] = seat_ret - seat_staked
            if detail.shape[0] > 0:
                detail[r, s, 0] = u if ride1 == 0 else 0
                detail[r, s, 1] = u if ride2 == 0 else 0
                detail[r, s, 2] = up * u
                detail[r, s, 3] = base_ret
                detail[r, s, 4] = bonus_ret
                detail[r, s, 5] = ret_prog[s]
                detail[r, s, 6] = 0
                detail[r, s, 7] = h
        # Envy Bonus (R-LIR-8): each progressive hitter pays every *other* progressive seat.
        x_envy = 0
        for s in range(S):
            envy_seat[s] = 0
        for hs in range(S):
            if prog_stake[hs] > 0 and envy[hand[hs]] > 0:
                e = envy[hand[hs]]
                for o in range(S):
                    if o != hs and prog_stake[o] > 0:
                        hist[57 + hand[hs]] += 1
                        net_seat[o] += e
                        envy_seat[o] += e
                        seat_acc[o, 2] += e
                        x_envy += e
                        wager_acc[2, 3] += e
                        wager_acc[4, 3] += e
                        if detail.shape[0] > 0:
                            detail[r, o, 6] += e
        for s in range(S):
            if prog_stake[s] > 0:
                x_prog += ret_prog[s] - prog_stake[s]
                wager_acc[4, 0] += 1
                wager_acc[4, 1] += prog_stake[s]
        x_prog += x_envy
        add_square(wager_acc, 0, 4, x_bets)
        add_square(wager_acc, 1, 4, x_bonus)
        add_square(wager_acc, 2, 4, x_prog)
        add_square(wager_acc, 3, 4, x_fixed)
        add_square(wager_acc, 4, 4, x_envy)
        for s in range(S):
            add_square(seat_acc, s, 3, net_seat[s])
        for i in range(hit_from, nhits):
            s = hits[i, 1]
            hits[i, 3] = ret_prog[s] - prog_stake[s] + envy_seat[s]
            hits[i, 4] = x_prog
            hits[i, 5] = net_seat[s]
        if seat1.shape[0] > 0:
            seat1[r] = net_seat[0]
    return end, nhits


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
    five: I8  # [2 * 13^5]: lir.LirHand by (flush, ranks); -1 for impossible patterns
    bonus: I8  # [2 * 13^3]: ThreeCardCategory by (flush, ranks)
    main_odds: I64  # [10] by lir.LirHand: "X to 1", or -1 (lose)
    bonus_odds: I64  # [7] by ThreeCardCategory
    prog_meter: I64  # [10] by lir.LirHand: index of the meter it wins, or -1
    prog_fixed: I64  # [10] by lir.LirHand: fixed prize in cents
    envy: I64  # [10] by lir.LirHand: Envy Bonus paid to each other progressive seat (R-LIR-8)
    meter_names: tuple[str, ...]
    meter_resets: tuple[int, ...]


@lru_cache(maxsize=2)
def _lir_hand_tables(qualifier: int = 10) -> tuple[I8, I8]:
    """The base-game class of every ordered five-rank tuple (the lowest paying pair ``qualifier``, R-LIR-4)
    and the 3-Card Bonus class of every ordered three-rank tuple, plain then flush, from the rules' pattern
    tables (shared with the exact analysis)."""
    plain, flush = pattern_tables(5, lambda ranks, flush: lir.lir_hand_of(ranks, flush, qualifier))
    five = np.concatenate([expand_sorted(plain, 5), expand_sorted(flush, 5)])
    p3, f3 = pattern_tables(3, three_card_category_of)
    bonus = np.concatenate([expand_sorted(p3, 3), expand_sorted(f3, 3)])
    five.setflags(write=False)
    bonus.setflags(write=False)
    return five, bonus


@lru_cache(maxsize=16)
def lir_tables(rules: lir.LetItRideRules) -> LirTables:
    """Let It Ride tables for ``rules`` (R-LIR-4..8)."""
    five, bonus = _lir_hand_tables(rules.qualifier_rank)
    cfg = rules.progressive
    names = tuple(m.name for m in cfg.meters)

    return LirTables(
        five=five,
        bonus=bonus,
        main_odds=odds_array(rules.main_paytable, list(lir.LirHand)),
        bonus_odds=odds_array(rules.bonus_paytable, list(lir.BonusHand)),
        prog_meter=np.array(
            [names.index(cfg.meter_prizes[h]) if h in cfg.meter_prizes else -1 for h in lir.LirHand],
            dtype=np.int64,
        ),
        prog_fixed=np.array([cfg.fixed_prizes_cents.get(h, 0) for h in lir.LirHand], dtype=np.int64),
        envy=np.array([cfg.envy_cents.get(h, 0) for h in lir.LirHand], dtype=np.int64),
        meter_names=names,
        meter_resets=tuple(m.reset_cents for m in cfg.meters),
    )


class LetItRideKernel(Kernel):
    detail_width = D_LIR
    meter_row_name = "progressive meters"
    components = frozenset({"progressive fixed prizes", "progressive envy", "progressive meters"})

    def kernel(self) -> Any:
        return lir_run

    def prepare(self, rules: lir.LetItRideRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        w, ones = wagers, np.ones(seats, dtype=np.int64)
        t = lir_tables(rules)
        st = named_strategy_tables(rules, strategy, w.main)
        args = (
            w.main * ones,
            w.side("bonus") * ones,
            w.side("progressive") * ones,
            t.five,
            t.bonus,
            st.lir_first,
            st.lir_second,
            lir_bets_up_table(st.lir_first, st.lir_second),
            t.main_odds,
            t.bonus_odds,
            t.prog_meter,
            t.prog_fixed,
            t.envy,
            np.int64(rules.cap_cents),
        )
        return KernelJob(
            deal_cards=3 * (seats + 1),
            wager_rows=(lir.MAIN, "bonus", "progressive", "progressive fixed prizes", "progressive envy"),
            hist_size=69,
            args=args,
            meter_row=2,
        )

    def strategy_tables(self, rules: lir.LetItRideRules, decide: Decide) -> StrategyTables:
        q = rules.qualifier_rank
        first = np.zeros(2 * R3, dtype=np.int8)
        for ms in rank_multisets(3):
            for flush in (False, True) if len(set(ms)) == 3 else (False,):
                act = decide(lir.LirDecision(1, tuple(rank_cards(ms, flush)), qualifier=q))
                first[int(flush) * R3 + rank_index(ms)] = int(act == RIDE)
        second = np.zeros(4 * R4, dtype=np.int8)
        for ms in rank_multisets(4):
            for flush in (False, True) if len(set(ms)) == 4 else (False,):
                cards = tuple(rank_cards(ms, flush))
                for up in (0, 1):
                    act = decide(lir.LirDecision(2, cards, bool(up), q))
                    second[(up * 2 + int(flush)) * R4 + rank_index(ms)] = int(act == RIDE)
        first = np.concatenate([expand_sorted(first[i * R3 : (i + 1) * R3], 3) for i in range(2)])
        second = np.concatenate([expand_sorted(second[i * R4 : (i + 1) * R4], 4) for i in range(4)])
        return StrategyTables({"lir_first": first, "lir_second": second})

    def hand_key(self, context: lir.LirDecision) -> str:
        suited = "s" if len({c & 3 for c in context.cards}) == 1 else ""
        return f"{context.stage}:{rank_text(context.cards)}{suited}"

    def file_action(self, text: str, context: lir.LirDecision) -> Action | None:
        return {"ride": RIDE, "pull": PULL}.get(text)

    def at_risk_units(self, name: str, units: int, hist: Sequence[int]) -> float:
        """The bets that were not pulled (RULES.md: the element of risk)."""
        if name != lir.MAIN:
            return units
        riding = [sum(hist[i * 4 + u] for i in range(10)) for u in (1, 2, 3)]
        hands = sum(riding)
        return units * sum(u * c for u, c in zip((1, 2, 3), riding, strict=True)) / hands if hands else units

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h, hands = hist, counts[0]
        names = [enum_key(x) for x in lir.LirHand]
        block(lir.MAIN, ["win", "lose"], h[67:69], hands)  # the engine's settlement of the bets up
        block("final hand", names, [sum(h[i * 4 : i * 4 + 4]) for i in range(10)], hands)
        block(
            "bets riding",
            ["1 ($ only)", "2", "3"],
            [sum(h[i * 4 + u] for i in range(10)) for u in (1, 2, 3)],
            hands,
        )
        block("bonus", [enum_key(x) for x in ThreeCardCategory], h[40:47], counts[1])
        block("progressive", names, h[47:57], counts[2])
        block("envy payments", names, h[57:67], counts[2])

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: bet 1 and bet 2 returned when pulled, base staked and returned, bonus, progressive (its
        meter part excluded: the meter book pays it), Envy received, the final hand."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        col = {"bonus": 4, "progressive": 5}
        for e in settled(history):
            if e.wager == lir.MAIN and e.outcome == "pulled":
                out[e.seat - 1, lir.BETS.index(e.part)] = e.returned  # bet 1 or bet 2, pulled
            elif e.wager == lir.MAIN:  # the bets still up at the showdown
                out[e.seat - 1, 2], out[e.seat - 1, 3] = e.staked, e.returned
            else:
                out[e.seat - 1, col[e.wager]] = e.returned - e.meter_cents
        hands = {enum_key(h): int(h) for h in lir.LirHand}
        for ev in history:
            if isinstance(ev, NeighbourBonusPaid):
                out[ev.seat - 1, 6] += ev.amount
            elif isinstance(ev, HandResult) and ev.owner.startswith("seat "):
                out[int(ev.owner.split()[1]) - 1, 7] = hands[ev.hand]
        return out


KERNEL = LetItRideKernel()

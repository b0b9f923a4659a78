"""Three Card Poker's simulation kernel adapter (R-TCP-1..6): the kernel, its tables (hand strength, hand
and pay odds by rank pattern, built by calling the rules' own functions), the strategy tables, the
strategy-file keys and the layout of its outcome counts."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from tablegames.engine.events import ActionTaken, Event
from tablegames.rules import three_card_poker as tcp
from tablegames.rules.common import enum_key, returned_at_odds
from tablegames.rules.flow import Action
from tablegames.rules.three_card_poker import FOLD, PLAY
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.kernels import add_square, add_square_times, compiled_rule, game_kernel, load_round
from tablegames.simulation.strategy import named_strategy_tables, rank_cards, rank_text

D_TCP = 3  # detail columns per seat: ante + play returned, pair plus returned, played
R3 = 13**3
NH = len(tcp.TcpHand)

# R-TCP-4: the rules module's own functions, compiled into the kernel (one source of each rule).
tcp_qualifies = njit(inline="always")(tcp.dealer_qualifies)
tcp_result = njit(inline="always")(tcp.result_of)
NO_QUALIFY = tcp.NO_QUALIFY
tcp_returned_at_odds = compiled_rule(returned_at_odds)


@njit(cache=True, nogil=True, inline="always")
def tcp_dealer(cards, S, strength, qualifier):  # type: ignore[no-untyped-def]
    """The dealer's hand strength and whether it qualifies (R-TCP-4, the rules' function)."""
    da = cards[S]
    db = cards[2 * S + 1]
    dc = cards[3 * S + 2]
    sd = da & 3
    fd = 1 if ((db & 3) == sd and (dc & 3) == sd) else 0
    dealer = strength[fd * 2197 + ((da >> 2) * 13 + (db >> 2)) * 13 + (dc >> 2)]
    return dealer, tcp_qualifies(dealer, qualifier)


@njit(cache=True, nogil=True, inline="always")
def tcp_seat(cards, S, s, strength, hand_of, plays, dealer, qualifies):  # type: ignore[no-untyped-def]
    """Seat ``s``'s hand and its play: ``(hand, pattern index, 0 folded or 1 + result)`` (R-TCP-2, R-TCP-4)."""
    a = cards[s]
    b = cards[S + 1 + s]
    c = cards[2 * (S + 1) + s]
    sa = a & 3
    f3 = 1 if ((b & 3) == sa and (c & 3) == sa) else 0
    i3 = f3 * 2197 + ((a >> 2) * 13 + (b >> 2)) * 13 + (c >> 2)
    h = np.int64(hand_of[i3])
    o = 0
    if plays[i3] == 1:
        o = 1 + tcp_result(strength[i3], dealer, qualifies)  # R-TCP-4, the rules' function
    return h, i3, o


@njit(cache=True, nogil=True, inline="always")
def tcp_ante(wager_acc, hist, h, o, u, result_odds, bonus_odds, n):  # type: ignore[no-untyped-def]
    """Count ``n`` Antes of ``u`` of one class (hand ``h``, ``o``: folded or 1 + result) in the Ante's row;
    returns one's ``(staked, returned)``."""
    staked = 2 * u  # the Play wager is set aside beside the Ante
    if o > 0:
        res = o - 1
        hist[1 + res] += n
        returned = u * (1 + result_odds[res, 0]) + u * (1 + result_odds[res, 1])
        ante_net = result_odds[res, 0]
        if bonus_odds[h] > 0:  # R-TCP-5: whatever the dealer holds
            returned += u * bonus_odds[h]
            ante_net += bonus_odds[h]
        # the Ante's outcome (rules.three_card_poker.ante_outcome): the dealer does not qualify (R-TCP-4),
        # else win / push / lose by its net
        hist[15 if res == NO_QUALIFY else (12 if ante_net > 0 else (13 if ante_net == 0 else 14))] += n
    else:
        returned = u  # R-TCP-2: folded, the Ante lost, the Play given back
        hist[0] += n
    wager_acc[0, 0] += n
    wager_acc[0, 1] += n * u
    wager_acc[0, 2] += n * staked
    wager_acc[0, 3] += n * returned
    return staked, returned


@game_kernel
def tcp_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    rng,
    scratch,
    nseats,
    ante,
    pair_plus,
    strength,
    hand_of,
    plays,
    bonus_odds,
    pp_odds,
    qualifier,
    result_odds,
    wager_acc,
    seat_acc,
    hist,
    seat1,
    detail,
):
    """Three Card Poker rounds (R-TCP-1..6). Wager rows: 0 ante (Ante, Play and Ante Bonus together, per unit
    of Ante), 1 pair plus. ``hist``: [folded, dealer does not qualify, player higher, tie, dealer higher] then
    the player's hand (6, seats with an Ante or Pair Plus), then the dealer qualifying, then the Ante's
    settlement outcome of a played hand (its Ante Bonus included): [win, push, lose, dealer does not qualify]. The rules'
    values are arguments: the
    qualifying strength, ``result_odds[result] = (Ante, Play)`` "X to 1" (-1 loses) by result (no qualify,
    win, tie, lose: R-TCP-4), the Ante Bonus and Pair Plus odds by hand (R-TCP-5/6)."""
    S = nseats
    k = 3 * (S + 1)
    cards = scratch[0:k]
    if S == 1 and ante[0] > 0 and pair_plus[0] == 0 and seat1.shape[0] == 0 and detail.shape[0] == 0:
        # Heads-up, the Ante only: a round's money is a function of its class (dealer qualifying, hand, played
        # and how the strengths compare), so the rounds are counted by class (without a branch) and each class
        # settled once, with the same code; R-TCP-4's result_of compares the strengths only, so it gives a
        # class's result from their comparison's sign.
        counts = scratch[k : k + 72]
        counts[:] = 0
        for r in range(start, end):
            load_round(r, 6, decks, deck, rng, cards)  # a constant: the deal unrolled
            dealer, qualifies = tcp_dealer(cards, 1, strength, qualifier)
            h, i3, _ = tcp_seat(cards, 1, 0, strength, hand_of, plays, dealer, qualifies)
            sign = np.int64(strength[i3] > dealer) - np.int64(strength[i3] < dealer)
            counts[(((1 if qualifies else 0) * 6 + h) * 2 + plays[i3]) * 3 + 1 + sign] += 1
        u = ante[0]
        for cls in range(72):
            c = counts[cls]
            if c > 0:
                h = (cls // 6) % 6
                o = ((cls // 3) % 2) * (1 + tcp_result(cls % 3, 1, cls >= 36))  # played: 1 + result
                hist[11] += c if cls >= 36 else 0
                hist[5 + h] += c
                staked, returned = tcp_ante(wager_acc, hist, h, o, u, result_odds, bonus_odds, c)
                seat_acc[0, 0] += c * u
                seat_acc[0, 1] += c * staked
                seat_acc[0, 2] += c * returned
                add_square_times(seat_acc, 0, 3, returned - staked, c)
                add_square_times(wager_acc, 0, 4, returned - staked, c)
        return end
    for r in range(start, end):
        load_round(r, k, decks, deck, rng, cards)
        dealer, qualifies = tcp_dealer(cards, S, strength, qualifier)
        if qualifies:
            hist[11] += 1
        x_ante = 0
        x_pp = 0
        for s in range(S):
            h, _, o = tcp_seat(cards, S, s, strength, hand_of, plays, dealer, qualifies)
            hist[5 + h] += 1
            u = ante[s]
            staked = 0
            returned = 0
            played = 0
            if u > 0:
                staked, returned = tcp_ante(wager_acc, hist, h, o, u, result_odds, bonus_odds, 1)
                played = 1 if o > 0 else 0
                x_ante += returned - staked
            pp = pair_plus[s]
            pp_ret = 0
            if pp > 0:  # R-TCP-6: whatever the dealer holds, played or folded
                pp_ret = tcp_returned_at_odds(pp, pp_odds[h])  # R-0.3, the rules' own function
                wager_acc[1, 0] += 1
                wager_acc[1, 1] += pp
                wager_acc[1, 2] += pp
                wager_acc[1, 3] += pp_ret
                x_pp += pp_ret - pp
            seat_acc[s, 0] += u if u > 0 else pp
            seat_acc[s, 1] += staked + pp
            seat_acc[s, 2] += returned + pp_ret
            net = returned + pp_ret - staked - pp
            add_square(seat_acc, s, 3, net)
            if s == 0 and seat1.shape[0] > 0:
                seat1[r] = net
            if detail.shape[0] > 0:
                detail[r, s, 0] = returned
                detail[r, s, 1] = pp_ret
                detail[r, s, 2] = played
        add_square(wager_acc, 0, 4, x_ante)
        add_square(wager_acc, 1, 4, x_pp)
    return end


@dataclass(frozen=True, eq=False)
class TcpTables:
    """By ``flush * 13**3 + (r0 * 13 + r1) * 13 + r2`` (rank indices 0..12 in deal order): strength, hand."""

    strength: I64
    hand: I64
    bonus_odds: I64  # by hand: Ante Bonus "X to 1", 0 where none
    pp_odds: I64  # by hand: Pair Plus "X to 1", -1 where it loses


def _triples() -> list[tuple[int, int, int]]:
    return [(a, b, c) for a, b, c in itertools.product(range(13), repeat=3)]


@lru_cache(maxsize=1)
def _pattern_tables() -> tuple[I64, I64]:
    """Strength and hand by rank pattern (no parameter changes them: R-TCP-3)."""
    strength = np.full(2 * R3, -1, dtype=np.int64)
    hand = np.zeros(2 * R3, dtype=np.int64)
    for r0, r1, r2 in _triples():
        i = (r0 * 13 + r1) * 13 + r2
        ranks = [r0 + 2, r1 + 2, r2 + 2]
        for flush in (False, True) if len({r0, r1, r2}) == 3 else (False,):
            strength[int(flush) * R3 + i] = tcp.strength_of(ranks, flush)
            hand[int(flush) * R3 + i] = int(tcp.tcp_hand_of(ranks, flush))
    return strength, hand


@lru_cache(maxsize=8)
def tcp_tables(rules: tcp.ThreeCardPokerRules) -> TcpTables:
    """The rules' tables: the rank-pattern tables and the Ante Bonus and Pair Plus odds by hand."""
    strength, hand = _pattern_tables()
    bonus = np.array([rules.ante_bonus.odds(h) or 0 for h in tcp.TcpHand], dtype=np.int64)
    pp = np.array([-1 if rules.pair_plus.odds(h) is None else rules.pair_plus.odds(h) for h in tcp.TcpHand])
    return TcpTables(strength, hand, bonus, pp.astype(np.int64))


class ThreeCardPokerKernel(Kernel):
    detail_width = D_TCP
    with_hits = False

    def kernel(self) -> Any:
        return tcp_run

    def prepare(self, rules: tcp.ThreeCardPokerRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        t = tcp_tables(rules)
        st = named_strategy_tables(rules, strategy)
        ones = np.ones(seats, dtype=np.int64)
        args = (
            wagers.main * ones,
            wagers.side(tcp.PAIR_PLUS) * ones,
            t.strength,
            t.hand,
            st.tcp_play,
            t.bonus_odds,
            t.pp_odds,
            np.int64(rules.qualifying_strength),
            np.array(rules.result_odds, dtype=np.int64),
        )
        return KernelJob(
            deal_cards=3 * (seats + 1), wager_rows=(tcp.ANTE, tcp.PAIR_PLUS), hist_size=16, args=args
        )

    def strategy_tables(self, rules: tcp.ThreeCardPokerRules, decide: Decide) -> StrategyTables:
        play = np.zeros(2 * R3, dtype=np.int8)
        for r0, r1, r2 in _triples():
            ranks = [r0, r1, r2]
            if max(ranks.count(x) for x in ranks) > 4:
                continue
            for flush in (False, True) if len(set(ranks)) == 3 else (False,):
                act = decide(tcp.TcpDecision(tuple(rank_cards(ranks, flush))))
                play[int(flush) * R3 + (r0 * 13 + r1) * 13 + r2] = int(act == PLAY)
        return StrategyTables({"tcp_play": play})

    def hand_key(self, context: tcp.TcpDecision) -> str:
        suited = "s" if len({c & 3 for c in context.cards}) == 1 else ""
        return rank_text(context.cards) + suited

    def file_action(self, text: str, context: tcp.TcpDecision) -> Action | None:
        return {"play": PLAY, "fold": FOLD}.get(text)

    def at_risk_units(self, name: str, units: int, hist: Sequence[int]) -> float:
        """The Ante plus the Play of the hands played (RULES.md: the element of risk)."""
        if name != tcp.ANTE:
            return units
        hands = sum(hist[0:5])
        return units * (1 + sum(hist[1:5]) / hands) if hands else units

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h = hist
        # the Ante's settlement outcomes, as the engine names them (R-TCP-2, R-TCP-4, R-TCP-5)
        block(
            tcp.ANTE, ["fold", tcp.NOT_QUALIFIED, "win", "push", "lose"], [h[0], h[15], *h[12:15]], counts[0]
        )
        showdown = ["dealer does not qualify", "player higher", "tie", "dealer higher"]
        block("showdown", showdown, h[1:5], sum(h[1:5]))  # R-TCP-4, of the hands played
        block("player hand", [enum_key(x) for x in tcp.TcpHand], h[5:11], sum(h[5:11]))
        block("dealer", ["qualifies"], h[11:12], rounds)

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: Ante and Play returned (Ante Bonus included), Pair Plus returned, whether it played."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        for e in settled(history):
            col = 1 if e.wager == tcp.PAIR_PLUS else 0
            out[e.seat - 1, col] += e.returned
        for ev in history:
            if isinstance(ev, ActionTaken) and ev.action == str(PLAY):
                out[ev.seat - 1, 2] = 1
        return out


KERNEL = ThreeCardPokerKernel()

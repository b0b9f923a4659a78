"""One Eyed Flush's simulation kernel adapter (R-OEF-1..10): the kernel's arguments, its strategy tables,
the strategy-file keys and the layout of its outcome counts."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from tablegames.engine.actions import Action
from tablegames.engine.events import ActionTaken, Event
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.common import enum_key, returned_at_odds
from tablegames.rules.one_eyed_flush import STAND, discard
from tablegames.simulation.adapter import I64, Block, Decide, Kernel, KernelJob, StrategyTables, settled
from tablegames.simulation.kernels import add_square, add_square_times, compiled_rule, game_kernel, load_round
from tablegames.simulation.strategy import StrategyError, named_strategy_tables
from tablegames.simulation.tables import NO_PRIZE

N_CLASSES = oef.CLASSES.n
CLASS_LETTERS = oef.CLASSES.letters
triple_index = oef.CLASSES.triple_index  # the same for every set of wild cards (13 ranks and the wild class)


D_OEF = 4  # detail columns per seat

# R-OEF-7, R-OEF-8, R-OEF-10 (R-0.3): the rules modules' own integer functions, compiled into the kernel.
oef_live_wild = compiled_rule(oef.live_wild)
oef_main_return = compiled_rule(oef.main_return, returned_at_odds)
oef_returned_at_odds = compiled_rule(returned_at_odds)


@njit(cache=True, nogil=True, inline="always")
def oef_main(wager_acc, hist, busted, code, dcode, ms, compare, category, win_odds, c):  # type: ignore[no-untyped-def]
    """``c`` seats' main wagers of ``ms`` with the final hand ``code`` (``busted``: R-OEF-6) against the
    dealer's ``dcode`` (R-OEF-3, R-OEF-8) counted in row 0 and the outcomes; returns what one returns."""
    ret = 0
    if busted == 1:
        hist[3] += c
    else:
        res = compare[code * category.shape[0] + dcode]  # R-OEF-3
        ret = oef_main_return(res, ms, win_odds[code])  # R-OEF-8, the rules' own function
        hist[1 - res] += c  # win, push, lose
    hist[4 + category[code]] += c
    wager_acc[0, 0] += c
    wager_acc[0, 1] += c * ms
    wager_acc[0, 2] += c * ms
    wager_acc[0, 3] += c * ret
    return ret


HEADS_UP_CODES = 63
"""The heads-up fast path's limit on the number of hand codes (a class packs into a byte; its counts fit in
:data:`kernels.SCRATCH`)."""


@njit(cache=True, nogil=True)
def oef_heads_up_tables(strat, hand_code, has_wild, bust, dealer_discard):  # type: ignore[no-untyped-def]
    """A heads-up round's two steps as lookups by card classes (R-OEF-5..7), what :func:`oef_rounds` does:
    ``player[(t * 14 + flip) * 14 + drawn]`` is ``(code * 2 + drew) * 2 + live wild`` of the seat's final hand
    (``t`` its first three cards' class triple, ``flip`` the Flip Card's class, ``drawn`` the class of the
    card a draw takes); ``dealer[(t * 2 + live wild) * 14 + drawn]`` is ``code * 2 + drew`` of the dealer's.
    Impossible triples give code 0 (never looked up)."""
    n = N_CLASSES
    player = np.zeros(n**5, dtype=np.uint8)
    dealer = np.zeros(n**4 * 2, dtype=np.uint8)
    digit = np.empty(3, dtype=np.int64)
    for t0 in range(n**3):
        digit[0], digit[1], digit[2] = t0 // (n * n), (t0 // n) % n, t0 % n
        for c in range(n):
            for f in range(n):
                d = strat[t0 * n + f]
                t = t0 if d < 0 else t0 + (c - digit[d]) * n ** (2 - d)  # R-OEF-5: position d takes the card
                drew = 0 if d < 0 else 1
                code = max(hand_code[t], 0)
                live = oef_live_wild(bust[code * 2 + drew], has_wild[t])  # R-OEF-6, R-OEF-7
                player[(t0 * n + f) * n + c] = (code * 2 + drew) * 2 + live
            for live in range(2):
                d = dealer_discard[t0 * 2 + live]  # R-OEF-7
                t = t0 if d < 0 else t0 + (c - digit[d]) * n ** (2 - d)
                dealer[(t0 * 2 + live) * n + c] = max(hand_code[t], 0) * 2 + (0 if d < 0 else 1)
    return player, dealer


@njit(cache=True, nogil=True, inline="always")
def oef_heads_up(start, end, decks, deck, rng, scratch, ms, card_class, player, dealer, tables, acc):  # type: ignore[no-untyped-def]
    """Heads-up rounds of the main wager alone, counted by class (the seat's final code and draw, the
    dealer's) and each class settled once with :func:`oef_main`: what :func:`oef_rounds` adds, exactly."""
    category, compare, bust, win_odds = tables
    wager_acc, seat_acc, hist = acc
    cards = scratch[0:8]
    ncodes = category.shape[0]
    counts = scratch[8 : 8 + 4 * ncodes * ncodes]
    counts[:] = 0
    for r in range(start, end):
        load_round(r, 8, decks, deck, rng, cards)  # seat 0, 2, 4; dealer 1, 3 (the Flip Card), 5; draws 6, 7
        t = (card_class[cards[0]] * 14 + card_class[cards[2]]) * 14 + card_class[cards[4]]
        p = np.int64(player[(t * 14 + card_class[cards[3]]) * 14 + card_class[cards[6]]])
        td = (card_class[cards[1]] * 14 + card_class[cards[3]]) * 14 + card_class[cards[5]]
        d = np.int64(dealer[(td * 2 + (p & 1)) * 14 + card_class[cards[6 + ((p >> 1) & 1)]]])
        counts[(p >> 1) * 2 * ncodes + d] += 1
    for cls in range(4 * ncodes * ncodes):
        c = counts[cls]
        if c == 0:
            continue
        p, d = cls // (2 * ncodes), cls % (2 * ncodes)
        code, dcode = p >> 1, d >> 1
        hist[23] += c * (p & 1)
        hist[24] += c * (d & 1)
        hist[10 + category[dcode]] += c
        ret = oef_main(
            wager_acc, hist, bust[code * 2 + (p & 1)], code, dcode, ms, compare, category, win_odds, c
        )
        seat_acc[0, 0] += c * ms
        seat_acc[0, 1] += c * ms
        seat_acc[0, 2] += c * ret
        add_square_times(wager_acc, 0, 4, ret - ms, c)
        add_square_times(seat_acc, 0, 3, ret - ms, c)


@njit(cache=True, nogil=True, inline="always")
def oef_rounds(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    rng,
    scratch,
    nseats,
    main_stake,
    jack_stake,
    flip_stake,
    flip_bet,
    card_class,
    hand_code,
    has_wild,
    category,
    compare,
    bust,
    win_odds,
    dealer_discard,
    jack_meter,
    jack_fixed,
    flip_odds,
    strat,
    wager_acc,
    seat_acc,
    hist,
    hits,
    nhits,
    seat1,
    detail,
):
    """The rounds of :func:`oef_run` (inlined: called with a constant number of seats, its loops unroll)."""
    S = nseats
    k = 4 * (S + 1)
    cards = scratch[0:k]
    hand = scratch[k : k + 3 * S]  # seat s's three cards from 3 * s (not reshaped: no reshape on a GPU)
    code0 = scratch[k + 3 * S : k + 4 * S]
    code = scratch[k + 4 * S : k + 5 * S]
    out = scratch[k + 5 * S : k + 6 * S]
    net_seat = scratch[k + 6 * S : k + 7 * S]
    ret_jack = scratch[k + 7 * S : k + 8 * S]
    dealer = scratch[k + 8 * S : k + 8 * S + 3]
    for r in range(start, end):
        if nhits + S > hits.shape[0]:
            return r, nhits
        load_round(r, k, decks, deck, rng, cards)
        for j in range(3):
            dealer[j] = cards[j * (S + 1) + S]
        flip = dealer[1]
        fcls = card_class[flip]
        nxt = 3 * (S + 1)
        hit_from = nhits
        for s in range(S):
            h = 3 * s
            for j in range(3):
                hand[h + j] = cards[j * (S + 1) + s]
            t = (card_class[hand[h]] * 14 + card_class[hand[h + 1]]) * 14 + card_class[hand[h + 2]]
            code0[s] = hand_code[t]
            d = strat[t * 14 + fcls]
            drew = 0
            if d >= 0:  # R-OEF-5: discard one card and draw one
                hand[h + d] = cards[nxt]
                nxt += 1
                drew = 1
                t = (card_class[hand[h]] * 14 + card_class[hand[h + 1]]) * 14 + card_class[hand[h + 2]]
                hist[23] += 1
            code[s] = hand_code[t]
            out[s] = bust[code[s] * 2 + drew]  # R-OEF-6
            if detail.shape[0] > 0:
                detail[r, s, 3] = drew
        live_wild = 0
        for s in range(S):
            h = 3 * s
            t = (card_class[hand[h]] * 14 + card_class[hand[h + 1]]) * 14 + card_class[hand[h + 2]]
            if oef_live_wild(out[s], has_wild[t]) == 1:  # R-OEF-7, the rules' own function
                live_wild = 1
        td = (card_class[dealer[0]] * 14 + card_class[dealer[1]]) * 14 + card_class[dealer[2]]
        dd = dealer_discard[td * 2 + live_wild]  # R-OEF-7
        if dd >= 0:
            dealer[dd] = cards[nxt]
            nxt += 1
            hist[24] += 1
            td = (card_class[dealer[0]] * 14 + card_class[dealer[1]]) * 14 + card_class[dealer[2]]
        dcode = hand_code[td]
        hist[10 + category[dcode]] += 1
        x_main = 0
        x_jack = 0
        x_fixed = 0
        x_flip = 0
        for s in range(S):
            ms = main_stake[s]
            ret = oef_main(wager_acc, hist, out[s], code[s], dcode, ms, compare, category, win_odds, 1)
            x_main += ret - ms
            units = ms
            seat_ret = ret
            ret_jack[s] = 0
            js = jack_stake[s]
            if js > 0:  # R-OEF-9 on the first three cards
                c0 = code0[s]
                hist[16 + category[c0]] += 1
                if jack_meter[c0] == 1:
                    hits[nhits, 0] = r
                    hits[nhits, 1] = s
                    hits[nhits, 2] = 0
                    nhits += 1
                else:
                    ret_jack[s] = jack_fixed[c0]
                wager_acc[1, 0] += 1
                wager_acc[1, 1] += js
                wager_acc[1, 2] += js
                wager_acc[1, 3] += ret_jack[s]
                wager_acc[2, 0] += 1
                wager_acc[2, 1] += js
                wager_acc[2, 3] += ret_jack[s]
                x_jack += ret_jack[s] - js
                x_fixed += ret_jack[s]
                units += js
                seat_ret += ret_jack[s]
            fs = flip_stake[s]
            fret = 0
            if fs > 0:  # R-OEF-10
                fret = oef_returned_at_odds(fs, flip_odds[flip_bet[s], flip])
                if fret > 0:
                    hist[22] += 1
                wager_acc[3, 0] += 1
                wager_acc[3, 1] += fs
                wager_acc[3, 2] += fs
                wager_acc[3, 3] += fret
                x_flip += fret - fs
                units += fs
                seat_ret += fret
            seat_acc[s, 0] += units
            seat_acc[s, 1] += units
            seat_acc[s, 2] += seat_ret
            net_seat[s] = seat_ret - units
            add_square(seat_acc, s, 3, net_seat[s])
            if detail.shape[0] > 0:
                detail[r, s, 0] = ret
                detail[r, s, 1] = ret_jack[s]
                detail[r, s, 2] = fret
        add_square(wager_acc, 0, 4, x_main)
        add_square(wager_acc, 1, 4, x_jack)
        add_square(wager_acc, 2, 4, x_fixed)
        add_square(wager_acc, 3, 4, x_flip)
        for i in range(hit_from, nhits):
            s = hits[i, 1]
            hits[i, 3] = ret_jack[s] - jack_stake[s]
            hits[i, 4] = x_jack
            hits[i, 5] = net_seat[s]
        if seat1.shape[0] > 0:
            seat1[r] = net_seat[0]
    return end, nhits


@game_kernel
def oef_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    rng,
    scratch,
    nseats,
    main_stake,
    jack_stake,
    flip_stake,
    flip_bet,
    card_class,
    hand_code,
    has_wild,
    category,
    compare,
    bust,
    win_odds,
    dealer_discard,
    jack_meter,
    jack_fixed,
    flip_odds,
    strat,
    player,
    dealer,
    wager_acc,
    seat_acc,
    hist,
    hits,
    nhits,
    seat1,
    detail,
):
    """One Eyed Flush rounds (R-OEF-1..10). Wager rows: 0 main, 1 jackpot, 2 its fixed prizes, 3 flip.
    ``hist``: main [win, push, lose, bust] (4), player final category (6), dealer final category (6),
    jackpot first-three-card category (6), flip hits (1), players who drew (1), dealer draws (1)."""
    main_only = jack_stake[0] == 0 and flip_stake[0] == 0 and seat1.shape[0] == 0 and detail.shape[0] == 0
    if nseats == 1 and main_only and player.shape[0] > 0:  # heads-up, the main wager: counted by class
        tables = (category, compare, bust, win_odds)
        acc = (wager_acc, seat_acc, hist)
        oef_heads_up(
            start, end, decks, deck, rng, scratch, main_stake[0], card_class, player, dealer, tables, acc
        )
        return end, nhits
    if nseats == 1:  # heads-up: the same rounds compiled for one seat (the deal and seat loops unrolled)
        return oef_rounds(
            start,
            end,
            decks,
            deck,
            rng,
            scratch,
            1,
            main_stake,
            jack_stake,
            flip_stake,
            flip_bet,
            card_class,
            hand_code,
            has_wild,
            category,
            compare,
            bust,
            win_odds,
            dealer_discard,
            jack_meter,
            jack_fixed,
            flip_odds,
            strat,
            wager_acc,
            seat_acc,
            hist,
            hits,
            nhits,
            seat1,
            detail,
        )
    return oef_rounds(
        start,
        end,
        decks,
        deck,
        rng,
        scratch,
        nseats,
        main_stake,
        jack_stake,
        flip_stake,
        flip_bet,
        card_class,
        hand_code,
        has_wild,
        category,
        compare,
        bust,
        win_odds,
        dealer_discard,
        jack_meter,
        jack_fixed,
        flip_odds,
        strat,
        wager_acc,
        seat_acc,
        hist,
        hits,
        nhits,
        seat1,
        detail,
    )


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


@lru_cache(maxsize=16)
def oef_tables(rules: oef.OneEyedFlushRules) -> OefTables:
    """One Eyed Flush tables for ``rules`` (R-OEF-1..10), every rule read from the rules object."""
    n3 = N_CLASSES**3
    classes = rules.classes
    triples = [
        t for t in itertools.product(range(N_CLASSES), repeat=3) if classes.representative(t) is not None
    ]
    hand_code = np.full(n3, -1, dtype=np.int64)
    has_wild = np.zeros(n3, dtype=np.int64)
    codes: dict[oef.Hand, int] = {}
    dealer = np.full(n3 * 2, -1, dtype=np.int64)
    for t in triples:
        cards = classes.representative(t)
        assert cards is not None
        hand = rules.evaluate(cards)
        i = triple_index(t)
        hand_code[i] = codes.setdefault(hand, len(codes))
        has_wild[i] = int(rules.holds_wild(cards))
        for w in (0, 1):
            d = rules.dealer_discard(cards, bool(w))
            dealer[i * 2 + w] = -1 if d is None else d
    hands = tuple(codes)
    compare = np.array(
        [oef.compare(p, d, rules.ties) for p in hands for d in hands], dtype=np.int64
    )  # row-major [p, d]
    bust = np.array([int(rules.is_bust(h, bool(drew))) for h in hands for drew in (0, 1)], dtype=np.int64)
    jp = rules.jackpot
    flip = np.array(
        [
            [NO_PRIZE if (o := rules.flip_odds(b, c)) is None else o for c in range(52)]
            for b in oef.ALL_FLIP_BETS
        ],
        dtype=np.int64,
    )
    return OefTables(
        card_class=np.array([classes.card_class(c) for c in range(52)], dtype=np.int64),
        hand_code=hand_code,
        has_wild=has_wild,
        hands=hands,
        category=np.array([int(h.category) for h in hands], dtype=np.int64),
        compare=compare,
        bust=bust,
        win_odds=np.array([rules.win_odds(h.category) for h in hands], dtype=np.int64),
        dealer_discard=dealer,
        jackpot_meter=np.array([int(h.category == jp.meter_category) for h in hands], dtype=np.int64),
        jackpot_fixed=np.array([jp.prize(h.category) for h in hands], dtype=np.int64),
        flip_odds=flip,
        meter_reset=jp.reset_cents,
    )


def heads_up_tables(t: OefTables, strat: I64) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """:func:`oef_heads_up_tables` for ``t`` and the strategy ``strat`` (empty when there are more than
    :data:`HEADS_UP_CODES` hand codes: the rounds are then played one by one)."""
    if len(t.hands) > HEADS_UP_CODES:
        return np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint8)
    return oef_heads_up_tables(strat, t.hand_code, t.has_wild, t.bust, t.dealer_discard)  # type: ignore[no-any-return]


def flip_bet_index(bet: oef.FlipBet) -> int:
    return oef.ALL_FLIP_BETS.index(bet)


class OneEyedFlushKernel(Kernel):
    detail_width = D_OEF
    meter_row_name = "jackpot meter"
    components = frozenset({"jackpot fixed prizes", "jackpot meter"})

    def kernel(self) -> Any:
        return oef_run

    def prepare(self, rules: oef.OneEyedFlushRules, wagers: Any, seats: int, strategy: str) -> KernelJob:
        w, ones = wagers, np.ones(seats, dtype=np.int64)
        t2 = oef_tables(rules)
        st = named_strategy_tables(rules, strategy)
        flip_idx = flip_bet_index(oef.FlipBet.parse(w.option(oef.DEFINITION, "flip")))
        args = (
            w.main * ones,
            w.side("jackpot") * ones,
            w.side("flip") * ones,
            flip_idx * ones,
            t2.card_class,
            t2.hand_code,
            t2.has_wild,
            t2.category,
            t2.compare,
            t2.bust,
            t2.win_odds,
            t2.dealer_discard,
            t2.jackpot_meter,
            t2.jackpot_fixed,
            t2.flip_odds,
            st.oef_discard,
            *heads_up_tables(t2, st.oef_discard),
        )
        return KernelJob(
            deal_cards=4 * (seats + 1),
            wager_rows=("main", "jackpot", "jackpot fixed prizes", "flip"),
            hist_size=25,
            args=args,
            meter_row=1,
        )

    def strategy_tables(self, rules: oef.OneEyedFlushRules, decide: Decide) -> StrategyTables:
        """The decision at every *ordered* class triple and Flip Card class: the cards in the seat's order, so
        a strategy that breaks an exact tie by the card's position (the engine's bots: the lower index) makes
        the same choice here as at the table."""
        n3 = N_CLASSES**3
        classes = rules.classes
        table = np.full(n3 * N_CLASSES, -1, dtype=np.int64)
        for ordered in itertools.product(range(N_CLASSES), repeat=3):
            cards = classes.representative(ordered)
            if cards is None:
                continue
            for f in range(N_CLASSES):
                flip = classes.representative([f], cards)
                if flip is None:
                    continue
                act = decide(oef.OefDecision(tuple(cards), flip[0], rules.wild_cards, rules.bust_limit))
                if act.index is not None:
                    table[triple_index(ordered) * N_CLASSES + f] = act.index
        return StrategyTables({"oef_discard": table})

    def hand_key(self, context: oef.OefDecision) -> str:
        card_class = oef.card_classes(context.wild).card_class  # the table's wild cards
        cls = sorted((card_class(c) for c in context.cards), reverse=True)
        return "".join(CLASS_LETTERS[k] for k in cls) + "|" + CLASS_LETTERS[card_class(context.flip_card)]

    def file_action(self, text: str, context: oef.OefDecision) -> Action | None:
        """``stand`` or ``discard X``, X the class letter of the card to throw."""
        if text == "stand":
            return STAND
        parts = text.split()
        if len(parts) == 2 and parts[0] == "discard" and len(parts[1]) == 1:
            k = CLASS_LETTERS.find(parts[1].upper())
            card_class = oef.card_classes(context.wild).card_class
            for i, c in enumerate(context.cards):
                if card_class(c) == k:
                    return discard(i)
            raise StrategyError(f"strategy file: {text!r} names a card not in {self.hand_key(context)}")
        return None

    def outcomes(self, block: Block, hist: Sequence[int], counts: Sequence[int], rounds: int) -> None:
        h, hands = hist, counts[0]
        cats = [enum_key(x) for x in oef.Category]
        block("main", ["win", "push", "lose", "bust"], h[0:4], hands)
        block("player final hand", cats, h[4:10], hands)
        block("dealer final hand", cats, h[10:16], rounds)
        block("jackpot (first three cards)", cats, h[16:22], counts[1])
        block("flip", ["hit"], h[22:23], counts[3])
        block("draws", ["players who drew"], h[23:24], hands)
        block("dealer draws", ["dealer drew"], h[24:25], rounds)

    def engine_detail(self, history: Sequence[Event], seats: int) -> I64:
        """Per seat: main, jackpot (its meter part excluded) and flip returned, and whether the seat drew."""
        out = np.zeros((seats, self.detail_width), dtype=np.int64)
        col = {"main": 0, "jackpot": 1, "flip": 2}
        for e in settled(history):
            out[e.seat - 1, col[e.wager]] = e.returned - e.meter_cents
        for ev in history:
            if isinstance(ev, ActionTaken) and ev.action.startswith("discard"):
                out[ev.seat - 1, 3] = 1
        return out


KERNEL = OneEyedFlushKernel()

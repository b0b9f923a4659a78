"""Numba kernels: many whole rounds per call, every seat and wager, settled exactly as the round engine does.

Each kernel plays rounds ``start .. end-1`` of one chunk and returns ``(round reached, buffer position,
number of hits)``; it stops early only when its random-word buffer or its hit buffer runs low, and the
caller refills and calls again (deterministic: the same chunk always consumes the same words).

Cards come either from given decks (``decks[r]`` in deal order: equivalence tests against the engine) or
from a partial Fisher–Yates shuffle driven by 32-bit words of a NumPy ``PCG64`` stream, drawn without bias by
Lemire's multiply-and-reject method (R-0.1).  Only the prefix of the deck a round can use is shuffled.

Deal order (R-0.2): card ``p`` (0, 1, 2) of seat ``s`` (0-based) is at position ``p * (S + 1) + s``, the
dealer's at ``p * (S + 1) + S``; One Eyed Flush draws follow at ``3 * (S + 1)`` in seat order, then the dealer.

Jackpot meters are sequential across rounds, so kernels only *record* meter hits (round, seat, meter and the
nets needed to correct the sums afterwards); :mod:`tablegames.simulation.meters` pays them exactly in order.

Accumulators (int64, merged by addition):

* ``wager_acc[w] = [wagers, units, staked, returned, sum of x^2 (high part, low 32 bits)]`` where ``x`` is the round's net of wager
  type ``w`` over all seats (``units``: sum of initial wagers, the denominator of the house edge);
* ``seat_acc[s] = [units, staked, returned, sum of x^2 (high, low)]`` with ``x`` the seat's net of the round;
* ``hist``: outcome counts (layout per game in :mod:`tablegames.simulation.games`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

HIT_FIELDS = 6  # round, seat, meter, seat's progressive net (meter excluded), round's, seat's total net
D_LIR, D_OEF, D_FC = 8, 4, 2  # detail columns per seat


@njit(cache=True, nogil=True)
def deal_prefix(deck, k, buf, pos):  # type: ignore[no-untyped-def]
    """Shuffle the first ``k`` places of ``deck`` (partial Fisher–Yates); -1 when ``buf`` runs out."""
    nbuf = buf.shape[0]
    mask = np.uint64(0xFFFFFFFF)
    for i in range(k):
        n = np.uint64(52 - i)
        while True:
            if pos >= nbuf:
                return -1
            m = np.uint64(buf[pos]) * n
            pos += 1
            low = m & mask
            if low >= n:
                break
            if low >= (np.uint64(4294967296) - n) % n:  # Lemire: reject the few biased values
                break
        j = i + np.int64(m >> np.uint64(32))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    return pos


@njit(cache=True, nogil=True, inline="always")
def load_round(r, k, decks, deck, buf, pos, cards):  # type: ignore[no-untyped-def]
    """Put round ``r``'s first ``k`` cards into ``cards``: row ``r`` of the given ``decks`` when there are any,
    else a partial shuffle of ``deck`` from ``buf``. Returns the new buffer position; -1 when ``buf`` may not
    hold a whole deal (the caller refills it first), -2 when it ran out during the deal."""
    if decks.shape[0] > 0:
        for i in range(k):
            cards[i] = decks[r, i]
        return pos
    if pos + k > buf.shape[0]:
        return -1
    p = deal_prefix(deck, k, buf, pos)
    if p < 0:
        return -2
    for i in range(k):
        cards[i] = deck[i]
    return p


@njit(cache=True, nogil=True, inline="always")
def add_square(acc, i, j, x):  # type: ignore[no-untyped-def]
    """acc[i, j] (high part) and acc[i, j + 1] (low 32 bits) += x * x: exact, no int64 overflow in a chunk."""
    q = x * x
    acc[i, j] += q >> 32
    acc[i, j + 1] += q & 0xFFFFFFFF


@njit(cache=True, nogil=True)
def lir_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    buf,
    pos,
    nseats,
    bet,
    bonus_stake,
    prog_stake,
    five,
    bonus3,
    first,
    second,
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
    cards = np.empty(k, dtype=np.int64)
    hand = np.empty(S, dtype=np.int64)
    ret_prog = np.empty(S, dtype=np.int64)
    net_seat = np.empty(S, dtype=np.int64)
    envy_seat = np.empty(S, dtype=np.int64)
    for r in range(start, end):
        if nhits + S > hits.shape[0]:
            return r, pos, nhits
        p = load_round(r, k, decks, deck, buf, pos, cards)
        if p < 0:
            return r, (pos if p == -1 else buf.shape[0]), nhits
        pos = p
        c1 = cards[S + 1 + S]  # dealer's second card: first community card (the first is burnt)
        c2 = cards[2 * (S + 1) + S]
        x_bets = 0
        x_bonus = 0
        x_prog = 0
        x_fixed = 0
        hit_from = nhits
        for s in range(S):
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
            hand[s] = h
            up = 1 + ride1 + ride2
            u = bet[s]
            staked = 3 * u
            returned = (2 - ride1 - ride2) * u  # pulled bets come back (R-LIR-2, R-LIR-3)
            base_ret = 0
            odds = main_odds[h]
            if odds >= 0:
                win = up * u * odds
                if win > cap:
                    win = cap  # R-LIR-5
                base_ret = up * u + win
            returned += base_ret
            hist[h * 4 + up] += 1
            wager_acc[0, 0] += 1
            wager_acc[0, 1] += u
            wager_acc[0, 2] += staked
            wager_acc[0, 3] += returned
            x_bets += returned - staked
            seat_units = u
            seat_staked = staked
            seat_ret = returned
            bonus_ret = 0
            bs = bonus_stake[s]
            if bs > 0:
                bh = np.int64(bonus3[f3 * 2197 + i3])
                bo = bonus_odds[bh]
                if bo >= 0:
                    bonus_ret = bs * (bo + 1)
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
    return end, pos, nhits


@njit(cache=True, nogil=True)
def oef_run(  # type: ignore[no-untyped-def]
    start,
    end,
    decks,
    deck,
    buf,
    pos,
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
    ncodes,
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
    """One Eyed Flush rounds (R-OEF-1..10). Wager rows: 0 main, 1 jackpot, 2 its fixed prizes, 3 flip.
    ``hist``: main [win, push, lose, bust] (4), player final category (6), dealer final category (6),
    jackpot first-three-card category (6), flip hits (1), players who drew (1), dealer draws (1)."""
    S = nseats
    k = 4 * (S + 1)
    cards = np.empty(k, dtype=np.int64)
    hand = np.empty((S, 3), dtype=np.int64)
    code0 = np.empty(S, dtype=np.int64)
    code = np.empty(S, dtype=np.int64)
    out = np.empty(S, dtype=np.int64)
    dealer = np.empty(3, dtype=np.int64)
    net_seat = np.empty(S, dtype=np.int64)
    ret_jack = np.empty(S, dtype=np.int64)
    for r in range(start, end):
        if nhits + S > hits.shape[0]:
            return r, pos, nhits
        p = load_round(r, k, decks, deck, buf, pos, cards)
        if p < 0:
            return r, (pos if p == -1 else buf.shape[0]), nhits
        pos = p
        for j in range(3):
            dealer[j] = cards[j * (S + 1) + S]
        flip = dealer[1]
        fcls = card_class[flip]
        nxt = 3 * (S + 1)
        hit_from = nhits
        for s in range(S):
            for j in range(3):
                hand[s, j] = cards[j * (S + 1) + s]
            t = (card_class[hand[s, 0]] * 14 + card_class[hand[s, 1]]) * 14 + card_class[hand[s, 2]]
            code0[s] = hand_code[t]
            d = strat[t * 14 + fcls]
            drew = 0
            if d >= 0:  # R-OEF-5: discard one card and draw one
                hand[s, d] = cards[nxt]
                nxt += 1
                drew = 1
                t = (card_class[hand[s, 0]] * 14 + card_class[hand[s, 1]]) * 14 + card_class[hand[s, 2]]
                hist[23] += 1
            code[s] = hand_code[t]
            out[s] = bust[code[s] * 2 + drew]  # R-OEF-6
            if detail.shape[0] > 0:
                detail[r, s, 3] = drew
        live_wild = 0
        for s in range(S):
            if out[s] == 0:
                t = (card_class[hand[s, 0]] * 14 + card_class[hand[s, 1]]) * 14 + card_class[hand[s, 2]]
                if has_wild[t] == 1:
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
            ret = 0
            if out[s] == 1:
                hist[3] += 1
            else:
                res = compare[code[s] * ncodes + dcode]  # R-OEF-3
                if res > 0:
                    ret = ms * (1 + win_odds[code[s]])  # R-OEF-8
                    hist[0] += 1
                elif res == 0:
                    ret = ms
                    hist[1] += 1
                else:
                    hist[2] += 1
            hist[4 + category[code[s]]] += 1
            wager_acc[0, 0] += 1
            wager_acc[0, 1] += ms
            wager_acc[0, 2] += ms
            wager_acc[0, 3] += ret
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
                o = flip_odds[flip_bet[s], flip]
                if o >= 0:
                    fret = fs * (o + 1)
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
    return end, pos, nhits


@njit(cache=True, nogil=True)
def fc_run(  # type: ignore[no-untyped-def]
    start, end, decks, deck, buf, pos, nseats, stake, value, turn, wager_acc, seat_acc, hist, seat1, detail
):
    """Final Count rounds (R-FC-1..5). Wager row 0: main. ``hist``: [win (dealer odd), win (higher), push,
    lose (lower), lose (odd total)], turned by choice, turned by the dealer (odd two-card total), stood."""
    S = nseats
    k = 3 * (S + 1)
    cards = np.empty(k, dtype=np.int64)
    for r in range(start, end):
        p = load_round(r, k, decks, deck, buf, pos, cards)
        if p < 0:
            return r, (pos if p == -1 else buf.shape[0])
        pos = p
        dt = value[cards[S]] + value[cards[2 * S + 1]] + value[cards[3 * S + 2]]
        x = 0
        for s in range(S):
            a = cards[s]
            b = cards[S + 1 + s]
            c = cards[2 * (S + 1) + s]
            two = value[a] + value[b]
            if two % 2 == 1:  # R-FC-3
                turned = 1
                hist[6] += 1
            else:  # R-FC-4
                d0 = cards[S]
                d1 = cards[2 * S + 1]
                turned = turn[(((a >> 2) * 13 + (b >> 2)) * 13 + (d0 >> 2)) * 13 + (d1 >> 2)]
                hist[5 if turned == 1 else 7] += 1
            ms = stake[s]
            if turned == 1 and (two + value[c]) % 2 == 1:
                ret = 0
                hist[4] += 1
            else:
                tot = two + value[c] if turned == 1 else two
                if dt % 2 == 1:  # R-FC-5: the dealer busts
                    ret = 2 * ms
                    hist[0] += 1
                elif tot > dt:
                    ret = 2 * ms
                    hist[1] += 1
                elif tot == dt:
                    ret = ms
                    hist[2] += 1
                else:
                    ret = 0
                    hist[3] += 1
            wager_acc[0, 0] += 1
            wager_acc[0, 1] += ms
            wager_acc[0, 2] += ms
            wager_acc[0, 3] += ret
            x += ret - ms
            seat_acc[s, 0] += ms
            seat_acc[s, 1] += ms
            seat_acc[s, 2] += ret
            add_square(seat_acc, s, 3, ret - ms)
            if s == 0 and seat1.shape[0] > 0:
                seat1[r] = ret - ms
            if detail.shape[0] > 0:
                detail[r, s, 0] = ret
                detail[r, s, 1] = turned
        add_square(wager_acc, 0, 4, x)
    return end, pos

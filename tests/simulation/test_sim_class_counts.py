"""The kernels' heads-up fast path (issue 28: a round counted by its class, each class settled once at the end
of the call) proven equal to the round-by-round path (each round's net kept, ``keep_seat1``), exactly: on
complete subtrees of deals (every ordered deal of the cards still unseen at the chosen positions) and on seeded
chunks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from tablegames.cards import parse_cards
from tablegames.rules import make_rules
from tablegames.simulation import make_job
from tablegames.simulation.job import ChunkResult, Job, count_decks, run_chunk
from tablegames.simulation.let_it_ride import lir_bets_up_table
from tablegames.simulation.strategy import named_strategy_tables

# Heads-up deal order: the seat's cards at 0, 2, 4, the dealer's at 1, 3, 5.
SUBTREES = {
    # the community cards (3, 5) of every ordered pair of the 48 unseen (the dealer's first card is burnt)
    "let-it-ride": ([3, 5], ["Ah Kh Qh", "Tc Ts 9d", "2c 7d 9s", "5h 6h 8h", "Jd Jc Js"]),
    # the dealer's three cards of every ordered triple of the 49 unseen
    "three-card-poker": ([1, 3, 5], ["Qs 6d 4c", "Ah Kh Qh", "7c 7d 2s"]),
    "final-count": ([1, 3, 5], ["Ah 3d 9c", "Kc Kd 5h", "8s 2c 6d"]),
    # eight places, the draws at 6 and 7: the Flip Card (3) and both draws of every ordered triple of the 49
    # unseen, then the dealer's three cards (1, 3, 5); seats that stand, draw, hold one-eyed jacks (wild)
    "one-eyed-flush": ([3, 6, 7], ["2c 7d 9s", "Jh Js 5d", "Kd 4c 4h"]),
}
MORE_SUBTREES = {"one-eyed-flush": ([1, 3, 5], ["Jh 8c 8d", "6s 7s Qs"])}
SIZE = {"one-eyed-flush": 8}


def subtree_decks(player: str, free: list[int], size: int = 6) -> np.ndarray:
    """Every deck (its first ``size`` places) dealing ``player`` to the seat, the other fixed places from the
    lowest unseen cards, and every ordered choice of the unseen cards at the ``free`` places."""
    own = [int(c) for c in parse_cards(player)]
    unseen = [c for c in range(52) if c not in own]
    fixed = [p for p in range(size) if p not in (0, 2, 4) and p not in free]
    rows = []
    for choice in itertools.permutations(unseen, len(free)):
        rest = iter(c for c in unseen if c not in choice)
        deck = dict(zip((0, 2, 4), own, strict=True)) | dict(zip(free, choice, strict=True))
        deck |= {p: next(rest) for p in fixed}
        rows.append([deck[p] for p in range(size)])
    return np.array(rows, dtype=np.int64)


def same_counts(a: ChunkResult, b: ChunkResult) -> None:
    assert a.wager_acc.tolist() == b.wager_acc.tolist()
    assert a.seat_acc.tolist() == b.seat_acc.tolist()
    assert a.hist.tolist() == b.hist.tolist()
    assert a.hits.tolist() == b.hits.tolist()


def heads_up(game: str, rounds: int = 0, strategy: str = "optimal") -> Job:
    return make_job(make_rules(game), rounds, strategy=strategy, seed=5)


@pytest.mark.parametrize(
    ("game", "subtrees"),
    [(g, SUBTREES) for g in sorted(SUBTREES)] + [(g, MORE_SUBTREES) for g in MORE_SUBTREES],
)
def test_class_counts_equal_round_by_round_on_complete_subtrees(game: str, subtrees: dict[str, Any]) -> None:
    free, players = subtrees[game]
    job = heads_up(game)
    for player in players:
        decks = subtree_decks(player, free, SIZE.get(game, 6))
        fast, slow = count_decks(job, decks), count_decks(job, decks, keep_seat1=True)
        same_counts(fast, slow)
        assert int(fast.wager_acc[0, 0]) == len(decks)
        assert fast.wager_acc[0, 4:].any()  # the sums of squares were settled by class too


@pytest.mark.parametrize("game", sorted(SUBTREES))
@pytest.mark.parametrize("strategy", ["optimal", "basic"])
def test_class_counts_equal_round_by_round_on_seeded_chunks(game: str, strategy: str) -> None:
    job = heads_up(game, 3 << 16, strategy)
    for i in range(job.chunks):
        same_counts(run_chunk(job, i), run_chunk(job, i, keep_seat1=True))


def test_bets_up_table_is_the_two_decisions_composed() -> None:
    """Every entry of Let It Ride's bets-up table: 1 + bet 1 ridden + bet 2 ridden (given bet 1)."""
    rules: Any = make_rules("let-it-ride")
    st = named_strategy_tables(rules, "optimal", 500)
    first, second = st.lir_first.astype(np.int64), st.lir_second.astype(np.int64)
    table = lir_bets_up_table(st.lir_first, st.lir_second)
    r4 = 13**4
    for flags, (f3, f4) in enumerate(((0, 0), (1, 0), (1, 1))):
        for i4 in range(r4):
            ride1 = first[f3 * 2197 + i4 // 13]
            assert table[flags * r4 + i4] == 1 + ride1 + second[(ride1 * 2 + f4) * r4 + i4]


def test_one_eyed_flush_heads_up_tables_entry_by_entry() -> None:
    """Every entry of the heads-up lookups (``oef_heads_up_tables``) of a possible class triple is the round's
    steps composed: the strategy's discard (R-OEF-5), the final hand's code, bust (R-OEF-6) and live wild card,
    the dealer's discard against it (R-OEF-7)."""
    from tablegames.rules.one_eyed_flush_hands import live_wild
    from tablegames.simulation.one_eyed_flush import heads_up_tables, oef_tables

    rules: Any = make_rules("one-eyed-flush")
    t = oef_tables(rules)
    strat = named_strategy_tables(rules, "optimal").oef_discard
    player, dealer = heads_up_tables(t, strat)
    n = 14
    t0, f, c = (a.ravel() for a in np.indices((n**3, n, n)))
    ok = t.hand_code[t0] >= 0
    digits = np.stack([t0 // (n * n), (t0 // n) % n, t0 % n])
    d = strat[t0 * n + f]
    drew = (d >= 0).astype(np.int64)
    pos = np.maximum(d, 0)
    final = np.where(drew == 1, t0 + (c - digits[pos, np.arange(t0.size)]) * n ** (2 - pos), t0)
    code = np.maximum(t.hand_code[final], 0)
    busted, wilds = t.bust[code * 2 + drew], t.has_wild[final]
    live = np.zeros_like(busted)
    for b, w in {(int(b), int(w)) for b, w in zip(busted[ok], wilds[ok], strict=True)}:
        live[(busted == b) & (wilds == w)] = live_wild(b, w)
    got = player[(t0 * n + f) * n + c].astype(np.int64)
    assert (got[ok] == ((code * 2 + drew) * 2 + live)[ok]).all()
    assert set(np.unique(live[ok])) == {0, 1} and set(np.unique(drew[ok])) == {0, 1}
    for lw in (0, 1):
        d = t.dealer_discard[t0 * 2 + lw]
        drew = (d >= 0).astype(np.int64)
        pos = np.maximum(d, 0)
        final = np.where(drew == 1, t0 + (c - digits[pos, np.arange(t0.size)]) * n ** (2 - pos), t0)
        got = dealer[(t0 * 2 + lw) * n + c].astype(np.int64)
        assert (got[ok] == (np.maximum(t.hand_code[final], 0) * 2 + drew)[ok]).all()


def test_final_count_category_table_is_the_rules_function() -> None:
    """Every entry of Final Count's category table (R-FC-3..5): ``category_of`` of the final total (odd: lost)
    against the dealer's, for every pair of totals the table's card values make."""
    from tablegames.rules.final_count import category_of
    from tablegames.simulation.final_count import fc_category_table

    table = fc_category_table(40)
    assert [[int(x) for x in row] for row in table] == [
        [category_of(tot & 1, tot, dt) for dt in range(40)] for tot in range(40)
    ]

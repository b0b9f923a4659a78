"""Three Card Poker's kernel settles as the engine under random valid rule sets (issue 15): every wager of
every seat on random decks and on stacked ones (ties, A-2-3, the dealer just qualifying or not, every bonus
hand), with the basic strategy and, where the optimal one is the same for every suit pattern of a rank
pattern (the kernel's strategy table is by ranks and suitedness), with the optimal strategy."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.analysis import three_card_poker as tcpa
from tablegames.rules import make_rules, registry
from tablegames.rules.parameters import LOSES, Parameter
from tablegames.simulation.job import Wagers, make_job, run_decks
from tablegames.simulation.strategy import optimal_advisor

from .sim_helpers import engine_detail, random_decks, stacked

GAME = "three-card-poker"
PARAMS = [p for p in registry.get(GAME).parameters if p.listed and p.kind != "text"]

STACKED = [
    stacked(3, {1: "Qh 9d 8c", 2: "Ah 2d 3c", 3: "4h 5h 6h"}, dealer="Qs 9c 8s"),  # a tie; A-2-3; SF
    stacked(3, {1: "Kh Kd Kc", 2: "2h 7h 9h", 3: "Th Td 2c"}, dealer="Jh 3d 2s"),  # trips, flush, pair
    stacked(3, {1: "Qh 6d 4c", 2: "Qc 6s 3h", 3: "Ac Ks Qd"}, dealer="Kh 3c 2d"),  # the strategy's edge
    stacked(3, {1: "5d 3h 2c", 2: "Ad 4s 2h", 3: "Jc Ts 8d"}, dealer="2s 2d 3s"),  # the weakest pair
    stacked(3, {1: "Ah Kd Jc", 2: "9s 8s 7s", 3: "6c 6h Ad"}, dealer="Ac 4d 2d"),  # the weakest ace high
]


def _value(p: Parameter) -> st.SearchStrategy[str]:
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "int":
        return st.integers(0, 4).map(str)
    return st.one_of(st.just(LOSES), st.integers(0, 80).map(str))


@st.composite
def rule_sets(draw: st.DrawFn) -> dict[str, str]:
    chosen = draw(st.lists(st.sampled_from(PARAMS), min_size=1, max_size=8, unique_by=lambda p: p.name))
    return {p.name: draw(_value(p)) for p in chosen}


def _same_for_every_suit_pattern(plays: np.ndarray) -> bool:
    t = tcpa._hands()
    r = t.ranks
    key = t.flush.astype(np.int64) * 4096 + (r[:, 0] * 16 + r[:, 1]) * 16 + r[:, 2]
    n_play = np.bincount(key, weights=plays, minlength=8192)
    n_all = np.bincount(key, minlength=8192)
    return bool(np.all((n_play == 0) | (n_play == n_all)))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=rule_sets(), seed=st.integers(0, 10**6))
def test_random_rule_sets_kernel_equals_engine(options: dict[str, str], seed: int) -> None:
    rules = make_rules(GAME, options)
    decks = [*STACKED, *random_decks(60, f"tcp-sim-{seed}")]
    strategies = ["basic"]
    if _same_for_every_suit_pattern(tcpa.optimal_strategy(rules).plays):
        strategies.append("optimal")
    for strategy in strategies:
        wagers = Wagers(500, **{"pair-plus": 300})
        job = make_job(rules, len(decks), seats=3, wagers=wagers, strategy=strategy)
        advisor = optimal_advisor(rules, 500) if strategy == "optimal" else None
        expected, _ = engine_detail(rules, decks, job, advisor)
        res, detail = run_decks(job, np.array(decks))
        bad = np.argwhere((detail != expected).any(axis=2))
        assert len(bad) == 0, (
            f"{options} {strategy}: round {bad[0][0]} seat {bad[0][1] + 1}: "
            f"kernel {detail[tuple(bad[0])]} engine {expected[tuple(bad[0])]}"
        )
        assert res.wager_acc[0, 3] == detail[:, :, 0].sum()  # the counts agree with the detail

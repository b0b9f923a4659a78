"""Kernel ≡ engine for every registered game with a kernel, without naming it: on random decks with every
side bet at every seat, at the largest wager (the payout cap), with the basic and the optimal strategy, plus
the stacked decks a game's tests list (meters hit twice in a round, Envy, the cap). A game added later
inherits these tests by registering a kernel adapter."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.rules import registry
from tablegames.simulation.job import MAX_WAGER_CENTS, make_job, parse_side_bets, run_decks
from tablegames.simulation.meters import MeterBook
from tablegames.simulation.strategy import optimal_advisor

from .sim_helpers import engine_detail, random_decks, stacked

KERNELED = [d for d in registry.DEFINITIONS if d.kernel is not None]

STACKED: dict[str, list[list[int]]] = {
    # two Major hits and Envy both ways; two Minor hits; a royal flush; three royal-flush draws
    "let-it-ride": [
        stacked(3, {1: "Qh Jh Th", 2: "2c 7d 9s", 3: "7h 6h 5h"}, dealer="Ac 9h 8h"),
        stacked(3, {1: "8c 8s 8d", 2: "Kd 4c 2s", 3: "9c 9s 9h"}, dealer="2d 8h 9d"),
        stacked(3, {1: "2c 3d 5s", 2: "As Ks Qs", 3: "4h 4d 7c"}, dealer="2h Js Ts"),
        stacked(3, {1: "Ac Kc Qc", 2: "Ah Kh Qh", 3: "Ad Kd Qd"}, dealer="2s Jc Tc"),
    ],
    # the One Eyed Flush on the first three cards (the jackpot meter); a wild at every seat, a ten-value flip
    "one-eyed-flush": [
        stacked(3, {1: "Jh Js Kd", 2: "2c 7d 9s", 3: "5h 5d 5c"}, dealer="3c 4d 8s"),
        stacked(3, {1: "Jh 2s 3d", 2: "Js 7d 9s", 3: "Kd 5d 5c"}, dealer="3c Qh 8s"),
    ],
}


def check(
    definition: registry.GameDefinition, seats: int, main: int, decks: list[list[int]], strategy: str
) -> list[tuple[int, int, str, int]]:
    rules = definition.make_rules()
    wagers = parse_side_bets(definition.key, [w.name for w in definition.side_bets], rules, main)
    job = make_job(rules, len(decks), seats=seats, wagers=wagers, strategy=strategy)
    advisor = optimal_advisor(rules, main) if strategy == "optimal" else None
    expected, engine_hits = engine_detail(rules, decks, job, advisor)
    res, detail = run_decks(job, np.array(decks))
    bad = np.argwhere((detail != expected).any(axis=2))
    assert len(bad) == 0, (
        f"round {bad[0][0]} seat {bad[0][1] + 1}: kernel {detail[tuple(bad[0])]} engine {expected[tuple(bad[0])]}"
    )
    amounts = MeterBook(job.meters, job.per_round).pay(res.hits)
    kernel_hits = [
        (int(h[0]), int(h[1]), job.meters[int(h[2])].name, a) for h, a in zip(res.hits, amounts, strict=True)
    ]
    assert kernel_hits == engine_hits
    return kernel_hits


@pytest.mark.parametrize("definition", KERNELED, ids=lambda d: d.key)
@pytest.mark.parametrize("strategy", ["basic", "optimal"])
def test_kernel_equals_engine_with_every_wager(definition: registry.GameDefinition, strategy: str) -> None:
    if strategy == "optimal" and definition.analyzer is None:
        pytest.skip("no exact analyzer")
    check(definition, 3, 500, random_decks(150, f"registry-{definition.key}-{strategy}"), strategy)


@pytest.mark.parametrize("definition", KERNELED, ids=lambda d: d.key)
def test_kernel_equals_engine_at_the_largest_wager_and_on_stacked_decks(
    definition: registry.GameDefinition,
) -> None:
    """The largest wager (where a payout cap bites) on 7 seats, and the game's stacked decks on 3 seats."""
    check(definition, 7, MAX_WAGER_CENTS, random_decks(120, f"registry-cap-{definition.key}"), "basic")
    decks = STACKED.get(definition.key, [])
    if decks:
        assert check(definition, 3, 500, decks, "basic")  # the stacked decks do hit the meters

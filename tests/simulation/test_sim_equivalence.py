"""The kernels settle exactly as the round engine: same decks, same strategy, identical settlements
(every wager of every seat, Envy payments, meter hits and amounts) for every game and variant."""

from __future__ import annotations

import numpy as np
import pytest

from tablegames.engine.bots import Advisor
from tablegames.rules import make_rules
from tablegames.simulation.job import Wagers, make_job, run_decks
from tablegames.simulation.meters import MeterBook
from tablegames.simulation.strategy import analysis_module, optimal_advisor

from .sim_helpers import engine_detail, random_decks, stacked


def check(
    game: str,
    options: dict[str, str],
    seats: int,
    wagers: Wagers,
    decks: list[list[int]],
    strategy: str = "basic",
) -> tuple[np.ndarray, list[tuple[int, int, str, int]]]:
    rules = make_rules(game, options)
    job = make_job(rules, len(decks), seats=seats, wagers=wagers, strategy=strategy)
    advisor: Advisor | None = optimal_advisor(rules, wagers.main) if strategy == "optimal" else None
    expected, engine_hits = engine_detail(rules, decks, job, advisor)
    res, detail = run_decks(job, np.array(decks))
    mismatch = np.argwhere((detail != expected).any(axis=2))
    assert len(mismatch) == 0, (
        f"first mismatch round {mismatch[0][0]} seat {mismatch[0][1] + 1}: "
        f"kernel {detail[tuple(mismatch[0])]} engine {expected[tuple(mismatch[0])]}"
    )
    amounts = MeterBook(job.meters, job.per_round).pay(res.hits)
    kernel_hits = [
        (int(h[0]), int(h[1]), job.meters[int(h[2])].name, a) for h, a in zip(res.hits, amounts, strict=True)
    ]
    assert kernel_hits == engine_hits
    # The counts agree with the detail: total returned and staked of the main wager.
    if game == "final-count":
        assert res.wager_acc[0, 3] == detail[:, :, 0].sum()
    return detail, kernel_hits


LIR_SPECIAL = [
    # Two straight flushes in one round: the Major meter pays seat 1, then seat 3 from its reset (R-LIR-7);
    # each hitter pays the Envy Bonus to every other progressive seat (R-LIR-8).
    stacked(3, {1: "Qh Jh Th", 2: "2c 7d 9s", 3: "7h 6h 5h"}, dealer="Ac 9h 8h"),
    # Two Minor meter hits (quads) in one round, and a royal flush at seat 2.
    stacked(3, {1: "8c 8s 8d", 2: "Kd 4c 2s", 3: "9c 9s 9h"}, dealer="2d 8h 9d"),
    stacked(3, {1: "2c 3d 5s", 2: "As Ks Qs", 3: "4h 4d 7c"}, dealer="2h Js Ts"),
    stacked(3, {1: "Ac Kc Qc", 2: "Ah Kh Qh", 3: "Ad Kd Qd"}, dealer="2s Jc Tc"),
]


@pytest.mark.parametrize("paytable", ["seed", "50-40-30-6-3-1", "50-40-30-6-4-1"])
def test_let_it_ride_multi_seat_with_side_bets(paytable: str) -> None:
    """R-LIR-1..8 with 3 seats, bonus and progressive, random and stacked decks (meters and Envy)."""
    decks = LIR_SPECIAL + random_decks(400, f"lir-{paytable}") + LIR_SPECIAL
    detail, hits = check(
        "let-it-ride", {"bonus-paytable": paytable}, 3, Wagers(500, bonus=500, progressive=100), decks
    )
    assert [h[:3] for h in hits[:3]] == [(1, 0, "major"), (1, 2, "major"), (2, 0, "minor")]
    assert hits[1][3] == 500_000  # the second hit of one meter in one round is paid from the reset value
    assert detail[0, 1, 6] == 2 * 30_000  # Envy from two straight flushes
    assert detail[2, 1, 6] == 0 and detail[2, 0, 6] == 100_000  # a royal: Envy to the others, none to self


def test_let_it_ride_heads_up_and_full_table_cap() -> None:
    """One seat with no side bets; seven seats with $25,000 bets so the $50,000 cap (R-LIR-5) binds."""
    check("let-it-ride", {}, 1, Wagers(500), random_decks(300, "lir-1"))
    decks = [stacked(7, {1: "Ah Kh Qh", 4: "Tc Td 2s"}, dealer="3c Jh Th"), *random_decks(150, "lir-7")]
    detail, _ = check("let-it-ride", {}, 7, Wagers(2_500_000, progressive=100), decks)
    assert detail[0, 0, 3] == 3 * 2_500_000 + 5_000_000


OEF_OPTIONS = [
    {},
    {"ties": "tournament"},
    {"bust": "always"},
    {"dealer-wild-draw": "always"},
    {"dealer-wild-draw": "never"},
]


@pytest.mark.parametrize(
    "options", OEF_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_one_eyed_flush_variants(options: dict[str, str]) -> None:
    """R-OEF-1..10 with 3 seats, jackpot and flip wagers; two jackpot hits back to back."""
    decks = [
        stacked(3, {2: "Jh Js Kd"}),
        stacked(3, {1: "Jh Js Kd"}),
        *random_decks(300, f"oef-{options}"),
    ]
    _, hits = check("one-eyed-flush", options, 3, Wagers(500, jackpot=100, flip=500, flip_outcome="7"), decks)
    assert hits[:2] == [(1, 1, "one-eyed-flush", 500_030), (2, 0, "one-eyed-flush", 500_030)]


@pytest.mark.parametrize("outcome", ["one-eyed", "ten-value", "1"])
def test_one_eyed_flush_seven_seats(outcome: str) -> None:
    check(
        "one-eyed-flush",
        {},
        7,
        Wagers(200, jackpot=100, flip=300, flip_outcome=outcome),
        random_decks(120, outcome),
    )


@pytest.mark.parametrize("face", ["10", "0"])
@pytest.mark.parametrize("seats", [1, 5])
def test_final_count(face: str, seats: int) -> None:
    """R-FC-1..5 with both face values."""
    check("final-count", {"face-value": face}, seats, Wagers(500), random_decks(400, f"fc-{face}-{seats}"))


@pytest.mark.parametrize("game", ["let-it-ride", "one-eyed-flush", "final-count"])
def test_optimal_strategy_matches_engine_bot_with_advisor(game: str) -> None:
    """With the exact analyzer's strategy: the kernel's tables and the engine's Bot(advisor) agree."""
    if analysis_module(game) is None:
        pytest.skip(f"no exact analysis for {game} yet")
    wagers = {
        "let-it-ride": Wagers(500, bonus=500, progressive=100),
        "one-eyed-flush": Wagers(500, jackpot=100),
    }
    check(game, {}, 2, wagers.get(game, Wagers(500)), random_decks(250, f"opt-{game}"), strategy="optimal")


def test_sums_of_squares_are_exact_for_the_largest_wagers() -> None:
    """$50,000 bets and bonus at seven seats: the squared round nets (far beyond 2^63 in total) are summed
    exactly from their two int64 parts."""
    rules = make_rules("let-it-ride")
    decks = np.argsort(np.random.default_rng(8).random((20_000, 52)), axis=1)
    job = make_job(rules, len(decks), seats=7, wagers=Wagers(5_000_000, bonus=5_000_000))
    res, detail = run_decks(job, decks)
    bets = [int(detail[r, :, [0, 1, 3]].sum()) - 7 * 3 * 5_000_000 for r in range(len(decks))]
    bonus = [int(detail[r, :, 4].sum()) - 7 * 5_000_000 for r in range(len(decks))]
    acc = res.wager_acc.tolist()
    assert (acc[0][4] << 32) + acc[0][5] == sum(x * x for x in bets) > 2**63
    assert (acc[1][4] << 32) + acc[1][5] == sum(x * x for x in bonus)

"""Issue 21: a fifth game, registered only in the tests (``high_card.py`` and its registration in
``conftest.py``), is played by the round engine, simulated through the engine-backed kernel (it has no Numba
kernel) and analysed exactly by the oracle (it has no analyzer)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tablegames.analysis.oracle import action_values, seat_nets, value
from tablegames.engine import Action, Round, Table
from tablegames.engine.chance import Policy, complete_subtree
from tablegames.rules import GAMES, make_rules, registry
from tablegames.simulation.engine_kernel import KERNEL as ENGINE_KERNEL
from tablegames.simulation.job import Wagers, make_job, run_decks
from tablegames.simulation.runner import run_job
from tablegames.simulation.strategy import StrategyError, kernel_of, resolve_strategy

from .high_card import GAME, PLAY_FROM

STAKE = 100


def at_decision(card: int) -> Round:
    """Seat 1 holding ``card``, at its decision (the dealer's card unseen)."""
    deck = [card, *(c for c in range(52) if c != card)]
    rnd = Table(make_rules(GAME)).new_round(deck)
    rnd.place_wager(1, "main", STAKE)
    rnd.deal()
    return rnd


def basic_policy() -> Policy:
    decide = resolve_strategy("basic", make_rules(GAME))
    return lambda rnd, seat: decide(rnd.decision_context(seat))


def test_registered_only_in_these_tests() -> None:
    assert registry.get(GAME).title == "High Card"
    assert GAME not in GAMES  # the built-in games' list is unchanged
    assert kernel_of(GAME) is ENGINE_KERNEL  # no Numba kernel: the engine-backed default


@pytest.mark.parametrize("rank", range(13))
def test_the_oracle_values_every_decision_exactly(rank: int) -> None:
    """Play: the dealer's card is one of 51, 4 of each lower rank win, 3 tie; fold: half back."""
    values = action_values(at_decision(rank * 4), 1, basic_policy())
    assert values == {
        Action("play"): Fraction(4 * rank - 4 * (12 - rank), 51),
        Action("fold"): Fraction(-1, 2),
    }
    best = max(values, key=lambda a: values[a])
    assert best == (Action("play") if rank >= 3 else Action("fold"))  # a 5 plays; the rule of thumb folds it
    assert (rank >= PLAY_FROM) == (best == Action("play")) or rank == 3


def exact_house_edge() -> Fraction:
    """The rule of thumb's exact house edge, from the oracle: every seat card, every dealer card."""
    policy = basic_policy()
    ev = Fraction(0)
    for card in range(52):
        rnd = at_decision(card)
        ev += Fraction(1, 52) * value(complete_subtree(rnd, 1, policy(rnd, 1), policy), 1)
    return -ev


def test_simulated_through_the_engine_backed_kernel() -> None:
    rules = make_rules(GAME)
    edge = exact_house_edge()
    # 4 cards of each folded rank lose half; each played card wins (8 r - 48) / 51: the player's edge
    played = sum(4 * Fraction(8 * r - 48, 51) for r in range(PLAY_FROM, 13))
    assert edge == Fraction(1, 52) * (4 * PLAY_FROM * Fraction(1, 2) - played) == Fraction(-14, 221)
    job = make_job(rules, rounds=6_000, seats=2, wagers=Wagers(STAKE), strategy="basic", seed=7)
    summary = run_job(job).summary()
    row = summary["results"]["main"]
    assert row["wagers"] == 12_000
    low, high = row["house_edge_ci95"]
    assert low - row["std_error"] < float(edge) < high + row["std_error"]  # about 2.6 SE either side


def test_the_engine_backed_kernel_settles_as_the_engine_deck_by_deck() -> None:
    """Given decks: the kernel's seat-1 nets are the engine's own, round by round (the oracle's leaves)."""
    rules = make_rules(GAME)
    policy = basic_policy()
    rnd = at_decision(5 * 4 + 1)  # a 7: the rule of thumb plays
    leaves = list(complete_subtree(rnd, 1, policy(rnd, 1), policy))
    assert len(leaves) == 51
    job = make_job(rules, rounds=len(leaves), seats=1, wagers=Wagers(STAKE), strategy="basic")
    decks = np.array([leaf.round.deck for leaf in leaves], dtype=np.int64)
    res, _ = run_decks(job, decks)
    assert res.seat1 is not None
    assert res.seat1.tolist() == [seat_nets(leaf.round, 1)["main"] for leaf in leaves]
    assert int(res.wager_acc[0, 3] - res.wager_acc[0, 2]) == sum(res.seat1.tolist())


def test_no_optimal_strategy_without_an_analyzer() -> None:
    with pytest.raises(StrategyError, match="no exact optimal strategy"):
        make_job(make_rules(GAME), rounds=10, strategy="optimal")
    with pytest.raises(StrategyError, match="simulated by the round engine"):
        make_job(make_rules(GAME), rounds=10, strategy="my.json")


def test_no_gpu_path_for_the_engine_backed_kernel() -> None:
    """Issue 28: a game simulated by the round engine has no GPU path; a GPU run says so (device or not)."""
    from tablegames.simulation import gpu

    assert gpu.unsupported(GAME) is not None and "engine_run" in str(gpu.unsupported(GAME))
    job = make_job(make_rules(GAME), rounds=10, strategy="basic")
    with pytest.raises(
        gpu.GpuError, match=f"{GAME} cannot run on the GPU: .*engine_run is not a Numba kernel"
    ):
        run_job(job, device="gpu")

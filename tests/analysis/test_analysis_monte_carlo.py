"""Exact house edges against the simulator and a seeded Monte Carlo of the round engine, both playing the exact
strategy (injected as advisors): the two must agree within four standard errors."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tablegames.analysis.api import analyzer
from tablegames.engine import Bot, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import GameRules, make_rules


def advisor_for(rules: GameRules) -> Any:
    """The exact strategy of the game's analyzer (looked up in the registry) as the bot's advisor."""
    found = analyzer(rules)
    strategy = found.optimal_strategy(rules)
    return lambda ctx: found.advise(strategy, ctx)


def simulate(rules: GameRules, rounds: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of the net result per unit wager over ``rounds`` engine rounds."""
    unit = 100
    table = Table(rules, seats=1, source=SeededRandom(seed), bankrolls={1: 10**12})
    bot = Bot(advisor_for(rules))
    total = 0.0
    squares = 0.0
    for _ in range(rounds):
        before = table.bankrolls[1]
        rnd = table.new_round()
        rnd.place_wager(1, rnd.main_wager(), unit)
        rnd.deal()
        while not rnd.is_over:
            rnd.act(rnd.to_act, bot.choose(rnd, rnd.to_act))
        net = (table.bankrolls[1] - before) / unit
        total += net
        squares += net * net
    mean = total / rounds
    var = squares / rounds - mean * mean
    return mean, math.sqrt(var / rounds)


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, options, rounds",
    [
        ("final-count", {}, 10_000),
        ("final-count", {"face-value": "0"}, 10_000),
        ("one-eyed-flush", {}, 12_000),
        ("let-it-ride", {}, 10_000),
    ],
)
def test_exact_edge_agrees_with_engine_monte_carlo(game: str, options: dict[str, str], rounds: int) -> None:
    rules = make_rules(game, options)
    from tablegames.analysis.api import analyze_game

    exact = -float(analyze_game(rules).house_edge)
    mean, se = simulate(rules, rounds, seed=20261130)
    assert abs(mean - exact) < 4 * se, (game, mean, exact, se)


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, options",
    [
        ("final-count", []),
        ("final-count", ["--rule", "face-value=0"]),
        ("one-eyed-flush", []),
        ("let-it-ride", []),
    ],
)
def test_exact_edge_agrees_with_the_simulator(game: str, options: list[str]) -> None:
    """``tablegames simulate`` (optimal strategy, 400,000 rounds) within four standard errors of the exact edge."""
    import json

    from typer.testing import CliRunner

    from tablegames.analysis.api import analyze_game
    from tablegames.cli import app

    args = ["simulate", game, "--rounds", "400000", "--seed", "11", "--format", "json", "--quiet", *options]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    main = next(iter(json.loads(result.output)["results"].values()))
    rule_options = dict(o.split("=", 1) for o in options[1::2])
    exact = float(analyze_game(make_rules(game, rule_options)).house_edge)
    assert abs(main["house_edge"] - exact) < 4 * main["std_error"], (
        main["house_edge"],
        exact,
        main["std_error"],
    )

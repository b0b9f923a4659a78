"""One outcome vocabulary (issue 21): every row of the exact return table carries ``category``, the engine's
settlement outcome of the main wager; ``simulate`` counts exactly those names under ``outcomes.<main wager>``,
and every category's exact probability matches the simulated frequency (|z| < 4; the 10^7-round figures are
in docs/analysis.md)."""

from __future__ import annotations

import math

import pytest

from tablegames.analysis.api import analyze_game
from tablegames.rules import make_rules, registry
from tablegames.simulation import make_job, run_job

ROUNDS = 400_000


@pytest.mark.parametrize("game", [d.key for d in registry.DEFINITIONS if d.analyzer and d.kernel])
def test_exact_categories_are_the_simulated_outcomes(game: str) -> None:
    rules = make_rules(game, {})
    a = analyze_game(rules)
    exact = a.categories()
    assert all(exact), "every row of the return table names its category"
    main = registry.get(game).main_wager.name
    s = run_job(make_job(rules, ROUNDS, seed=21, strategy="optimal")).summary()
    block = s["outcomes"][main]
    assert set(block) == set(
        exact
    )  # one name per outcome: the simulator's labels are the analysis' categories
    for category, p in exact.items():
        freq = block[category]["frequency"]
        se = math.sqrt(float(p * (1 - p)) / ROUNDS)
        z = (freq - float(p)) / se
        assert abs(z) < 4, f"{game} P({category}): exact {float(p):.6f}, simulated {freq:.6f}, z {z:+.2f}"

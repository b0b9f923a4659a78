"""The exact analysis settles exactly as the round engine, deal by deal, for every registered game (issue 12):
the same stacked deck played through the engine by the optimal strategy's advisor and valued by the analyzer's
own tables (``Analyzer.deal_value``) gives the same net for every wager, cent for cent. Generic over the
registry: a game added later inherits it. Random decks, the default rules and random valid rule sets (issue 15),
at a small main wager and, for a game whose strategy depends on the bet (a payout cap), at one the cap bites."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from tablegames.analysis.api import analyzer
from tablegames.analysis.common import ExampleSpec
from tablegames.analysis.examples import play_example
from tablegames.rules import GAMES, GameRules, RuleError, make_rules, registry
from tablegames.rules.parameters import Parameter

DECKS = 120


def engine_nets(
    rules: GameRules, deck: list[int], wagers: tuple[tuple[str, int, str | None], ...]
) -> dict[str, int]:
    placed = {w for w, _, _ in wagers}
    main = registry.of(rules).main_wager.name
    played = play_example(rules, ExampleSpec("tie", tuple(deck), wagers))
    nets: dict[str, int] = defaultdict(int)
    for s in played.settlements:
        if s.seat == 1:
            nets[s.wager if s.wager in placed else main] += s.net
    return dict(nets)


def tie(rules: GameRules, bet_cents: int, seed: str, decks: int = DECKS) -> int:
    found = analyzer(rules)
    wagers = found.tie_wagers(rules, bet_cents)
    if found.deal_value(rules, list(range(52)), wagers) is None:
        raise AssertionError(
            f"{rules.game}: every exact analyzer settles a deal itself (Analyzer.deal_value)"
        )
    rng = random.Random(seed)
    checked = 0
    for _ in range(decks):
        deck = list(range(52))
        rng.shuffle(deck)
        want = engine_nets(rules, deck, wagers)
        got = found.deal_value(rules, deck, wagers)
        assert got == want, f"deck {deck}: analysis {got} engine {want}"
        checked += 1
    return checked


ANALYZED = [g for g in GAMES if registry.get(g).analyzer is not None]


@pytest.mark.parametrize("game", ANALYZED)
def test_analysis_settles_as_the_engine_on_random_decks(game: str) -> None:
    rules = make_rules(game)
    assert tie(rules, 500, f"tie-{game}") == DECKS
    if analyzer(rules).bet_sized:
        assert tie(rules, 2_500_000, f"tie-cap-{game}") == DECKS


def _random_value(p: Parameter, rng: random.Random) -> str:
    """A random allowed value of a choice or whole-number parameter (payouts kept near their low end)."""
    if p.kind == "choice":
        return rng.choice(p.choices)
    low = int(p.low or 0)
    span = {"int": 50, "odds": 20, "money": 5_000}[p.kind]
    return str(rng.randint(low, low + span if p.high is None else min(int(p.high), low + span)))


@pytest.mark.parametrize("game", [g for g in ANALYZED if registry.get(g).parameters])
def test_analysis_settles_as_the_engine_under_random_rule_sets(game: str) -> None:
    """Issue 15: three random valid rule sets of the game's parameters (up to five values changed each)."""
    rng = random.Random(f"rule-sets-{game}")
    params = [
        p for p in registry.get(game).parameters if p.listed and p.kind in ("choice", "int", "odds", "money")
    ]
    done = 0
    while done < 3:
        options = {p.name: _random_value(p, rng) for p in rng.sample(params, min(5, len(params)))}
        try:
            rules = make_rules(game, options)
        except RuleError:
            continue  # a combination the game's own checks refuse
        assert tie(rules, 500, f"tie-{game}-{options}", decks=40) == 40
        done += 1

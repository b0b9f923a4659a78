"""The registry of games: every definition is complete and consistent, and an unknown game is one typed error
(UnknownGameError, listing the known games) in every layer instead of being treated as another game."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tablegames.engine import Table
from tablegames.engine.bots import rule_of_thumb
from tablegames.randomness import SeededRandom
from tablegames.rules import RULES_BY_GAME, make_rules, registry
from tablegames.rules.common import RuleError
from tablegames.rules.definition import DecisionContext, UnknownGameError

DEFINITIONS = registry.DEFINITIONS


@dataclass(frozen=True)
class NoSuchRules:
    """Rules of a game nobody registered."""

    game = "no-such-game"

    def describe(self) -> dict[str, str]:
        return {}


@dataclass(frozen=True)
class NoSuchContext(DecisionContext):
    game = "no-such-game"


def test_unknown_game_error_is_typed_and_lists_the_games() -> None:
    with pytest.raises(UnknownGameError) as info:
        make_rules("poker")
    err = info.value
    assert isinstance(err, RuleError) and err.code == "unknown_game"
    assert err.key == "poker" and err.known == registry.GAMES
    assert str(err) == f"unknown game 'poker'; choose {', '.join(registry.GAMES)}"


def test_the_old_tables_are_views_of_the_registry() -> None:
    assert {d.key: d.rules_type for d in DEFINITIONS} == RULES_BY_GAME
    assert tuple(d.key for d in DEFINITIONS) == registry.GAMES


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.key)
def test_definition_is_complete(definition: registry.GameDefinition) -> None:
    rules = definition.make_rules()
    assert rules.game == definition.key and isinstance(rules, definition.rules_type)
    flow = definition.new_flow(rules)  # the game's steps, run by the engine's one generic round
    assert isinstance(Table(rules).new_round().flow, type(flow))
    assert definition.main_wager.requires is None
    for w in definition.side_bets:  # a side wager needs the main wager, or stands alone (requires=None)
        assert w.requires in (definition.main_wager.name, None)
    for option in definition.rule_options:  # every documented variant is accepted
        for choice in option.choices:
            chosen = definition.make_rules({option.name: choice})
            if option.name in chosen.describe():
                assert chosen.describe()[option.name] == choice
            else:  # a preset (issue 15) writes a whole table: the rule set lists its entries instead
                assert definition.make_rules(definition.rule_set(chosen)) == chosen
    names = [m.name for m in definition.meters(rules)]
    assert len(names) == len(set(names))
    assert any(w.feeds for w in definition.wagers) == bool(names)  # a meter is fed by a wager, and only then
    assert definition.decision(definition.default_action) is not None
    from tablegames.analysis.common import Analyzer
    from tablegames.simulation.adapter import Kernel

    assert definition.analyzer is None or isinstance(definition.load_analyzer(), Analyzer)
    assert definition.kernel is None or isinstance(definition.load_kernel(), Kernel)


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.key)
def test_rounds_speak_the_definition(definition: registry.GameDefinition) -> None:
    """The view's wager specs, the costs, the contexts and the default action come from the definition."""
    rules = definition.make_rules()
    table = Table(rules, seats=2, source=SeededRandom(4), bankrolls={1: 10**6, 2: 10**6})
    rnd = table.new_round()
    specs = {s["name"]: s for s in rnd.view(1)["wager_specs"]}
    assert list(specs) == [w.name for w in definition.wagers]
    for w in definition.wagers:
        assert specs[w.name]["cost_multiple"] == w.cost_multiple and rnd.wager_cost(w.name, 100) == w.cost(
            100
        )
        assert specs[w.name]["requires"] == w.requires and specs[w.name]["fixed_cents"] == w.fixed_cents(
            rules
        )
    rnd.place_wager(1, definition.main_wager.name, 200)
    assert table.bankrolls is not None and table.bankrolls[1] == 10**6 - definition.main_wager.cost(200)
    rnd.deal()
    seat = rnd.to_act
    if seat is not None:
        ctx = rnd.decision_context(seat)
        assert isinstance(ctx, definition.context_type) and ctx.game == definition.key
        assert rule_of_thumb(ctx) in rnd.legal_actions(seat)
        assert rnd.can_act(seat, definition.default_action)  # the timeout default is always legal


def test_no_layer_treats_an_unknown_game_as_another() -> None:
    """analysis/advice, analysis/api, simulation/strategy (twice) and simulation/job used to fall through to the
    last game they knew; now each raises UnknownGameError."""
    from tablegames.analysis.advice import optimal_strategy
    from tablegames.analysis.api import analyze_game, tunable_hands
    from tablegames.simulation.job import make_job, parse_side_bets
    from tablegames.simulation.strategy import hand_key, strategy_tables

    rules = NoSuchRules()
    calls = [
        lambda: optimal_strategy(rules),  # type: ignore[arg-type]
        lambda: analyze_game(rules),  # type: ignore[arg-type]
        lambda: tunable_hands(rules),  # type: ignore[arg-type]
        lambda: strategy_tables(rules, rule_of_thumb),  # type: ignore[arg-type]
        lambda: hand_key(NoSuchContext()),
        lambda: rule_of_thumb(NoSuchContext()),
        lambda: make_job(rules, 10),  # type: ignore[arg-type]
        lambda: parse_side_bets("no-such-game", [], rules, 500),  # type: ignore[arg-type]
        lambda: Table(rules),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(UnknownGameError, match="unknown game 'no-such-game'; choose let-it-ride"):
            call()

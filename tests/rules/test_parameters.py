"""Every game's parameters (issue 15), generic over the registry: a game added later inherits these."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.rules import GAMES, RuleError, make_rules, registry
from tablegames.rules.gamefile import GameFile, dumps, loads, rules_with
from tablegames.rules.parameters import LOSES, Parameter


def listed(game: str) -> list[Parameter]:
    return [p for p in registry.get(game).parameters if p.listed]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_lists_parameters_whose_defaults_read_back(game: str) -> None:
    d = registry.get(game)
    rules = make_rules(game)
    params = listed(game)
    assert params, f"{game} lists no parameter"
    assert len({p.name for p in d.parameters}) == len(d.parameters), "a parameter name is used twice"
    for p in params:
        assert p.parse(p.value(rules)) == p.get(rules) or p.kind == "choice", p.name
        assert make_rules(game, {p.name: p.value(rules)}) == rules, p.name


@pytest.mark.parametrize("game", GAMES)
def test_rule_set_round_trips_and_describe_is_the_rule_set(game: str) -> None:
    d = registry.get(game)
    rules = make_rules(game)
    assert d.rule_set(rules) == rules.describe()
    assert make_rules(game, d.rule_set(rules)) == rules
    assert loads(dumps(GameFile(game, "x", rules))).rules == rules


@pytest.mark.parametrize("game", GAMES)
def test_unknown_rule_and_bad_value_name_the_field_and_what_is_allowed(game: str) -> None:
    with pytest.raises(RuleError, match="unknown rule 'no-such-rule'; known rules: "):
        make_rules(game, {"no-such-rule": "1"})
    for p in listed(game):
        if p.kind in ("int", "odds", "money") and p.low is not None:
            with pytest.raises(RuleError, match=f"rule '{p.name}'.*allowed: "):
                make_rules(game, {p.name: str(int(p.low) - 1)})
        if p.kind == "choice":
            with pytest.raises(RuleError, match=f"rule '{p.name}'.*not a choice; allowed: "):
                make_rules(game, {p.name: "no-such-choice"})


def _value(p: Parameter) -> st.SearchStrategy[str]:
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "int":
        lo = int(p.low or 0)
        return st.integers(lo, int(p.high) if p.high is not None else lo + 50).map(str)
    if p.kind == "odds":
        return st.one_of(st.just(LOSES), st.integers(0, 500).map(str))
    if p.kind == "money":
        return st.integers(int(p.low or 0), int(p.low or 0) + 100_000).map(str)
    return st.nothing()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_rule_sets_round_trip_through_a_game_file(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES))
    params = [p for p in listed(game) if p.kind in ("choice", "int", "odds", "money")]
    chosen = (
        data.draw(st.lists(st.sampled_from(params), max_size=4, unique_by=lambda p: p.name)) if params else []
    )
    options = {p.name: data.draw(_value(p)) for p in chosen}
    try:
        rules = make_rules(game, options)
    except RuleError:
        return  # a combination the game's own checks refuse (each refusal names its field)
    assert make_rules(game, registry.get(game).rule_set(rules)) == rules
    assert loads(dumps(GameFile(game, "random", rules))).rules == rules


def test_a_game_file_with_rules_on_top(tmp_path: object) -> None:
    from pathlib import Path

    game = GAMES[0]
    d = registry.get(game)
    p = Path(str(tmp_path)) / "house.toml"
    p.write_text(dumps(GameFile(game, "house rules", make_rules(game))))
    rules, name = rules_with(None, None, None, str(p))
    assert (rules, name) == (make_rules(game), "house rules")
    other = GAMES[1]
    with pytest.raises(RuleError, match=f"is a {game} game file, not {other}"):
        rules_with(other, None, None, str(p))
    with pytest.raises(RuleError, match="cannot be combined with --game-file"):
        rules_with(None, None, "x.toml", str(p))
    with pytest.raises(RuleError, match="game file not found"):
        rules_with(None, None, None, str(p) + ".missing")
    choice = next((q for q in listed(game) if q.kind == "choice" and len(q.choices) > 1), None)
    if choice is not None:
        rules2, _ = rules_with(None, {choice.name: choice.choices[1]}, None, str(p))
        assert d.rule_set(rules2)[choice.name] == choice.choices[1]

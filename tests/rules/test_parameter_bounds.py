"""Issue 20, defects 1 and 4: every rule value is bounded as text before it is built (digits, exponent, length,
then the parameter's own range), and a game file's size and nesting before it is parsed; whatever the text, a
parameter answers its value or a RuleError naming the field, in microseconds. Generic over the registry."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostile_values import HOSTILE, HUGE_INTS, deep_tomls, value_text
from tablegames.analysis.api import parse_meters, parse_money
from tablegames.rules import GAMES, RuleError, make_rules, registry
from tablegames.rules import parameters as P
from tablegames.rules.gamefile import loads
from tablegames.rules.parameters import Parameter

pytestmark = pytest.mark.timeout(60)  # (main: '$1e10000000' alone takes 10 s of CPU)

ALL = [(d.key, p) for d in registry.DEFINITIONS for p in d.parameters]
NUMERIC = [(g, p) for g, p in ALL if p.kind in ("int", "odds", "money", "fraction")]


def _checked(p: Parameter, text: str | int) -> object:
    """``p.parse(text)``: its value (in range) or a RuleError naming ``p``; nothing else. (How long a hostile
    value takes: ``python -m benchmarks labinput``; this module's timeout stops main's 10 s parses.)"""
    try:
        value = p.parse(text)
    except RuleError as exc:
        message = str(exc)
        assert message.startswith(f"rule {p.name!r}") and "allowed: " in message, message
        assert len(message) < 600, message  # (a huge value is never echoed)
        return exc
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        if p.kind in ("int", "odds", "money", "fraction"):
            assert p.low is None or value >= p.low, (p.name, text)
            assert p.high is not None and value <= p.high, (p.name, text)  # every number has a bound now
        assert abs(value) <= P.MONEY_MAX, (p.name, text)  # (an amount a reader of its own takes)
    return value


@pytest.mark.parametrize(("game", "p"), NUMERIC, ids=[f"{g}:{p.name}" for g, p in NUMERIC])
def test_hostile_numbers_are_refused_naming_the_field_before_they_are_built(game: str, p: Parameter) -> None:
    """Regression (main: '²' and '--5' raised ValueError, a 5,000-digit number ValueError, '$1e100' was an
    accepted cap of 10^102 cents, '1e-10000000' took seconds)."""
    for text in ("²", "--5", "9" * 5000, "1e-10000000", "$1e10000000", "$1e100", "1e-5000", "1" + "0" * 20):
        assert isinstance(_checked(p, text), RuleError), (p.name, text[:30])
    for n in HUGE_INTS:
        assert isinstance(_checked(p, n), RuleError), (p.name, n)
    assert isinstance(_checked(p, 10**5000), RuleError)  # (as an int: no str() of it)


@pytest.mark.parametrize(("game", "p"), ALL, ids=[f"{g}:{p.name}" for g, p in ALL])
def test_every_hostile_text_is_a_value_or_a_refusal_naming_the_field(game: str, p: Parameter) -> None:
    for text in HOSTILE:
        _checked(p, text)
    assert isinstance(_checked(p, "x" * (P.VALUE_MAX + 1)), RuleError)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_text_for_any_parameter_is_a_value_in_range_or_a_refusal(data: st.DataObject) -> None:
    game, p = data.draw(st.sampled_from(ALL))
    text = data.draw(value_text(p))
    value = _checked(p, text)
    if not isinstance(value, RuleError) and p.listed and p.kind not in ("text", "preset", "choice"):
        try:
            rules = p.put(make_rules(game), value)
        except RuleError as exc:  # (a rule of the game's own, e.g. R-OEF-8: named too)
            assert p.name in str(exc), str(exc)
            return
        assert p.parse(p.value(rules)) == p.get(rules)  # what it reads back is the same value


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**15) + 1, 10**15 - 1))  # (P.DIGITS_MAX)
def test_numbers_within_the_digit_bound_read_exactly(n: int) -> None:
    assert P.read_whole(str(n)) == n and P.read_whole(f"{n:,}") == n
    assert P.read_cents(str(n)) == n
    if n >= 0:
        assert P.read_cents(f"${n // 100}.{n % 100:02d}") == n
    assert P.read_fraction(str(n)) == n and P.read_fraction(f"{n}%") == Fraction(n, 100)
    assert P.read_fraction(f"{n}/7") == Fraction(n, 7)


def test_every_amount_parameter_has_a_bound() -> None:
    for _, p in ALL:
        if p.kind in ("int", "odds", "money", "fraction"):
            assert p.high is not None, p.name
        if p.kind == "money":
            assert p.high is not None and p.high <= P.MONEY_MAX, p.name


@pytest.mark.parametrize("game", GAMES)
def test_a_deep_or_huge_game_file_is_refused_before_it_is_parsed(game: str) -> None:
    """Regression (main: RecursionError for 20,000 nested arrays; 10 s of CPU, then RecursionError, for a
    20,000-part dotted key; ValueError for a 5,000-digit number)."""
    for text in deep_tomls(game):
        with pytest.raises(RuleError) as refused:
            loads(text, "deep.toml")
        assert len(str(refused.value)) < 600
        assert str(refused.value).startswith("deep.toml")
    with pytest.raises(RuleError, match="longer than"):
        loads(f'game = "{game}"\n' + "#" * 70_000, "long.toml")


def test_the_cli_reads_amounts_with_the_same_bounds() -> None:
    """``--meter`` and ``--average-bet`` amounts (main: '$1e10000000' computed 10^10,000,000)."""
    assert parse_money("$75,000.50") == 7_500_050 and parse_meters("mega=$75,000,major=600000") == {
        "mega": 7_500_000,
        "major": 600_000,
    }
    for bad in ("$1e10000000", "²", "9" * 5000, "$0.005"):
        with pytest.raises(RuleError, match="not an amount"):
            parse_money(bad)
    with pytest.raises(RuleError, match="must be >= 0"):
        parse_meters("mega=-5")

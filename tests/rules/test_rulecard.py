"""The rule card (issue 24): every registered game's pay tables, prizes and rules in a player's words, from its
definition alone, and the changes from its standard rules."""

from __future__ import annotations

import pytest

from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import LOSES
from tablegames.rules.rulecard import STANDARD, rule_card

GAMES = [pytest.param(d, id=d.key) for d in registry.DEFINITIONS]


def _rows(card: object) -> dict[tuple[str, str], str]:
    return {(s.title, r.label): r.value for s in card.sections for r in s.rows}  # type: ignore[attr-defined]


@pytest.mark.parametrize("d", GAMES)
def test_every_paying_entry_of_every_pay_table_is_on_the_card(d: GameDefinition) -> None:
    rules = d.make_rules()
    card = rule_card(d, rules)
    assert card.summary == STANDARD and card.changes == ()
    values = [r.value for s in card.sections for r in s.rows]
    for p in d.parameters:
        if p.kind == "odds" and p.listed and p.value(rules) != LOSES:
            assert f"{p.value(rules)} to 1" in values, p.name
    assert card.sections[-1].title == "Rules" or all(s.title != "Rules" for s in card.sections)
    assert not any("{" in r.label or "X to 1" in r.label for s in card.sections for r in s.rows)


def test_published_figures_in_a_players_words() -> None:
    """R-LIR-2 (royal 1000 to 1), R-LIR-5 ($50,000 cap), R-OEF-10 (the Flip Card's odds), R-TCP-6 (Pair Plus)."""
    lir = _rows(rule_card(registry.get("let-it-ride"), registry.get("let-it-ride").make_rules()))
    assert lir[("Pay table (standard)", "Royal flush")] == "1000 to 1"
    assert lir[("Rules", "The aggregate cap on a hand's base-game win")] == "$50,000"
    assert lir[("Progressive", "Royal flush")] == "the whole Mega meter"
    oef_d = registry.get("one-eyed-flush")
    oef = _rows(rule_card(oef_d, oef_d.make_rules()))
    assert oef[("Flip Card", "A named point value (1-9)")] == "11 to 1"
    assert oef[("Flip Card", "Ten-value (any 10, J, Q or K)")] == "2 to 1"
    assert oef[("Flip Card", "One-eyed (J♥, J♠ or K♦)")] == "15 to 1"
    assert oef[("Rules", "The wild cards")] == "J♥ J♠ K♦"
    tcp_d = registry.get("three-card-poker")
    tcp = rule_card(tcp_d, tcp_d.make_rules())
    pair_plus = next(s for s in tcp.sections if s.title == "Pair Plus (40-30-6-4-1)")
    assert [(r.label, r.value) for r in pair_plus.rows] == [
        ("Straight flush", "40 to 1"),
        ("Trips", "30 to 1"),
        ("Straight", "6 to 1"),
        ("Flush", "4 to 1"),
        ("Pair", "1 to 1"),
    ]  # best hand first
    bonus = next(s for s in tcp.sections if s.title.startswith("Ante Bonus"))
    assert "Pair" not in [r.label for r in bonus.rows]  # an entry that pays nothing is not listed


def test_the_changes_from_the_standard_rules_are_named_and_only_they() -> None:
    d = registry.get("let-it-ride")
    card = rule_card(d, d.make_rules({"main.flush": "7", "cap": "$25,000", "qualifier": "jacks"}))
    assert [(c.name, c.value, c.standard) for c in card.changes] == [
        ("qualifier", "Jacks", "Tens"),
        ("main.flush", "7 to 1", "8 to 1"),
        ("cap", "$25,000", "$50,000"),
    ]
    assert card.summary.startswith(
        "3 changes from the standard rules: The lowest pair the base game pays Jacks"
    )
    assert "Pay table: flush 7 to 1 (standard 8 to 1)" in card.summary
    fc = registry.get("final-count")
    assert rule_card(fc, fc.make_rules({"value.K": "0"})).summary == (
        "1 change from the standard rules: Card values: the value of a K 0 (standard 10)"
    )

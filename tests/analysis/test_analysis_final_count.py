"""Exact Final Count analysis: value-class enumeration against a plain per-card enumeration."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from tablegames.analysis import final_count as fca
from tablegames.cards import parse_cards
from tablegames.engine.actions import STAND, TURN
from tablegames.rules.final_count import FinalCountRules, player_final_total, showdown


def _plain(rules: FinalCountRules, player: list[int], dealer: list[int]) -> dict[str, Fraction]:
    """Every (player third card, dealer third card) pair of real cards, scored by the rule functions."""
    rest = [c for c in range(52) if c not in (*player, *dealer)]
    t2 = rules.total(player)
    d2 = rules.total(dealer)
    stand = turn = 0
    for p3 in rest:
        for d3 in rest:
            if d3 == p3:
                continue
            dealer_total = d2 + rules.value(d3)
            turn += showdown(player_final_total(t2, rules.value(p3), True), dealer_total)
            if t2 % 2 == 0:
                stand += showdown(player_final_total(t2, rules.value(p3), False), dealer_total)
    n = len(rest) * (len(rest) - 1)
    out = {"turn": Fraction(turn, n)}
    if t2 % 2 == 0:
        out["stand"] = Fraction(stand, n)
    return out


@pytest.mark.parametrize("face", ["10", "0"])
def test_options_equal_plain_enumeration(face: str) -> None:
    rules = FinalCountRules.from_options({"face-value": face})
    s = fca.optimal_strategy(rules)
    rng = random.Random(7)
    situations = [rng.sample(range(52), 4) for _ in range(25)]
    situations.append([int(c) for c in parse_cards("Kc Qd 2c 4d")])
    for cards in situations:
        fast = s.options(cards[:2], cards[2:])
        plain = _plain(rules, cards[:2], cards[2:])
        assert fast[TURN] == plain["turn"]
        assert fast.get(STAND) == plain.get("stand")


def test_totals_and_return_table() -> None:
    a = fca.analyze(FinalCountRules())
    assert a.total == 1326 * 1225 * 48 * 47
    assert sum(o.probability(a.total) for o in a.outcomes) == 1
    assert sum(o.contribution(a.total) for o in a.outcomes) == -a.house_edge
    assert a.house_edge == Fraction(50963999, 458066700)
    # Standing never produces an odd (losing at once) total; the dealer turns every odd two-card total.
    assert not any(o.name.startswith("stand") and "player odd" in o.name for o in a.outcomes)

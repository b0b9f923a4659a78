"""The detection harness's rule-of-thumb honest players (issue 27: "honest players playing optimally, by the rule
of thumb, or optimally with a rate E of random mistakes"): they play the table bot's rule, the rule's
systematic mistakes read the legal information only, so the test (whose null is exact for any strategy of the
legal information) does not flag them."""

from __future__ import annotations

from typing import Any

import pytest

from tablegames.analysis import detect
from tablegames.analysis.detect_simulate import RULE_OF_THUMB, simulate
from tablegames.engine import Bot
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError


def test_honest_players_play_the_bots_rule_and_are_not_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    game = detect.COVERED[-1]
    rules = make_rules(game)
    scenario = detect.scenarios(rules)[0]
    calls: list[int] = []
    choose = Bot.choose

    def counted(self: Bot, rnd: Any, seat: int) -> Any:
        calls.append(seat)
        return choose(self, rnd, seat)

    monkeypatch.setattr(Bot, "choose", counted)
    honest = simulate(rules, scenario, cheaters=0, honest=7, hands=60, seed=3, honest_strategy=RULE_OF_THUMB)
    assert honest.method == "engine" and honest.honest_strategy == RULE_OF_THUMB
    assert honest.honest_flagged == 0 and len(calls) >= 7 * 60  # every honest decision by the rule
    calls.clear()
    cheaters = simulate(
        rules, scenario, cheaters=7, honest=0, hands=60, seed=3, honest_strategy=RULE_OF_THUMB
    )
    assert calls == []  # cheaters play the informed choice (the legal optimum when not reading)
    assert cheaters.to_dict()["honest_strategy"] == RULE_OF_THUMB


def test_an_unknown_strategy_or_a_kernel_for_the_rule_is_refused() -> None:
    rules = make_rules(detect.COVERED[0])
    scenario = detect.scenarios(rules)[0]
    with pytest.raises(RuleError, match="unknown honest strategy"):
        simulate(rules, scenario, cheaters=1, honest=1, hands=10, honest_strategy="lucky")
    with pytest.raises(RuleError, match="rule-of-thumb honest players"):
        simulate(
            rules, scenario, cheaters=1, honest=1, hands=10, honest_strategy=RULE_OF_THUMB, method="kernel"
        )

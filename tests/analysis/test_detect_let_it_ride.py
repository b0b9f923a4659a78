"""Detection for Let It Ride (issue 27): the scorer's informed choice is `tablegames protect`'s informed player at
both decisions (R-LIR-2, R-LIR-3), a recorded decision scores as at the engine, hole-carders of the second
community card are flagged and honest players with mistakes are not."""

from __future__ import annotations

from fractions import Fraction

import pytest
from detect_support import live_decisions

from tablegames.analysis.detect import scenarios, scorer
from tablegames.analysis.detect_simulate import simulate
from tablegames.analysis.protect_let_it_ride import informed_action
from tablegames.engine.actions import PULL, RIDE
from tablegames.rules import make_rules
from tablegames.rules.let_it_ride import LetItRideRules


def _lir() -> LetItRideRules:
    rules = make_rules("let-it-ride")
    assert isinstance(rules, LetItRideRules)
    return rules


LIR = _lir()


@pytest.mark.parametrize("scenario", ["community-2", "community-1", "both-community"])
def test_the_informed_choice_is_protects_and_a_recorded_decision_scores_alike(scenario: str) -> None:
    sc = scorer(LIR, scenario)
    bot = informed_action(LIR, scenario)
    for rnd, seat in live_decisions(LIR, 8):
        s = sc.score(rnd, seat, PULL)
        assert s.informed_best == bot(rnd, seat)
        assert sum(s.support.values(), Fraction(0)) == 1
        flow = rnd.flow
        prior = [] if flow.stage == 1 else [RIDE if "1" in flow.up[seat] else PULL]  # type: ignore[attr-defined]
        dealt = {"dealer": [int(c) for c in rnd.dealer], f"seat {seat}": list(rnd.seats[seat].cards)}
        for action in (PULL, RIDE):
            assert sc.score_dealt(dealt, seat, action, prior) == s.chose(action)
            assert sc.mistake_dealt(dealt, seat, action, prior) == s.chose(action).mistake
        rnd.act(seat, s.informed_best)


def test_hole_carders_of_the_second_community_card_are_flagged_and_honest_players_not() -> None:
    assert scenarios(LIR) == ["community-2", "community-1", "both-community"]
    r = simulate(LIR, "community-2", cheaters=7, honest=7, hands=250, honest_noise=0.05, seed=1)
    assert r.method == "engine" and r.cheaters_flagged == 7 and r.honest_flagged == 0
    median = r.percentile(50)
    assert median is not None and median <= 150

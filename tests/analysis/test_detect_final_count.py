"""Detection for Final Count (issue 27): ``peek-own`` and ``dealer-hole`` score a recorded decision as at the
engine, with sound cache keys, the informed choice of ``tablegames protect``'s informed player (R-FC-4), an
exact ``p`` (a brute-force count over the cards), readers flagged and honest players with mistakes not, at the
harness and in a stored database."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pytest
from detect_games_support import check_keys, played, store
from detect_support import live_decisions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.analysis.detect import scenarios, scorer
from tablegames.analysis.detect_simulate import simulate
from tablegames.analysis.protect_final_count import informed_action
from tablegames.cards import parse_cards
from tablegames.rules import make_rules
from tablegames.rules.final_count import STAND, TURN, FinalCountRules, player_final_total


def _fc(**options: str) -> FinalCountRules:
    rules = make_rules("final-count", options)
    assert isinstance(rules, FinalCountRules)
    return rules


FC = _fc()
SCENARIOS = ("peek-own", "dealer-hole")


def test_the_scenarios_are_protects_hidden_cards() -> None:
    assert scenarios(FC) == list(SCENARIOS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_a_recorded_decision_scores_as_at_the_engine(seed: int) -> None:
    found = [scorer(FC, s) for s in SCENARIOS]
    for rec in played(FC, found, seed, seats=4):
        for sc, live in zip(found, rec.live, strict=True):
            assert sc.score_dealt(rec.dealt, rec.seat, rec.action, rec.prior) == live
            assert sc.mistake_dealt(rec.dealt, rec.seat, rec.action, rec.prior) == live.mistake
            for other in (STAND, TURN):  # nothing hidden depends on the action
                assert sc.score_dealt(rec.dealt, rec.seat, other, rec.prior) == live.chose(other)


@pytest.mark.parametrize("rules", [FC, _fc(**{"face-value": "0"})], ids=["default", "face-value=0"])
def test_equal_keys_mean_equal_answers(rules: FinalCountRules) -> None:
    found = [scorer(rules, s) for s in SCENARIOS]
    rng = random.Random(2)
    changed = 0
    for seed in range(40):
        for rec in played(rules, found, seed, seats=3):
            for sc in found:
                changed += check_keys(sc, rec, rng, unordered=2)  # the two up cards
    assert changed > 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_informed_choice_is_protects(scenario: str) -> None:
    sc = scorer(FC, scenario)
    bot = informed_action(FC, scenario)
    seen = {STAND: 0, TURN: 0}
    for rnd, seat in live_decisions(FC, 200):
        s = sc.score(rnd, seat, STAND)
        assert s.informed_best == bot(rnd, seat)
        assert sum(s.support.values(), Fraction(0)) == 1
        seen[s.informed_best] += 1
        rnd.act(seat, s.legal_best)
    assert min(seen.values()) > 0


def _brute_p(
    rules: FinalCountRules, scenario: str, cards: Sequence[int], dealer: Sequence[int], action: object
) -> Fraction:
    """Over each of the 48 cards that could be the hidden third card: the informed choice by the payouts of
    every ordered pair (seen card, other third card), R-FC-4/5 from the rules' own functions."""
    v = rules.value
    t2, d2 = v(cards[0]) + v(cards[1]), v(dealer[0]) + v(dealer[1])
    rest = [c for c in range(52) if c not in (*cards[:2], *dealer[:2])]
    agree = 0
    for seen in rest:
        stand = turn = 0
        for other in rest:
            if other == seen:
                continue
            mine3, dealer3 = (seen, other) if scenario == "peek-own" else (other, seen)
            dealer_total = d2 + v(dealer3)
            stand += rules.net(t2, dealer_total)
            turn += rules.net(player_final_total(t2, v(mine3), turned=True), dealer_total)
        agree += (TURN if turn > stand else STAND) == action
    return Fraction(agree, len(rest))


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    "hand", ["5c 5d 3h|Kc 8d 2s", "9c 9d Ah|4c 6d Ts", "Kc 2d 7h|Qc Jd 5s", "Ac 3d 6h|2c 2d 9s"]
)
def test_p_is_the_count_over_the_hidden_cards(scenario: str, hand: str) -> None:
    mine_text, dealer_text = hand.split("|")
    mine, dealer = parse_cards(mine_text), parse_cards(dealer_text)
    sc = scorer(FC, scenario)
    for action in (STAND, TURN):
        s = sc.score_dealt({"seat 1": mine, "dealer": dealer}, 1, action)
        assert s.p == _brute_p(FC, scenario, mine, dealer, action)


def test_readers_are_flagged_and_honest_players_with_mistakes_are_not() -> None:
    for scenario in SCENARIOS:
        r = simulate(
            FC, scenario, cheaters=5, honest=5, hands=250, honest_noise=0.05, seed=3, method="engine"
        )
        assert r.cheaters_flagged == 5 and r.honest_flagged == 0, scenario


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_offline_path_flags_a_reader_in_a_stored_database(tmp_path: Path, scenario: str) -> None:
    pytest.importorskip("sqlalchemy")
    from tablegames.analysis.detect_db import detect_database, detect_database_reference

    url = store(tmp_path / "fc.sqlite3", FC, scorer(FC, scenario), 250)
    report = detect_database(url)
    flagged = {(f.name, f.scenario) for f in report.flagged}
    assert ("ann", scenario) in flagged and all(name == "ann" for name, _ in flagged)
    assert report.rounds == 250 and report.tests == 2 * len(SCENARIOS)
    assert report.to_dict() | {"seconds": 0} == detect_database_reference(url).to_dict() | {"seconds": 0}

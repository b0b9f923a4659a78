"""Detection for One Eyed Flush (issue 27): ``dealer-hole-1``, ``dealer-hole-both`` and ``next-card`` score a
recorded decision as at the engine, with sound cache keys, the informed choice of ``tablegames protect``'s
informed player (R-OEF-5), an exact ``p`` (a count over the cards with protect's bot), readers flagged and honest
players with mistakes not, at the harness and in a stored database."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest
from detect_games_support import check_keys, played, store
from detect_support import live_decisions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.analysis.detect import scenarios, scorer
from tablegames.analysis.detect_simulate import simulate
from tablegames.analysis.one_eyed_flush_detect import OneEyedFlushScorer
from tablegames.analysis.protect_one_eyed_flush import informed_action
from tablegames.cards import parse_cards
from tablegames.engine import Action
from tablegames.engine.actions import STAND, discard
from tablegames.rules import make_rules
from tablegames.rules.one_eyed_flush import OneEyedFlushRules


def _oef() -> OneEyedFlushRules:
    rules = make_rules("one-eyed-flush")
    assert isinstance(rules, OneEyedFlushRules)
    return rules


OEF = _oef()
SCENARIOS = ("dealer-hole-1", "dealer-hole-both", "next-card")
ACTIONS = (STAND, discard(0), discard(1), discard(2))


def _scorers() -> list[OneEyedFlushScorer]:
    found = [scorer(OEF, s) for s in SCENARIOS]
    assert all(isinstance(s, OneEyedFlushScorer) for s in found)
    return found  # type: ignore[return-value]


def test_the_scenarios_are_protects_hidden_cards() -> None:
    assert scenarios(OEF) == list(SCENARIOS)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_a_recorded_decision_scores_as_at_the_engine(seed: int) -> None:
    found = _scorers()
    for rec in played(OEF, found, seed, seats=5):
        for sc, live in zip(found, rec.live, strict=True):
            recorded = sc.score_dealt(rec.dealt, rec.seat, rec.action, rec.prior)
            assert sc.mistake_dealt(rec.dealt, rec.seat, rec.action, rec.prior) == live.mistake
            if sc.scenario == "next-card" and recorded.support == {}:  # the next card was never dealt
                assert rec.action == STAND and recorded.p == 0 and recorded.legal == live.legal
                assert len(rec.dealt["dealer"]) == 3  # no one drew after the seat
                assert not any(len(v) > 3 for k, v in rec.dealt.items() if k > f"seat {rec.seat}")
                continue
            assert recorded == live


def test_equal_keys_mean_equal_answers() -> None:
    found = _scorers()
    rng = random.Random(2)
    changed = 0
    for seed in range(25):
        for rec in played(OEF, found, seed, seats=4):
            for sc in found:
                changed += check_keys(sc, rec, rng, unordered=3)
    assert changed > 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_informed_choice_is_protects(scenario: str) -> None:
    sc = scorer(OEF, scenario)
    bot = informed_action(OEF, scenario)
    seen: set[str] = set()
    for rnd, seat in live_decisions(OEF, 40):
        s = sc.score(rnd, seat, STAND)
        assert s.informed_best == bot(rnd, seat)
        seen.add(s.informed_best.name)
        rnd.act(seat, s.legal_best)
    assert seen == {"stand", "discard"}


def _fake_round(mine: Sequence[int], dealer: list[int], next_card: int) -> SimpleNamespace:
    return SimpleNamespace(
        seats={1: SimpleNamespace(cards=mine)},
        flow=SimpleNamespace(flip_card=dealer[1]),
        dealer=dealer,
        deck=[next_card],
        next_card=0,
    )


def _brute_choices(scenario: str, mine: Sequence[int], flip: int) -> list[Action]:
    """Protect's informed bot at every hidden card (or ordered pair) of the 48 the player has not seen."""
    bot = informed_action(OEF, scenario)
    rest = [c for c in range(52) if c not in (*mine, flip)]
    spare = rest[0]  # an unseen card for the positions the scenario does not read
    out = []
    for g in rest:
        for h in [c for c in rest if c != g] if scenario == "dealer-hole-both" else [spare]:
            if scenario == "next-card":
                out.append(bot(_fake_round(mine, [spare, flip, spare], g), 1))
            else:
                out.append(bot(_fake_round(mine, [g, flip, h], spare), 1))
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("hand", ["2c 7d Qh|5s", "Jh 4c 9d|Kd", "8c 8d Ks|Tc", "Ac Kh 6d|6c"])
def test_p_is_the_count_over_the_hidden_cards(scenario: str, hand: str) -> None:
    mine_text, flip_text = hand.split("|")
    mine, (flip,) = parse_cards(mine_text), parse_cards(flip_text)
    sc = scorer(OEF, scenario)
    assert isinstance(sc, OneEyedFlushScorer)
    rest = [c for c in range(52) if c not in (*mine, flip)]
    hidden = (rest[5],) if scenario != "dealer-hole-both" else (rest[5], rest[9])
    choices = _brute_choices(scenario, mine, flip)
    cls = sc.class_of

    def same(a: Action, b: Action) -> bool:  # one option: a discard of a card of the same class
        if a.index is None or b.index is None:
            return a == b
        return cls[mine[a.index]] == cls[mine[b.index]]

    for action in ACTIONS:
        s = sc.score_cards(mine, flip, hidden, action)
        assert s.p == Fraction(sum(same(c, action) for c in choices), len(choices)), action
    assert sum(sc.exposure(sc._state(mine, flip, STAND)[0]).support) == 1


def test_readers_are_flagged_and_honest_players_with_mistakes_are_not() -> None:
    for scenario, hands in zip(SCENARIOS, (300, 150, 150), strict=True):
        r = simulate(
            OEF, scenario, cheaters=4, honest=4, hands=hands, honest_noise=0.05, seed=3, method="engine"
        )
        assert r.cheaters_flagged == 4 and r.honest_flagged == 0, scenario


@pytest.mark.parametrize("scenario", ["dealer-hole-1", "next-card"])
def test_the_offline_path_flags_a_reader_in_a_stored_database(tmp_path: Path, scenario: str) -> None:
    pytest.importorskip("sqlalchemy")
    from tablegames.analysis.detect_db import detect_database, detect_database_reference

    url = store(tmp_path / "oef.sqlite3", OEF, scorer(OEF, scenario), 300)
    report = detect_database(url)
    flagged = {(f.name, f.scenario) for f in report.flagged}
    assert ("ann", scenario) in flagged and all(name == "ann" for name, _ in flagged)
    assert report.rounds == 300 and report.tests == 2 * len(SCENARIOS)
    assert report.to_dict() | {"seconds": 0} == detect_database_reference(url).to_dict() | {"seconds": 0}

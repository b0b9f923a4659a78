"""Collusion in One Eyed Flush (issue 27, ``share=2``): the pair scorer scores a recorded decision as at the engine,
plays as ``protect``'s ``share=2`` informed player (its share kernel with the partner's cards out, R-OEF-5), its
``p`` is a count over every partner hand, its keys are sound; the harness flags a colluding pair and no noisy
honest player, and the offline scan flags exactly the pair in a stored database."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from detect_games_support import dealt_of
from detect_support import store_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablegames.analysis import one_eyed_flush as oefa
from tablegames.analysis import one_eyed_flush_kernel as kern
from tablegames.analysis.detect import DecisionScore, pair_scenarios, pair_scorer, scorer
from tablegames.analysis.detect_simulate import simulate
from tablegames.analysis.one_eyed_flush_detect_pairs import OneEyedFlushPairScorer
from tablegames.analysis.protect_one_eyed_flush import _kernels
from tablegames.engine import Action, Round, Table
from tablegames.engine.actions import STAND, discard
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError
from tablegames.rules.one_eyed_flush import OneEyedFlushRules


def _oef() -> OneEyedFlushRules:
    rules = make_rules("one-eyed-flush")
    assert isinstance(rules, OneEyedFlushRules)
    return rules


OEF = _oef()
ACTIONS = (STAND, discard(0), discard(1), discard(2))


def _scorer() -> OneEyedFlushPairScorer:
    sc = pair_scorer(OEF, "share=2")
    assert isinstance(sc, OneEyedFlushPairScorer)
    return sc


SC = _scorer()


def _option(sc: OneEyedFlushPairScorer, mine: list[int], flip: int, action: Action) -> int:
    return int(sc.legal._state(mine, flip, action)[1])


def test_the_protocol_lists_share_2() -> None:
    assert pair_scenarios(OEF) == ["share=2"]
    assert pair_scenarios(make_rules("final-count")) == []  # its shared cards are public (R-FC-2)
    with pytest.raises(RuleError):
        pair_scorer(OEF, "share=3")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_a_recorded_decision_scores_as_at_the_engine(seed: int) -> None:
    """Four seats acting at random; each decision scored against every other seat at the engine (a seat that
    drew already shows its first three cards), then from the finished round's record."""
    rng = random.Random(seed)
    table = Table(OEF, seats=4, source=SeededRandom(seed))
    rnd = table.new_round()
    for s_no in range(1, 5):
        rnd.place_wager(s_no, rnd.main_wager(), 100)
    rnd.deal()
    taken: list[tuple[int, Action, dict[int, DecisionScore]]] = []
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        action = rng.choice(rnd.legal_actions(seat))
        taken.append(
            (seat, action, {q: SC.score(rnd, seat, action, partner=q) for q in range(1, 5) if q != seat})
        )
        rnd.act(seat, action)
    dealt = dealt_of(rnd)
    for seat, action, live in taken:
        for q, s in live.items():
            assert SC.score_dealt(dealt, seat, action, partner=q) == s
            assert SC.mistake_dealt(dealt, seat, action) == s.mistake


def test_the_keys_are_sound() -> None:
    """Equal keys, equal answers (``p``, supported); each card of the record replaced in turn: a changed answer
    has a changed key; the mistake key does not read the partner's cards."""
    rng = random.Random(9)
    answers: dict[Any, tuple[Fraction, bool]] = {}
    changed = 0
    for _ in range(6):
        deck = rng.sample(range(52), 10)
        dealt = {"seat 1": deck[:3], "seat 2": deck[3:6], "dealer": deck[6:9]}
        for action in ACTIONS:
            s = SC.score_dealt(dealt, 1, action, partner=2)
            key = SC.score_key(dealt, 1, action, partner=2)
            assert answers.setdefault(key, (s.p, s.supported)) == (s.p, s.supported)
            for owner in ("seat 1", "seat 2"):
                for j in range(3):
                    other = dict(dealt, **{owner: [*dealt[owner][:j], deck[9], *dealt[owner][j + 1 :]]})
                    o = SC.score_dealt(other, 1, action, partner=2)
                    okey = SC.score_key(other, 1, action, partner=2)
                    assert answers.setdefault(okey, (o.p, o.supported)) == (o.p, o.supported)
                    changed += (o.p, o.supported) != (s.p, s.supported)
                    if owner == "seat 2":
                        assert SC.mistake_key(other, 1, action) == SC.mistake_key(dealt, 1, action)
    assert changed > 0


def _share_chosen(mine: list[int], flip: int, partners: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``protect``'s share kernel (``protect_one_eyed_flush.share``'s per-deal solve) for each partner hand."""
    sol = oefa._solve(OEF)
    t = sol.tables
    cls = np.array([t.classes.card_class(c) for c in range(52)], dtype=np.int64)
    state = np.array([*sorted(cls[mine]), cls[flip]], dtype=np.int64)
    rems = np.broadcast_to(t.counts, (len(partners), len(t.counts))).astype(np.int64)
    for c in [*mine, flip]:
        rems[:, cls[c]] -= 1
    for j in range(3):
        np.subtract.at(rems, (np.arange(len(partners)), cls[partners[:, j]]), 1)
    states = np.tile(state, (len(partners), 1))
    out = np.zeros(len(partners), dtype=np.float64)
    chosen = np.zeros(len(partners), dtype=np.int64)
    _kernels()["share"](states, rems, sol.best, sol.pay, *kern.table_args(t), out, chosen)
    return chosen


def test_the_informed_choice_is_protects_share_2_choice() -> None:
    """At a two-seat table each seat's informed choice is the option ``protect``'s share kernel plays with the
    other seat's three cards out; the exposed values are the kernel's sums over its deals."""
    table = Table(OEF, seats=2, source=SeededRandom(4))
    options: set[int] = set()
    for _ in range(30):
        rnd = table.new_round()
        for seat in (1, 2):
            rnd.place_wager(seat, rnd.main_wager(), 100)
        rnd.deal()
        for seat in (1, 2):
            mine, flip = [int(c) for c in rnd.seats[seat].cards], int(rnd.dealer[1])
            s = SC.score(rnd, seat, STAND, partner=3 - seat)
            theirs = np.array([[int(c) for c in rnd.seats[3 - seat].initial_cards]], dtype=np.int64)
            best = int(_share_chosen(mine, flip, theirs)[0])
            assert _option(SC, mine, flip, s.informed_best) == best
            assert s.exposed[s.informed_best] == max(s.exposed.values())
            options.add(best)
            rnd.act(seat, s.informed_best)
    assert len(options) >= 2


def test_p_is_a_count_over_every_partner_hand() -> None:
    """Every one of the C(48, 3) = 17,296 partner hands (cards, not classes) through ``protect``'s share kernel:
    the informed option counted; ``p`` of each action is its option's share, and the single-hand informed choice
    agrees with the kernel's."""
    mine, flip = [30, 25, 40], 9  # 9h 8d Qc, the Flip Card 4d
    rest = [c for c in range(52) if c not in (*mine, flip)]
    partners = np.array(list(combinations(rest, 3)), dtype=np.int64)
    chosen = _share_chosen(mine, flip, partners)
    assert len(set(chosen.tolist())) >= 3  # a hand whose informed choice depends on the partner's cards
    for action in ACTIONS:
        s = SC.score_cards(mine, flip, partners[0].tolist(), action)
        option = _option(SC, mine, flip, action)
        assert s.p == Fraction(int((chosen == option).sum()), len(partners)), action
    for j in np.random.default_rng(1).choice(len(partners), 40, replace=False):
        s = SC.score_cards(mine, flip, partners[j].tolist(), STAND)
        assert _option(SC, mine, flip, s.informed_best) == int(chosen[j])


def test_the_harness_flags_the_colluding_pair_and_no_noisy_honest_player() -> None:
    """At a loose alpha (1e-3 a pair-test; the figures at 1e-6 are in docs/detection.md): the pair is flagged at
    hand 20 of this seed."""
    r = simulate(OEF, "share=2", cheaters=2, honest=3, hands=60, honest_noise=0.1, seed=4, alpha=1e-3)
    assert r.method == "engine" and r.scenarios_tested == 1
    assert r.cheaters_flagged == 2 and r.honest_flagged == 0
    assert r.cheater_hands_to_flag[0] == r.cheater_hands_to_flag[1]


ROUNDS = 160
SEATS = 4  # seats 2 and 3 collude (each plays on the other's cards); 1 and 4 err at random


def _store(path: Path) -> str:
    rng = random.Random(7)
    fair = scorer(OEF, "dealer-hole-1")

    def act(rnd: Round, seat: int) -> tuple[Action, str]:
        if seat in (2, 3):
            return SC.score(rnd, seat, STAND, partner=5 - seat).informed_best, "player"
        action = fair.score(rnd, seat, STAND).legal_best
        if rng.random() < 0.15:
            action = rng.choice([a for a in rnd.legal_actions(seat) if a != action])
        return action, "player"

    return store_table(path, OEF, SEATS, ROUNDS, act, lambda rid: {str(i): i for i in range(1, SEATS + 1)})


def test_the_offline_scan_flags_exactly_the_colluding_pair(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from tablegames.analysis.detect_pairs_db import detect_pairs_database

    report = detect_pairs_database(_store(tmp_path / "oef.sqlite3"), alpha=1e-3)
    assert report.rounds == ROUNDS and report.tests == SEATS * (SEATS - 1)
    assert {(f.player, f.partner) for f in report.pairs} == {("p2", "p3")}  # seat 2 acts first: its evidence
    (f,) = report.pairs
    assert f.evidence_rounds and f.supported <= f.mistakes and f.flagged_at_hand <= f.hands == ROUNDS

"""Collusion (issue 27, ``share=2``): the pair scorers of Three Card Poker and Let It Ride score a recorded decision
as at the engine, value it as ``protect``'s informed player does with the partner's cards out (R-TCP-4, R-TCP-5;
R-LIR-2, R-LIR-3), and their ``p`` is a brute-force count over the partner's hands; their keys are sound."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from detect_support import live_decisions

from tablegames.analysis import let_it_ride as lir
from tablegames.analysis import three_card_poker as tcpa
from tablegames.analysis.common import colex_of
from tablegames.analysis.detect import pair_scenarios, pair_scorer, scenarios
from tablegames.analysis.let_it_ride_detect_pairs import canonical, ride_table
from tablegames.analysis.protect_let_it_ride import _share_batch, hand5
from tablegames.analysis.protect_three_card_poker import _values, informed_action
from tablegames.analysis.three_card_poker_detect_pairs import DEALER_LEFT, pair_table
from tablegames.engine import Table
from tablegames.engine.actions import PULL, RIDE
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError
from tablegames.rules.let_it_ride import LetItRideRules
from tablegames.rules.three_card_poker import FOLD, PLAY, ThreeCardPokerRules


def _tcp() -> ThreeCardPokerRules:
    rules = make_rules("three-card-poker")
    assert isinstance(rules, ThreeCardPokerRules)
    return rules


def _lir() -> LetItRideRules:
    rules = make_rules("let-it-ride")
    assert isinstance(rules, LetItRideRules)
    return rules


TCP, LIR = _tcp(), _lir()


def _dealt(rnd: Any) -> dict[str, list[int]]:
    out = {f"seat {s}": [int(c) for c in rnd.seats[s].cards] for s in rnd.seats}
    out["dealer"] = [int(c) for c in rnd.dealer]
    return out


def _prior(rules: Any, rnd: Any, seat: int) -> list[Any]:
    if rules is TCP or rnd.flow.stage == 1:
        return []
    return [RIDE if "1" in rnd.flow.up[seat] else PULL]


def test_the_protocol_lists_the_collusion_scenarios() -> None:
    assert pair_scenarios(TCP) == pair_scenarios(LIR) == ["share=2"]
    assert "share=2" not in scenarios(TCP)  # a pair test, not a player test
    with pytest.raises(RuleError):
        pair_scorer(TCP, "share=3")


@pytest.mark.parametrize("rules", [TCP, LIR], ids=["three-card-poker", "let-it-ride"])
def test_a_recorded_decision_scores_as_at_the_engine(rules: Any) -> None:
    sc = pair_scorer(rules, "share=2")
    seen = 0
    for rnd, seat in live_decisions(rules, 12, seed=3):
        for partner in (s for s in (1, 2, 3) if s != seat):
            for action in rnd.legal_actions(seat):
                s = sc.score(rnd, seat, action, partner=partner)
                dealt, prior = _dealt(rnd), _prior(rules, rnd, seat)
                assert sc.score_dealt(dealt, seat, action, prior, partner=partner) == s
                assert sc.mistake_dealt(dealt, seat, action, prior) == s.mistake
                assert sum(s.support.values(), Fraction(0)) == 1
                seen += 1
        rnd.act(seat, sc.score(rnd, seat, rnd.legal_actions(seat)[0], partner=1 + seat % 3).informed_best)
    assert seen > 100


def test_three_card_poker_plays_as_protects_informed_player_with_the_partners_cards_out() -> None:
    """At a two-seat table ``protect``'s share=2 bot sees exactly the partner's cards; the exposed value of
    playing is the mean over the 46 cards' dealer hands (R-TCP-4, R-TCP-5)."""
    sc = pair_scorer(TCP, "share=2")
    bot = informed_action(TCP, "share=2")
    table = Table(TCP, seats=2, source=SeededRandom(4))
    for _ in range(25):
        rnd = table.new_round()
        for seat in (1, 2):
            rnd.place_wager(seat, rnd.main_wager(), 100)
        rnd.deal()
        for seat in (1, 2):
            s = sc.score(rnd, seat, FOLD, partner=3 - seat)
            assert s.informed_best == bot(rnd, seat)
            out = {int(c) for other in (1, 2) for c in rnd.seats[other].cards}
            rows, v = _values(TCP, colex_of(sorted(int(c) for c in rnd.seats[seat].cards)))
            cards = tcpa._hands().cards[rows]
            keep = ~np.isin(cards, list(out)).any(axis=1)
            assert int(keep.sum()) == DEALER_LEFT
            assert s.exposed[PLAY] == Fraction(int(v[keep].sum()), DEALER_LEFT)
            rnd.act(seat, s.informed_best)


def test_three_card_poker_p_is_a_brute_force_count_over_the_partners_hands() -> None:
    """Q-6-4 offsuit, the border of the fair strategy: every one of the 18,424 partner hands valued directly
    (the dealer hands of the 49 cards that avoid it), the informed choice counted."""
    mine = [40, 17, 9]  # Qc 6d 4d: (rank << 2) | suit
    i = colex_of(sorted(mine))
    rows, v = _values(TCP, i)
    masks = tcpa._hands().masks[rows]
    plays = 0
    for lo in range(0, len(rows), 600):
        disjoint = (masks[lo : lo + 600, None] & masks[None, :]) == 0
        sums = (disjoint * v[None, :]).sum(axis=1)
        assert (disjoint.sum(axis=1) == DEALER_LEFT).all()
        plays += int((sums > -DEALER_LEFT).sum())
    t = pair_table(TCP, i)
    assert 0 < plays < len(rows)
    sc: Any = pair_scorer(TCP, "share=2")
    partner = [int(c) for c in tcpa._hands().cards[rows[0]]]
    s = sc.score_cards(mine, partner, PLAY)
    assert s.support[PLAY] == Fraction(plays, len(rows)) == t.support()[PLAY]
    assert s.p == Fraction(plays, len(rows)) and s.chose(FOLD).p == 1 - s.p


def _ride_share(mine: tuple[int, ...]) -> np.ndarray[Any, Any]:
    sol = lir._solve(LIR, None)
    rest = [c for c in range(52) if c not in mine]
    partners = np.array(list(combinations(rest, 3)), dtype=np.int64)
    out = [
        _share_batch(sol, hand5(LIR.qualifier_rank), np.tile(np.array(mine), (len(b), 1)), b)[2]
        for b in np.array_split(partners, 8)
    ]
    return np.concatenate(out)


def test_let_it_ride_decision_1_is_protects_share_decision_for_every_partner_hand() -> None:
    """``ride_table`` (p's count) against ``protect``'s ``_share_batch`` over all 18,424 partner hands of a
    hand whose informed decision depends on them (a three-card straight flush draw), and a class shares it."""
    mine = (
        20,
        24,
        32,
    )  # 7c 8c Tc: the fair strategy rides; with some partner hands out the draw does not pay
    table = ride_table(LIR, mine)
    assert 0 < table.sum() < len(table)
    assert (table == _ride_share(mine)).all()
    relabelled = tuple(sorted(c + 1 for c in mine))  # the same hand in diamonds
    assert canonical(relabelled) == canonical(mine)
    sc: Any = pair_scorer(LIR, "share=2")
    assert sc.support1(list(relabelled))[RIDE] == Fraction(int(table.sum()), len(table))


def test_let_it_ride_scores_as_protects_informed_player_and_counts_p_at_decision_2() -> None:
    sc: Any = pair_scorer(LIR, "share=2")
    sol = lir._solve(LIR, None)
    win = np.asarray(sol.win, dtype=np.int64)
    h5 = hand5(LIR.qualifier_rank)
    rng = random.Random(2)
    for _ in range(15):
        deck = rng.sample(range(52), 8)
        mine, theirs, c1 = sorted(deck[:3]), sorted(deck[3:6]), deck[6]
        s = sc.score_cards(mine, theirs, c1, 1, False, PULL)
        inf, _fair, s_inf, *_ = _share_batch(sol, h5, np.array([mine]), np.array([theirs]))
        assert (s.informed_best == RIDE) == bool(s_inf[0])
        assert max(s.exposed.values()) * 46 * 45 == int(inf[0])
        up1 = rng.random() < 0.5
        s2 = sc.score_cards(mine, theirs, c1, 2, up1, PULL)
        k = 1 + int(up1)
        rest = [c for c in range(52) if c not in (*mine, c1)]
        gain = {x: _gain(win, k, [*mine, c1, x]) for x in rest}
        assert (s2.informed_best == RIDE) == (sum(g for x, g in gain.items() if x not in theirs) > 0)
        rides = sum(sum(g for x, g in gain.items() if x not in b) > 0 for b in combinations(rest, 3))
        assert s2.support[RIDE] == Fraction(rides, len(list(combinations(rest, 3))))


def _gain(win: Any, k: int, five: list[int]) -> int:
    hand = int(LIR.hand(five))
    return int(win[k + 1, hand]) - int(win[k, hand])


@pytest.mark.parametrize("rules", [TCP, LIR], ids=["three-card-poker", "let-it-ride"])
def test_the_keys_are_sound(rules: Any) -> None:
    """Equal keys, equal answers; a partner's card changed changes the key whenever it changes the answer."""
    sc = pair_scorer(rules, "share=2")
    rng = random.Random(9)
    answers: dict[Any, tuple[Fraction, bool]] = {}
    changed = 0
    for _ in range(120):
        deck = rng.sample(range(52), 10)
        dealt = {"seat 1": deck[:3], "seat 2": deck[3:6], "dealer": deck[6:9]}
        prior = [] if rules is TCP or rng.random() < 0.5 else [rng.choice([PULL, RIDE])]
        perm = rng.sample(range(4), 4)
        relabelled = {k: [(c >> 2) * 4 + perm[c & 3] for c in v] for k, v in dealt.items()}
        for action in [PLAY, FOLD] if rules is TCP else [PULL, RIDE]:
            key = sc.score_key(dealt, 1, action, prior, partner=2)
            s = sc.score_dealt(dealt, 1, action, prior, partner=2)
            assert answers.setdefault(key, (s.p, s.supported)) == (s.p, s.supported)
            other = dict(dealt, **{"seat 2": [*dealt["seat 2"][:2], deck[9]]})
            s_other = sc.score_dealt(other, 1, action, prior, partner=2)
            if (s_other.p, s_other.supported) != (s.p, s.supported):
                changed += 1
                assert sc.score_key(other, 1, action, prior, partner=2) != key
            # suits relabelled alike: the same answer (under the same key as any other deal's)
            s_rel = sc.score_dealt(relabelled, 1, action, [*prior], partner=2)
            assert (s_rel.p, s_rel.supported) == (s.p, s.supported)
            rel_key = sc.score_key(relabelled, 1, action, prior, partner=2)
            assert answers.setdefault(rel_key, (s.p, s.supported)) == (s.p, s.supported)
            mkey = sc.mistake_key(dealt, 1, action, prior)
            assert mkey == sc.mistake_key(other, 1, action, prior)
    assert changed > 0 or rules is LIR

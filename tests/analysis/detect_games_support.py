"""Shared checks of a game's detection scorers: recorded rounds scored as at the engine, sound cache keys, and a
small stored database with a reader of one scenario."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from detect_support import settled_row

from tablegames.analysis.detect import DecisionScore, Scorer
from tablegames.engine import Action, Round, Table
from tablegames.randomness import SeededRandom


@dataclass
class Recorded:
    """A decision of a finished round: the engine's scores (under each scenario) and the round's record."""

    seat: int
    action: Action
    live: list[DecisionScore]
    prior: list[Action]
    dealt: dict[str, list[int]]


def dealt_of(rnd: Round) -> dict[str, list[int]]:
    """The round's dealt cards by owner, in deal order, as the offline path reads them from the events."""
    dealt: dict[str, list[int]] = {}
    for e in rnd.history:
        d = e.to_dict()
        if d["type"] == "card_dealt":
            dealt.setdefault(d["to"], []).append(int(rnd.deck[d["position"]]))
    return dealt


def played(
    rules: Any, scorers: Sequence[Scorer], seed: int, seats: int = 3, rounds: int = 1
) -> Iterator[Recorded]:
    """Rounds at an engine table, each seat acting at random; every decision scored under every scenario as it
    is taken, then given with the finished round's record."""
    rng = random.Random(seed)
    table = Table(rules, seats=seats, source=SeededRandom(seed))
    for _ in range(rounds):
        rnd = table.new_round()
        for s_no in range(1, seats + 1):
            rnd.place_wager(s_no, rnd.main_wager(), 100)
        rnd.deal()
        taken: list[tuple[int, Action, list[DecisionScore], list[Action]]] = []
        prior: dict[int, list[Action]] = {}
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            action = rng.choice(rnd.legal_actions(seat))
            before = prior.setdefault(seat, [])
            taken.append((seat, action, [sc.score(rnd, seat, action) for sc in scorers], list(before)))
            before.append(action)
            rnd.act(seat, action)
        dealt = dealt_of(rnd)
        for seat, action, live, before in taken:
            yield Recorded(seat, action, live, before, dealt)


def answers(score: DecisionScore) -> tuple[bool, Any, bool]:
    return score.mistake, score.p, score.supported


def check_keys(scorer: Scorer, rec: Recorded, rng: random.Random, unordered: int) -> int:
    """Every card of the record replaced in turn by a card not in it: equal keys, equal answers (and the
    seat's first ``unordered`` cards, a set, reordered: the same keys). How many replacements changed an
    answer."""
    dealt, seat, action, prior = rec.dealt, rec.seat, rec.action, rec.prior
    base = scorer.score_dealt(dealt, seat, action, prior)
    key, mkey = scorer.score_key(dealt, seat, action, prior), scorer.mistake_key(dealt, seat, action, prior)
    used = {c for v in dealt.values() for c in v}
    changed = 0
    for owner, cards in dealt.items():
        for j in range(len(cards)):
            other = dict(dealt)
            other[owner] = [*cards[:j], rng.choice([c for c in range(52) if c not in used]), *cards[j + 1 :]]
            score = scorer.score_dealt(other, seat, action, prior)
            if action not in score.legal:  # (Final Count: an odd two-card total has no decision, R-FC-3)
                continue
            changed += answers(score) != answers(base)
            if scorer.score_key(other, seat, action, prior) == key:
                assert answers(score) == answers(base), (scorer.scenario, owner, j, dealt)
            if scorer.mistake_key(other, seat, action, prior) == mkey:
                assert scorer.mistake_dealt(other, seat, action, prior) == base.mistake
    mine = dealt[f"seat {seat}"]
    reordered = dict(dealt, **{f"seat {seat}": [*mine[:unordered][::-1], *mine[unordered:]]})
    if action.index is None:  # (a discard names its card by position)
        assert scorer.score_key(reordered, seat, action, prior) == key
        assert scorer.mistake_key(reordered, seat, action, prior) == mkey
    return changed


def store(path: Path, rules: Any, reader: Scorer, rounds: int, seed: int = 4) -> str:
    """A SQLite database of ``rounds`` two-seat rounds: seat 1 (ann) plays ``reader``'s informed choice, seat 2
    (bob) the legal optimum with 10% random other actions."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from tablegames.server.db import Account, Base, GameTable, Player

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    rng = random.Random(seed)
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in (1, 2)])
        s.add_all(
            [Player(id=i, name=n, token_hash=f"t{i}", account_id=i) for i, n in ((1, "ann"), (2, "bob"))]
        )
        s.add(GameTable(id=1, name="t", game=rules.game, seats=2, min_bet=100, max_bet=1000))
        s.flush()
        table = Table(rules, seats=2, source=SeededRandom(seed))
        for n in range(rounds):
            rnd = table.new_round()
            for s_no in (1, 2):
                rnd.place_wager(s_no, rnd.main_wager(), 100)
            rnd.deal()
            while not rnd.is_over:
                seat = rnd.to_act
                assert seat is not None
                score = reader.score(rnd, seat, rnd.legal_actions(seat)[0])
                action = score.informed_best if seat == 1 else score.legal_best
                if seat == 2 and rng.random() < 0.1:
                    action = rng.choice([a for a in rnd.legal_actions(seat) if a != action])
                rnd.act(seat, action)
            s.add(settled_row(n + 1, table, rnd, {"1": 1, "2": 2}))
        s.commit()
    engine.dispose()
    return url

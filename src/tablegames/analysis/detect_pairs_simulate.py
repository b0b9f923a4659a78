"""The collusion harness (issue 27, ``share=K``): colluding pairs seated together at engine tables, honest players
around them, and how fast the pair test flags them.

Each table seats up to seven (R-0.2): the players are laid out as units (a colluding pair, two adjacent seats, or
an honest player), pairs spread evenly among the honest players, a new table begun when a pair would not fit.
A cheater sees its partner's cards (every hand, or a fraction ``read_rate`` of hands, decided per hand) and then
plays the informed choice (the game's :class:`~tablegames.analysis.detect.PairScorer`); otherwise the legal
optimum; with probability ``cheater_noise`` per decision it takes another legal action at random instead.
Honest players play the legal optimum, and with probability ``honest_noise`` per decision another legal
action at random.

Every ordered pair of players at a table has a test (A uses B's cards), entered at each of A's hands and updated at
A's first mistake of a hand taken before B's first decision of the round (B's decisions are public and tell about
B's cards: see :class:`~tablegames.analysis.detect.PairScorer`). Seats act in order, so a pair's evidence comes
from the one seated first. A cheater counts as flagged when its pair is (either ordered test of the two; its hands
to flag the earlier); an honest player counts as flagged when a test of its own decisions (honest A, any B) is.
"""

from __future__ import annotations

import random
from typing import Any

from tablegames.analysis import detect
from tablegames.analysis.detect_simulate import Progress, SimulationResult
from tablegames.engine import MAX_SEATS, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import GameRules
from tablegames.rules.common import RuleError


def seating(cheaters: int, honest: int, seats: int = MAX_SEATS) -> list[list[int]]:
    """Players ``0 .. cheaters-1`` in pairs (0 with 1, 2 with 3, ...), then the honest ones, at tables of
    ``seats``: each pair in adjacent seats, the pairs spread among the honest players.

    >>> seating(4, 6)
    [[0, 1, 4, 5, 6, 2, 3], [7, 8, 9]]
    """
    pairs = [[c, c + 1] for c in range(0, cheaters, 2)]
    singles = [[h] for h in range(cheaters, cheaters + honest)]
    units: list[list[int]] = []
    i = j = 0
    while i < len(pairs) or j < len(singles):  # merged in proportion (the pairs spread evenly)
        if j >= len(singles) or (i < len(pairs) and i * len(singles) <= j * len(pairs)):
            units.append(pairs[i])
            i += 1
        else:
            units.append(singles[j])
            j += 1
    tables: list[list[int]] = [[]]
    for unit in units:
        if len(tables[-1]) + len(unit) > seats:
            tables.append([])
        tables[-1] += unit
    return [t for t in tables if t]


def simulate_pairs(
    rules: GameRules,
    scenario: str,
    *,
    cheaters: int,
    honest: int,
    hands: int,
    read_rate: float,
    honest_noise: float,
    seed: int,
    alpha: float,
    progress: Progress | None = None,
    cheater_noise: float = 0.0,
) -> SimulationResult:
    """Play the pairs and the honest players ``hands`` hands each and test every ordered pair at each table."""
    if cheaters % 2:
        raise RuleError(f"{scenario}: cheaters come in pairs (an even --cheaters)")
    pair = detect.pair_scorer(rules, scenario)
    fair = detect.scorer(rules, detect.scenarios(rules)[0])  # the legal values, for a player not reading
    m = len(detect.pair_scenarios(rules))
    rngs = [random.Random(f"{seed}/{p}") for p in range(cheaters + honest)]
    tests: dict[tuple[int, int], detect.SequentialTest] = {}
    done, total = 0, (cheaters + honest) * hands
    for no, group in enumerate(seating(cheaters, honest)):
        seat_of = {p: s for s, p in enumerate(group, start=1)}
        for a in group:
            for b in group:
                if a != b:
                    tests[(a, b)] = detect.SequentialTest(alpha=alpha, scenarios=m)
        table = Table(rules, seats=len(group), source=SeededRandom(f"collude/{seed}/{no}"))
        for _hand in range(hands):
            noise = (honest_noise, cheater_noise)
            _play(table, group, seat_of, pair, fair, tests, cheaters, read_rate, noise, rngs)
            done += len(group)
            if progress is not None:
                progress(done, total)
    flags: list[int | None] = []
    for c in range(cheaters):
        mate = c ^ 1
        found = [t.flagged_at for t in (tests[(c, mate)], tests[(mate, c)]) if t.flagged_at is not None]
        flags.append(min(found) if found else None)
    honest_flagged = sum(
        any(t.flagged for (a, _b), t in tests.items() if a == h) for h in range(cheaters, cheaters + honest)
    )
    return SimulationResult(
        game=rules.game,
        scenario=scenario,
        method="engine",
        cheaters=cheaters,
        cheaters_flagged=sum(f is not None for f in flags),
        honest=honest,
        honest_flagged=honest_flagged,
        hands=hands,
        read_rate=read_rate,
        honest_noise=honest_noise,
        alpha=alpha,
        scenarios_tested=m,
        seed=seed,
        cheater_hands_to_flag=flags,
        cheater_noise=cheater_noise,
    )


def _play(
    table: Table,
    group: list[int],
    seat_of: dict[int, int],
    pair: Any,
    fair: Any,
    tests: dict[tuple[int, int], detect.SequentialTest],
    cheaters: int,
    read_rate: float,
    noise: tuple[float, float],
    rngs: list[random.Random],
) -> None:
    """One round at ``table``: every decision taken and entered into its player's tests (``noise``: the honest
    players' and the cheaters' rates of random mistakes; no draw at a rate of 0)."""
    rnd = table.new_round()
    for s_no in range(1, len(group) + 1):
        rnd.place_wager(s_no, rnd.main_wager(), 100)
    rnd.deal()
    hand = table.round_no
    acted: set[int] = set()
    reads = {p: rngs[p].random() < read_rate for p in group if p < cheaters}  # decided per hand
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        p = group[seat - 1]
        legal = rnd.legal_actions(seat)
        mate = seat_of.get(p ^ 1) if p < cheaters else None
        reading = mate is not None and reads[p]
        s = pair.score(rnd, seat, legal[0], partner=mate) if reading else fair.score(rnd, seat, legal[0])
        action = s.informed_best if reading else s.legal_best
        slip = noise[0] if p >= cheaters else noise[1]
        if slip and rngs[p].random() < slip:
            others = [a for a in legal if a != action]
            action = rngs[p].choice(others) if others else action
        mistake = s.chose(action).mistake
        for q in group:
            if q == p:
                continue
            t = tests[(p, q)]
            t.enter(hand)
            if mistake and seat_of[q] not in acted and seat_of[q] != seat:
                same = (
                    reading and q == p ^ 1 and action in (s.action, s.informed_best)
                )  # (else One Eyed Flush:
                # a discard of the informed class by the other card may not be s.informed_best)
                scored = s if same else pair.score(rnd, seat, action, partner=seat_of[q])
                scored = scored.chose(action)
                t.observe_values(True, scored.p, scored.supported, hand)
        acted.add(seat)
        rnd.act(seat, action)

"""The detection harness (issue 27): synthetic cheaters and honest players, and how fast the test flags them.

Cheaters see the scenario's hidden cards (every hand, or a fraction ``read_rate`` of hands, decided per hand)
and then play the informed choice; otherwise the legal optimum. Honest players play the legal optimum (the
exact advisor), and with probability ``honest_noise`` per decision another legal action chosen at random:
mistakes uncorrelated with the hidden cards.

Two ways to play them, giving the same decisions:

- ``engine``: every player at an engine table (seven seats a table, R-0.2), each decision scored by the game's
  :class:`~tablegames.analysis.detect.Scorer` as a recorded decision would be;
- ``kernel`` (Three Card Poker ``dealer-1``): each player's hands drawn as arrays (the own three cards and the
  dealer's first card of a shuffled deck, as at a table), decided and scored by the same exposure tables
  (:func:`~tablegames.analysis.detect_three_card_poker.class_table`) in a few array operations: fast enough for
  ten thousand players.

Every test uses the Bonferroni threshold over the scenarios the game's detection covers (``scenarios``), so a
figure here is the one a casino running every scenario gets.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import detect
from tablegames.engine import MAX_SEATS, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SimulationResult:
    game: str
    scenario: str
    method: str
    cheaters: int
    cheaters_flagged: int
    honest: int
    honest_flagged: int
    hands: int
    read_rate: float
    honest_noise: float
    alpha: float
    scenarios_tested: int
    seed: int
    cheater_hands_to_flag: list[int | None]  # per cheater, None: not flagged within ``hands``

    def percentile(self, q: float) -> int | None:
        """Hands to flag at the q-th percentile over *all* cheaters (an unflagged one counts as never): None
        when that percentile is not flagged within the hands played."""
        if not self.cheaters:
            return None
        ranked = sorted(math.inf if h is None else h for h in self.cheater_hands_to_flag)
        value = ranked[max(0, math.ceil(q / 100 * len(ranked)) - 1)]
        return None if value == math.inf else int(value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "scenario": self.scenario,
            "method": self.method,
            "cheaters": self.cheaters,
            "cheaters_flagged": self.cheaters_flagged,
            "honest": self.honest,
            "honest_flagged": self.honest_flagged,
            "hands": self.hands,
            "read_rate": self.read_rate,
            "honest_noise": self.honest_noise,
            "median_hands_to_flag": self.percentile(50),
            "p95_hands_to_flag": self.percentile(95),
            "p99_hands_to_flag": self.percentile(99),
            "alpha": self.alpha,
            "scenarios_tested": self.scenarios_tested,
            "threshold": self.scenarios_tested / self.alpha,
            "seed": self.seed,
        }


def simulate(
    rules: GameRules,
    scenario: str,
    *,
    cheaters: int,
    honest: int,
    hands: int,
    read_rate: float = 1.0,
    honest_noise: float = 0.0,
    seed: int = 1,
    alpha: float = detect.DEFAULT_ALPHA,
    method: str = "auto",
    progress: Progress | None = None,
) -> SimulationResult:
    """Play ``cheaters`` and ``honest`` players ``hands`` hands each and test every one (see the module)."""
    if cheaters < 0 or honest < 0 or hands <= 0:
        raise RuleError("cheaters and honest must be >= 0 and hands > 0")
    if not 0.0 <= read_rate <= 1.0 or not 0.0 <= honest_noise <= 1.0:
        raise RuleError("--read-rate and --honest-noise are fractions from 0 to 1")
    if not 0.0 < alpha < 1.0:
        raise RuleError("alpha must be between 0 and 1")
    detect.scorer(rules, scenario)  # RuleError for an unknown game or scenario
    m = len(detect.scenarios(rules))
    kernel = registry.of(rules).key == "three-card-poker" and scenario == "dealer-1"
    if method == "auto":
        method = "kernel" if kernel else "engine"
    if method == "kernel" and not kernel:
        raise RuleError(f"no simulation kernel for {rules.game} {scenario}; use --method engine")
    if method not in ("kernel", "engine"):
        raise RuleError(f"unknown method {method!r}: auto, kernel or engine")
    run = _kernel if method == "kernel" else _engine
    flags = run(
        rules, scenario, cheaters + honest, cheaters, hands, read_rate, honest_noise, seed, alpha, m, progress
    )
    return SimulationResult(
        game=rules.game,
        scenario=scenario,
        method=method,
        cheaters=cheaters,
        cheaters_flagged=sum(f is not None for f in flags[:cheaters]),
        honest=honest,
        honest_flagged=sum(f is not None for f in flags[cheaters:]),
        hands=hands,
        read_rate=read_rate,
        honest_noise=honest_noise,
        alpha=alpha,
        scenarios_tested=m,
        seed=seed,
        cheater_hands_to_flag=flags[:cheaters],
    )


def _engine(
    rules: GameRules,
    scenario: str,
    players: int,
    cheaters: int,
    hands: int,
    read_rate: float,
    noise: float,
    seed: int,
    alpha: float,
    m: int,
    progress: Progress | None,
) -> list[int | None]:
    """Players ``0 .. players-1`` (the first ``cheaters`` cheat), seven to an engine table."""
    score = detect.scorer(rules, scenario)
    tests = [detect.SequentialTest(alpha=alpha, scenarios=m) for _ in range(players)]
    rngs = [random.Random(f"{seed}/{p}") for p in range(players)]
    done = 0
    for first in range(0, players, MAX_SEATS):
        group = list(range(first, min(players, first + MAX_SEATS)))
        table = Table(rules, seats=len(group), source=SeededRandom(f"detect/{seed}/{first}"))
        for _hand in range(hands):
            rnd = table.new_round()
            for s_no in range(1, len(group) + 1):
                rnd.place_wager(s_no, rnd.main_wager(), 100)
            rnd.deal()
            while not rnd.is_over:
                seat = rnd.to_act
                assert seat is not None
                p = group[seat - 1]
                s = score.score(rnd, seat, rnd.legal_actions(seat)[0])
                action = s.legal_best
                if p < cheaters:
                    if rngs[p].random() < read_rate:
                        action = s.informed_best
                elif noise and rngs[p].random() < noise:
                    others = [a for a in rnd.legal_actions(seat) if a != s.legal_best]
                    action = rngs[p].choice(others) if others else action
                tests[p].observe(s.chose(action), hand=table.round_no)
                rnd.act(seat, action)
            done += len(group)
            if progress is not None:
                progress(done, players * hands)
    return [t.flagged_at for t in tests]


def _kernel(
    rules: GameRules,
    scenario: str,
    players: int,
    cheaters: int,
    hands: int,
    read_rate: float,
    noise: float,
    seed: int,
    alpha: float,
    m: int,
    progress: Progress | None,
) -> list[int | None]:
    """Three Card Poker ``dealer-1`` in arrays (see the module), a block of players at a time."""
    from tablegames.analysis import three_card_poker as tcpa
    from tablegames.analysis.detect_three_card_poker import PERMS, class_table, hand_perm
    from tablegames.rules.three_card_poker import ThreeCardPokerRules

    assert isinstance(rules, ThreeCardPokerRules)
    t = tcpa._hands()
    plays_table, p_play = class_table(rules)
    strategy = tcpa.optimal_strategy(rules)
    fair = strategy.plays
    tie = strategy.play_sum == -tcpa.DEALER_HANDS  # equal legal values: neither action is a mistake
    perm_of = hand_perm()
    binom = np.array([[math.comb(c, j + 1) for c in range(52)] for j in range(3)], dtype=np.int64)
    lams = np.array(detect.LAMBDAS)
    threshold = math.log(m / alpha)
    rng = np.random.default_rng(seed)
    out: list[int | None] = []
    block = max(1, 200_000 // hands)
    for first in range(0, players, block):
        n = min(block, players - first)
        cards = _four_distinct(rng, (n, hands))
        mine = np.sort(cards[..., :3], axis=-1)
        i = binom[0][mine[..., 0]] + binom[1][mine[..., 1]] + binom[2][mine[..., 2]]
        c = cards[..., 3]
        cls = t.cls[i]
        seen = (c >> 2) * 4 + PERMS[perm_of[i], c & 3]
        informed = plays_table[cls, seen]
        legal = fair[i]
        cheat = (np.arange(first, first + n) < cheaters)[:, None]
        reads = rng.random((n, hands)) < read_rate
        slips = rng.random((n, hands)) < noise
        act = np.where(cheat, np.where(reads, informed, legal), legal ^ slips)
        mistake = (act != legal) & ~tie[i]
        supported = act == informed
        p = np.where(act, p_play[cls], 1.0 - p_play[cls])
        informative = mistake & (p > 0) & (p < 1)
        logs = []
        for lam in lams:
            up = np.log((p + lam * (1 - p)) / np.where(p > 0, p, 1.0))
            step = np.where(informative, np.where(supported, up, math.log(1 - lam)), 0.0)
            logs.append(np.cumsum(step, axis=1))
        stacked = np.stack(logs)
        top = stacked.max(axis=0)
        mix = top + np.log(np.exp(stacked - top).mean(axis=0))
        crossed = mix >= threshold
        first_cross = np.where(crossed.any(axis=1), crossed.argmax(axis=1) + 1, -1)
        out.extend(None if h < 0 else int(h) for h in first_cross.tolist())
        if progress is not None:
            progress((first + n) * hands, players * hands)
    return out


def _four_distinct(rng: np.random.Generator, shape: tuple[int, int]) -> npt.NDArray[np.int64]:
    """Four distinct cards per cell, uniformly (the first four cards of a shuffled deck, in order)."""
    cards = rng.integers(0, 52, size=(*shape, 4))
    while True:
        c = cards
        dup = (
            (c[..., 0] == c[..., 1])
            | (c[..., 0] == c[..., 2])
            | (c[..., 1] == c[..., 2])
            | (c[..., 3] == c[..., 0])
            | (c[..., 3] == c[..., 1])
            | (c[..., 3] == c[..., 2])
        )
        if not dup.any():
            return cards
        cards[dup] = rng.integers(0, 52, size=(int(dup.sum()), 4))

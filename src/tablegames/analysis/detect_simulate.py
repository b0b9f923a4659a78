"""The detection harness (issue 27): synthetic cheaters and honest players, and how fast the test flags them.

Cheaters see the scenario's hidden cards (every hand, or a fraction ``read_rate`` of hands, decided per hand)
and then play the informed choice; otherwise the legal optimum; with ``cheater_noise`` they also take another
legal action at random at that rate per decision (a cheater who makes random mistakes too). Honest players play the legal optimum (the
exact advisor) or, with ``honest_strategy="rule-of-thumb"``, the rule of thumb a table's bot plays
(:class:`~tablegames.engine.Bot` without an advisor: systematic mistakes that read the legal information only),
and with probability ``honest_noise`` per decision another legal action chosen at random: mistakes
uncorrelated with the hidden cards.

Two ways to play them, giving the same decisions:

- ``engine``: every player at an engine table (seven seats a table, R-0.2), each decision scored by the game's
  :class:`~tablegames.analysis.detect.Scorer` as a recorded decision would be;
- ``kernel`` (a scenario a game's own ``<stem>_detect_kernel.py`` lists in its ``KERNELS``): each player's hands
  drawn as arrays, decided and scored by the same exposure tables as the game's scorer in a few array operations:
  fast enough for ten thousand players.

Every test uses the Bonferroni threshold over the scenarios the game's detection covers (``scenarios``), so a
figure here is the one a casino running every scenario gets.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablegames.analysis import detect
from tablegames.engine import MAX_SEATS, Bot, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

Progress = Callable[[int, int], None]
OPTIMAL, RULE_OF_THUMB = "optimal", "rule-of-thumb"
HONEST_STRATEGIES = (OPTIMAL, RULE_OF_THUMB)


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
    honest_strategy: str = OPTIMAL
    cheater_noise: float = 0.0

    def percentile(self, q: float) -> int | None:
        """Hands to flag at the q-th percentile over *all* cheaters (an unflagged one counts as never): None
        when that percentile is not flagged within the hands played."""
        if not self.cheaters:
            return None
        ranked = sorted(math.inf if h is None else h for h in self.cheater_hands_to_flag)
        value = ranked[max(0, math.ceil(q / 100 * len(ranked)) - 1)]
        return None if value == math.inf else int(value)

    def to_dict(self) -> dict[str, Any]:
        """The figures (``cheater_noise`` only when not 0: a run without it prints what it always did)."""
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
            "honest_strategy": self.honest_strategy,
            "median_hands_to_flag": self.percentile(50),
            "p95_hands_to_flag": self.percentile(95),
            "p99_hands_to_flag": self.percentile(99),
            "alpha": self.alpha,
            "scenarios_tested": self.scenarios_tested,
            "threshold": self.scenarios_tested / self.alpha,
            "seed": self.seed,
        } | ({"cheater_noise": self.cheater_noise} if self.cheater_noise else {})


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
    honest_strategy: str = OPTIMAL,
    cheater_noise: float = 0.0,
) -> SimulationResult:
    """Play ``cheaters`` and ``honest`` players ``hands`` hands each and test every one (see the module)."""
    if cheaters < 0 or honest < 0 or hands <= 0:
        raise RuleError("cheaters and honest must be >= 0 and hands > 0")
    if not all(0.0 <= x <= 1.0 for x in (read_rate, honest_noise, cheater_noise)):
        raise RuleError("--read-rate, --honest-noise and --cheater-noise are fractions from 0 to 1")
    if not 0.0 < alpha < 1.0:
        raise RuleError("alpha must be between 0 and 1")
    if honest_strategy not in HONEST_STRATEGIES:
        raise RuleError(f"unknown honest strategy {honest_strategy!r}: {' or '.join(HONEST_STRATEGIES)}")
    if scenario in detect.pair_scenarios(rules):  # collusion: pairs at engine tables
        if method not in ("auto", "engine") or honest_strategy != OPTIMAL:
            raise RuleError(f"{scenario} is played at engine tables by optimal honest players only")
        from tablegames.analysis.detect_pairs_simulate import simulate_pairs

        return simulate_pairs(
            rules,
            scenario,
            cheaters=cheaters,
            honest=honest,
            hands=hands,
            read_rate=read_rate,
            honest_noise=honest_noise,
            seed=seed,
            alpha=alpha,
            progress=progress,
            cheater_noise=cheater_noise,
        )
    detect.scorer(rules, scenario)  # RuleError for an unknown game or scenario
    m = len(detect.scenarios(rules))
    kernel = kernel_of(rules, scenario) if honest_strategy == OPTIMAL else None  # kernels: the optimum only
    if method == "auto":
        method = "kernel" if kernel is not None else "engine"
    if method == "kernel" and kernel is None:
        raise RuleError(
            f"no simulation kernel for {rules.game} {scenario}"
            + ("" if honest_strategy == OPTIMAL else f" with {honest_strategy} honest players")
            + "; use --method engine"
        )
    if method not in ("kernel", "engine"):
        raise RuleError(f"unknown method {method!r}: auto, kernel or engine")
    args = (
        rules,
        scenario,
        cheaters + honest,
        cheaters,
        hands,
        read_rate,
        honest_noise,
        seed,
        alpha,
        m,
        progress,
    )
    if method == "kernel" and kernel is not None:
        flags = kernel(*args, cheater_noise=cheater_noise)
    else:
        flags = _engine(*args, rule_of_thumb=honest_strategy == RULE_OF_THUMB, cheater_noise=cheater_noise)
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
        honest_strategy=honest_strategy,
        cheater_noise=cheater_noise,
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
    rule_of_thumb: bool = False,
    cheater_noise: float = 0.0,
) -> list[int | None]:
    """Players ``0 .. players-1`` (the first ``cheaters`` cheat), seven to an engine table; honest ones by the
    rule of thumb when ``rule_of_thumb``; cheaters err at random at ``cheater_noise`` (no draw when 0: the
    same play as without it)."""
    score = detect.scorer(rules, scenario)
    thumb = Bot()
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
                elif rule_of_thumb:
                    action = thumb.choose(rnd, seat)
                slip = noise if p >= cheaters else cheater_noise
                if slip and rngs[p].random() < slip:
                    others = [a for a in rnd.legal_actions(seat) if a != action]
                    action = rngs[p].choice(others) if others else action
                if action not in (s.action, s.legal_best, s.informed_best):
                    s = score.score(rnd, seat, action)  # (One Eyed Flush: a discard of the informed class)
                tests[p].observe(s.chose(action), hand=table.round_no)
                rnd.act(seat, action)
            done += len(group)
            if progress is not None:
                progress(done, players * hands)
    return [t.flagged_at for t in tests]


def kernel_of(rules: GameRules, scenario: str) -> Callable[..., list[int | None]] | None:
    """A game's array simulation of a scenario: ``KERNELS[scenario]`` of its own part
    ``analysis/<stem>_detect_kernel.py`` when it has one (the engine plays every other)."""
    import importlib
    import importlib.util

    name = f"tablegames.analysis.{registry.of(rules).key.replace('-', '_')}_detect_kernel"
    if importlib.util.find_spec(name) is None:
        return None
    kernels: dict[str, Callable[..., list[int | None]]] = importlib.import_module(name).KERNELS
    return kernels.get(scenario)

"""Game protection: what a player gains when hidden information is exposed (hole-carding, a flashed card,
players pooling their cards), with the optimal strategy under that knowledge.

Generic: it names no game. Each game's analyzer offers its exposure scenarios through
:meth:`~tablegames.analysis.common.Analyzer.protection` (a :class:`GameProtection` kept in the game's own
``analysis/protect_<game>.py``), and every game takes ``share=K`` (K players at a table see each other's
cards). A scenario is exact (every deal enumerated, exact fractions) or simulated (seeded, with its 95%
confidence interval), and the result says which.

>>> parse_share("share=3"), parse_share("community-2")
(3, None)
>>> parse_share("share=0")
Traceback (most recent call last):
...
tablegames.rules.common.RuleError: share=K needs K from 1 to 7 (the players who pool their cards), got 'share=0'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

MAX_SHARE = 7  # a table has at most seven seats
SHARE = "share=K"


@dataclass(frozen=True)
class Scenario:
    """One exposure: its name (``--scenario``), what is seen, and whether its figures are exact."""

    name: str
    description: str
    exact: bool


class Change(NamedTuple):
    """A decision the informed player takes differently: where, the fair optimal action, the informed one, and
    how often it happens (a fraction of all rounds)."""

    situation: str
    fair: str
    informed: str
    frequency: Fraction


@dataclass(frozen=True)
class Exposure:
    """What a game's protection computes for one scenario (per initial unit of the main wager)."""

    player_ev: Fraction | float
    decisions_changed: tuple[Change, ...]
    exact: bool
    ci: tuple[float, float] | None = None  # 95%, simulated scenarios only
    rounds_simulated: int = 0
    notes: tuple[str, ...] = ()
    change_frequency: Fraction | float | None = None  # rounds with any change (None: the sum of the changes)


class GameProtection:
    """A game's exposure scenarios, as :func:`protect` uses them (one per game, in its own module).

    ``rounds_per_hour``: the game's default pace for the cost per hour. ``scenarios`` lists the game's own
    scenarios (``share=K`` is added by :func:`scenarios`); ``solve`` computes one (and ``"none"``, the
    zero-card exposure through the game's own enumeration: the fair EV exactly, a check); ``share`` computes
    ``share=K`` for K >= 2 (K = 1 exposes nothing and is the fair analysis). ``informed_action`` is the bot of
    a scenario: the action the informed player takes in a live engine round, seeing the exposed cards (the
    engine cross-check plays it).
    """

    rounds_per_hour: int = 60

    def scenarios(self, rules: Any) -> list[Scenario]:
        raise NotImplementedError

    def solve(self, rules: Any, scenario: str, *, sim_rounds: int, seed: int) -> Exposure:
        raise NotImplementedError

    def share(self, rules: Any, k: int, *, sim_rounds: int, seed: int) -> Exposure:
        raise NotImplementedError

    def share_exact(self, rules: Any, k: int) -> bool:
        """Whether ``share=k`` is enumerated exactly (otherwise simulated)."""
        return k == 1

    def informed_action(self, rules: Any, scenario: str) -> Callable[[Any, int], Any]:
        """``(round, seat) -> Action``: the scenario's optimal play seeing the exposed cards of the round."""
        raise NotImplementedError


@dataclass(frozen=True)
class ProtectionResult:
    """The player's expected value under an exposure, against fair play, and what it costs the house."""

    game: str
    scenario: str
    description: str
    exact: bool
    player_ev: Fraction | float  # per initial unit of the main wager (Fraction when exact)
    fair_player_ev: Fraction
    edge: Fraction | float  # the house edge under the exposure (= -player_ev)
    change: Fraction | float  # player_ev - fair_player_ev
    decisions_changed: list[Change]
    change_frequency: Fraction | float  # rounds where at least one decision differs from fair play
    cost_per_hour_cents: float
    ci: tuple[float, float] | None  # None when exact, else the 95% interval of player_ev
    rounds_simulated: int  # 0 when exact
    avg_bet_cents: int = 2500
    rounds_per_hour: int = 60
    seats: int = 1
    rules: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: floats for the figures, the exact fractions as strings when exact."""

        def exact_text(x: Fraction | float) -> str | None:
            return str(x) if isinstance(x, Fraction) else None

        return {
            "game": self.game,
            "scenario": self.scenario,
            "description": self.description,
            "rules": dict(self.rules),
            "exact": self.exact,
            "player_ev": float(self.player_ev),
            "player_ev_exact": exact_text(self.player_ev),
            "fair_player_ev": float(self.fair_player_ev),
            "fair_player_ev_exact": str(self.fair_player_ev),
            "house_edge": float(self.edge),
            "house_edge_exact": exact_text(self.edge),
            "change": float(self.change),
            "change_exact": exact_text(self.change),
            "change_frequency": float(self.change_frequency),
            "decisions_changed": [
                {
                    "situation": c.situation,
                    "fair": c.fair,
                    "informed": c.informed,
                    "frequency": float(c.frequency),
                    "frequency_exact": str(c.frequency) if self.exact else None,
                }
                for c in self.decisions_changed
            ],
            "avg_bet_cents": self.avg_bet_cents,
            "rounds_per_hour": self.rounds_per_hour,
            "seats": self.seats,
            "cost_per_hour_cents": self.cost_per_hour_cents,
            "ci95": None if self.ci is None else list(self.ci),
            "rounds_simulated": self.rounds_simulated,
            "notes": list(self.notes),
        }


def game_protection(rules: GameRules | str) -> GameProtection:
    """The protection scenarios of a game (by rules or key), its definition's; RuleError when it has none."""
    found = registry.of(rules).load_protection()
    if found is None:
        raise RuleError(f"{registry.of(rules).key} has no game-protection scenarios yet")
    assert isinstance(found, GameProtection)
    return found


def parse_share(name: str) -> int | None:
    """K of ``share=K`` (RuleError when K is not 1..7), None for any other scenario name."""
    key, sep, value = name.strip().partition("=")
    if not sep or key.strip() != "share":
        return None
    try:
        k = int(value)
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_SHARE:
        raise RuleError(
            f"share=K needs K from 1 to {MAX_SHARE} (the players who pool their cards), got {name!r}"
        )
    return k


def _share_scenario(rules: Any, k: int | None, protection: GameProtection) -> Scenario:
    if k is None:
        text = (
            f"K players (2 to {MAX_SHARE}) at one table see each other's cards: each decides knowing the "
            "K-1 other hands are out of the deck (share=1: nothing exposed, the fair game)"
        )
        return Scenario(SHARE, text, all(protection.share_exact(rules, j) for j in range(2, MAX_SHARE + 1)))
    if k == 1:
        return Scenario("share=1", "one player alone: nothing exposed (the fair game)", True)
    return Scenario(
        f"share={k}",
        f"{k} players at one table see each other's cards: each decides knowing "
        + ("the other player's hand is" if k == 2 else f"the other {k - 1} hands are")
        + " out of the deck",
        protection.share_exact(rules, k),
    )


SHARE_EXAMPLES = (2, MAX_SHARE)  # the share=K scenarios listed: two players, and a full table


def scenarios(rules: GameRules, *, template: bool = False) -> list[Scenario]:
    """The game's exposure scenarios, then ``share=2`` and ``share=7`` (every game; any K from 1 to 7 is
    accepted); each name can be given to :func:`protect`. ``template``: end with the ``share=K`` entry that
    describes every K (a listing's last row; not a name :func:`protect` takes)."""
    p = game_protection(rules)
    out = [*p.scenarios(rules), *(_share_scenario(rules, k, p) for k in SHARE_EXAMPLES)]
    return [*out, _share_scenario(rules, None, p)] if template else out


def _find(rules: GameRules, p: GameProtection, name: str) -> tuple[Scenario, int | None]:
    k = parse_share(name)
    if k is not None:
        return _share_scenario(rules, k, p), k
    for s in p.scenarios(rules):
        if s.name == name.strip():
            return s, None
    known = ", ".join(s.name for s in p.scenarios(rules))
    raise RuleError(
        f"unknown scenario {name!r} for {rules.game}; choose {known} or {SHARE} (K = 1 to {MAX_SHARE})"
    )


def fair_ev(rules: GameRules) -> Fraction:
    """The fair game's exact EV per initial unit (the analysis, heads-up, optimal strategy)."""
    from tablegames.analysis.api import analyze_game

    return analyze_game(rules).expected_value


def protect(
    rules: GameRules,
    scenario: str,
    *,
    avg_bet_cents: int = 2500,
    rounds_per_hour: int | None = None,
    seats: int = 1,
    sim_rounds: int = 20_000,
    seed: int = 1,
) -> ProtectionResult:
    """The player's EV per initial unit when ``scenario``'s hidden cards are seen, with the optimal strategy
    under that knowledge, against fair play; and the cost to the house per hour (``change`` x ``avg_bet_cents``
    x ``rounds_per_hour`` x ``seats`` playing with the knowledge; the game's default pace when None).

    ``sim_rounds`` and ``seed`` apply to simulated scenarios only (``share=K`` where not enumerated).
    """
    if avg_bet_cents <= 0:
        raise RuleError("the average bet must be a positive number of cents")
    if rounds_per_hour is not None and rounds_per_hour <= 0:
        raise RuleError("rounds per hour must be positive")
    if not 1 <= seats <= MAX_SHARE:
        raise RuleError(f"seats must be 1 to {MAX_SHARE}")
    if sim_rounds <= 0:
        raise RuleError("sim_rounds must be positive")
    p = game_protection(rules)
    found, k = _find(rules, p, scenario)
    fair = fair_ev(rules)
    if k == 1:
        exposure = Exposure(fair, (), True, notes=("Nothing is exposed: the fair analysis.",))
    elif k is not None:
        exposure = p.share(rules, k, sim_rounds=sim_rounds, seed=seed)
    else:
        exposure = p.solve(rules, found.name, sim_rounds=sim_rounds, seed=seed)
    pace = p.rounds_per_hour if rounds_per_hour is None else rounds_per_hour
    ev = exposure.player_ev
    change: Fraction | float = ev - fair
    changed = sorted(exposure.decisions_changed, key=lambda c: (-c.frequency, c.situation))
    return ProtectionResult(
        game=rules.game,
        scenario=found.name,
        description=found.description,
        exact=exposure.exact,
        player_ev=ev,
        fair_player_ev=fair,
        edge=-ev,
        change=change,
        decisions_changed=changed,
        change_frequency=_round_frequency(exposure),
        cost_per_hour_cents=float(change) * avg_bet_cents * pace * seats,
        ci=exposure.ci,
        rounds_simulated=exposure.rounds_simulated,
        avg_bet_cents=avg_bet_cents,
        rounds_per_hour=pace,
        seats=seats,
        rules=dict(rules.describe()),
        notes=[*exposure.notes, CHANGED_DEFINITION],
    )


CHANGED_DEFINITION = (
    "A round counts as changed when the informed player's decision differs from the fair player's. Both break "
    "exact ties of expected value alike: the cautious choice (pull, stand, fold), then R-0.5 between discards "
    "(the card of higher point value, then higher rank); another tie-break would change these counts, never an EV."
)
"""How ``change_frequency`` and ``decisions_changed`` are defined (issue 21: they depend on the tie-break)."""


def _round_frequency(exposure: Exposure) -> Fraction | float:
    """Rounds where at least one decision differs from fair play (the sum of the changes unless the game
    gives it: a round may change at two decisions)."""
    if exposure.change_frequency is not None:
        return exposure.change_frequency
    return sum((c.frequency for c in exposure.decisions_changed), Fraction(0))


def changes_from_counts(counts: dict[tuple[str, str, str], int], total: int) -> tuple[Change, ...]:
    """``(situation, fair, informed) -> rounds`` (skipping equal actions and zero counts) as Changes over
    ``total`` rounds."""
    return tuple(
        Change(s, f, i, Fraction(n, total)) for (s, f, i), n in sorted(counts.items()) if n and f != i
    )


def simulate_share(
    sim_rounds: int,
    seed: int,
    fair_ev: float,
    batch: Callable[[Any], tuple[Any, Sequence[tuple[str, str, str]]]],
    *,
    how: str,
    batch_size: int = 20_000,
) -> Exposure:
    """``share=K`` simulated, for any game: ``sim_rounds`` seeded shuffled decks (an int array, a deck per row,
    in deal order), ``batch_size`` at a time; ``batch(decks)`` gives each deal's gain of the informed player
    over the fair strategy on it (per initial unit of the main wager) and the ``(situation, fair, informed)``
    of every decision taken differently. The EV is the exact fair EV plus the mean gain, with its 95%
    interval; ``how`` says how a deal was decided (the note)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    gains = []
    changed: dict[tuple[str, str, str], int] = {}
    done = 0
    while done < sim_rounds:
        b = min(batch_size, sim_rounds - done)
        gain, keys = batch(np.argsort(rng.random((b, 52)), axis=1))
        gains.append(np.asarray(gain, dtype=np.float64))
        for key in keys:
            changed[key] = changed.get(key, 0) + 1
        done += b
    mean, lo, hi = mean_ci(np.concatenate(gains))
    return Exposure(
        fair_ev + mean,
        changes_from_counts(changed, sim_rounds),
        False,
        ci=(fair_ev + lo, fair_ev + hi),
        rounds_simulated=sim_rounds,
        notes=(
            f"Simulated: {sim_rounds:,} seeded deals (seed {seed}), each {how}; the EV is the exact fair EV "
            "plus the mean gain over the fair strategy on the same deals.",
        ),
    )


def mean_ci(values: Sequence[float] | Any) -> tuple[float, float, float]:
    """Mean and the 95% normal interval of a sample (a NumPy array or a sequence of floats)."""
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("inf")
    return m, m - 1.96 * se, m + 1.96 * se

"""The math report's detection table (issue 27): how fast ``tablegames detect`` flags a player who sees each
exposure scenario's hidden cards, and how many honest players it flags, from a seeded run of the detection
harness (:mod:`tablegames.analysis.detect_simulate`) at the sizes of a :class:`DetectionPlan`.

The figures are simulated (the test's false-positive bound is exact: Ville's inequality, α per player-test,
Bonferroni over the game's scenarios; the hands to flag are a simulation's): the report says so, with the sizes
and the seed, so a lab reruns them with ``tablegames detect simulate``.

>>> plan = DetectionPlan(cheaters=3, honest=2, hands=50, seed=7)
>>> plan.command("GAME", "SCENARIO")
'tablegames detect simulate GAME --scenario SCENARIO --cheaters 3 --honest 2 --hands 50 --honest-noise 0.05 --seed 7'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tablegames.analysis import detect
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

ProgressStart = Callable[[str, int], Callable[[int], None]]


@dataclass(frozen=True)
class DetectionPlan:
    """The sizes of the report's detection runs: per scenario, ``cheaters`` who see the cards every hand and
    ``honest`` players who make a random mistake at a rate of ``honest_noise``, ``hands`` hands each."""

    cheaters: int = 50
    honest: int = 50
    hands: int = 400
    honest_noise: float = 0.05
    seed: int = 1
    alpha: float = detect.DEFAULT_ALPHA

    def __post_init__(self) -> None:
        if self.cheaters < 1 or self.honest < 0 or self.hands < 1:
            raise RuleError("the detection runs need cheaters >= 1, honest >= 0 and hands >= 1")

    def command(self, game: str, scenario: str) -> str:
        """The command line that reruns one scenario's figures."""
        return (
            f"tablegames detect simulate {game} --scenario {scenario} --cheaters {self.cheaters} "
            f"--honest {self.honest} --hands {self.hands} --honest-noise {self.honest_noise:g} --seed {self.seed}"
        )


def detection_rows(
    rules: GameRules, plan: DetectionPlan, progress: ProgressStart | None = None
) -> tuple[list[dict[str, Any]], str]:
    """One row per scenario the game's detection covers (the harness's JSON and the command that reruns
    it), and a note (why there are none, or what the rows leave out)."""
    from tablegames.analysis.detect_simulate import simulate

    names = detect.scenarios(rules)
    key = registry.of(rules).key
    if not names:
        return [], f"detection does not cover {key} yet (covered: {', '.join(detect.COVERED)})"
    rows = []
    for i, scenario in enumerate(names):
        advance = None
        if progress is not None:
            step = progress(f"{key}: detection, {scenario}", plan.cheaters + plan.honest)
            seen = [0]

            def advance_to(
                done: int, total: int, step: Callable[[int], None] = step, seen: list[int] = seen
            ) -> None:
                players = done * (plan.cheaters + plan.honest) // max(total, 1)
                step(players - seen[0])
                seen[0] = players

            advance = advance_to
        result = simulate(
            rules,
            scenario,
            cheaters=plan.cheaters,
            honest=plan.honest,
            hands=plan.hands,
            honest_noise=plan.honest_noise,
            seed=plan.seed + i,
            alpha=plan.alpha,
            progress=advance,
        )
        rows.append(
            {
                **result.to_dict(),
                "command": replace(plan, seed=plan.seed + i).command(key, scenario),
            }
        )
    return rows, ""


def detection_markdown(rows: list[dict[str, Any]], note: str, table: Callable[..., str]) -> list[str]:
    """The report's subsection 10.1 (``table``: the report's Markdown table writer)."""
    out = [
        "### 10.1 Detecting a player who sees them",
        "",
        "`tablegames detect` scores every recorded decision against the hidden cards the player should not "
        "have seen: a decision that gives up value under the legal information but is the right one with the "
        "cards seen is evidence. One sequential test per player and scenario flags a player at a stated "
        "false-positive rate (at most alpha per player-test, whatever the number of hands: Ville's inequality; "
        "Bonferroni over the game's scenarios). The hands to flag below are *simulated*: cheaters who see the "
        "cards every hand and play the informed choice, honest players who play the legal optimum with a "
        "random mistake at the stated rate; an unflagged cheater counts as never.",
        "",
    ]
    if not rows:
        return [*out, (note[0].upper() + note[1:] + ".") if note else "", ""]
    body = [
        (
            str(r["scenario"]),
            f"{r['cheaters_flagged']} of {r['cheaters']}",
            _hands(r["median_hands_to_flag"]),
            _hands(r["p95_hands_to_flag"]),
            f"{r['honest_flagged']} of {r['honest']} ({100 * float(r['honest_noise']):g}% mistakes)",
            f"{r['hands']}",
            f"{float(r['alpha']):g} x {r['scenarios_tested']}",
        )
        for r in rows
    ]
    out += [
        table(
            (
                "scenario",
                "cheaters flagged",
                "median hands to flag",
                "95th percentile",
                "honest flagged",
                "hands each",
                "alpha x scenarios",
            ),
            body,
        ),
        "",
        "Rerun with: " + "; ".join(f"`{r['command']}`" for r in rows) + ".",
        "",
    ]
    if note:
        out += [note[0].upper() + note[1:] + ".", ""]
    return out


def _hands(value: Any) -> str:
    return "not within the hands played" if value is None else str(value)

"""The math report's detection table (issue 27): how fast ``tablegames detect`` flags a player who sees each
exposure scenario's hidden cards, and how many honest players it flags, from a seeded run of the detection
harness (:mod:`tablegames.analysis.detect_simulate`) at the sizes of a :class:`DetectionPlan`.

The figures are simulated (the test's false-positive bound is exact: Ville's inequality, α per player-test,
Bonferroni over the game's scenarios; the hands to flag are a simulation's): the report says so, with the sizes
and the seed, so a lab reruns them with ``tablegames detect simulate``.

>>> plan = DetectionPlan(cheaters=3, honest=2, hands=50, seed=7)
>>> plan.command("GAME", "SCENARIO")
'tablegames detect simulate GAME --scenario SCENARIO --cheaters 3 --honest 2 --hands 50 --honest-noise 0.05 --seed 7'

The collusion rows (a pair test over the seats of one table, ``share=2``) play ``pair_players`` colluders (in
pairs) and as many honest players, ``pair_hands`` hands each: a pair is flagged later than a hole-carder.

>>> plan.command("GAME", "share=2", pair=True)
'tablegames detect simulate GAME --scenario share=2 --cheaters 10 --honest 10 --hands 2000 --honest-noise 0.05 --seed 7'
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
    ``honest`` players who make a random mistake at a rate of ``honest_noise``, ``hands`` hands each; per
    collusion scenario ``pair_players`` colluders (an even number; 0 leaves the collusion rows out) and as many
    honest players, ``pair_hands`` hands each."""

    cheaters: int = 50
    honest: int = 50
    hands: int = 400
    honest_noise: float = 0.05
    seed: int = 1
    alpha: float = detect.DEFAULT_ALPHA
    pair_players: int = 10
    pair_hands: int = 2_000

    def __post_init__(self) -> None:
        if self.cheaters < 1 or self.honest < 0 or self.hands < 1:
            raise RuleError("the detection runs need cheaters >= 1, honest >= 0 and hands >= 1")
        if self.pair_players < 0 or self.pair_players % 2 or self.pair_hands < 1:
            raise RuleError(
                "the collusion runs need an even number of colluders >= 0 (they sit in pairs) and hands >= 1, "
                f"got {self.pair_players} and {self.pair_hands}"
            )

    def sizes(self, pair: bool = False) -> tuple[int, int, int]:
        """A scenario's cheaters, honest players and hands each (``pair``: a collusion scenario's)."""
        if pair:
            return self.pair_players, self.pair_players, self.pair_hands
        return self.cheaters, self.honest, self.hands

    def command(self, game: str, scenario: str, pair: bool = False) -> str:
        """The command line that reruns one scenario's figures (``pair``: a collusion scenario's)."""
        cheaters, honest, hands = self.sizes(pair)
        return (
            f"tablegames detect simulate {game} --scenario {scenario} --cheaters {cheaters} "
            f"--honest {honest} --hands {hands} --honest-noise {self.honest_noise:g} --seed {self.seed}"
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
    pairs = detect.pair_scenarios(rules) if plan.pair_players else []
    runs = [(s, False) for s in names] + [(s, True) for s in pairs]
    rows = []
    for i, (scenario, pair) in enumerate(runs):
        cheaters, honest, hands = plan.sizes(pair)
        advance = None
        if progress is not None:
            what = "collusion" if pair else "detection"
            step = progress(f"{key}: {what}, {scenario}", cheaters + honest)
            seen = [0]

            def advance_to(
                done: int,
                total: int,
                step: Callable[[int], None] = step,
                seen: list[int] = seen,
                n: int = cheaters + honest,
            ) -> None:
                players = done * n // max(total, 1)
                step(players - seen[0])
                seen[0] = players

            advance = advance_to
        result = simulate(
            rules,
            scenario,
            cheaters=cheaters,
            honest=honest,
            hands=hands,
            honest_noise=plan.honest_noise,
            seed=plan.seed + i,
            alpha=plan.alpha,
            progress=advance,
        )
        rows.append(
            {
                **result.to_dict(),
                "test": "pair" if pair else "player",
                "command": replace(plan, seed=plan.seed + i).command(key, scenario, pair=pair),
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
    players = [r for r in rows if r.get("test") != "pair"]
    pairs = [r for r in rows if r.get("test") == "pair"]
    out += [*_table(players, table), ""]
    if pairs:
        out += [
            "Collusion: two players at one table who show each other their cards (`share=2`). Every ordered "
            "pair of players at a table has a test (A's decisions scored against B's cards), entered at each of "
            "A's hands before B's first decision (B's decisions are public). The colluders sit in adjacent seats "
            "among the honest players at tables of seven and see their partner's cards every hand; a colluder "
            "counts as flagged when its pair is, an honest player when a test of its own decisions is. A pair "
            "gains less than a hole-carder and is flagged later.",
            "",
            *_table(pairs, table),
            "",
        ]
    out += ["Rerun with: " + "; ".join(f"`{r['command']}`" for r in rows) + ".", ""]
    if note:
        out += [note[0].upper() + note[1:] + ".", ""]
    return out


def _table(rows: list[dict[str, Any]], table: Callable[..., str]) -> list[str]:
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
    return [
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
        )
    ]


def _hands(value: Any) -> str:
    return "not within the hands played" if value is None else str(value)

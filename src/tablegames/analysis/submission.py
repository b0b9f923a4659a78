"""The math submission a game's inventor sends to a test lab: every figure of ``tablegames report``.

Generic: nothing here names a game. What is per game comes from the game's definition and its analyzer's
report hooks (:class:`~tablegames.analysis.common.Analyzer`: ``rules_summary``, ``pay_schedules``,
``worked_examples``, ``side_bet_stats``, ``seats_interact``, ``table_size_effects``, ``meter_sweeps``,
``verify_targets``, ``pace``). The simulation (a layer beside this one) is injected as ``simulate``.

Definitions used throughout (said in the report too):

* house edge: expected loss per initial wager; element of risk: per average total wager;
* hit frequency: the probability that the wager returns anything (main wager: that it wins);
* volatility index: VI = z * sigma with z = 1.6449 (90%, the common definition, e.g. Kilby & Fox);
* hold after n rounds: house win / handle, handle = n x the average total wager, by the normal
  approximation from the exact mean and sigma: mean = element of risk, half-width z * sigma / (W * sqrt n).

>>> [round(x, 6) for x in hold_interval(Fraction(1, 20), 1.0, Fraction(1), 10_000, 95)]
[0.0304, 0.0696]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from tablegames.analysis.api import analyzer
from tablegames.analysis.common import (
    Analysis,
    MeterSweep,
    PaySchedule,
    ReturnTable,
    VerifyTarget,
    category_targets,
)
from tablegames.analysis.examples import WorkedExample, worked_examples
from tablegames.analysis.hold import HoldRange, hold_range, normal_from
from tablegames.analysis.report_detection import DetectionPlan, detection_rows
from tablegames.identity import software
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError

Z: dict[int, float] = {90: 1.6448536269514722, 95: 1.959963984540054, 99: 2.5758293035489004}
"""Two-sided standard normal quantiles by confidence level (percent)."""
VI_Z = Z[90]
HOLD_ROUNDS = (1_000, 10_000, 100_000, 1_000_000)
PLAYERS = tuple(range(1, 8))
DEFAULT_VERIFY_ROUNDS = 100_000_000
DEFAULT_Z_LIMIT = 4.0
"""A verification row passes when |z| < this (``report --z-limit``): at 4, a correct figure fails about once
in 16,000 rows (two-sided normal tail), a wrong one by 4 standard errors or more is caught."""
PASS, FAIL, NOT_RUN = "PASS", "FAIL", "NOT RUN"

Simulate = Callable[..., dict[str, Any]]
"""``simulate(rules, rounds, seats=, side_bets=, seed=, progress=)`` -> a simulation summary (see
``tablegames.simulation.verify.simulate_summary``)."""
ProgressStart = Callable[[str, int], Callable[[int], None]]
"""``start(label, total)`` -> ``advance(n)``: a progress bar for a long part (the CLI gives Rich's)."""


@dataclass(frozen=True)
class WagerStats:
    """The statistical evaluation of one wager, exact except sigma (a square root)."""

    wager: str
    house_edge: Fraction
    element_of_risk: Fraction
    hit_frequency: Fraction
    std_dev: float  # of the net result per initial wager
    average_wager: Fraction  # average total wager per initial wager
    distribution: tuple[
        tuple[Fraction, Fraction], ...
    ] = ()  # one round's net per initial wager -> probability
    meter: bool = (
        False  # paid (in part) from a meter: its figures leave out the meter's share and neighbour bonuses
    )

    @property
    def volatility_index(self) -> float:
        return VI_Z * self.std_dev


def moments(table: ReturnTable) -> tuple[Fraction, float]:
    """(mean, standard deviation) of a return table's net result per unit."""
    mean = table.expected_value
    second = sum((o.payout * o.payout * o.probability(table.total) for o in table.outcomes), Fraction(0))
    return mean, math.sqrt(second - mean * mean)


def wager_stats(a: Analysis, rules: GameRules) -> list[WagerStats]:
    """The main wager (from the analysis) and every side bet the analyzer lists."""
    main = registry.of(rules).main_wager
    title = f"{main.title} ({main.unit})" if main.unit else main.title
    out = [
        WagerStats(
            title,
            a.house_edge,
            a.element_of_risk,
            a.p_win,
            a.std_dev,
            a.average_wager,
            tuple(a.net_distribution().items()),
        )
    ]
    groups: dict[tuple[Fraction, Fraction, float], list[str]] = {}
    bets: dict[tuple[Fraction, Fraction, float], ReturnTable] = {}
    for title, bet in analyzer(rules).side_bet_stats(a, rules):
        _, sigma = moments(bet)
        hits = Fraction(sum(o.combinations for o in bet.outcomes if o.payout > -1), bet.total)
        groups.setdefault((bet.house_edge, hits, sigma), []).append(title)
        bets.setdefault((bet.house_edge, hits, sigma), bet)
    fed = [w.title.lower() for w in registry.of(rules).side_bets if w.feeds]
    for key, titles in groups.items():
        edge, hits, sigma = key
        out.append(
            WagerStats(
                merged_title(titles),
                edge,
                edge,
                hits,
                sigma,
                Fraction(1),
                return_distribution(bets[key]),
                any(_head(t) in f for t in titles for f in fed),
            )
        )
    return out


def _head(title: str) -> str:
    """A side-bet title's wager name: ``"Jackpot (meter at reset $5,000)"`` -> ``"jackpot"``."""
    return title.partition(" (")[0].partition(":")[0].strip().lower()


def return_distribution(table: ReturnTable) -> tuple[tuple[Fraction, Fraction], ...]:
    """A return table's net per unit -> probability, equal payouts merged."""
    out: dict[Fraction, Fraction] = {}
    for o in table.outcomes:
        if o.combinations:
            out[o.payout] = out.get(o.payout, Fraction(0)) + Fraction(o.combinations, table.total)
    return tuple(sorted(out.items()))


def merged_title(titles: Sequence[str]) -> str:
    """One title for wagers with the same figures (e.g. every value of a named-outcome bet).

    >>> merged_title(["Flip Card: 1", "Flip Card: 2"]), merged_title(["A"])
    ('Flip Card: 1, 2 (each)', 'A')
    """
    if len(titles) == 1:
        return titles[0]
    heads = {t.partition(": ")[0] for t in titles}
    if len(heads) == 1 and all(": " in t for t in titles):
        return f"{heads.pop()}: {', '.join(t.partition(': ')[2] for t in titles)} (each)"
    return " / ".join(titles) + " (each)"


def hold_interval(
    edge: Fraction, sigma: float, average_wager: Fraction, rounds: int, confidence: int
) -> tuple[float, float]:
    """The range of the hold (house win / handle) after ``rounds`` rounds at ``confidence`` percent: the
    normal approximation, mean edge / W and half-width z * sigma / (W * sqrt(rounds)), handle = rounds x W."""
    w = float(average_wager)
    mean = float(edge) / w
    half = Z[confidence] * sigma / (w * math.sqrt(rounds))
    return mean - half, mean + half


def rounds_per_hour(pace: tuple[float, float], players: int) -> float:
    """The pace model: 3600 s / (dealer's seconds a round + seconds a player x players)."""
    fixed, per_player = pace
    return 3600.0 / (fixed + per_player * players)


@dataclass(frozen=True)
class SeatRow:
    players: int
    edge: Fraction | float
    exact: bool
    ci95: tuple[float, float] | None = None
    rounds: int = 0
    effects: tuple[tuple[str, Fraction], ...] = ()


@dataclass(frozen=True)
class VerifyRow:
    label: str
    exact: Fraction | float  # a fraction, except a standard deviation
    simulated: float
    std_error: float

    @property
    def z(self) -> float:
        return (self.simulated - float(self.exact)) / self.std_error if self.std_error else 0.0

    def passes(self, z_limit: float = DEFAULT_Z_LIMIT) -> bool:
        """The criterion: |z| < ``z_limit`` (with no standard error: the simulation equals the exact figure)."""
        if not self.std_error:
            return math.isclose(self.simulated, float(self.exact), rel_tol=1e-12, abs_tol=1e-15)
        return abs(self.z) < z_limit


def verdict(rows: Sequence[VerifyRow], z_limit: float = DEFAULT_Z_LIMIT) -> str:
    """PASS when every row passes, FAIL when one does not, NOT RUN without rows.

    >>> ok, bad = VerifyRow("a", Fraction(1, 2), 0.5, 0.01), VerifyRow("b", Fraction(1, 2), 0.6, 0.01)
    >>> verdict([ok]), verdict([ok, bad]), verdict([]), bad.passes(), bad.passes(z_limit=11)
    ('PASS', 'FAIL', 'NOT RUN', False, True)
    """
    if not rows:
        return NOT_RUN
    return PASS if all(r.passes(z_limit) for r in rows) else FAIL


@dataclass
class Submission:
    """Every figure of the math report (``to_dict`` is its JSON, ``report.json``)."""

    game: str
    title: str
    rules: dict[str, str]
    analysis: Analysis
    rules_summary: list[str]
    pay_schedules: list[PaySchedule]
    examples: list[WorkedExample]
    stats: list[WagerStats]
    pace: tuple[float, float]
    pace_source: str
    average_bet_cents: int
    seats_note: str
    seat_rows: list[SeatRow]
    sweeps: list[MeterSweep]
    sweep_rows: list[tuple[str, list[tuple[Fraction, Fraction]]]]
    protection: list[dict[str, Any]]
    protection_note: str
    verify_rounds: int
    verify_seed: int
    verification: list[VerifyRow]
    verify_note: str = ""
    analysis_sha256: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    software: dict[str, Any] = field(default_factory=dict)
    z_limit: float = DEFAULT_Z_LIMIT
    rule_set_name: str = ""  # a game file's name ("": the standard rules)
    revision: str = "1"
    date: str = ""  # ISO date the report was made (UTC)
    comparison: Any = None  # an ``analysis.compare.Comparison`` (report --compare), or None
    detection: list[dict[str, Any]] = field(default_factory=list)  # analysis.report_detection's rows
    detection_note: str = ""
    _holds: dict[str, list[HoldRange]] = field(default_factory=dict, repr=False)

    @property
    def verdict(self) -> str:
        return verdict(self.verification, self.z_limit)

    def hold_ranges(self, stats: WagerStats) -> list[HoldRange]:
        """The wager's hold ranges after each of HOLD_ROUNDS rounds, from the exact distribution of a round's
        net (``analysis.hold``: convolution, or simulation where the lattice is too large)."""
        if stats.wager not in self._holds:
            dist = dict(stats.distribution)
            self._holds[stats.wager] = [
                hold_range(dist, stats.average_wager, n, Z, seed=self.verify_seed) for n in HOLD_ROUNDS
            ]
        return self._holds[stats.wager]

    def hold_rows(self, stats: WagerStats) -> list[tuple[int, dict[int, tuple[float, float]]]]:
        return [(h.rounds, h.ranges) for h in self.hold_ranges(stats)]

    def per_hour(self) -> list[tuple[int, float, float, float]]:
        """(players, rounds an hour, handle an hour in cents, theoretical win an hour in cents): the main
        wager at ``average_bet_cents`` per initial wager, every player playing every round."""
        main = self.stats[0]
        out = []
        for p in PLAYERS:
            rph = rounds_per_hour(self.pace, p)
            handle = rph * p * self.average_bet_cents * float(main.average_wager)
            out.append((p, rph, handle, rph * p * self.average_bet_cents * float(main.house_edge)))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules,
            "software": self.software,
            "document": {
                "title": f"{self.title}: mathematical analysis",
                "game": self.game,
                "rule_set": self.rule_set_name or None,
                "revision": self.revision,
                "date": self.date,
            },
            "analysis_sha256": self.analysis_sha256,
            "wagers": [
                {
                    "wager": s.wager,
                    "house_edge": float(s.house_edge),
                    "house_edge_exact": str(s.house_edge),
                    "element_of_risk": float(s.element_of_risk),
                    "hit_frequency": float(s.hit_frequency),
                    "hit_frequency_exact": str(s.hit_frequency),
                    "std_dev": s.std_dev,
                    "volatility_index_90": s.volatility_index,
                    "meter_wager": s.meter,
                    "normal_approximation_from_rounds": normal_from(dict(s.distribution)),
                    "hold": [
                        {
                            "rounds": h.rounds,
                            "method": h.method,
                            **{f"ci{c}": list(v) for c, v in h.ranges.items()},
                        }
                        for h in self.hold_ranges(s)
                    ],
                }
                for s in self.stats
            ],
            "pace": {"seconds_per_round": self.pace[0], "seconds_per_player": self.pace[1]},
            "per_hour": [
                {"players": p, "rounds_per_hour": r, "handle_cents": h, "theoretical_win_cents": w}
                for p, r, h, w in self.per_hour()
            ],
            "average_bet_cents": self.average_bet_cents,
            "by_seats": [
                {
                    "players": r.players,
                    "house_edge": float(r.edge),
                    "exact": r.exact,
                    "ci95": None if r.ci95 is None else list(r.ci95),
                    "rounds": r.rounds,
                    **{name: str(v) for name, v in r.effects},
                }
                for r in self.seat_rows
            ],
            "meter_sweeps": [
                {
                    "wager": s.wager,
                    "meter": s.meter,
                    "reset_cents": s.reset_cents,
                    "break_even_cents": float(s.break_even),
                    "break_even_cents_exact": str(s.break_even),
                    "edges": [{"meter_cents": float(m), "house_edge": float(e)} for m, e in rows],
                }
                for s, (_, rows) in zip(self.sweeps, self.sweep_rows, strict=True)
            ],
            "examples": [e.to_dict() for e in self.examples],
            "comparison": None if self.comparison is None else self.comparison.to_dict(),
            "protection": self.protection,
            "detection": {"rows": self.detection, "note": self.detection_note},
            "verification": {
                "rounds": self.verify_rounds,
                "seed": self.verify_seed,
                "criterion": f"|z| < {self.z_limit:g}",
                "z_limit": self.z_limit,
                "verdict": self.verdict,
                "rows": [
                    {
                        "figure": v.label,
                        "exact": float(v.exact),
                        "exact_fraction": str(v.exact) if isinstance(v.exact, Fraction) else None,
                        "simulated": v.simulated,
                        "std_error": v.std_error,
                        "z": v.z,
                        "pass": v.passes(self.z_limit),
                    }
                    for v in self.verification
                ],
            },
        }


def sweep_values(s: MeterSweep) -> list[Fraction]:
    """Meter values to tabulate: from the reset up to 6x the reset or twice the break-even meter (about a dozen
    steps), and the break-even meter itself."""
    base = s.reset_cents or 100_000
    top: Fraction = max(Fraction(6 * base), 2 * s.break_even)
    step = Fraction(base, 2) if top <= 6 * base else Fraction(math.ceil(top / 12))
    values = {base + k * step for k in range(13) if base + k * step <= top}
    values.add(s.break_even)
    return sorted(v for v in values if v >= 0)


def _no_progress(label: str, total: int) -> Callable[[int], None]:
    return lambda n: None


def build(
    a: Analysis,
    rules: GameRules,
    simulate: Simulate | None = None,
    verify_rounds: int = DEFAULT_VERIFY_ROUNDS,
    seed: int = 0,
    average_bet_cents: int = 1_000,
    progress: ProgressStart | None = None,
    protection: bool = True,
    detection: DetectionPlan | None = None,
    z_limit: float = DEFAULT_Z_LIMIT,
    game_file: str | None = None,
    rule_set_name: str = "",
    revision: str = "1",
    date: str | None = None,
) -> Submission:
    """Every figure of the math report of ``rules`` (``a``: its exact analysis at the default bet)."""
    definition = registry.of(rules)
    found = analyzer(rules)
    start = progress or _no_progress
    stats = wager_stats(a, rules)
    sweeps = found.meter_sweeps(rules)
    sweep_rows = [(s.wager, [(m, s.edge(m)) for m in sweep_values(s)]) for s in sweeps]
    seats_note = found.seats_interact(rules)
    seat_rows: list[SeatRow] = []
    no_kernel = ""
    seat_rounds = max(1_000, verify_rounds // 20)
    for p in PLAYERS:
        effects = tuple(found.table_size_effects(a, rules, p))
        if seats_note and simulate is not None and not no_kernel:
            advance = start(f"{definition.key}: {p} player(s)", seat_rounds)
            try:
                s = simulate(rules, seat_rounds, seats=p, side_bets=(), seed=seed + p, progress=advance)
            except RuleError as exc:  # no simulation kernel for this game
                no_kernel = str(exc)
                seat_rows.append(SeatRow(p, a.house_edge, True, None, 0, effects))
                continue
            row = s["results"][s["first_row"]]
            seat_rows.append(
                SeatRow(p, row["house_edge"], False, tuple(row["house_edge_ci95"]), seat_rounds, effects)
            )
        else:
            seat_rows.append(SeatRow(p, a.house_edge, True, None, 0, effects))
    full_table = round(rounds_per_hour(found.pace, PLAYERS[-1]))
    prot, prot_note = (
        protection_rows(rules, average_bet_cents, full_table)
        if protection
        else ([], "not computed (--no-protect)")
    )
    det, det_note = (
        detection_rows(rules, detection, progress)
        if detection is not None
        else ([], "not computed (report --no-detect)")
    )
    verification: list[VerifyRow] = []
    note = ""
    # every category of the main wager (the engine's settlement outcomes), then the game's own figures
    targets = [*category_targets(a, definition.main_wager.name), *found.verify_targets(a, rules)]
    if simulate is not None and verify_rounds > 0:
        side = tuple(dict.fromkeys(b for t in targets for b in t.side_bets))
        advance = start(f"verifying {definition.key}", verify_rounds)
        try:
            s = simulate(rules, verify_rounds, seats=1, side_bets=side, seed=seed, progress=advance)
            verification = verify_rows(targets, s, a)
        except RuleError as exc:  # no simulation kernel for this game
            note = f"not run: {exc}"
    else:
        note = "not run (--verify-rounds 0)" if simulate is not None else "not run (no simulation given)"
    return Submission(
        game=definition.key,
        title=definition.title,
        rules=dict(rules.describe()),
        analysis=a,
        rules_summary=found.rules_summary(rules),
        pay_schedules=found.pay_schedules(rules),
        examples=worked_examples(rules, found.worked_examples(rules)),
        stats=stats,
        pace=found.pace,
        pace_source=found.pace_source,
        average_bet_cents=average_bet_cents,
        seats_note=seats_note,
        seat_rows=seat_rows,
        sweeps=sweeps,
        sweep_rows=sweep_rows,
        protection=prot,
        protection_note=prot_note,
        detection=det,
        detection_note=det_note,
        verify_rounds=verify_rounds if verification else 0,
        verify_seed=seed,
        verification=verification,
        verify_note=note,
        software=software(definition.key, definition.rule_set(rules), game_file),
        z_limit=z_limit,
        rule_set_name=rule_set_name,
        revision=revision,
        date=date or datetime.now(UTC).date().isoformat(),
    )


def verify_rows(
    targets: Sequence[VerifyTarget], summary: dict[str, Any], a: Analysis | None = None
) -> list[VerifyRow]:
    """Each exact figure against the simulation's estimate and its standard error; with ``a``, also the main
    wager's standard deviation (its standard error from the exact fourth central moment)."""
    out = []
    n = int(summary["rounds"])
    for t in targets:
        if t.figure == "frequency":
            block = summary["outcomes"][t.row]
            per = next((v["count"] / v["frequency"] for v in block.values() if v["frequency"]), n)
            freq = sum(block[o]["frequency"] for o in t.outcomes if o in block)
            p = float(t.exact)
            out.append(VerifyRow(t.label, t.exact, freq, math.sqrt(p * (1 - p) / per)))
            continue
        row = summary["results"][t.row or summary["first_row"]]
        out.append(VerifyRow(t.label, t.exact, float(row[t.figure]), float(row["std_error"])))
    if a is not None and n > 1:
        row = summary["results"][summary["first_row"]]
        sigma = a.std_dev
        mean = a.expected_value
        mu4 = float(sum(((x - mean) ** 4 * p for x, p in a.net_distribution().items()), Fraction(0)))
        se = math.sqrt(max(mu4 - sigma**4, 0.0) / (4 * sigma**2 * n))
        out.append(
            VerifyRow("main wager standard deviation", sigma, float(row["std_error"]) * math.sqrt(n), se)
        )
    return out


def protection_rows(
    rules: GameRules, average_bet_cents: int = 1_000, rounds_per_hour: int = 60
) -> tuple[list[dict[str, Any]], str]:
    """Every exact game-protection scenario of the game (``analysis.protect``; ``share=K`` for each K that is
    enumerated exactly), as JSON rows; and a note naming the simulated ones left out."""
    from tablegames.analysis import protect

    try:
        game = protect.game_protection(rules)
    except RuleError as exc:
        return [], str(exc)
    names: list[str] = []
    skipped: list[str] = []
    for scenario in protect.scenarios(rules):
        if scenario.name != protect.SHARE and protect.parse_share(scenario.name) is None:
            (names if scenario.exact else skipped).append(scenario.name)
    for k in range(2, protect.MAX_SHARE + 1):  # every K of share=K, not only the listing's examples
        (names if game.share_exact(rules, k) else skipped).append(f"share={k}")
    rows = []
    for name in names:
        result = protect.protect(
            rules, name, avg_bet_cents=average_bet_cents, rounds_per_hour=rounds_per_hour
        )
        if result.exact:
            rows.append(result.to_dict())
        else:
            skipped.append(name)
    note = f"simulated scenarios left out (run `tablegames protect`): {', '.join(skipped)}" if skipped else ""
    return rows, note

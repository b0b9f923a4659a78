"""The math report (a test lab's submission): report.md, report.html, report.pdf, analysis.json (the exact
analysis), report.json (every figure of the report) and matplotlib PNGs in one directory.

The figures come from :mod:`tablegames.analysis.submission`; this module lays them out as one Markdown
document (a reviewer reads it cover to cover), which becomes the HTML page (``render.to_html``) and the PDF
(``analysis.pdf``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from tablegames.analysis.api import analyzer
from tablegames.analysis.charts import plot_contributions, plot_distribution, pyplot
from tablegames.analysis.common import Analysis
from tablegames.analysis.examples import WorkedExample
from tablegames.analysis.hold import SIMULATED_DRAWS, SKEW_LIMIT, normal_from, skewness
from tablegames.analysis.pdf import PAGE_BREAK
from tablegames.analysis.render import _md_table, to_html, to_markdown
from tablegames.analysis.report_detection import detection_markdown
from tablegames.analysis.report_parts import (
    DEFINITIONS,
    METER_NOTE,
    footer_lines,
    glossary,
    identity_rows,
    rule_set_words,
    rule_value,
    rules_section,
    strategy_table,
    title_page,
)
from tablegames.analysis.submission import HOLD_ROUNDS, PLAYERS, VI_Z, Submission, WagerStats, Z
from tablegames.cards import format_cards
from tablegames.engine import Action
from tablegames.engine.events import BURN
from tablegames.rules import GameRules, registry


def plot_hold(sub: Submission, path: Path) -> None:
    """The main wager's hold: its exact long-run value, the 90/95/99% ranges from the exact distribution at
    each tabulated number of rounds, and the normal approximation's 95% range for comparison."""
    from tablegames.analysis.submission import hold_interval

    plt = pyplot()
    main = sub.stats[0]
    holds = sub.hold_ranges(main)
    ns = np.logspace(np.log10(HOLD_ROUNDS[0]) - 0.3, np.log10(HOLD_ROUNDS[-1]) + 0.3, 60)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    lo_n, hi_n = zip(
        *(hold_interval(main.house_edge, main.std_dev, main.average_wager, int(n), 95) for n in ns),
        strict=True,
    )
    ax.plot(ns, [100 * x for x in lo_n], color="#7f8c8d", ls="--", lw=0.8, label="95%, normal approximation")
    ax.plot(ns, [100 * x for x in hi_n], color="#7f8c8d", ls="--", lw=0.8)
    for c, shade, width in zip(
        sorted(Z, reverse=True), ("#d6eaf8", "#85c1e9", "#2e86c1"), (9, 6, 3), strict=True
    ):
        for k, h in enumerate(holds):
            lo, hi = h.ranges[c]
            ax.plot(
                [h.rounds, h.rounds],
                [100 * lo, 100 * hi],
                color=shade,
                lw=width,
                solid_capstyle="butt",
                label=f"{c}% range (exact distribution)" if k == 0 else None,
            )
    ax.axhline(100 * float(main.element_of_risk), color="black", lw=1, label="exact hold (element of risk)")
    ax.axhline(0, color="#c0392b", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("hold, % of handle")
    ax.set_title(f"{sub.title}: the casino's hold on the {main.wager} wager")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_meters(sub: Submission, path: Path) -> None:
    """Each meter-paid side bet's exact house edge against its meter, with the break-even meter."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(sub.sweeps), figsize=(4.5 * len(sub.sweeps) + 1, 4), squeeze=False)
    for ax, s in zip(axes[0], sub.sweeps, strict=True):
        xs = np.linspace(0, max(float(s.break_even) * 2, s.reset_cents * 3.0), 80)
        ax.plot(xs / 100, [100 * float(s.edge(Fraction(float(x)))) for x in xs], color="#2e86c1")
        ax.axhline(0, color="black", lw=0.8)
        ax.axvline(
            float(s.break_even) / 100,
            color="#27ae60",
            ls="--",
            label=f"break-even ${float(s.break_even) / 100:,.0f}",
        )
        ax.axvline(s.reset_cents / 100, color="#c0392b", ls=":", label=f"reset ${s.reset_cents / 100:,.0f}")
        ax.set_xlabel("meter, $")
        ax.set_ylabel("house edge, %")
        ax.set_title(s.wager, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(f"{sub.title}: side bets by meter value (exact)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(x: Any, digits: int = 4) -> str:
    return f"{100 * float(x):.{digits}f}%"


def _money(cents: float) -> str:
    return f"${cents / 100:,.2f}"


def _cards(cards: Sequence[int]) -> str:
    return format_cards(cards, pretty=True)


def _signed(cents: int) -> str:
    return f"{'+' if cents >= 0 else '-'}{_money(abs(cents))}"


def action_words(action: str, hand: Sequence[int] = ()) -> str:
    """A decision as a reader counts cards, from 1, naming the card when the hand is known: ``discard 0``
    -> ``discard card 1``.

    >>> action_words("discard 0"), action_words("discard 2", [0, 1, 51]), action_words("stand")
    ('discard card 1', 'discard card 3 (A♠)', 'stand')
    """
    parsed = Action.parse(action)
    if parsed.index is None:
        return str(parsed)
    card = f" ({_cards([hand[parsed.index]])})" if parsed.index < len(hand) else ""
    return f"{parsed.name} card {parsed.index + 1}{card}"


def example_markdown(n: int, ex: WorkedExample, bonus_title: str = "Neighbour bonus") -> list[str]:
    out = [f"### Example {n}: {ex.title}", ""]
    wagers = ", ".join(f"{w} {_money(c)}" + (f" on {o}" if o else "") for w, c, o in ex.wagers)
    who = f"Each of the {ex.seats} seats wagers" if ex.seats > 1 else "Wagers"
    out += [f"- {who}: {wagers}."]
    if ex.meters:
        out += [
            "- Meters before the round: " + ", ".join(f"{k} {_money(v)}" for k, v in ex.meters.items()) + "."
        ]
    for owner, cards in ex.cards.items():
        out.append(f"- Cards to {owner}: {_cards(cards)}.")
    for owner, card in ex.discarded:
        out.append(f"- {'Burned' if owner == BURN else f'Discarded by {owner}'}: {_cards([card])}.")
    for i, (action, options) in enumerate(ex.decisions, 1):
        acting = ex.acting[i - 1] if len(ex.acting) >= i else 1
        first = not ex.acting or ex.acting.index(acting) == i - 1  # the seat's first decision: its dealt hand
        indexed = sum(Action.parse(k).index is not None for k in options)  # one option per card held
        hand = ex.cards.get(f"seat {acting}", [])[:indexed] if first else []
        evs = "; ".join(f"{action_words(k, hand)} {float(v):+.4f}" for k, v in options.items())
        seat = f" (seat {ex.acting[i - 1]})" if ex.seats > 1 and len(ex.acting) >= i else ""
        out.append(
            f"- Decision {i}{seat}: **{action_words(action, hand)}** (exact EV of each option, units of the wager: "
            f"{evs})."
        )
    if not ex.decisions:
        out.append("- No decision: the rules play this hand.")
    for owner, final in ex.hands.items():
        out.append(f"- Final hand of {owner}: {final}.")
    out += ["", "Settlement, as the engine's events record it:", ""]
    seat_col = ex.seats > 1
    rows: list[tuple[str, ...]] = []
    for st in ex.settlements:
        detail = (
            st.detail
            + (f" (meter paid {_money(st.meter_cents)})" if st.meter_cents else "")
            + (f" (uncapped it would return {_money(st.capped_from)})" if st.capped_from is not None else "")
        )
        row = (st.wager, _money(st.staked), st.outcome, detail, _money(st.returned), _signed(st.net))
        rows.append((f"seat {st.seat}", *row) if seat_col else row)
    for paid_seat, cents in ex.neighbour_bonus:
        row = (bonus_title, "-", "paid", "another player's hand", _money(cents), _signed(cents))
        rows.append((f"seat {paid_seat}", *row) if seat_col else row)
    for net_seat, net in sorted(ex.nets.items()) if seat_col else [(1, ex.net)]:
        row = ("**total**", "", "", "", "", _signed(net))
        rows.append((f"seat {net_seat}", *row) if seat_col else ("**seat total**", *row[1:]))
    head = ("wager", "staked", "outcome", "detail", "returned", "net")
    out += [_md_table((("seat", *head) if seat_col else head), rows), ""]
    return out


def _stats_rows(stats: Sequence[WagerStats]) -> list[tuple[str, ...]]:
    return [
        (
            s.wager,
            _pct(s.house_edge),
            _pct(s.element_of_risk),
            f"{float(s.hit_frequency):.6f}",
            f"{s.std_dev:.4f}",
            f"{s.volatility_index:.4f}",
        )
        for s in stats
    ]


def to_report_markdown(sub: Submission, images: dict[str, str], command: str | None = None) -> str:
    """The whole submission as one Markdown document."""
    a = sub.analysis
    main = sub.stats[0]
    p: list[str] = title_page(sub)
    if command:
        p += [
            f"Produced by `{command}` (tablegames). Every figure is exact (fractions of enumerated deals) "
            "unless it says simulated.",
            "",
        ]
    p += [PAGE_BREAK, ""]
    p += [
        "Contents: 1 Summary; 2 Rules; 3 Pay schedules; 4 Worked examples; 5 Statistics of every wager; "
        "6 The casino's hold; 7 Pace and win per hour; 8 House edge by number of players; 9 Side bets by "
        "meter value; 10 Game protection; 11 Strategy; 12 Verification; 13 Integrity; "
        + ("14 Comparison; " if sub.comparison is not None else "")
        + "Glossary of rulings; "
        "Appendix: the exact analysis.",
        "",
    ]
    p += ["## 1. Summary", ""]
    summary = [
        ("game", f"{sub.title} (`{sub.game}`)"),
        ("rule set", rule_set_words(sub)),
        ("house edge, main wager", f"{_pct(a.house_edge)} (exact {a.house_edge})"),
        ("element of risk", _pct(a.element_of_risk)),
        ("standard deviation", f"{a.std_dev:.4f} units"),
        ("volatility index (90%)", f"{main.volatility_index:.4f}"),
        ("deals enumerated", f"{a.total:,}"),
    ]
    if sub.verification:
        worst = max(abs(v.z) for v in sub.verification)
        summary.append(
            (
                "verification",
                f"**{sub.verdict}**: {sub.verify_rounds:,} simulated rounds, criterion |z| < {sub.z_limit:g} "
                f"on each of {len(sub.verification)} rows; largest |z| = {worst:.2f}",
            )
        )
    else:
        summary.append(("verification", f"**{sub.verdict}** ({sub.verify_note or 'not run'})"))
    summary.append(("SHA-256 of analysis.json", f"`{sub.analysis_sha256}`"))
    p += [_md_table(("figure", "value"), summary), ""]
    p += ["Definitions of the figures:", ""]
    p += [f"- **{name}**: {text}" for name, text in DEFINITIONS]
    p += [""]
    p += rules_section(sub)
    p += ["## 3. Pay schedules", ""]
    for ps in sub.pay_schedules:
        p += [f"### {ps.wager}", "", _md_table(("hand or outcome", "pays"), ps.rows), ""]
        if ps.note:
            p += [ps.note, ""]
    p += [
        "## 4. Worked examples",
        "",
        "Each example is a round played by the game's round engine on a stacked deck (the cards in deal "
        "order), the decisions taken by the optimal strategy; the settlement is the engine's own record. "
        "The examples are regenerated with every report, so they cannot disagree with the engine.",
        "",
    ]
    for i, ex in enumerate(sub.examples, 1):
        p += example_markdown(i, ex, registry.get(sub.game).neighbour_bonus or "Neighbour bonus")
    if not sub.examples:
        p += ["This game's analyzer names no worked example yet (`Analyzer.worked_examples`).", ""]
    p += [
        "## 5. Statistics of every wager",
        "",
        "House edge: expected loss per initial wager. Element of risk: expected loss per average total "
        "wager. Hit frequency: the probability that the wager returns anything (main wager: that it wins). "
        "Standard deviation σ: of the net result per initial wager. Volatility index: VI = 1.6449 × σ "
        f"(z for 90% confidence, the common definition; here z = {VI_Z:.4f}).",
        "",
    ]
    p += [
        _md_table(
            ("wager", "house edge", "element of risk", "hit frequency", "std. dev.", "VI (90%)"),
            _stats_rows(sub.stats),
        ),
        "",
    ]
    p += [
        "## 6. The casino's hold",
        "",
        "Hold = house win ÷ handle after n rounds, handle = n × the average total wager W. Its long-run value "
        "is the element of risk. The c% range runs from the (1 − c)/2 to the (1 + c)/2 quantile of the hold, "
        "taken from the exact distribution of the n-round total: the n-fold convolution of one round's exact "
        "net distribution on its lattice (method *convolution*, computed to floating-point precision), or, "
        f"where that lattice is too large, {SIMULATED_DRAWS:,} draws of the n-round total from the exact "
        "distribution (method *simulation*: the count of each outcome in n rounds is one multinomial draw). "
        "A hold never exceeds 100% of the handle; it has no lower bound (the house can lose more than the "
        "handle). The normal approximation (element of risk ± a multiple of σ / (W·√n)) misjudges a "
        "skewed wager's range: each table names the rounds from which it is fair (the n-round total's "
        f"skewness γ/√n below {SKEW_LIMIT:g}).",
        "",
    ]
    if any(s.meter for s in sub.stats):
        p += [METER_NOTE, ""]
    for s in sub.stats:
        holds = sub.hold_ranges(s)
        rows = [
            (
                f"{h.rounds:,}",
                *(f"{100 * lo:.2f}% to {100 * hi:.2f}%" for lo, hi in h.ranges.values()),
                h.method,
            )
            for h in holds
        ]
        normal = normal_from(dict(s.distribution))
        p += [
            f"### {s.wager}: exact hold {_pct(s.element_of_risk)}",
            "",
            _md_table(("rounds", *(f"{c}% range" for c in sorted(Z)), "method"), rows),
            "",
            f"Normal approximation fair from about {normal:,} rounds (skewness of one round "
            f"γ = {skewness(dict(s.distribution)):.3f}).",
            "",
        ]
    if "hold" in images:
        p += [f"![hold by rounds]({images['hold']})", ""]
    p += [
        "## 7. Pace and win per hour",
        "",
        f"Rounds-per-hour model: rounds/hour = 3600 / ({sub.pace[0]:g} s + {sub.pace[1]:g} s × players); "
        f"{sub.pace_source}. Theoretical win = rounds/hour × players × average bet × house edge; the main "
        f"wager only, at an average of {_money(sub.average_bet_cents)} per initial wager, every player "
        "playing every round.",
        "",
    ]
    rows = [(str(n), f"{r:.1f}", f"{r * n:.1f}", _money(h), _money(w)) for n, r, h, w in sub.per_hour()]
    p += [
        _md_table(("players", "rounds/hour", "hands/hour", "handle/hour", "theoretical win/hour"), rows),
        "",
    ]
    p += ["## 8. House edge by number of players", ""]
    if sub.seats_note:
        p += [sub.seats_note, ""]
        if any(not r.exact for r in sub.seat_rows):
            p += [
                f"Simulated: {sub.seat_rows[0].rounds:,} seeded rounds at each table size (the round is the "
                "sample; 95% confidence interval of the edge per seat).",
                "",
            ]
    else:
        p += [
            "The seats are independent: each seat's cards are a uniformly random hand whatever the other "
            "seats hold, and nothing in the rules links one seat's result to another's, so every seat's "
            "house edge is the heads-up edge at every table size (exact).",
            "",
        ]
    effect_names = [name for name, _ in sub.seat_rows[0].effects] if sub.seat_rows else []
    rows = []
    for r in sub.seat_rows:
        edge = _pct(r.edge) + (" (exact)" if r.exact else "")
        ci = "" if r.ci95 is None else f"{100 * r.ci95[0]:.3f}% to {100 * r.ci95[1]:.3f}%"
        rows.append((str(r.players), edge, ci or "-", *(f"{float(v):.6f}" for _, v in r.effects)))
    p += [_md_table(("players", "house edge", "95% CI", *effect_names), rows), ""]
    p += ["## 9. Side bets by meter value", ""]
    if not sub.sweeps:
        p += ["This game has no meter-paid wager.", ""]
    for sw, (_, values) in zip(sub.sweeps, sub.sweep_rows, strict=True):
        p += [
            f"### {sw.wager}",
            "",
            f"Break-even meter (house edge exactly 0): {_money(float(sw.break_even))} (exact {sw.break_even} "
            f"cents); reset {_money(sw.reset_cents)}. Other meters at reset.",
            "",
        ]
        rows = [
            (_money(float(m)) + (" (break-even)" if m == sw.break_even else ""), _pct(e)) for m, e in values
        ]
        p += [_md_table(("meter", "house edge"), rows), ""]
    if "meters" in images:
        p += [f"![side bets by meter]({images['meters']})", ""]
    p += [
        "## 10. Game protection",
        "",
        "What exposed hidden information is worth to a player: the player's exact expected value per initial "
        "unit with the optimal strategy under that knowledge (tablegames.analysis.protect, every deal "
        "enumerated), against fair play; how often a decision changes; and the cost to the house per hour of "
        f"one informed player betting {_money(sub.average_bet_cents)} at the full-table pace of section 7.",
        "",
    ]
    if sub.protection:
        rows = []
        for pr in sub.protection:
            rows.append(
                (
                    str(pr.get("scenario")),
                    str(pr.get("description", "")),
                    f"{100 * float(pr['fair_player_ev']):+.3f}%",
                    f"{100 * float(pr['player_ev']):+.3f}%",
                    f"{100 * float(pr.get('change', float(pr['player_ev']) - float(pr['fair_player_ev']))):+.3f}%",
                    f"{100 * float(pr.get('change_frequency') or 0):.2f}%",
                    _money(float(pr.get("cost_per_hour_cents") or 0)),
                )
            )
        p += [
            _md_table(
                (
                    "scenario",
                    "exposed",
                    "fair EV",
                    "EV exposed",
                    "change",
                    "decisions changed",
                    "cost to the house/hour",
                ),
                rows,
            ),
            "",
        ]
    if sub.protection_note:
        p += [sub.protection_note[0].upper() + sub.protection_note[1:] + ".", ""]
    p += detection_markdown(sub.detection, sub.detection_note, _md_table)
    p += ["## 11. Strategy", "", "```", *a.strategy_summary, "```", ""]
    p += strategy_table(a)
    if "strategy" in images:
        p += [f"![strategy chart, an overview]({images['strategy']})", ""]
    p += ["## 12. Verification", ""]
    if sub.verification:
        p += [
            f"An independent simulation: {sub.verify_rounds:,} rounds of the project's Numba kernels "
            f"(`tablegames simulate` machinery, seed {sub.verify_seed}), heads-up, the exact optimal strategy, "
            "$5 wagers; z = (simulated − exact) / standard error. Criterion: a row passes when "
            f"|z| < {sub.z_limit:g}; the verification passes when every row does.",
            "",
            f"**Verdict: {sub.verdict}** ({sum(v.passes(sub.z_limit) for v in sub.verification)} of "
            f"{len(sub.verification)} rows pass |z| < {sub.z_limit:g}).",
            "",
        ]
        rows = [
            (
                v.label,
                f"{float(v.exact):.6f}",
                f"{v.simulated:.6f}",
                f"{v.std_error:.6f}",
                f"{v.z:+.2f}",
                "PASS" if v.passes(sub.z_limit) else "**FAIL**",
            )
            for v in sub.verification
        ]
        p += [_md_table(("figure", "exact", "simulated", "std. error", "z", "result"), rows), ""]
    else:
        p += [f"Simulation {sub.verify_note or 'not run'}. **Verdict: {sub.verdict}**.", ""]
    p += ["## 13. Integrity", "", _md_table(("item", "value"), identity_rows(sub, full=True)), ""]
    p += [
        "The source digest is the SHA-256 of the `sha256sum` manifest of every file of the installed "
        "`tablegames` package (no `__pycache__`, no `.pyc`), sorted by relative path: in the package folder, "
        "`find . -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -printf '%P\\n' | LC_ALL=C sort | "
        "xargs sha256sum | sha256sum`. The rule set's digest is the SHA-256 of the compact JSON "
        '`{"game": …, "rules": {every parameter: its value as text}}` with sorted keys, so the same rules give '
        "the same digest from any game file or option.",
        "",
    ]
    if sub.comparison is not None:
        from tablegames.analysis.compare import comparison_markdown

        definition = registry.get(sub.game)
        p += comparison_markdown(
            sub.comparison,
            sub.rule_set_name or "the submitted rules",
            _md_table,
            lambda name, text: rule_value(definition.parameter(name), text),
        )
    appendix = to_markdown(a, {k: v for k, v in images.items() if k in ("distribution", "contributions")})
    tail = ["## Appendix: the exact analysis", ""]
    tail += ["#" + line if line.startswith("#") else line for line in appendix.splitlines()[2:]]
    p += glossary(sub, "\n".join(p + tail))
    return "\n".join(p + tail)


def write_report(
    a: Analysis,
    rules: GameRules,
    out: Path,
    bet_cents: int | None = None,
    command: str | None = None,
    submission: Submission | None = None,
) -> list[Path]:
    """Write report.md, report.html, report.pdf, analysis.json, report.json and the PNGs; returns the paths.

    ``submission``: the figures of the report (``analysis.submission.build``; built here without a
    simulation when not given)."""
    from tablegames.analysis.pdf import markdown_to_pdf
    from tablegames.analysis.submission import build

    out.mkdir(parents=True, exist_ok=True)
    sub = submission if submission is not None else build(a, rules, simulate=None)
    analysis_json = json.dumps(a.to_json(), indent=1).encode("utf-8")
    (out / "analysis.json").write_bytes(analysis_json)
    sub.analysis_sha256 = hashlib.sha256(analysis_json).hexdigest()
    images = {
        "distribution": "net_distribution.png",
        "contributions": "return_contributions.png",
        "strategy": "strategy_chart.png",
        "hold": "hold.png",
    }
    if sub.sweeps:
        images["meters"] = "meters.png"
    plot_distribution(a, out / images["distribution"])
    plot_contributions(a, out / images["contributions"])
    analyzer(rules).plot_strategy(a, rules, bet_cents, out / images["strategy"])
    plot_hold(sub, out / images["hold"])
    if sub.sweeps:
        plot_meters(sub, out / images["meters"])
    md = to_report_markdown(sub, images, command)
    (out / "report.md").write_text(md, encoding="utf-8")
    (out / "report.html").write_text(to_html(md, f"{sub.title}: mathematical analysis"), encoding="utf-8")
    (out / "report.json").write_text(json.dumps(sub.to_dict(), indent=1), encoding="utf-8")
    markdown_to_pdf(md, out / "report.pdf", out, f"{sub.title}: mathematical analysis", footer_lines(sub))
    names = ("report.md", "report.html", "report.pdf", "analysis.json", "report.json", *images.values())
    return [out / n for n in names]


__all__ = ["HOLD_ROUNDS", "PLAYERS", "write_report"]

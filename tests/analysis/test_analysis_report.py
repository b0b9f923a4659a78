"""``tablegames report``: the math submission for a test lab (issue 14).

Its figures are the exact analysis' (the same fractions as ``tablegames analyze``), its worked examples are the
round engine's own rounds (re-played here on the same decks), its hold table is the stated formula, its
break-even meters give an edge of exactly 0 (and the sweep agrees with the side-bet analysis at whole-cent
meters), and its PDF renders: pdftoppm turns the pages into images and the figure pages are not blank.
Verification runs use a small ``--verify-rounds``.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.examples import ExampleError, play_example
from tablegames.analysis.submission import HOLD_ROUNDS, VI_Z, Submission, Z, build, hold_interval
from tablegames.cli import app
from tablegames.engine import Table
from tablegames.engine.events import EnvyPaid, RoundEnded, Settled
from tablegames.rules import registry
from tablegames.simulation.verify import simulate_summary

GAMES = [d.key for d in registry.DEFINITIONS if d.analyzer is not None]
VERIFY = 20_000
runner = CliRunner()


@pytest.fixture(scope="module", params=GAMES)
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, Submission, Path]:
    from tablegames.analysis.report import write_report

    rules = registry.get(request.param).make_rules()
    a = analyze_game(rules, None, {}, full_strategy=True)
    sub = build(a, rules, simulate=simulate_summary, verify_rounds=VERIFY, seed=3)
    out = tmp_path_factory.mktemp(request.param)
    write_report(a, rules, out, None, f"tablegames report {request.param}", sub)
    return rules, sub, out


def test_figures_are_the_exact_analysis_as_analyze_prints_it(built: tuple[Any, Submission, Path]) -> None:
    rules, sub, out = built
    res = runner.invoke(app, ["analyze", rules.game, "--format", "json", "--no-full-strategy"])
    assert res.exit_code == 0, res.output
    exact = json.loads(res.output)
    report = json.loads((out / "report.json").read_text())
    main = report["wagers"][0]
    assert main["house_edge_exact"] == exact["house_edge_exact"]
    assert main["hit_frequency_exact"] == exact["p_exact"]["win"]
    assert main["std_dev"] == pytest.approx(exact["std_dev"], rel=1e-12)
    assert main["volatility_index_90"] == pytest.approx(VI_Z * exact["std_dev"], rel=1e-12)
    assert pytest.approx(1.6448536, abs=1e-7) == VI_Z
    side_edges = {b["house_edge_exact"] for b in exact["side_bets"].values()}
    for w in report["wagers"][1:]:
        assert w["house_edge_exact"] in side_edges, w["wager"]
    # analysis.json is the exact analysis and its SHA-256 is the one the report prints
    import hashlib

    digest = hashlib.sha256((out / "analysis.json").read_bytes()).hexdigest()
    assert report["analysis_sha256"] == digest == sub.analysis_sha256
    assert digest in (out / "report.md").read_text() and digest in (out / "report.html").read_text()
    assert json.loads((out / "analysis.json").read_text())["house_edge_exact"] == exact["house_edge_exact"]


def test_worked_examples_are_the_engines_rounds(built: tuple[Any, Submission, Path]) -> None:
    rules, sub, out = built
    specs = analyzer(rules).worked_examples(rules)
    assert len(specs) >= 3 and len(sub.examples) == len(specs)
    report = json.loads((out / "report.json").read_text())
    outcomes: set[str] = set()
    for spec, ex, written in zip(specs, sub.examples, report["examples"], strict=True):
        # re-play the deck through the engine, taking the decisions the report shows
        table = Table(rules, seats=spec.seats, meters=dict(spec.meters) or None)
        rnd = table.new_round(deck=list(spec.deck))
        for seat in range(1, spec.seats + 1):
            for wager, amount, option in spec.wagers:
                rnd.place_wager(seat, wager, amount, option)
        rnd.deal()
        assert len(ex.acting) == len(ex.decisions)
        for seat, (action, _) in zip(ex.acting, ex.decisions, strict=True):
            assert rnd.to_act == seat
            rnd.act(seat, action)
        assert rnd.is_over
        settled = [
            (e.seat, e.wager, e.staked, e.returned, e.outcome) for e in rnd.history if isinstance(e, Settled)
        ]
        assert settled == [(s.seat, s.wager, s.staked, s.returned, s.outcome) for s in ex.settlements]
        assert [
            (s["seat"], s["wager"], s["staked"], s["returned"], s["outcome"]) for s in written["settlements"]
        ] == settled
        ended = next(e for e in rnd.history if isinstance(e, RoundEnded))
        assert ex.nets == dict(ended.net_by_seat) and written["net_cents"] == ended.net_by_seat[1]
        envy = [(e.seat, e.amount) for e in rnd.history if isinstance(e, EnvyPaid)]
        assert ex.envy == envy
        for seat in range(1, spec.seats + 1):  # every cent of a seat's net is a settlement or an Envy Bonus
            mine = sum(r - st for s_, _, st, r, _ in settled if s_ == seat) + sum(
                c for s_, c in envy if s_ == seat
            )
            assert mine == ended.net_by_seat[seat]
        # seat 1's outcomes by wager, and by "<wager> <part>" for each bet a settlement names
        named: dict[str, str] = {}
        for e in rnd.history:
            if isinstance(e, Settled) and e.seat == 1:
                named |= {e.wager: e.outcome} | {f"{e.wager} {p}": e.outcome for p in e.part.split()}
        for wager, outcome in spec.expect.items():
            assert named[wager] == outcome
        # the decisions are the optimal strategy's: the action taken has the highest EV
        for action, options in ex.decisions:
            assert options[action] == max(options.values())
        outcomes |= {s.outcome for s in ex.settlements}
    assert {"win", "lose"} <= outcomes
    if rules.game == "let-it-ride":  # the Envy Bonus example pays the other seat (R-LIR-8)
        assert any(ex.envy for ex in sub.examples)
    md = (out / "report.md").read_text()
    assert all(f"Example {i}: {ex.title}" in md for i, ex in enumerate(sub.examples, 1))


def test_an_example_that_does_not_settle_as_claimed_is_an_error() -> None:
    from dataclasses import replace

    rules = registry.get(GAMES[-1]).make_rules()
    spec = analyzer(rules).worked_examples(rules)[0]
    main = registry.of(rules).main_wager.name
    wrong = replace(spec, expect={next(iter(spec.expect)) if spec.expect else main: "no-such-outcome"})
    with pytest.raises(ExampleError, match="no-such-outcome"):
        play_example(rules, wrong)


def test_the_hold_table_is_the_normal_approximation_formula(built: tuple[Any, Submission, Path]) -> None:
    _, sub, out = built
    report = json.loads((out / "report.json").read_text())
    for stats, written in zip(sub.stats, report["wagers"], strict=True):
        w = float(stats.average_wager)
        assert [h["rounds"] for h in written["hold"]] == list(HOLD_ROUNDS)
        for row in written["hold"]:
            n = row["rounds"]
            for c, z in Z.items():
                lo, hi = row[f"ci{c}"]
                mean = float(Fraction(written["house_edge_exact"])) / w
                half = z * written["std_dev"] / (w * math.sqrt(n))
                assert lo == pytest.approx(mean - half, rel=1e-12, abs=1e-15)
                assert hi == pytest.approx(mean + half, rel=1e-12, abs=1e-15)
    assert Z[90] == pytest.approx(1.644854, abs=1e-6) and Z[99] == pytest.approx(2.575829, abs=1e-6)
    # the main wager's long-run hold is its element of risk
    lo, hi = hold_interval(
        sub.stats[0].house_edge, sub.stats[0].std_dev, sub.stats[0].average_wager, 10**16, 99
    )
    assert lo == pytest.approx(float(sub.analysis.element_of_risk), abs=1e-5)


def test_break_even_meters_give_an_edge_of_exactly_zero(built: tuple[Any, Submission, Path]) -> None:
    rules, sub, _ = built
    from tablegames.analysis.api import parse_meters  # noqa: F401  (the meters the analysis knows)

    for sweep in sub.sweeps:
        assert sweep.edge(sweep.break_even) == 0
        assert sweep.edge(Fraction(sweep.reset_cents)) > 0 > sweep.edge(sweep.break_even + 1)
        assert sweep.meter in analyzer(rules).meter_names(rules) or sweep.meter in {
            m.name for m in registry.of(rules).meters(rules)
        }
        # the sweep is the side-bet analysis: the analyzer's figures at whole-cent meters
        for meter in (sweep.reset_cents, int(sweep.break_even) + 1):
            a = analyze_game(rules, None, {_meter_key(rules, sweep.meter): meter})
            bets = [
                b for b in a.side_bets.values() if b.extra.get("meter_cents") == meter or _meters(b, meter)
            ]
            assert any(b.house_edge == sweep.edge(Fraction(meter)) for b in bets), (sweep.wager, meter)


def _meter_key(rules: Any, meter: str) -> str:
    names = analyzer(rules).meter_names(rules)
    return meter if meter in names else names[0]


def _meters(bet: Any, meter: int) -> bool:
    return meter in dict(bet.extra.get("meters_cents", {})).values()


def test_seats_and_table_size(built: tuple[Any, Submission, Path]) -> None:
    _rules, sub, _ = built
    assert [r.players for r in sub.seat_rows] == list(range(1, 8))
    if sub.seats_note:  # seats interact: a seeded simulation per table size, with its CI
        for r in sub.seat_rows:
            assert not r.exact and r.ci95 is not None and r.rounds > 0
            lo, hi = r.ci95
            se = (hi - lo) / (2 * Z[95])
            assert abs(float(sub.analysis.house_edge) - (lo + hi) / 2) < 4 * se
    else:
        assert all(r.exact and r.edge == sub.analysis.house_edge for r in sub.seat_rows)
    for r in sub.seat_rows:
        for name, value in r.effects:
            if "Envy" in name and "value" in name:
                envy = sub.analysis.side_bets["progressive"].extra["envy_value_per_extra_player"]
                assert float(value) == pytest.approx(envy * (r.players - 1), rel=1e-12)


def test_pace_and_win_per_hour(built: tuple[Any, Submission, Path]) -> None:
    _, sub, _ = built
    rows = sub.per_hour()
    assert [r[0] for r in rows] == list(range(1, 8))
    fixed, per = sub.pace
    for players, rph, handle, win in rows:
        assert rph == pytest.approx(3600 / (fixed + per * players))
        assert win == pytest.approx(rph * players * sub.average_bet_cents * float(sub.analysis.house_edge))
        assert handle >= rph * players * sub.average_bet_cents
    assert rows[-1][1] < rows[0][1] and rows[-1][3] > rows[0][3]  # fewer rounds, more win at a full table


def test_verification_z_scores(built: tuple[Any, Submission, Path]) -> None:
    _, sub, out = built
    assert sub.verify_rounds == VERIFY and sub.verification
    labels = [v.label for v in sub.verification]
    assert len(labels) == len(set(labels))
    for v in sub.verification:
        assert v.std_error > 0 and abs(v.z) < 5, v
        assert v.z == pytest.approx((v.simulated - float(v.exact)) / v.std_error)
    assert f"{VERIFY:,} rounds" in (out / "report.md").read_text()


def _pdftoppm() -> str:
    path = shutil.which("pdftoppm")
    if path is None:
        pytest.skip("pdftoppm (Debian poppler-utils, .ci/system-deps) is not installed")
    return path


def test_the_pdf_renders_with_its_figures(built: tuple[Any, Submission, Path], tmp_path: Path) -> None:
    import matplotlib.image as mpimg
    import numpy as np

    _, _sub, out = built
    pdftoppm = _pdftoppm()
    pdf = out / "report.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    subprocess.run([pdftoppm, "-r", "30", "-png", str(pdf), str(tmp_path / "page")], check=True, timeout=120)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 5
    listed = subprocess.run(
        [str(Path(pdftoppm).with_name("pdfimages")), "-list", str(pdf)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()[2:]
    images = [line.split() for line in listed if line.split()[2] == "image"]
    pngs = [p for p in out.glob("*.png")]
    assert len(images) == len(pngs) >= 4  # every figure is embedded once
    figure_pages = sorted({int(row[0]) for row in images})
    for n in figure_pages:
        pixels = mpimg.imread(pages[n - 1])
        assert pixels.std() > 0.05, f"page {n} looks blank"  # a figure page is not a white page
    for p in pages:
        assert np.asarray(mpimg.imread(p)).std() > 0.01  # no blank page at all


def test_report_cli_writes_every_file_and_rejects_bad_options(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["report", "final-count", "--out", str(tmp_path), "--verify-rounds", "5000", "-q"]
    )
    assert res.exit_code == 0, res.output
    for name in ("report.md", "report.html", "report.pdf", "analysis.json", "report.json", "hold.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["verification"]["rounds"] == 5000
    for bad in (["--verify-rounds", "-1"], ["--average-bet", "0"]):
        res = runner.invoke(app, ["report", "final-count", "--out", str(tmp_path / "x"), *bad])
        assert res.exit_code == 2 and "must be" in res.output
        assert not (tmp_path / "x").exists()


def test_the_protection_section_lists_every_exact_scenario(built: tuple[Any, Submission, Path]) -> None:
    from tablegames.analysis import protect

    rules, sub, out = built
    game = protect.game_protection(rules)
    exact = [s.name for s in protect.scenarios(rules) if s.exact and protect.parse_share(s.name) is None]
    exact += [f"share={k}" for k in range(2, protect.MAX_SHARE + 1) if game.share_exact(rules, k)]
    assert [r["scenario"] for r in sub.protection] == exact
    assert all(
        r["exact"] and r["fair_player_ev_exact"] == str(sub.analysis.expected_value) for r in sub.protection
    )
    md = (out / "report.md").read_text()
    for r in sub.protection:
        assert f"| {r['scenario']} |" in md
    if rules.game == "let-it-ride":  # the published anchor (E. Jacobson): hole-carding the last card
        row = next(r for r in sub.protection if r["scenario"] == "community-2")
        assert round(100 * row["player_ev"], 2) == 24.43


def test_a_game_without_report_hooks_still_gets_a_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The hooks are optional: an analyzer with only the base ones (and no simulation kernel) gets the main
    wager's figures, the hold, the pace at the default model, and says what is missing."""
    from tablegames.analysis import report, submission
    from tablegames.analysis.common import Analyzer
    from tablegames.analysis.final_count import ANALYZER as FC
    from tablegames.rules.common import RuleError

    class Bare(Analyzer):
        chart_axes = FC.chart_axes

    bare = Bare()
    monkeypatch.setattr(submission, "analyzer", lambda rules: bare)
    monkeypatch.setattr(report, "analyzer", lambda rules: bare)
    rules = registry.get("final-count").make_rules()
    a = analyze_game(rules, None, {}, full_strategy=True)

    def no_kernel(*args: object, **kwargs: object) -> dict[str, Any]:
        raise RuleError("final-count has no simulation kernel yet")

    sub = build(a, rules, simulate=no_kernel, verify_rounds=1000, protection=False)
    assert [s.wager for s in sub.stats] == ["main"] and not sub.examples and not sub.sweeps
    assert sub.verification == [] and "no simulation kernel" in sub.verify_note
    assert sub.pace == Analyzer.pace
    report.write_report(a, rules, tmp_path, None, None, sub)
    md = (tmp_path / "report.md").read_text()
    assert "names no worked example" in md and "no simulation kernel" in md
    assert (tmp_path / "report.pdf").stat().st_size > 0


def test_the_long_parts_show_a_rich_progress_bar_on_a_terminal() -> None:
    import io

    from rich.console import Console

    from tablegames.cli.analyze import _progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with _progress(console, quiet=False) as start:
        advance = start("verifying final-count", 1_000)
        simulate_summary(registry.get("final-count").make_rules(), 1_000, progress=advance)
    assert "verifying final-count" in out.getvalue()
    quiet = io.StringIO()
    with _progress(Console(file=quiet, force_terminal=True), quiet=True) as start:
        start("verifying", 10)(10)
    assert quiet.getvalue() == ""

"""``tablegames report``: the math submission for a test lab (issue 14).

Its figures are the exact analysis' (the same fractions as ``tablegames analyze``), its worked examples are the
round engine's own rounds (re-played here on the same decks), its hold table is the stated formula, its
break-even meters give an edge of exactly 0 (and the sweep agrees with the side-bet analysis at whole-cent
meters), and its PDF renders: pdftoppm turns the pages into images and the figure pages are not blank.
Verification runs use a small ``--verify-rounds``.
"""

from __future__ import annotations

import hashlib
import itertools
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
from tablegames.engine.events import NeighbourBonusPaid, RoundEnded, Settled
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
        envy = [(e.seat, e.amount) for e in rnd.history if isinstance(e, NeighbourBonusPaid)]
        assert ex.neighbour_bonus == envy
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
        assert any(ex.neighbour_bonus for ex in sub.examples)
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


def test_hold_ranges_never_exceed_the_handle_and_name_their_method(
    built: tuple[Any, Submission, Path],
) -> None:
    """Issue 22: every wager's hold range at 10^3 .. 10^6 rounds lies within [-inf, 1] (a wager cannot hold
    more than its handle; the normal approximation gave the Jackpot 199.50% at 1,000 rounds), the ranges
    nest (90% inside 95% inside 99%) and contain the long-run hold at many rounds, and the report prints no
    normal z where it uses quantiles."""
    _, sub, out = built
    report = json.loads((out / "report.json").read_text())
    assert [h["rounds"] for h in report["wagers"][0]["hold"]] == list(HOLD_ROUNDS)
    assert min(HOLD_ROUNDS) == 10**3 and max(HOLD_ROUNDS) == 10**6
    for stats, written in zip(sub.stats, report["wagers"], strict=True):
        assert sum(p for _, p in stats.distribution) == 1
        for row in written["hold"]:
            assert row["method"] in ("convolution", "simulation")
            spans = [row[f"ci{c}"] for c in sorted(Z)]
            for lo, hi in spans:
                assert lo <= hi <= 1.0, (stats.wager, row)
            for (lo_in, hi_in), (lo_out, hi_out) in itertools.pairwise(spans):
                assert lo_out <= lo_in and hi_in <= hi_out
        lo, hi = written["hold"][-1]["ci99"]
        if written["normal_approximation_from_rounds"] <= 10**6:
            assert lo <= float(stats.element_of_risk) <= hi, stats.wager
    md = (out / "report.md").read_text()
    section = md[md.index("## 6.") : md.index("## 7.")]
    assert "1.6449" not in section and "1.9600" not in section and "2.5758" not in section
    assert "Normal approximation fair from about" in section
    if any(s.meter for s in sub.stats):
        assert "leave out the share of every wager added to the meter" in section


def test_hold_quantiles_are_the_exact_distribution_of_n_rounds() -> None:
    """The convolution is exact on a small case (a binomial by hand), the simulation agrees with it where
    both can run, and at many rounds a near-symmetric wager's range is the normal one."""
    from scipy.stats import binom

    from tablegames.analysis import hold

    # even money with a 1/2 chance: the player's net of n rounds is 2B - n, B ~ Binomial(n, 1/2)
    dist = {Fraction(1): Fraction(1, 2), Fraction(-1): Fraction(1, 2)}
    values, method = hold.net_sum_quantiles(dist, 101, [0.025, 0.975])
    assert method == "convolution"
    assert values == [2 * int(binom.ppf(0.025, 101, 0.5)) - 101, 2 * int(binom.ppf(0.975, 101, 0.5)) - 101]
    # a skewed bet: 35 to 1 on one of 38 (a roulette number); both methods on the same distribution
    roulette = {Fraction(35): Fraction(1, 38), Fraction(-1): Fraction(37, 38)}
    exact = hold.hold_range(roulette, Fraction(1), 1_000, (90, 99))
    saved = hold.EXACT_POINTS
    try:
        hold.EXACT_POINTS = 0
        sim = hold.hold_range(roulette, Fraction(1), 1_000, (90, 99))
    finally:
        hold.EXACT_POINTS = saved
    assert exact.method == "convolution" and sim.method == "simulation"
    for c in (90, 99):
        for e, s_ in zip(exact.ranges[c], sim.ranges[c], strict=True):
            assert abs(e - s_) <= 0.0361  # one hit (36 units in 1,000) at most: the lattice step
    # a ±1 bet at 10^6 rounds: the normal range to within the lattice step
    coin = {Fraction(1): Fraction(9, 19), Fraction(-1): Fraction(10, 19)}
    r = hold.hold_range(coin, Fraction(1), 10**6, (95,))
    mean, sigma = Fraction(1, 19), math.sqrt(1 - (1 / 19) ** 2)
    for got, want in zip(r.ranges[95], hold_interval(mean, sigma, Fraction(1), 10**6, 95), strict=True):
        assert got == pytest.approx(want, abs=3e-6)
    assert hold.normal_from(coin) <= 10 and hold.normal_from(roulette) >= 1_000


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
        app, ["report", "final-count", "--out", str(tmp_path), "--verify-rounds", "5000", "-q", "--no-detect"]
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


def test_version_command_prints_the_installed_version() -> None:
    from importlib.metadata import version

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"tablegames {version('tablegames')}")


def test_the_report_identifies_its_program_and_rule_set(built: tuple[Any, Submission, Path]) -> None:
    """report.json ``software``: the installed version, the checkout's commit, the source digest (recomputed
    here as the documented sha256sum manifest) and the rule set's digest; all on the title page."""
    from importlib.metadata import version

    import tablegames
    from tablegames import identity

    rules, _, out = built
    sw = json.loads((out / "report.json").read_text())["software"]
    assert sw["version"] == version("tablegames")
    root = Path(tablegames.__file__).parent
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert sw["commit"] == (head.stdout.strip() if head.returncode == 0 else None)
    files = sorted(
        (p.relative_to(root).as_posix(), p)
        for p in root.rglob("*")
        if p.is_file() and p.suffix != ".pyc" and "__pycache__" not in p.parts
    )
    manifest = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {name}\n" for name, p in files)
    assert sw["source_sha256"] == hashlib.sha256(manifest.encode()).hexdigest()
    values = registry.of(rules).rule_set(rules)
    canonical = json.dumps({"game": rules.game, "rules": values}, sort_keys=True, separators=(",", ":"))
    assert sw["rules_sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    other = registry.get(rules.game).make_rules()  # the same rules made again: the same digest
    assert identity.rules_sha256(rules.game, registry.of(other).rule_set(other)) == sw["rules_sha256"]
    md = (out / "report.md").read_text()
    first_page = md[: md.index("## 1.")]
    for value in (sw["version"], sw["source_sha256"], sw["rules_sha256"], "revision", "date"):
        assert value in first_page
    assert f"tablegames {sw['version']}" in (out / "report.html").read_text()


def test_a_different_rule_set_or_game_file_has_its_own_digest(tmp_path: Path) -> None:
    from tablegames import identity

    fc = registry.get("final-count")
    standard, variant = fc.make_rules(), fc.make_rules({"face-value": "0"})
    digests = {identity.rules_sha256("final-count", fc.rule_set(r)) for r in (standard, variant)}
    assert len(digests) == 2
    game_file = Path(__file__).parents[2] / "games" / "final-count" / "face-value-0.toml"
    sw = identity.software("final-count", fc.rule_set(variant), game_file)
    assert sw["game_file_sha256"] == hashlib.sha256(game_file.read_bytes()).hexdigest()
    assert sw["rules_sha256"] == identity.rules_sha256("final-count", fc.rule_set(variant))


def _pdftotext(pdf: Path, *pages: int) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext (Debian poppler-utils, .ci/system-deps) is not installed")
    span = ["-f", str(pages[0]), "-l", str(pages[-1])] if pages else []
    return subprocess.run(
        [tool, "-layout", *span, str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_every_pdf_page_carries_the_version_digests_and_page_x_of_y(
    built: tuple[Any, Submission, Path],
) -> None:
    _, sub, out = built
    pdf = out / "report.pdf"
    text = _pdftotext(pdf)
    pages = text.split("\f")
    pages = [p for p in pages if p.strip()]
    total = len(pages)
    assert total >= 5
    sw = sub.software
    for n, page in enumerate(pages, 1):
        assert f"page {n} of {total}" in page, n
        assert f"tablegames {sw['version']}" in page and sw["source_sha256"] in page
        assert sw["rules_sha256"] in page
    first = _pdftotext(pdf, 1)
    assert "Document control" in first and "revision" in first
    assert f"verification {sub.verdict}" in " ".join(first.split()) and sub.verdict == "PASS"


def test_a_wrong_exact_figure_fails_the_verification_and_the_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A deliberately wrong exact figure (the main wager's house edge off by 0.05, a test-only analyzer):
    its row FAILs, the verdict is FAIL on page 1 and in report.json, the command exits 1 (the report is
    still written); with the true figures it exits 0. --z-limit sets the criterion."""
    from dataclasses import replace

    from tablegames.analysis import submission

    real = submission.analyzer

    class Wrong:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def verify_targets(self, a: Any, rules: Any) -> Any:
            targets = self.inner.verify_targets(a, rules)
            return [replace(targets[0], exact=targets[0].exact + Fraction(1, 20)), *targets[1:]]

    args = ["report", "final-count", "--out", str(tmp_path / "ok"), "--verify-rounds", "20000", "-q"]
    args += ["--no-protect", "--no-detect"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "ok" / "report.json").read_text())["verification"]["verdict"] == "PASS"
    monkeypatch.setattr(submission, "analyzer", lambda rules: Wrong(real(rules)))
    bad = ["report", "final-count", "--out", str(tmp_path / "bad"), "--verify-rounds", "20000", "-q"]
    res = runner.invoke(app, [*bad, "--no-protect", "--no-detect"])
    assert res.exit_code == 1, res.output
    data = json.loads((tmp_path / "bad" / "report.json").read_text())["verification"]
    assert data["verdict"] == "FAIL" and data["criterion"] == "|z| < 4"
    # (the house edge row comes after every category's row)
    wrong = [r for r in data["rows"] if r["figure"] == "main wager house edge"]
    assert len(wrong) == 1 and wrong[0]["pass"] is False and abs(wrong[0]["z"]) >= 4
    assert all(r["pass"] for r in data["rows"] if r is not wrong[0])
    md = (tmp_path / "bad" / "report.md").read_text()
    title = md[: md.index("## 1.")]
    assert "**FAIL**" in title and "Verdict: FAIL" in md
    assert f"outside it: {wrong[0]['figure']} (z = " in title  # the page names the failing figure
    first = " ".join(_pdftotext(tmp_path / "bad" / "report.pdf", 1).split())
    assert "verification FAIL" in first
    # a limit wide enough passes the same wrong figure; a non-positive limit is refused
    wide = runner.invoke(app, [*bad, "--no-protect", "--no-detect", "--z-limit", "1000"])
    assert wide.exit_code == 0, wide.output
    res = runner.invoke(app, [*bad, "--z-limit", "0"])
    assert res.exit_code == 2 and "--z-limit" in res.output


def test_the_report_reads_for_an_outsider(built: tuple[Any, Submission, Path]) -> None:
    """Issue 22: each cited ruling's text in the rules and a glossary (the text from the rules layer), no
    parameter dump in cents, dollars in the examples, card positions from 1, the chart as a table, every
    figure defined, a title page of its own."""
    import re

    from tablegames.rules import rulings

    rules, sub, out = built
    md = (out / "report.md").read_text()
    texts = rulings.texts(registry.of(rules))
    own = set(registry.of(rules).rulings)
    assert own <= set(texts)  # the game's own rulings, and another game's only where a text cites it
    quoted = {r for text in texts.values() for r in rulings.cited(text)}
    assert {r for r in texts if "-0." not in r} - own <= quoted
    cited = rulings.cited(md)
    assert cited and all(r in texts for r in cited)
    rules_part = md[md.index("## 2. Rules") : md.index("## 3.")]
    for rid in rulings.cited("\n".join(sub.rules_summary)):
        assert f"> **{rid}** {texts[rid]}" in rules_part  # quoted where first cited
    glossary = md[md.index("## Glossary of rulings") : md.index("## Appendix")]
    for rid in cited:
        assert f"| {rid} | " in glossary
    assert "It does not: every rule is the standard game's." in rules_part
    summary = md[md.index("## 1. Summary") : md.index("## 2. Rules")]
    assert not re.search(r"\w=\d{4,}", summary)  # no "jackpot.reset=500000"
    for name in ("house edge", "element of risk", "hold", "win per hour", "meter-paid wager", "z"):
        assert f"- **{name}" in summary
    examples = md[md.index("## 4.") : md.index("## 5.")]
    assert not re.search(r"\b(discard|capped) \d", examples)  # 1-based, dollars
    assert not re.search(r"capped \d{4,}", examples)
    if rules.game == "one-eyed-flush":
        assert re.search(r"\*\*discard card [123] \(.+?\)\*\*", examples)
    if rules.game == "let-it-ride":
        assert "capped at $50,000.00 (R-LIR-5)" in examples
    chart = sub.analysis.strategy.get("chart")
    if isinstance(chart, dict) and chart:
        strategy = md[md.index("## 11.") : md.index("## 12.")]
        assert "| hand |" in strategy and len(strategy.splitlines()) > len(chart)
    title = md[: md.index("<!-- pagebreak -->")]
    assert "## 1." not in title and "Document control" in title
    html = (out / "report.html").read_text()
    assert "<style>" in html and "blockquote" in html and 'class="page-break"' in html


def test_a_rule_set_lists_its_differences_from_the_standard_game_in_dollars() -> None:
    from types import SimpleNamespace

    from tablegames.analysis.report import rules_section

    definition = registry.get("one-eyed-flush")
    rules = definition.make_rules({"jackpot.reset": "$6,000", "bust-limit": "15"})
    sub = SimpleNamespace(game=definition.key, rules=definition.rule_set(rules), rules_summary=[])
    text = "\n".join(rules_section(sub))  # type: ignore[arg-type]
    assert "| `jackpot.reset` |" in text and "| $5,000 | $6,000 |" in text
    assert "| `bust-limit` |" in text and "| 14 | 15 | R-OEF-6 |" in text
    assert "500000" not in text


def test_compare_puts_every_figure_beside_the_other_rule_set(tmp_path: Path) -> None:
    """--compare OTHER_GAME_FILE: the submitted rule set's figures beside the standard one's, exact (the same
    fractions as analyze prints for each), the rules that differ, in report.json and section 14; a game file
    of another game is refused before anything is written."""
    games = Path(__file__).parents[2] / "games"
    mine, standard = games / "final-count" / "three-percent.toml", games / "final-count" / "default.toml"
    out = tmp_path / "cmp"
    args = ["report", "--game-file", str(mine), "--compare", str(standard), "--out", str(out)]
    res = runner.invoke(app, [*args, "--verify-rounds", "0", "--no-protect", "--no-detect", "-q"])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "report.json").read_text())["comparison"]
    exact = {}
    for path in (mine, standard):
        got = runner.invoke(
            app, ["analyze", "--game-file", str(path), "--format", "json", "--no-full-strategy"]
        )
        exact[path] = json.loads(got.output)["house_edge_exact"]
    edge = next(f for f in data["figures"] if f["figure"] == "house edge")
    assert (edge["this_exact"], edge["other_exact"]) == (exact[mine], exact[standard])
    assert edge["this_exact"] != edge["other_exact"]
    assert {d["rule"] for d in data["rule_differences"]} == {"value.J", "value.K"}
    assert {f["figure"] for f in data["figures"]} >= {"P(win)", "house edge", "standard deviation"}
    md = (out / "report.md").read_text()
    section = md[md.index("## 14. Comparison with") : md.index("## Glossary")]
    assert "| `value.K` | 13 | 10 |" in section and "11.1259%" in section and "pp |" in section
    res = runner.invoke(
        app,
        [
            "report",
            "final-count",
            "--compare",
            str(games / "let-it-ride" / "default.toml"),
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert res.exit_code == 2 and "--compare" in res.output and not (tmp_path / "x").exists()

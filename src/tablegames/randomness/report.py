"""Reports of ``tablegames rng-test``: JSON, Markdown and a heatmap of the card × position table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tablegames.cards import CARDS
from tablegames.randomness.stats import SuiteResult


def _p(p: float) -> str:
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.2e}"


def markdown_table(result: SuiteResult) -> str:
    """The per-test table, as Markdown."""
    lines = ["| test | statistic | p-value | 99% verdict | method |", "|---|---:|---:|---|---|"]
    for t in result.tests:
        verdict = "pass" if t.passed else "**FAIL**"
        lines.append(f"| {t.name} | {t.statistic:.3f} | {_p(t.p_value)} | {verdict} | {t.method} |")
    return "\n".join(lines)


def markdown_report(result: SuiteResult, command: str, heatmap: str | None) -> str:
    failed = ", ".join(t.name for t in result.failed) or "none"
    verdict = "PASS" if result.passed else "FAIL"
    parts = [
        f"# RNG test report — source `{result.source}`",
        "",
        f"- command: `{command}`",
        f"- decks: {result.shuffles:,} of {result.size} cards, dealt by {result.description}",
        f"- significance level α = {result.alpha} (confidence {1 - result.alpha:.0%}); a test passes when p ≥ α",
        f"- time: {result.seconds:.1f} s",
        f"- **suite verdict: {verdict}** (failed: {failed})",
        "",
        markdown_table(result),
        "",
        "Details:",
        "",
        *[f"- {t.name}: {t.detail}" for t in result.tests if t.detail],
        "",
        "Under the null hypothesis (uniform, independent decks) each test fails with probability α = 1%, so a run",
        f"of {len(result.tests)} tests shows at least one chance failure with probability about "
        f"{1 - (1 - result.alpha) ** len(result.tests):.0%}; a genuine defect fails again, with smaller p, at larger N.",
        "The tests are described in `src/tablegames/randomness/stats.py` and `docs/compliance-gli19.md`.",
    ]
    if heatmap:
        parts += ["", f"![card by position deviations]({heatmap})"]
    return "\n".join(parts) + "\n"


def heatmap_png(result: SuiteResult, path: Path) -> None:
    """Standardised deviations (O − E)/√E of the card × position table, red = too often, blue = too rarely."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = result.position_counts.astype(np.float64)
    n = counts.shape[0]
    expected = result.shuffles / n
    z = (counts - expected) / np.sqrt(expected)
    position_test = next((t for t in result.tests if t.key == "position"), None)
    fig, ax = plt.subplots(figsize=(9, 8))
    image = ax.imshow(z, cmap="RdBu_r", vmin=-4, vmax=4, interpolation="nearest", origin="upper")
    fig.colorbar(image, ax=ax, shrink=0.8, label="(observed − expected) / √expected")
    if n == 52:
        ticks = list(range(0, 52, 4))
        ax.set_xticks(ticks, [str(CARDS[t]) for t in ticks], fontsize=7)
    ax.set_xlabel("card (2c 2d 2h 2s 3c … As)")
    ax.set_ylabel("position in deal order (0 = first card)")
    title = f"Card × position, source {result.source}, N = {result.shuffles:,}"
    if position_test is not None:
        title += f"\nχ² p = {_p(position_test.p_value)} ({'pass' if position_test.passed else 'FAIL'} at 99%)"
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_reports(result: SuiteResult, out_dir: Path, command: str) -> list[Path]:
    """Write ``rng-test-<source>.json``, ``.md`` and ``-positions.png`` into ``out_dir``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"rng-test-{result.source}"
    json_path = out_dir / f"{stem}.json"
    md_path = out_dir / f"{stem}.md"
    png_path = out_dir / f"{stem}-positions.png"
    data = result.to_json() | {"command": command, "position_counts": result.position_counts.tolist()}
    json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    heatmap_png(result, png_path)
    md_path.write_text(markdown_report(result, command, png_path.name), encoding="utf-8")
    return [md_path, json_path, png_path]

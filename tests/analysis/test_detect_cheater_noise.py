"""``tablegames detect simulate --cheater-noise E`` (issue 27): cheaters who also make random mistakes. At E = 0 the
harness plays exactly as before the option existed (the figures below were printed by the harness without it, same
seeds); a cheater who errs at random is still flagged."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tablegames.analysis.detect_simulate import simulate
from tablegames.cli import app
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError

TCP = make_rules("three-card-poker")


@pytest.mark.parametrize("noise", [None, 0.0])
def test_no_cheater_noise_is_the_harness_as_it_was(noise: float | None) -> None:
    """Part-time readers beside honest players who err: the per-cheater hands to flag of the kernel, the engine
    tables and the pair harness, as the harness gave them before ``cheater_noise`` (commit b343666)."""
    extra = {} if noise is None else {"cheater_noise": noise}
    kernel = simulate(
        TCP, "dealer-1", cheaters=12, honest=12, hands=300, honest_noise=0.2, read_rate=0.5, seed=5, **extra
    )
    assert kernel.method == "kernel" and kernel.honest_flagged == 0
    assert kernel.cheater_hands_to_flag == [259, None, 136, 259, 191, 206, 263, 285, 262, 193, 160, 200]
    engine = simulate(
        TCP,
        "dealer-1",
        cheaters=3,
        honest=4,
        hands=200,
        honest_noise=0.2,
        read_rate=0.7,
        seed=5,
        method="engine",
        **extra,
    )
    assert engine.cheater_hands_to_flag == [132, 160, None] and engine.honest_flagged == 0
    pairs = simulate(
        TCP,
        "share=2",
        cheaters=2,
        honest=3,
        hands=150,
        honest_noise=0.1,
        seed=4,
        alpha=1e-3,
        read_rate=0.8,
        **extra,
    )
    assert pairs.cheater_hands_to_flag == [111, 111] and pairs.honest_flagged == 0
    assert "cheater_noise" not in kernel.to_dict()  # the json printed as before


def test_a_cheater_who_also_errs_is_still_flagged() -> None:
    clean = simulate(TCP, "dealer-1", cheaters=40, honest=0, hands=600, seed=3)
    noisy = simulate(TCP, "dealer-1", cheaters=40, honest=0, hands=600, seed=3, cheater_noise=0.05)
    assert clean.cheaters_flagged == noisy.cheaters_flagged == 40
    assert noisy.percentile(50) > clean.percentile(50)  # the random mistakes dilute the evidence
    assert noisy.to_dict()["cheater_noise"] == 0.05
    engine = simulate(
        TCP,
        "dealer-1",
        cheaters=2,
        honest=0,
        hands=300,
        seed=3,
        alpha=1e-3,
        cheater_noise=0.05,
        method="engine",
    )
    assert engine.cheaters_flagged == 2
    pairs = simulate(TCP, "share=2", cheaters=2, honest=0, hands=300, seed=4, alpha=1e-3, cheater_noise=0.02)
    assert pairs.cheaters_flagged == 2


def test_the_cli_takes_the_rate_and_refuses_one_out_of_range() -> None:
    runner = CliRunner()
    base = ["detect", "simulate", "three-card-poker", "--cheaters", "4", "--honest", "0", "--hands", "500"]
    res = runner.invoke(app, [*base, "--cheater-noise", "0.05", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["cheater_noise"] == 0.05 and out["cheaters_flagged"] == 4
    bad = runner.invoke(app, [*base, "--cheater-noise", "1.5"])
    assert bad.exit_code != 0 and "--cheater-noise" in bad.output
    with pytest.raises(RuleError):
        simulate(TCP, "dealer-1", cheaters=1, honest=0, hands=10, cheater_noise=-0.1)

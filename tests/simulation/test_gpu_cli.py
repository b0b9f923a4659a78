"""Issue 28: choosing the GPU. Without a CUDA device, ``simulate --device gpu`` exits with a clear message and
runs nothing, as does ``run_job(device="gpu")``; ``--device auto`` then runs on the CPU and says so; a GPU run
is one process (no --workers, no --cluster)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

import tablegames.simulation as simulation
from tablegames.cli import app
from tablegames.rules import make_rules
from tablegames.simulation import SimulationError, gpu, make_job, run_job

ARGS = ["simulate", "three-card-poker", "-n", "1000", "--format", "json", "-q"]


@pytest.fixture
def no_device(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """No CUDA device, whatever this machine has; records any run_job the CLI makes."""
    runs: list[Any] = []
    monkeypatch.setattr(gpu, "available", lambda: False)
    real = simulation.run_job

    def recorded(*args: Any, **kw: Any) -> Any:
        runs.append(kw.get("device"))
        return real(*args, **kw)

    monkeypatch.setattr(simulation, "run_job", recorded)
    return runs


def test_device_gpu_without_a_device_exits_cleanly_and_runs_nothing(no_device: list[Any]) -> None:
    result = CliRunner().invoke(app, [*ARGS, "--device", "gpu"])
    assert result.exit_code == 2
    assert "no CUDA device found" in result.output and "nothing was run" in result.output
    assert isinstance(result.exception, SystemExit)  # a clean exit, not an error raised through
    assert no_device == []  # not run


def test_device_gpu_on_this_machine_without_a_device_exits_cleanly() -> None:
    if gpu.available():
        pytest.skip("this machine has a CUDA device (or the simulator is on)")
    result = CliRunner().invoke(app, [*ARGS, "--device", "gpu"])
    assert result.exit_code == 2 and "no CUDA device found" in result.output


def test_device_auto_without_a_device_runs_on_the_cpu(no_device: list[Any]) -> None:
    result = CliRunner().invoke(app, [*ARGS, "--device", "auto"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["device"] == "cpu"
    assert no_device == ["cpu"]


def test_a_gpu_run_is_one_process_and_devices_are_named(no_device: list[Any]) -> None:
    for extra, message in (
        (["--device", "gpu", "--workers", "2"], "no --workers or --cluster"),
        (["--device", "tpu"], "unknown --device 'tpu'"),
    ):
        result = CliRunner().invoke(app, [*ARGS, *extra])
        assert result.exit_code == 2 and message in result.output, result.output
    assert no_device == []


def test_run_job_on_the_gpu_without_a_device_raises_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu, "available", lambda: False)
    job = make_job(make_rules("final-count"), 1000)
    with pytest.raises(gpu.GpuError, match="no CUDA device found"):
        run_job(job, device="gpu")
    with pytest.raises(SimulationError, match="no workers or cluster"):
        run_job(job, workers=2, device="gpu")
    with pytest.raises(SimulationError, match="unknown device"):
        run_job(job, device="tpu")
    assert gpu.unsupported("final-count") is None  # every built-in game's kernel has a GPU path

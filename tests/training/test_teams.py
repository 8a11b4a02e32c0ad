"""A three-seat household team trains on CPU under the scaffolded structure (smoke run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from collabrl.config import load_recipe
from collabrl.training.groups import make_slots, partner_profiles, plan_groups

ROOT = Path(__file__).resolve().parents[2]
SMALL = [
    "train.iterations=2",
    "rollout.groups=1",
    "rollout.episodes_per_group=2",
    "game.max_decisions=4",
    "policy.sampling.max_new_tokens=12",
    "train.wandb=disabled",
    "train.checkpoint_every=2",
    "algo.mini_batch=8",
    "algo.micro_batch=4",
]


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_three_seat_scaffolded_training_smoke_run(tmp_path) -> None:
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        str(ROOT / "train.py"),
        "recipe=cwah_team3_scaffolded_gigpo_cpu",
        f"output_dir={out}",
        *SMALL,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        assert row["decisions"] > 0 and "process/work_total" in row
        assert "process/board_total" in row and "process/gate_requests_total" in row


def test_the_policy_anchor_carries_the_structure_and_the_third_seat() -> None:
    """The policy seat's anchor ends with the structure's part (board sections filled, gate
    state: owners, requests to decide, own requests) after both teammates' last-seen states."""
    recipe = load_recipe(
        "cwah_team3_scaffolded_gigpo_cpu", ["partner.kind=expert", "game.max_decisions=6"]
    )
    slots = make_slots(recipe, plan_groups(recipe, partner_profiles(recipe), iteration=0))
    for slot in slots:
        obs = slot.game.reset(slot.seed)["Alice"]
        board, gates = obs.anchor[-1]
        assert len(board) == 4 and gates[0] == (("put", ""),)
        partners = obs.anchor[-2]
        assert [name for name, *_ in partners] == ["Bob", "Charlie"]

"""The trajectory viewer on a real (tiny) training run and a recorded kitchen episode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from collabrl.web.server import background
from collabrl.web.view_app import make_view_app
from tests.web.helpers import TOKEN

ROOT = Path(__file__).resolve().parents[2]
TINY_RUN = [
    "recipe=cwah_gigpo_cpu",
    "partner.kind=persona",
    "reward.judge.kind=heuristic",
    "game.max_decisions=3",
    "rollout.groups=2",
    "rollout.episodes_per_group=2",
    "policy.sampling.max_new_tokens=12",
    "train.wandb=disabled",
    "algo.mini_batch=4",
    "algo.micro_batch=2",
    "train.iterations=1",
    "train.checkpoint_every=0",
    "train.dump_rollouts.every=1",
    "train.dump_rollouts.episodes=2",
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A folder with a one-iteration training run that dumps its rollouts, and the record of a
    30-tick kitchen episode of two experts (``collabrl play``)."""
    root = tmp_path_factory.mktemp("runs")
    subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *TINY_RUN, f"output_dir={root / 'train'}"],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from collabrl.cli import main; main()",
            "play",
            "kitchen_experts",
            "game.horizon=30",
            f"output_dir={root / 'play'}",
            "--quiet",
        ],
        check=True,
        capture_output=True,
    )
    return root


def test_dumped_rollouts_carry_rewards_and_advantages(runs) -> None:
    lines = (runs / "train" / "rollouts.jsonl").read_text().splitlines()
    assert len(lines) == 2
    for record in map(json.loads, lines):
        assert record["iteration"] == 0 and record["stamp"]["source"] == "train"
        for turn in record["turns"]:
            assert set(turn["rewards"]) >= {"format", "communication", "judge"}
            assert turn["observation"].startswith("Goal:")
            if turn["advantage"] is not None:
                total = turn["episode_advantage"] + turn["step_advantage"]
                assert turn["advantage"] == pytest.approx(total)


def test_viewer_shows_the_reward_parts_of_the_jsonl(runs, page, shot) -> None:
    first = json.loads((runs / "train" / "rollouts.jsonl").read_text().splitlines()[0])
    with background(make_view_app(runs, TOKEN)) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.get_by_test_id("count")).to_have_text("3 episodes")
        page.get_by_test_id("filter-source").select_option("train")
        page.locator("tr.episode").first.click()
        row = page.get_by_test_id("decision-0")
        expect(row).to_be_visible()
        for name, value in first["turns"][0]["rewards"].items():
            cell = row.get_by_test_id(f"reward-{name}")
            assert float(cell.get_attribute("data-value")) == value
        shot(page, "viewer_training")


def test_viewer_replays_a_kitchen_episode_tick_by_tick(runs, page, shot) -> None:
    with background(make_view_app(runs, TOKEN)) as base:
        page.goto(f"{base}/?token={TOKEN}")
        page.get_by_test_id("filter-game").select_option("kitchen")
        page.locator("tr.episode").first.click()
        slider = page.get_by_test_id("replay-slider")
        expect(slider).to_have_attribute("max", "30")
        slider.fill("30")
        expect(page.locator(".replay .meta")).to_contain_text("tick 30")
        shot(page, "viewer_kitchen")


def test_viewer_needs_the_token(runs) -> None:
    from starlette.testclient import TestClient

    client = TestClient(make_view_app(runs, TOKEN))
    assert client.get("/api/episodes").status_code == 403
    assert client.get("/api/episodes?token=wrong").status_code == 403
    assert len(client.get(f"/api/episodes?token={TOKEN}").json()["episodes"]) == 3

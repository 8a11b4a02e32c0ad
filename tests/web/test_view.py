"""The trajectory viewer on real (tiny) training runs, an evaluation and a recorded kitchen
episode."""

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

pytestmark = pytest.mark.slow  # minutes of CPU: only the full suite (.ci/run) runs it

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


def policy_turns(record: dict) -> list[tuple[int, dict]]:
    """The policy's decisions of a dumped episode, with their places among all seats' turns."""
    return [(i, t) for i, t in enumerate(record["turns"]) if t["player"] == "policy"]


def test_dumped_rollouts_carry_rewards_and_advantages(runs) -> None:
    lines = (runs / "train" / "rollouts.jsonl").read_text().splitlines()
    assert len(lines) == 2
    for record in map(json.loads, lines):
        assert record["iteration"] == 0 and record["stamp"]["source"] == "train"
        assert {t["seat"] for t in record["turns"]} == {"Alice", "Bob"}  # both seats' turns
        for _, turn in policy_turns(record):
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
        i, turn = policy_turns(first)[0]
        row = page.get_by_test_id(f"decision-{i}")
        expect(row).to_be_visible()
        expect(page.get_by_test_id("timeline")).to_contain_text("Bob")
        for name, value in turn["rewards"].items():
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


@pytest.fixture(scope="module")
def more_runs(tmp_path_factory) -> Path:
    """An evaluation of one household episode (its trajectory) and a one-iteration kitchen
    training run dumping one 20-tick episode."""
    root = tmp_path_factory.mktemp("more_runs")
    collabrl = [sys.executable, "-c", "from collabrl.cli import main; main()"]
    subprocess.run(
        [
            *collabrl,
            "eval",
            "games=[household]",
            "tasks=[0_read_book]",
            "max_profiles=1",
            "seats=[1]",
            f"output_dir={root / 'eval'}",
            "--quiet",
        ],
        check=True,
        capture_output=True,
    )
    kitchen = [
        "recipe=cook_gigpo_cpu",
        "game.horizon=20",
        "rollout.groups=1",
        "rollout.episodes_per_group=2",
        "train.dump_rollouts.episodes=1",
    ]
    overrides = [o for o in TINY_RUN if o.split("=")[0] not in {"recipe", "game.max_decisions"}]
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "train.py"),
            *overrides,
            *kitchen,
            f"output_dir={root / 'cook'}",
        ],
        check=True,
        capture_output=True,
    )
    return root


def test_viewer_shows_the_prompts_of_an_evaluation(more_runs, page) -> None:
    (record,) = [json.loads(line) for line in (more_runs / "eval" / "trajectories.jsonl").open()]
    seats = {t["seat"] for t in record["turns"]}
    assert len(seats) == 2 and all(t["observation"].startswith("Goal:") for t in record["turns"])
    with background(make_view_app(more_runs / "eval", TOKEN)) as base:
        page.goto(f"{base}/?token={TOKEN}")
        page.locator("tr.episode").first.click()
        row = page.get_by_test_id("decision-1")
        row.locator("summary").click()
        expect(row.locator("pre").first).to_have_text(record["turns"][1]["observation"])


def test_a_kitchen_training_episode_replays_on_the_board(more_runs) -> None:
    from starlette.testclient import TestClient

    client = TestClient(make_view_app(more_runs / "cook", TOKEN))
    episode = client.get(f"/api/episodes/0?token={TOKEN}").json()
    assert {t["seat"] for t in episode["turns"]} == {"Player 0", "Player 1"}
    assert "replay_note" not in episode and episode["board"]["kind"] == "overcooked-grid"
    assert [f["tick"] for f in episode["frames"]] == list(range(21))


def test_a_long_list_pages_and_labels_results_by_the_games_column(tmp_path, page) -> None:
    """120 household episodes: 50 rows a page, a pager, and "success: 36 steps", not
    "efficiency 36"."""
    lines = [
        json.dumps(
            {
                "game": "household",
                "task": "0_read_book",
                "seed": i,
                "summary": {"success": i % 3 > 0, "steps": 30 + i},
                "turns": [],
                "efficiency": 30 + i,
            }
        )
        for i in range(120)
    ]
    (tmp_path / "trajectories.jsonl").write_text("\n".join(lines) + "\n")
    with background(make_view_app(tmp_path, TOKEN)) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.get_by_test_id("count")).to_have_text("120 episodes")
        expect(page.locator("tr.episode")).to_have_count(50)
        expect(page.get_by_test_id("pager")).to_contain_text("1–50 of 120")
        expect(page.get_by_test_id("page-previous")).to_be_disabled()
        expect(page.locator("tr.episode").nth(1)).to_contain_text("success: 31 steps")
        page.get_by_test_id("page-next").click()
        expect(page.get_by_test_id("pager")).to_contain_text("51–100 of 120")
        page.get_by_test_id("page-next").click()
        expect(page.locator("tr.episode")).to_have_count(20)
        expect(page.get_by_test_id("page-next")).to_be_disabled()
        page.locator("tr.episode").first.click()
        expect(page.get_by_test_id("detail")).to_contain_text("steps 130")
        page.get_by_test_id("filter-success").select_option("false")  # a filter starts at page 1
        expect(page.get_by_test_id("pager")).to_contain_text("1–40 of 40")

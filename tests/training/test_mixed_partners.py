"""``partner.kind=mix``: each training group draws its partner kind (persona players, population
members, human proxies), its episodes share it, and the records say which partner each had."""

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from collabrl.config import load_recipe, partner_profiles
from collabrl.envs.kitchen.engine import ACTIONS
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.envs.kitchen.population import train_selfplay
from collabrl.envs.kitchen.ppo import PPOSettings
from collabrl.errors import RecipeError
from collabrl.training.groups import plan_groups

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "human_trials"
MIX = ["partner.kind=mix", "rollout.groups=4", "rollout.tasks=[cramped_room]"]
DRAWN = [["persona"] * 4, ["population", "population", "human_proxy", "population"]]
MOTION = ("human_proxy", "population")


def test_each_group_draws_one_kind_and_persona_groups_a_profile() -> None:
    recipe = load_recipe("cook_gigpo_cpu", MIX)
    profiles = partner_profiles(recipe)
    for iteration, kinds in enumerate(DRAWN):
        plans = plan_groups(recipe, profiles, iteration)
        assert [p.partner for p in plans] == kinds
        for plan in plans:
            assert (plan.profile is not None) == (plan.partner == "persona")
            assert plan.task == "cramped_room"
        assert plan_groups(recipe, profiles, iteration) == plans  # seeded by the iteration


def test_a_mix_is_for_training_and_names_each_kind_once() -> None:
    with pytest.raises(RecipeError, match="partner.kind=mix is for training only"):
        load_recipe("cook_gigpo_cpu", ["eval.partner.kind=mix"])
    with pytest.raises(RecipeError, match="partner.mix names a kind twice"):
        load_recipe("cook_gigpo_cpu", [*MIX, "partner.mix=[persona,persona]"])


@pytest.mark.slow  # trains the tiny model for two iterations
def test_two_iterations_against_a_mix_record_each_episodes_partner(tmp_path: Path) -> None:
    trials = trials_of(read_frame("test", FIXTURE), "test")  # the fixture's cramped_room ticks
    mine = [t for t in trials if t.layout == "cramped_room"]
    save_proxy(train_proxy("cramped_room", mine, epochs=2, hidden=8), tmp_path / "proxies")
    tiny = PPOSettings(updates=1, envs=1, horizon=20, hidden=8, minibatch=64, epochs=1)
    train_selfplay("cramped_room", seed=0, settings=tiny, folder=tmp_path / "pop")
    out = tmp_path / "run"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "train.py"),
            "recipe=cook_gigpo_cpu",
            *MIX,
            f"output_dir={out}",
            f"partner.proxies={tmp_path / 'proxies'}",
            f"partner.population={tmp_path / 'pop'}",
            "game.horizon=8",
            "rollout.episodes_per_group=2",
            "reward.judge.kind=none",
            "policy.sampling.max_new_tokens=12",
            "train.iterations=2",
            "train.checkpoint_every=0",
            "train.wandb=disabled",
            "train.dump_rollouts.every=1",
            "train.dump_rollouts.episodes=8",
            "algo.mini_batch=16",
            "algo.micro_batch=4",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert len(records) == 16  # 2 iterations x 4 groups x 2 episodes
    kinds: dict[tuple[int, int], set[str]] = defaultdict(set)
    for record in records:
        mate = next(s for s in record["summary"]["decisions"] if s != record["seat_name"])
        players = {t["player"] for t in record["turns"] if t["seat"] == mate}
        assert len(players) == 1
        (player,) = players
        kind = player if player in MOTION else "persona"
        if kind in MOTION:  # moves its chef every tick
            assert record["player_type"] == player and record["profile"] is None
            assert record["summary"]["motion_seats"] == [mate]
            moves = [t["action"] for t in record["turns"] if t["seat"] == mate]
            assert len(moves) == 8 and set(moves) <= set(ACTIONS)
        else:  # a persona player beside the policy, its profile recorded
            assert record["profile"] and record["player_type"] not in MOTION
            assert not record["summary"].get("motion_seats")
        kinds[(record["iteration"], record["seed"])].add(kind)
    assert all(len(k) == 1 for k in kinds.values())  # a group's episodes share their partner
    for iteration, expected in enumerate(DRAWN):
        drawn = [k for (i, _), (k,) in kinds.items() if i == iteration]
        assert sorted(drawn) == sorted(expected)
    metrics = json.loads((out / "metrics.jsonl").read_text().splitlines()[1])
    assert {f"type/{k}/score" for k in MOTION} <= set(metrics)

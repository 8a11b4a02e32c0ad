"""The plug-in relay game (examples/relay_game, installed as its own package) runs through lint,
play, eval and a CPU GiGPO training run without any change to collabrl: it is found through the
``collabrl.games`` entry point alone. CI installs it (``pip install ./examples/relay_game``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.envs import check_game
from collabrl.envs.registry import game_names, get_game

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "examples" / "relay_game" / "recipes"
GIGPO = str(RECIPES / "relay_gigpo_cpu.yaml")


def collabrl(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args], capture_output=True, text=True, cwd=cwd
    )


def test_relay_is_registered_next_to_the_built_in_games() -> None:
    assert "relay" in game_names(), "pip install ./examples/relay_game (CI does)"
    section = get_game("relay")
    assert section.__module__.startswith("relay_game.")  # not a module of collabrl
    for task in section.tasks("test"):
        check_game(lambda task=task: section(task=task).make_game(), seeds=(0, 1), max_steps=200)


def test_lint_and_play(tmp_path: Path) -> None:
    lint = collabrl("lint", GIGPO, "game.task=r6p2v0", cwd=tmp_path)
    assert lint.returncode == 0, lint.stderr
    assert "name: relay" in lint.stdout and "task: r6p2v0" in lint.stdout
    bad = collabrl("lint", GIGPO, "game.task=nope", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "game.task" in bad.stderr
    play = collabrl(
        "play", str(RECIPES / "relay_play.yaml"), f"output_dir={tmp_path / 'play'}", cwd=tmp_path
    )
    assert play.returncode == 0, play.stderr
    (episode,) = [json.loads(line) for line in (tmp_path / "play" / "episodes.jsonl").open()]
    assert episode["summary"]["success"] and episode["turns"]


def test_eval_without_profiles_plays_each_test_task(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    result = collabrl(
        "eval", GIGPO, "--quiet", "partner.kind=expert", "seats=[1]", f"output_dir={out}",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (out / "trajectories.jsonl").open()]
    assert sorted(r["task"] for r in rows) == sorted(get_game("relay").tasks("test"))
    assert all(r["profile"] is None for r in rows)
    assert "Relay" in (out / "tables.md").read_text()


@pytest.mark.slow
def test_cpu_gigpo_training_runs(tmp_path: Path) -> None:
    out = tmp_path / "train"
    result = subprocess.run(
        [
            sys.executable, str(ROOT / "train.py"), f"recipe={GIGPO}", f"output_dir={out}",
            "train.iterations=1", "train.checkpoint_every=1", "train.wandb=disabled",
            "rollout.groups=1", "rollout.episodes_per_group=2", "game.max_ticks=12",
            "policy.sampling.max_new_tokens=48", "algo.mini_batch=8",
        ],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (row,) = [json.loads(line) for line in (out / "metrics.jsonl").open()]
    assert row["iteration"] == 0 and row["requests/policy"] > 0


def test_lint_for_train_refuses_a_validation_partner_the_game_cannot_field() -> None:
    """The relay game ships no profiles: validating with the eval section's default persona
    partner would fail minutes into the run, so lint refuses it, naming eval.partner.kind."""
    recipe = str(ROOT / "examples/relay_game/recipes/relay_gigpo_cpu.yaml")
    refused = CliRunner().invoke(
        cli, ["lint", "--for", "train", recipe, "train.validation.every=1"]
    )
    assert refused.exit_code != 0  # main() prints the error as one line; here it is raised
    assert (
        "train.validation needs eval.partner.kind=persona: the relay game has no test profiles"
        in str(refused.exception)
    )
    fixed = ["train.validation.every=1", "eval.partner.kind=expert"]
    assert CliRunner().invoke(cli, ["lint", "--for", "train", recipe, *fixed]).exit_code == 0

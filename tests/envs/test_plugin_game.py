"""The plug-in games (examples/relay_game and examples/tally_game, each installed as its own
package) run through check, lint, play, eval and a CPU GiGPO training run without any change to
collabrl: each is found through the ``collabrl.games`` entry point alone. Tally was written from
docs/game-contract.md only. CI installs both (``pip install ./examples/<game>``)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.envs import check_game
from collabrl.envs.registry import game_names, get_game
from tests.plugins import installed, plugin_params

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Plugin:
    """One example plug-in and the recipes its tests run."""

    folder: str
    gigpo: str  # a CPU GiGPO recipe (eval and train)
    play: str  # two experts
    task: str  # a task for lint
    title: str  # in the evaluation tables
    short_episodes: tuple[str, ...]  # overrides that keep the training test short

    def recipe(self, name: str) -> str:
        return str(ROOT / "examples" / self.folder / "recipes" / name)


PLUGINS = {
    "relay": Plugin(
        "relay_game", "relay_gigpo_cpu.yaml", "relay_play.yaml", "r6p2v0", "Relay",
        ("game.max_ticks=12",),
    ),
    "tally": Plugin(
        "tally_game", "tally_gigpo_cpu.yaml", "tally_play.yaml", "s5-4", "Tally",
        ("game.max_ticks=8",),
    ),
}  # fmt: skip
GIGPO = PLUGINS["relay"].recipe("relay_gigpo_cpu.yaml")


def collabrl(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.mark.parametrize("game", plugin_params(PLUGINS))
def test_a_plugin_is_registered_next_to_the_built_in_games(game: str) -> None:
    assert game in game_names(), f"pip install ./examples/{PLUGINS[game].folder} (CI does)"
    section = get_game(game)
    assert section.__module__.startswith(f"{PLUGINS[game].folder}.")  # not a module of collabrl
    for task in section.tasks("test"):
        made = section(task=task)
        check_game(made.make_game, seeds=(0, 1), max_steps=200, section=made)


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
@pytest.mark.parametrize("game", plugin_params(PLUGINS))
def test_lint_and_play(tmp_path: Path, game: str) -> None:
    plugin = PLUGINS[game]
    lint = collabrl("lint", plugin.recipe(plugin.gigpo), f"game.task={plugin.task}", cwd=tmp_path)
    assert lint.returncode == 0, lint.stderr
    assert f"name: {game}" in lint.stdout and f"task: {plugin.task}" in lint.stdout
    bad = collabrl("lint", plugin.recipe(plugin.gigpo), "game.task=nope", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "game.task" in bad.stderr
    out = tmp_path / "play"
    play = collabrl("play", plugin.recipe(plugin.play), f"output_dir={out}", cwd=tmp_path)
    assert play.returncode == 0, play.stderr
    (episode,) = [json.loads(line) for line in (out / "episodes.jsonl").open()]
    assert episode["summary"]["success"] and episode["turns"]


@pytest.mark.slow
@pytest.mark.parametrize("game", plugin_params(PLUGINS))
def test_eval_without_profiles_plays_each_test_task(tmp_path: Path, game: str) -> None:
    plugin, out = PLUGINS[game], tmp_path / "eval"
    result = collabrl(
        "eval", plugin.recipe(plugin.gigpo), "--quiet", "partner.kind=expert", "seats=[1]",
        f"output_dir={out}", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (out / "trajectories.jsonl").open()]
    assert sorted(r["task"] for r in rows) == sorted(get_game(game).tasks("test"))
    assert all(r["profile"] is None for r in rows)
    tables = (out / "tables.md").read_text()
    assert plugin.title in tables and "partners=expert(test, no profiles)" in tables


@pytest.mark.slow
@pytest.mark.parametrize("game", plugin_params(PLUGINS))
def test_cpu_gigpo_training_runs(tmp_path: Path, game: str) -> None:
    plugin, out = PLUGINS[game], tmp_path / "train"
    result = collabrl(
        "train", plugin.recipe(plugin.gigpo), f"output_dir={out}",
        "train.iterations=1", "train.checkpoint_every=1", "train.wandb=disabled",
        "rollout.groups=1", "rollout.episodes_per_group=2", *plugin.short_episodes,
        "policy.sampling.max_new_tokens=48", "algo.mini_batch=8", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (row,) = [json.loads(line) for line in (out / "metrics.jsonl").open()]
    assert row["iteration"] == 0 and row["requests/policy"] > 0


@pytest.mark.skipif(not installed("relay"), reason="pip install ./examples/relay_game")
def test_lint_for_train_refuses_a_validation_partner_the_game_cannot_field() -> None:
    """The relay game ships no profiles: validating against the eval section's default persona
    partner would fail minutes into the run, so lint refuses it, naming eval.partner.kind (by
    default validation plays the run's own expert partner, which the game fields)."""
    recipe = GIGPO
    own = ["train.validation.every=1"]
    assert CliRunner().invoke(cli, ["lint", "--for", "train", recipe, *own]).exit_code == 0
    refused = CliRunner().invoke(
        cli, ["lint", "--for", "train", recipe, *own, "train.validation.against=eval"]
    )
    assert refused.exit_code != 0  # main() prints the error as one line; here it is raised
    assert (
        "train.validation needs eval.partner.kind=persona: the relay game has no test profiles"
        in str(refused.exception)
    )
    fixed = [*own, "train.validation.against=eval", "eval.partner.kind=expert"]
    assert CliRunner().invoke(cli, ["lint", "--for", "train", recipe, *fixed]).exit_code == 0

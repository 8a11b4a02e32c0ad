"""Recipes: loading, overrides, and one-line errors for every kind of bad input."""

import subprocess
import sys

import pytest

from collabrl.config import load_recipe, shipped_recipes
from collabrl.errors import RecipeError


def test_shipped_recipes_validate() -> None:
    names = shipped_recipes()
    assert "household_experts" in names
    for name in names:
        assert load_recipe(name).name == name


def test_overrides_are_typed_and_index_lists() -> None:
    r = load_recipe("household_experts", ["seed=7", "game.task=26_prepare_food", "episodes=3"])
    assert (r.seed, r.game.task, r.episodes) == (7, "26_prepare_food", 3)
    r = load_recipe("household_experts", ["game={name: kitchen, layout: forced_coordination}"])
    assert r.game.name == "kitchen" and r.game.layout == "forced_coordination"
    assert r.output_dir == "runs/household_experts"  # ${name} interpolation resolved


@pytest.mark.parametrize(
    "overrides,expected",
    [
        (["game.max_tick=3"], "game.max_tick: unknown key; allowed: name, task, seats"),
        (["game.max_ticks=-1"], "game.max_ticks: Input should be greater than 0"),
        (["seed=abc"], "seed: Input should be a valid integer"),
        (["game.name=chess"], "'household', 'kitchen'"),
        (["players.0.kind=wizard"], "players.0.kind: Input should be 'expert'"),
        (["game.seats=[Alice]"], "players has 2 entries but game.seats has 1"),
        (["nonsense"], "must look like key=value"),
        (["players.9.kind=expert"], "cannot apply override"),
        (["game={name: kitchen, layout: tiny_room}"], "game.layout: Input should be"),
        (["game.task=99_cook_dinner"], "game.task: unknown household task '99_cook_dinner'"),
        (["algo.lr=.inf"], "algo.lr: Input should be a finite number"),
        (["reward.judge_weight=.nan"], "reward.judge_weight: Input should be a finite number"),
        (["policy.sampling.temperature=.inf"], "temperature: Input should be a finite number"),
        (["sft.lr=.nan"], "sft.lr: Input should be a finite number"),
        (["rollout.groups=true"], "rollout.groups: Input should be a valid integer"),
        (["seed=1.5"], "seed: Input should be a valid integer"),
    ],
)
def test_bad_overrides_give_one_line_errors(overrides: list[str], expected: str) -> None:
    with pytest.raises(RecipeError) as err:
        load_recipe("household_experts", overrides)
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_bad_files(tmp_path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("game:\n  task: [unclosed\n")
    with pytest.raises(RecipeError, match="not valid YAML at line"):
        load_recipe(str(broken))
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just a string\n")
    with pytest.raises(RecipeError, match="must be a mapping"):
        load_recipe(str(scalar))
    with pytest.raises(RecipeError, match="neither a file nor a shipped recipe"):
        load_recipe("no_such_recipe")
    bad_interp = tmp_path / "interp.yaml"
    bad_interp.write_text("name: ${missing_key}\n")
    with pytest.raises(RecipeError):
        load_recipe(str(bad_interp))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_lint_prints_resolved_recipe() -> None:
    out = run_cli("lint", "household_experts", "seed=5")
    assert out.returncode == 0, out.stderr
    assert "seed: 5" in out.stdout and "output_dir: runs/household_experts" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("lint", "household_experts", "game.max_tick=3"),
        ("lint", "no_such_recipe"),
        ("lint",),
        ("train", "recipe=household_experts", "algo.lr=-1"),
    ],
)
def test_cli_errors_are_one_line_without_traceback(args: tuple[str, ...]) -> None:
    out = run_cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_train_script_fails_cleanly(tmp_path) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, str(root / "train.py"), "recipe=household_experts", "algo.lr=-1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "algo.lr: Input should be greater than 0" in out.stderr


def test_base_recipes_merge_and_switch_games(tmp_path) -> None:
    cook = load_recipe("cook_gigpo")
    assert cook.game.name == "kitchen" and cook.algo.lr == load_recipe("cwah_gigpo").algo.lr
    ablation = load_recipe("cwah_gigpo_no_affective")
    assert ablation.reward.judge.kind == "none" and ablation.reward.communication == 0
    loop = tmp_path / "loop.yaml"
    loop.write_text(f"base: {loop}\n")
    with pytest.raises(RecipeError, match="cycle"):
        load_recipe(str(loop))
    grammar = tmp_path / "grammar.yaml"
    grammar.write_text("name: ${oc.env:X,~/a}\n")
    with pytest.raises(RecipeError, match="grammar.yaml"):
        load_recipe(str(grammar))

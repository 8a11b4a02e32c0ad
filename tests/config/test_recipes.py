"""Recipes: loading, overrides, and one-line errors for every kind of bad input."""

import subprocess
import sys

import pytest
import yaml

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
        (
            ["game.max_tick=3"],
            "game.max_tick: unknown key; allowed: name, unusable_reply, task, seats",
        ),
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


@pytest.mark.parametrize(
    "override,expected",
    [
        (
            "players.first.kind=expert",
            "players is a list of 2 item(s), not a section: address its items by number, "
            "e.g. players.0.kind=...",
        ),
        ("players.5.kind=expert", "players has 2 item(s), numbered from 0"),
    ],
)
def test_an_override_naming_a_list_item_by_name_says_how_to_number_it(
    override: str, expected: str
) -> None:
    with pytest.raises(RecipeError) as err:
        load_recipe("household_experts", [override])
    assert str(err.value) == f"cannot apply override {override!r}: {expected}"


def test_a_list_of_named_sections_shows_which_number_is_which() -> None:
    # the hostile-input replay's case: `games` became a list of game sections
    from collabrl.pipeline import PipelineError, load_config

    for override, example in [
        ("games.kitchen_layouts=[]", "games.1.kitchen_layouts=..."),  # a key of the kitchen's
        ("games.kitchen.horizon=100", "games.1.horizon=..."),  # the item by its name
    ]:
        with pytest.raises(PipelineError) as err:
            load_config(overrides=[override])
        assert str(err.value) == (
            f"cannot apply override {override!r}: games is a list of 2 item(s), not a section: "
            f"address its items by number (games.0 is household, games.1 is kitchen), "
            f"e.g. {example}"
        )
    assert load_config(overrides=["games.1.horizon=100"]).games[1].horizon == 100


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


@pytest.mark.slow
def test_cli_lint_prints_resolved_recipe() -> None:
    out = run_cli("lint", "household_experts", "seed=5")
    assert out.returncode == 0, out.stderr
    assert "seed: 5" in out.stdout and "output_dir: runs/household_experts" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("lint", "household_experts", "game.max_tick=3"),
        pytest.param(("lint", "no_such_recipe"), marks=pytest.mark.slow),
        pytest.param(("lint",), marks=pytest.mark.slow),
        pytest.param(("train", "recipe=household_experts", "algo.lr=-1"), marks=pytest.mark.slow),
    ],
)
def test_cli_errors_are_one_line_without_traceback(args: tuple[str, ...]) -> None:
    out = run_cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_train_script_fails_cleanly(tmp_path) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
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


KITCHEN_3 = ["game={name: kitchen, seats: [a, b, c]}", "players=[{}, {}, {}]"]


@pytest.mark.parametrize(
    "overrides,expected",
    [
        # sizes: documented upper bounds (collabrl/config.py MAX_*)
        (
            ["rollout.groups=99999999999999999999999"],
            "rollout.groups: Input should be less than or equal to 4096",
        ),
        (
            ["rollout.episodes_per_group=4097"],
            "rollout.episodes_per_group: Input should be less than or equal to 4096",
        ),
        (
            ["game.max_decisions=100001"],
            "game.max_decisions: Input should be less than or equal to 100000",
        ),
        (
            ["game={name: kitchen}", "game.horizon=100001"],
            "game.horizon: Input should be less than or equal to 100000",
        ),
        (["game.max_ticks=100001"], "game.max_ticks: Input should be less than or equal to 100000"),
        (
            ["game.max_decisions=100001"],
            "game.max_decisions: Input should be less than or equal to 100000",
        ),
        (
            ["game={name: kitchen, horizon: 100001}"],
            "game.horizon: Input should be less than or equal to 100000",
        ),
        (
            ["train.iterations=10000001"],
            "train.iterations: Input should be less than or equal to 10000000",
        ),
        (
            ["algo.mini_batch=1048577"],
            "algo.mini_batch: Input should be less than or equal to 1048576",
        ),
        (
            ["policy.max_prompt_tokens=1048577"],
            "policy.max_prompt_tokens: Input should be less than or equal to 1048576",
        ),
        (
            ["policy.sampling.max_new_tokens=131073"],
            "policy.sampling.max_new_tokens: Input should be less than or equal to 131072",
        ),
        (
            ["reward.judge.sampling.max_new_tokens=1000000000"],
            "reward.judge.sampling.max_new_tokens: Input should be less than or equal to 131072",
        ),
        (["episodes=1000001"], "episodes: Input should be less than or equal to 1000000"),
        (["seed=-1"], "seed: Input should be greater than or equal to 0 (got -1)"),
        (["seed=4294967296"], "seed: Input should be less than or equal to 4294967295"),
        # cross-references
        (["partner.profiles=[nobody]"], "partner.profiles: unknown profile id 'nobody'"),
        (
            ["partner.profiles=[cook-cramped_room-train-01]"],
            "partner.profiles: 'cook-cramped_room-train-01' is a kitchen profile",
        ),
        (["rollout.tasks=[3_read_book, nope]"], "rollout.tasks: unknown household task 'nope'"),
        (
            ["rollout.tasks=[3_read_book]", "partner.profiles=[cwah-1_read_book-train-01]"],
            "'cwah-1_read_book-train-01' is a household profile for task '1_read_book', not for a training task",
        ),
        (["rollout.tasks=[]"], "rollout.tasks: empty list"),
        (
            ["rollout.tasks=[0_read_book]"],
            "partner.split=train: no household profiles for the training tasks (0_read_book)",
        ),
        (
            ["game={name: kitchen}", "rollout.tasks=[tiny_room]"],
            "rollout.tasks: unknown kitchen layout 'tiny_room'",
        ),
        (
            KITCHEN_3,
            "game.seats: layout 'cramped_room' has 2 chef starts, so it needs 2 seats, got 3",
        ),
        (["game={name: kitchen, seats: [a]}", "players=[{}]"], "needs 2 seats, got 1"),
        (
            ["game.seats=[Alice, Alice]"],
            "game.seats: seat names must be distinct; repeated: ['Alice']",
        ),
        (["game.seats=[Alice, '']"], "game.seats.1: String should have at least 1 character"),
        (
            ["partner.kind=none"],
            "partner.kind=none needs a game with a single seat (game.seats has 2)",
        ),
        (["reward.judge.kind=llm"], "reward.judge: an llm judge needs engine.model"),
        (["partner.kind=llm"], "partner: an llm partner needs engine.model"),
        (
            ["partner.kind=llm", "partner.engine={backend: openai}"],
            "partner: an llm partner needs engine.model",
        ),
        (
            ["policy.lora={target_modules: []}"],
            "policy.lora.target_modules: name at least one module",
        ),
        (
            ["policy.lora={target_modules: ''}"],
            "policy.lora.target_modules: name at least one module",
        ),
        (
            ["policy.lora={target_modules: [q_proj, ' ']}"],
            "policy.lora.target_modules: name at least one module",
        ),
        (
            ["policy.engine_options.bogus=1"],
            "policy.engine_options: unknown option(s) bogus for engine backend 'transformers'; valid: batch_size, device",
        ),
        (
            ["policy.backend=vllm", "policy.engine_options.bogus=1"],
            "unknown option(s) bogus for engine backend 'vllm'; valid: dtype",
        ),
        (
            ["reward.judge.engine={backend: openai, model: m, options: {nope: 1}}"],
            "reward.judge.engine.options: unknown option(s) nope for engine backend 'openai'",
        ),
    ],
)
def test_sizes_and_cross_references_fail_at_lint(overrides: list[str], expected: str) -> None:
    with pytest.raises(RecipeError) as err:
        load_recipe("household_experts", overrides)
    message = str(err.value)
    assert message.startswith("recipes/household_experts.yaml: ") and expected in message
    assert "\n" not in message


def test_valid_sizes_and_references_pass() -> None:
    r = load_recipe(
        "household_experts",
        [
            "seed=4294967295",
            "rollout.groups=4096",
            "rollout.tasks=[1_read_book, 11_put_dishwasher]",
            "partner.profiles=[cwah-1_read_book-train-01]",
            "policy.engine_options={batch_size: 8, device: cpu}",
            "policy.lora={target_modules: [q_proj, v_proj]}",
            "reward.judge={kind: llm, engine: {backend: openai, model: m, options: {concurrency: 4}}}",
        ],
    )
    assert r.seed == 2**32 - 1 and r.rollout.groups == 4096
    vllm = load_recipe("cwah_gigpo")  # vLLM options checked without importing vllm
    assert vllm.policy.engine_options["gpu_memory_utilization"] == 0.35
    solo = load_recipe(
        "household_experts", ["game.seats=[Solo]", "players=[{}]", "partner.kind=none"]
    )
    assert solo.game.seats == ["Solo"]


def test_partner_profiles_fit_the_training_tasks() -> None:
    from collabrl.training.groups import partner_profiles, task_names

    recipe = load_recipe("cwah_gigpo_cpu")
    profiles = partner_profiles(recipe)
    assert profiles and {p.task for p in profiles} <= task_names(recipe)
    assert {(p.game, p.split) for p in profiles} == {("household", "train")}


def test_every_settings_key_has_a_doc_line() -> None:
    """Recipes, game sections, the profile pipeline's settings and study files alike."""
    from collabrl.config import Recipe
    from collabrl.config.explain import undocumented
    from collabrl.envs.registry import registered_games
    from collabrl.pipeline.config import PipelineConfig
    from collabrl.study.spec.schema import Study

    assert undocumented(Recipe) == []
    assert undocumented(PipelineConfig) == []
    assert undocumented(Study) == []
    assert {name: undocumented(s) for name, s in registered_games().items()} == {
        name: [] for name in registered_games()
    }


@pytest.mark.parametrize("name", ["cwah_sft_cpu", "cook_gigpo"])
def test_lint_explain_prints_the_resolved_recipe_with_each_key_doc(name: str) -> None:
    from click.testing import CliRunner

    from collabrl.cli import cli

    result = CliRunner().invoke(cli, ["lint", name, "--explain", "algo.lr=3e-5"])
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.output) == load_recipe(name, ["algo.lr=3e-5"]).model_dump(
        mode="json"
    )
    assert "  lr: 3.0e-05  # Learning rate" in result.output
    assert "\n  - kind: expert" in result.output or name == "cook_gigpo"


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_lint_for_a_command_refuses_what_that_command_would() -> None:
    def lint(*args: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "collabrl", "lint", *args]
        return subprocess.run(cmd, capture_output=True, text=True)

    training_with_players = lint("cwah_sft_cpu", "--for", "train")
    assert training_with_players.returncode == 2
    assert training_with_players.stderr.startswith("error: players: training fills the seats")
    play_without_players = lint("cwah_gigpo_cpu", "--for", "play")
    assert play_without_players.returncode == 2 and "collabrl play seats a player per seat" in (
        play_without_players.stderr
    )
    assert lint("cwah_gigpo_cpu", "--for", "train").returncode == 0
    assert lint("household_experts", "--for", "play").returncode == 0


@pytest.mark.parametrize(
    ("override", "package", "extra"),
    [
        ("train.trackers=[jsonl,tensorboard]", "tensorboard", "tensorboard"),
        ("policy.backend=vllm", "vllm", "vllm"),
    ],
)
def test_training_refuses_a_missing_extra_before_any_model_loads(
    monkeypatch, override: str, package: str, extra: str
) -> None:
    """A run on a machine without the tracker's or backend's package stops at the recipe check
    (which ``lint --for train`` and both trainers run first), naming the extra to install."""
    from collabrl.engines import MissingExtraError

    recipe = load_recipe("cwah_gigpo_cpu", [override])
    monkeypatch.setitem(sys.modules, package, None)  # as if not installed
    with pytest.raises(
        MissingExtraError, match=rf"^{override.split('=')[0]}.*pip install 'collabrl\[{extra}\]'$"
    ):
        recipe.check_trainable()
    with pytest.raises(MissingExtraError):
        recipe.check_extras()


def test_the_profiles_command_words_a_list_indexed_by_name(tmp_path, capsys) -> None:
    # the replay's exact command line: one line on stderr, exit 2, no traceback
    from collabrl.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["profiles", "generate", str(tmp_path / "RUN"), "games.kitchen_layouts=[]"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "games is a list of 2 item(s), not a section" in err
    assert "e.g. games.1.kitchen_layouts=..." in err
    assert "invalid literal" not in err and "Traceback" not in err

"""Validation during training: the held-out subset comes from the recipe's eval section, the best
policy is chosen by the recipe's metric in the game's direction, and a run validates, logs and
keeps its best policy end to end; TensorBoard event files are written."""

from __future__ import annotations

import json

import pytest
import torch
from accelerate import Accelerator

from collabrl.config import load_recipe
from collabrl.envs.registry import get_game
from collabrl.models.tiny import make_tiny_model
from collabrl.profiles import PLAYER_TYPES
from collabrl.training.groups import TRAINING_SET
from collabrl.training.logging import TENSORBOARD_DIR, RunLogger
from collabrl.training.validation import (
    BEST_DIR,
    Validator,
    best_value,
    spread,
    validation_spec,
)


def test_spec_narrows_the_eval_section(tmp_path):
    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            "train.validation.tasks=3",
            "train.validation.profiles_per_type=2",
            "train.validation.seats=[2]",
            "eval.judge.kind=heuristic",
            "eval.partner.kind=expert",
        ],
    )
    spec = validation_spec(recipe, "models/tiny", 7, tmp_path)
    assert spec.games == ["household"] and spec.split == "train"  # held-out training data
    assert spec.tasks == ["1_read_book", "17_put_dishwasher", "34_put_fridge"]
    assert spec.max_profiles is None and spec.seats == [2]
    assert spec.profiles and all(p.split("-")[1] in spec.tasks for p in spec.profiles)
    test = validation_spec(
        recipe.model_copy(
            update={"train": recipe.train.model_copy(update={"validation": on_test_split(recipe)})}
        ),
        "models/tiny",
        7,
        tmp_path,
    )
    assert test.split == "test" and test.profiles is None
    assert test.tasks == ["0_read_book", "16_put_dishwasher", "30_put_fridge"]
    assert test.max_profiles == 2 * len(PLAYER_TYPES)
    # the run's own partner and judge by default (persona, heuristic); against=eval: the eval
    # section's
    assert spec.partner.kind == "persona" and spec.judge.kind == "heuristic"
    assert spec.partner.vary_wording == recipe.partner.vary_wording
    assert spec.judge.sampling == recipe.evaluation().judge.sampling  # the evaluation judges'
    against_eval = recipe.model_copy(
        update={
            "train": recipe.train.model_copy(
                update={
                    "validation": recipe.train.validation.model_copy(update={"against": "eval"})
                }
            )
        }
    )
    assert validation_spec(against_eval, "models/tiny", 7, tmp_path).partner.kind == "expert"
    assert spec.policy.kind == "llm" and spec.policy.engine.model == "models/tiny"
    assert spec.policy.sampling == recipe.policy.sampling
    assert spec.output_dir == str(tmp_path / "validation" / "iter_000007")
    assert spread(("a", "b", "c", "d"), 2) == ["a", "c"] and spread(("a",), None) == ["a"]


def on_test_split(recipe):
    """``recipe``'s validation settings on the test split (the released code's choice)."""
    return recipe.train.validation.model_copy(update={"split": "test"})


@pytest.mark.parametrize(
    ("recipe", "metric", "scores", "improved"),
    [
        ("cwah_gigpo_cpu", "efficiency", [120.0, 95.0, 130.0, 96.0], [1, 1, 0, 0]),  # steps: lower
        ("cook_gigpo_cpu", "efficiency", [20.0, 60.0, 40.0, 60.0], [1, 1, 0, 0]),  # score: higher
        ("cwah_gigpo_cpu", "affective", [2.1, 2.0, 2.6, 2.5], [1, 0, 1, 0]),  # higher
    ],
)
def test_the_best_policy_is_chosen_by_the_metric_in_its_direction(
    tmp_path, monkeypatch, recipe, metric, scores, improved
):
    recipe = load_recipe(recipe, [f"train.validation.metric={metric}", "train.validation.every=1"])
    model_dir = make_tiny_model(tmp_path / "tiny", seed=0)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    run = tmp_path / "run"
    validator = Validator(recipe, run, str(model_dir), engine=None)
    played = iter(scores)
    monkeypatch.setattr(validator, "evaluate", lambda iteration: {metric: next(played)})
    accelerator = Accelerator(cpu=True)
    logged = []
    for iteration in range(len(scores)):
        with torch.no_grad():  # a marker of which iteration's weights these are
            model.lm_head.weight[0, 0] = float(iteration)
        logged.append(validator.validate(accelerator, model, tokenizer, iteration))
    best = max(i for i, better in enumerate(improved) if better)
    record = json.loads((run / BEST_DIR / "validation.json").read_text())
    assert record["iteration"] == best and record["value"] == scores[best]
    assert [m["val/best"] for m in logged] == improved
    saved = AutoModelForCausalLM.from_pretrained(run / BEST_DIR / "policy")
    assert saved.lm_head.weight[0, 0].item() == best
    assert best_value(run, metric) == scores[best]
    assert best_value(run, "empathy") is None  # another metric starts afresh
    resumed = Validator(recipe, run, str(model_dir), engine=None)
    assert resumed.best == scores[best]


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_a_run_validates_logs_and_keeps_its_best_policy(tmp_path):
    from collabrl.training.loop import train

    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            f"output_dir={tmp_path}",
            "partner.kind=expert",
            "reward.judge.kind=none",
            "game.max_decisions=2",
            "rollout.groups=1",
            "rollout.episodes_per_group=2",
            "policy.sampling.max_new_tokens=6",
            "train.iterations=1",
            "train.checkpoint_every=0",
            "train.wandb=disabled",
            "train.trackers=[jsonl, tensorboard]",
            "train.validation.every=1",
            "train.validation.tasks=1",
            "eval.game_options={household: {max_ticks: 6}}",
            "algo.mini_batch=8",
        ],
    )
    train(recipe)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0]
    assert {"val/efficiency", "val/affective", "val/best", "time/validation"} <= rows[0].keys()
    assert rows[0]["val/efficiency"] == 6.0 and rows[0]["val/best"] == 1.0  # failures: max_ticks
    assert (tmp_path / "validation" / "iter_000000" / "tables.md").is_file()
    record = json.loads((tmp_path / BEST_DIR / "validation.json").read_text())
    assert record["metric"] == "efficiency" and record["iteration"] == 0
    assert (tmp_path / BEST_DIR / "policy" / "config.json").is_file()
    assert list((tmp_path / TENSORBOARD_DIR).glob("events.out.tfevents.*"))
    record = json.loads((tmp_path / TRAINING_SET).read_text())  # what it trained on, held out
    assert record["tasks"] == sorted(get_game("household").tasks("train"))
    assert record["partner_profiles"] == []  # the expert partner plays without profiles
    assert record["validation"]["tasks"] == ["1_read_book"]
    assert record["validation"]["partner"] == "expert"  # the run's own


def test_tensorboard_event_files_hold_the_metrics(tmp_path):
    pytest.importorskip("tensorboard", reason="pip install 'collabrl[tensorboard]'")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logger = RunLogger(
        tmp_path,
        {"name": "t", "algo": {"lr": 1e-6}},
        mode="disabled",
        project="p",
        trackers=["jsonl", "tensorboard"],
    )
    for iteration in range(3):
        logger.log(iteration, {"loss": 0.5 - iteration / 10, "time/iteration": 2.0})
    logger.close()
    events = EventAccumulator(str(tmp_path / TENSORBOARD_DIR)).Reload()
    assert [round(e.value, 6) for e in events.Scalars("loss")] == [0.5, 0.4, 0.3]
    assert [e.step for e in events.Scalars("time/iteration")] == [0, 1, 2]
    assert "recipe/text_summary" in events.Tags()["tensors"]
    assert len((tmp_path / "metrics.jsonl").read_text().splitlines()) == 3


def test_trackers_are_chosen_in_the_recipe(tmp_path):
    logger = RunLogger(tmp_path, {}, mode="disabled", project="p", trackers=["tensorboard"])
    logger.log(0, {"loss": 1.0})
    logger.close()
    assert not (tmp_path / "metrics.jsonl").exists()
    assert list((tmp_path / TENSORBOARD_DIR).glob("events.out.tfevents.*"))
    assert load_recipe("cwah_gigpo", []).train.trackers == ["jsonl", "wandb", "tensorboard"]
    assert load_recipe("cwah_gigpo_cpu", []).train.trackers == ["jsonl", "wandb"]

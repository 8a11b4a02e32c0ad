"""The trackers a recipe names: every tracker accelerate supports is a valid ``train.trackers``
entry, a missing package is one error naming its extra, and what the TensorBoard tracker logged
reads back (through tensorboard's own event reader) with no secret in it."""

from __future__ import annotations

import sys

import pytest
from accelerate.tracking import LOGGER_TYPE_TO_CLASS

from collabrl.config import load_recipe
from collabrl.config.training import TRACKER_PACKAGES
from collabrl.training.logging import RunLogger


def test_every_accelerate_tracker_is_selectable_and_names_its_extra(monkeypatch) -> None:
    from collabrl.engines import MissingExtraError

    assert set(LOGGER_TYPE_TO_CLASS) == {*TRACKER_PACKAGES, "wandb"}
    for tracker, package in TRACKER_PACKAGES.items():
        recipe = load_recipe("cwah_gigpo_cpu", [f"train.trackers=[jsonl,{tracker}]"])
        monkeypatch.setitem(sys.modules, package, None)
        with pytest.raises(MissingExtraError, match=rf"pip install 'collabrl\[{tracker}\]'$"):
            recipe.check_extras()


def test_old_recipes_keep_their_wandb_keys() -> None:
    recipe = load_recipe("cwah_gigpo_cpu", ["train.wandb=offline", "train.wandb_project=p"])
    assert (recipe.train.wandb, recipe.train.trackers) == ("offline", ["jsonl", "wandb"])


def test_tensorboard_logs_read_back_without_secrets(tmp_path, monkeypatch) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_42")
    monkeypatch.setenv("WANDB_API_KEY", "wandb_secret_value_42")
    recipe = load_recipe("cwah_gigpo_cpu", ["train.trackers=[jsonl,tensorboard]"])
    logger = RunLogger(
        tmp_path, recipe.model_dump(mode="json"), "disabled", "p", trackers=recipe.train.trackers
    )
    logger.log(1, {"reward/efficiency": 0.25, "loss": 1.5})
    logger.log(2, {"reward/efficiency": 0.5, "loss": 1.25})
    logger.close()
    events = EventAccumulator(str(tmp_path / "tensorboard"), size_guidance={"tensors": 0})
    events.Reload()
    scalars = {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }
    assert scalars == {"reward/efficiency": [(1, 0.25), (2, 0.5)], "loss": [(1, 1.5), (2, 1.25)]}
    raw = b"".join(p.read_bytes() for p in (tmp_path / "tensorboard").rglob("*") if p.is_file())
    assert b"cwah_gigpo_cpu" in raw or b"household" in raw  # the recipe text is there
    assert b"secret_value_42" not in raw

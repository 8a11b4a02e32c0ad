"""The trackers a recipe names: every tracker accelerate supports is a valid ``train.trackers``
entry, a missing package is one error naming its extra, and what the TensorBoard, MLflow and Aim
trackers logged reads back (through each one's own reader) with no secret in it."""

from __future__ import annotations

import sys

import pytest
from accelerate.tracking import LOGGER_TYPE_TO_CLASS

from collabrl.config import load_recipe
from collabrl.config.training import TRACKER_PACKAGES
from collabrl.training.logging import MLFLOW_DB, RunLogger


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


def _log_two_iterations(run_dir, tracker: str, monkeypatch) -> None:
    """Two iterations of metrics through ``tracker`` (secrets in the environment, never logged)."""
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_42")
    recipe = load_recipe("cwah_gigpo_cpu", [f"train.trackers=[jsonl,{tracker}]"])
    logger = RunLogger(
        run_dir, recipe.model_dump(mode="json"), "disabled", "p", trackers=recipe.train.trackers
    )
    logger.log(1, {"reward/efficiency": 0.25, "loss": 1.5})
    logger.log(2, {"reward/efficiency": 0.5, "loss": 1.25})
    logger.close()


def _no_secret_under(folder) -> None:
    raw = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert b"secret_value_42" not in raw


@pytest.mark.slow  # importing the tracker and reading its store back: 2 s
def test_mlflow_logs_read_back_from_its_local_store(tmp_path, monkeypatch) -> None:
    mlflow = pytest.importorskip("mlflow", reason="pip install 'collabrl[mlflow]'")

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)  # nothing may land in the working directory
    run_dir = tmp_path / "run"
    _log_two_iterations(run_dir, "mlflow", monkeypatch)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{run_dir / MLFLOW_DB}")
    (experiment,) = [e for e in client.search_experiments() if e.name == "p"]
    (run,) = client.search_runs([experiment.experiment_id])
    history = {
        key: [(m.step, m.value) for m in client.get_metric_history(run.info.run_id, key)]
        for key in ("reward/efficiency", "loss")
    }
    assert history == {"reward/efficiency": [(1, 0.25), (2, 0.5)], "loss": [(1, 1.5), (2, 1.25)]}
    assert run.data.params["name"] == "cwah_gigpo_cpu"  # the recipe is the run's configuration
    _no_secret_under(run_dir)


@pytest.mark.slow  # importing the tracker and reading its store back: 2 s
def test_aim_logs_read_back_from_its_repository(tmp_path, monkeypatch) -> None:
    aim = pytest.importorskip("aim", reason="pip install 'collabrl[aim]'")

    monkeypatch.chdir(tmp_path)  # nothing may land in the working directory
    run_dir = tmp_path / "run"
    _log_two_iterations(run_dir, "aim", monkeypatch)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    (run,) = aim.Repo(str(run_dir)).iter_runs()  # indexed: aim up is not needed to see it
    history = {
        m.name: [(step, value) for step, (value, *_) in m.data.items()]
        for m in run.metrics()
        if not m.name.startswith("__system__")
    }
    assert history == {"reward/efficiency": [(1, 0.25), (2, 0.5)], "loss": [(1, 1.5), (2, 1.25)]}
    assert run.name == "cwah_gigpo_cpu" and run["hparams"]["name"] == "cwah_gigpo_cpu"
    _no_secret_under(run_dir)

"""Run logging through accelerate's tracker API, to the trackers a recipe names
(``train.trackers``):

- ``jsonl``: one JSON line per iteration in ``metrics.jsonl`` (what resume truncates and the
  report reads);
- ``wandb``: Weights & Biases, offline automatically when no API key is set (skipped with a note
  when the package is missing);
- ``tensorboard``: event files in ``<run>/tensorboard``, a local dashboard that needs no account
  (``tensorboard --logdir runs/``);
- any other tracker accelerate supports (``mlflow``, ``aim``, ``clearml``, ``comet_ml``,
  ``dvclive``, ``swanlab``, ``trackio``), each with its own extra (``collabrl[mlflow]``, ...);
  MLflow writes to ``<run>/mlflow.db`` unless ``MLFLOW_TRACKING_URI`` names a server; Aim to the
  repository ``<run>/.aim`` (``aim up --repo <run>``), its run indexed when it finishes.

Each is an ``accelerate.tracking.GeneralTracker`` (accelerate's own, ours for the JSONL). The resolved recipe is logged once (W&B config, TensorBoard text); secrets are
never part of it, since API keys live only in environment variables.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from accelerate.tracking import (
    LOGGER_TYPE_TO_CLASS,
    AimTracker,
    GeneralTracker,
    TensorBoardTracker,
    WandBTracker,
)

from collabrl.records import jsonl_line, read_jsonl, write_jsonl

METRICS_FILE = "metrics.jsonl"
TENSORBOARD_DIR = "tensorboard"
MLFLOW_DB = "mlflow.db"
DEFAULT_TRACKERS = ("jsonl", "wandb")


class JsonlTracker(GeneralTracker):
    """Appends ``{"iteration": step, **values}`` to ``metrics.jsonl``, one whole line per call."""

    name = "jsonl"
    requires_logging_directory = True

    def __init__(self, run_dir: Path) -> None:
        super().__init__()
        self.path = run_dir / METRICS_FILE

    @property
    def tracker(self) -> Path:
        return self.path

    def log(self, values: dict[str, Any], step: int | None = None, **kwargs: Any) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(jsonl_line({"iteration": step, **values}) + "\n")

    def truncate_after(self, iteration: int) -> None:
        """Drop lines after ``iteration``, and a torn last line that a kill while appending
        leaves."""
        if self.path.is_file():
            rows = read_jsonl(self.path, torn_tail=True)
            write_jsonl(self.path, (r for r in rows if r["iteration"] <= iteration))


class RunLogger:
    """Sends each iteration's metrics to every tracker the recipe names (main process only)."""

    def __init__(
        self,
        run_dir: Path,
        recipe: dict[str, Any],
        mode: str,
        project: str,
        enabled: bool = True,
        trackers: Sequence[str] = DEFAULT_TRACKERS,
    ) -> None:
        self.trackers: list[GeneralTracker] = []
        if not enabled:
            return
        run_dir.mkdir(parents=True, exist_ok=True)
        for name in dict.fromkeys(trackers):
            tracker = _start(name, run_dir, recipe, mode, project)
            if tracker is not None:
                self.trackers.append(tracker)

    @classmethod
    def for_recipe(cls, recipe, run_dir: Path, enabled: bool) -> RunLogger:
        """The logger every trainer uses: the recipe's trackers, its W&B settings, the resolved
        recipe as configuration."""
        return cls(
            run_dir,
            recipe.model_dump(mode="json"),
            recipe.train.wandb,
            recipe.train.wandb_project,
            enabled=enabled,
            trackers=recipe.train.trackers,
        )

    def truncate_after(self, iteration: int) -> None:
        """On resume: drop JSONL lines of iterations the checkpoint does not cover (they are
        redone). W&B and TensorBoard plot the redone steps over the old ones."""
        for tracker in self.trackers:
            if isinstance(tracker, JsonlTracker):
                tracker.truncate_after(iteration)

    def log(self, iteration: int, metrics: dict[str, Any]) -> None:
        for tracker in self.trackers:
            tracker.log(metrics, step=iteration)

    def close(self) -> None:
        for tracker in self.trackers:
            tracker.finish()


class IndexedAimTracker(AimTracker):
    """accelerate's Aim tracker, whose run is added to its repository's index when it finishes.

    Why: Aim (3.29) writes a run into its own chunk and leaves indexing to a background manager
    that only ``aim up`` or ``aim server`` start; until then ``aim.Repo``'s queries
    (``iter_runs``, ``query_metrics``) find no runs. Indexing at the end, as Aim's own
    ``aim storage`` commands do after they write, makes the run readable offline at once."""

    def finish(self) -> None:
        from aim.sdk.index_manager import RepoIndexManager

        run_hash, repo = self.writer.hash, self.writer.repo
        super().finish()
        RepoIndexManager.get_index_manager(repo).index(run_hash)


TRACKER_CLASSES: dict[str, type[GeneralTracker]] = {
    **LOGGER_TYPE_TO_CLASS,
    "aim": IndexedAimTracker,
}
"""The tracker class of each name accelerate knows (Aim's indexed when it finishes)."""


def _start(
    name: str, run_dir: Path, recipe: dict[str, Any], mode: str, project: str
) -> GeneralTracker | None:
    """The started tracker called ``name`` (None: W&B disabled, or not installed)."""
    if name == "jsonl":
        return JsonlTracker(run_dir)
    if name == "tensorboard":
        return _tensorboard(run_dir, recipe)
    if name == "wandb":
        return _wandb(run_dir, recipe, mode, project)
    if name in TRACKER_CLASSES:
        return _other(name, run_dir, recipe, project)
    known = ", ".join(["jsonl", *TRACKER_CLASSES])
    raise ValueError(f"unknown tracker {name!r}; choose from {known}")


def _other(name: str, run_dir: Path, recipe: dict[str, Any], project: str) -> GeneralTracker:
    """Any other tracker accelerate supports, started with the recipe as its configuration; its
    server, project and keys come from its own environment variables (never the recipe), local
    files go under ``run_dir`` (the trainers checked the package: Recipe.check_extras)."""
    run_name = recipe.get("name") or project
    cls = TRACKER_CLASSES[name]
    if name == "mlflow":
        _mlflow_store(run_dir)
        tracker = cls(experiment_name=project, run_name=run_name)
    elif cls.requires_logging_directory:
        tracker = cls(run_name, logging_dir=run_dir)
    else:
        tracker = cls(run_name)
    tracker.start()
    tracker.store_init_configuration(recipe)
    return tracker


def _mlflow_store(run_dir: Path) -> None:
    """MLflow's store: ``$MLFLOW_TRACKING_URI`` when set (a server), else a local SQLite file,
    ``<run>/mlflow.db`` (offline; read it with ``mlflow ui --backend-store-uri sqlite:///...``).
    accelerate's tracker ignores its ``logging_dir``, so without this MLflow would write to the
    working directory; MLflow 3 refuses its old ``./mlruns`` file store unless
    ``MLFLOW_ALLOW_FILE_STORE`` is set."""
    if not os.environ.get("MLFLOW_TRACKING_URI"):
        import mlflow

        mlflow.set_tracking_uri(f"sqlite:///{(run_dir / MLFLOW_DB).resolve()}")


def _tensorboard(run_dir: Path, recipe: dict[str, Any]) -> GeneralTracker:
    """Event files under ``run_dir`` (the trainers checked the package: Recipe.check_extras)."""
    tracker = TensorBoardTracker(run_name=TENSORBOARD_DIR, logging_dir=run_dir)
    tracker.start()
    # the recipe as text (TensorBoard's hparams take flat scalars only, and start a second run)
    tracker.log({"recipe": f"```\n{yaml.safe_dump(recipe, sort_keys=False)}```"}, step=0)
    return tracker


def _wandb(run_dir: Path, recipe: dict[str, Any], mode: str, project: str) -> GeneralTracker | None:
    """A W&B run in ``run_dir`` (offline without an API key); None if disabled or wandb is not
    installed."""
    if mode == "disabled":
        return None
    try:
        import wandb
    except ImportError:
        print("wandb is not installed: metrics skip W&B (pip install 'collabrl[wandb]')")
        return None
    if mode == "auto":
        mode = "online" if os.environ.get("WANDB_API_KEY") else "offline"
    os.environ.setdefault("WANDB_SILENT", "true")
    tracker = WandBTracker(
        project,
        name=recipe.get("name"),
        dir=str(run_dir),
        mode=mode,
        config=recipe,
        settings=wandb.Settings(console="off"),
    )
    tracker.start()
    return tracker

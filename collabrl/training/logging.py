"""Run logging: every metric to a local JSONL file and to Weights & Biases.

W&B runs offline automatically when no API key is set (or the package is missing: then only the
JSONL is written). The resolved recipe is logged once; secrets are never part of it, since API keys
live only in environment variables.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from collabrl.records import jsonl_line, read_jsonl, write_jsonl

METRICS_FILE = "metrics.jsonl"


class RunLogger:
    """Appends one JSON line per iteration and mirrors it to W&B when available."""

    def __init__(
        self, run_dir: Path, recipe: dict[str, Any], mode: str, project: str, enabled: bool = True
    ) -> None:
        self.path = run_dir / METRICS_FILE
        self.enabled = enabled
        self.wandb = None
        if not enabled:
            return
        run_dir.mkdir(parents=True, exist_ok=True)
        if mode != "disabled":
            self.wandb = _start_wandb(run_dir, recipe, mode, project)

    @classmethod
    def for_recipe(cls, recipe, run_dir: Path, enabled: bool) -> RunLogger:
        """The logger every trainer uses: the resolved recipe as W&B config, its W&B settings."""
        return cls(
            run_dir,
            recipe.model_dump(mode="json"),
            recipe.train.wandb,
            recipe.train.wandb_project,
            enabled=enabled,
        )

    def truncate_after(self, iteration: int) -> None:
        """On resume: drop lines of iterations the checkpoint does not cover (they are redone),
        and a torn last line that a kill while appending leaves."""
        if not self.enabled or not self.path.is_file():
            return
        rows = read_jsonl(self.path, torn_tail=True)
        write_jsonl(self.path, (r for r in rows if r["iteration"] <= iteration))

    def log(self, iteration: int, metrics: dict[str, Any]) -> None:
        if not self.enabled:
            return
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(jsonl_line({"iteration": iteration, **metrics}) + "\n")
        if self.wandb is not None:
            self.wandb.log(metrics, step=iteration)

    def close(self) -> None:
        if self.wandb is not None:
            self.wandb.finish()


def _start_wandb(run_dir: Path, recipe: dict[str, Any], mode: str, project: str):
    """A W&B run in ``run_dir`` (offline without an API key); None if wandb is not installed."""
    try:
        import wandb
    except ImportError:
        print("wandb is not installed: metrics go to metrics.jsonl only (pip install wandb)")
        return None
    if mode == "auto":
        mode = "online" if os.environ.get("WANDB_API_KEY") else "offline"
    os.environ.setdefault("WANDB_SILENT", "true")
    return wandb.init(
        project=project,
        name=recipe.get("name"),
        dir=str(run_dir),
        mode=mode,
        config=recipe,
        settings=wandb.Settings(console="off"),
    )

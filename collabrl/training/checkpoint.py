"""Atomic checkpoints that let a killed run continue exactly where it stopped.

``accelerate``'s ``save_state`` writes model, optimizer, scheduler and RNG states; we add the
iteration and write everything into a temporary folder that is renamed into place only when
complete, so a SIGKILL mid-save never leaves a half checkpoint that resume would pick up.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from collabrl.training.policy import save_policy

STATE_FILE = "trainer_state.json"


def checkpoint_dir(run_dir: Path) -> Path:
    return run_dir / "checkpoints"


def save_checkpoint(
    accelerator, model, tokenizer, run_dir: Path, iteration: int, keep: int, state: dict[str, Any]
) -> Path:
    """Write ``iteration``'s checkpoint (training state + an HF policy folder) atomically."""
    final = checkpoint_dir(run_dir) / f"iter_{iteration:06d}"
    tmp = final.with_name(final.name + ".tmp")
    if accelerator.is_main_process and tmp.exists():
        shutil.rmtree(tmp)
    accelerator.wait_for_everyone()
    accelerator.save_state(str(tmp))
    save_policy(
        accelerator.unwrap_model(model), tokenizer, tmp / "policy", accelerator.is_main_process
    )
    if accelerator.is_main_process:
        (tmp / STATE_FILE).write_text(json.dumps({"iteration": iteration, **state}, indent=1))
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        _prune(run_dir, keep)
    accelerator.wait_for_everyone()
    return final


def _prune(run_dir: Path, keep: int) -> None:
    for old in complete_checkpoints(run_dir)[:-keep]:
        shutil.rmtree(old)


def complete_checkpoints(run_dir: Path) -> list[Path]:
    """Finished checkpoints, oldest first (half-written ``.tmp`` folders are ignored)."""
    folder = checkpoint_dir(run_dir)
    if not folder.is_dir():
        return []
    done = [p for p in folder.iterdir() if p.is_dir() and (p / STATE_FILE).is_file()]
    return sorted(done, key=lambda p: p.name)


def load_checkpoint(accelerator, path: Path) -> dict[str, Any]:
    """Restore training state from ``path``; returns the saved trainer state (iteration, ...)."""
    accelerator.load_state(str(path))
    return json.loads((path / STATE_FILE).read_text())

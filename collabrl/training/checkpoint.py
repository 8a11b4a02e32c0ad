"""Atomic, verified checkpoints that let a killed run continue exactly where it stopped.

``accelerate``'s ``save_state`` writes model, optimizer, scheduler and RNG states; we add the
iteration and write everything into a temporary folder that is renamed into place only when
complete, so a SIGKILL mid-save never leaves a half checkpoint that resume would pick up. The last
file written inside it, ``manifest.json``, records the size and SHA-256 of every other file: a
checkpoint damaged later (a full disk, a truncated copy) is detected on resume, reported, and the
previous intact one is used instead.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.records import file_sha256, mark_completed, write_text
from collabrl.training.policy import save_policy

STATE_FILE = "trainer_state.json"
MANIFEST_FILE = "manifest.json"

RESUME_FREE = (
    "name",
    "output_dir",
    "train.iterations",
    "train.checkpoint_every",
    "train.keep_checkpoints",
    "train.resume",
    "train.wandb",
    "train.wandb_project",
    "train.trackers",
    "train.validation",
    "train.max_failure_rate",
)
"""Recipe keys a resumed run may change (run longer, checkpoint, log or validate differently);
every other setting must equal the run's own (see :func:`resume_settings`)."""


def resume_settings(recipe) -> dict[str, Any]:
    """The recipe's settings less :data:`RESUME_FREE`: what a run folder's manifest hashes, so a
    resume with another model, algorithm or seed is refused instead of mixing two runs."""
    tree = recipe.model_dump(mode="json")
    for key in RESUME_FREE:
        section, _, name = key.rpartition(".")
        (tree[section] if section else tree).pop(name)
    return tree


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
    accelerator.wait_for_everyone()  # every rank's files are written before they are hashed
    if accelerator.is_main_process:
        (tmp / STATE_FILE).write_text(json.dumps({"iteration": iteration, **state}, indent=1))
        write_text(tmp / MANIFEST_FILE, json.dumps({"files": _file_records(tmp)}, indent=1))
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        _prune(run_dir, keep)
        mark_completed(run_dir, {"checkpoint": final.name, "iteration": iteration})
    accelerator.wait_for_everyone()
    return final


def _prune(run_dir: Path, keep: int) -> None:
    for old in complete_checkpoints(run_dir)[:-keep]:
        shutil.rmtree(old)


def complete_checkpoints(run_dir: Path) -> list[Path]:
    """Checkpoints moved into place, oldest first (a ``.tmp`` folder is a save that a kill
    interrupted; whether a checkpoint is still intact is :func:`checkpoint_damage`'s question)."""
    folder = checkpoint_dir(run_dir)
    if not folder.is_dir():
        return []
    done = [p for p in folder.glob("iter_*") if p.is_dir() and p.suffix != ".tmp"]
    return sorted(done, key=lambda p: p.name)


def checkpoint_damage(path: Path) -> str | None:
    """What is wrong with the checkpoint at ``path`` (its manifest missing, or a file missing or
    differing in size or SHA-256 from it), or None when it is intact."""
    files = _recorded_files(path)
    if files is None:
        return f"{MANIFEST_FILE} is missing or unreadable"
    for name, (size, sha256) in files.items():
        file = path / name
        if not file.is_file():
            return f"{name} is missing"
        if file.stat().st_size != size:
            return f"{name} has {file.stat().st_size} bytes, not {size}"
        if file_sha256(file) != sha256:
            return f"{name} does not match its SHA-256"
    return None


def resume_checkpoint(accelerator, run_dir: Path) -> int:
    """Restore the newest intact checkpoint of ``run_dir``; returns the iteration to continue
    from (0 when there is no checkpoint). Rank 0 verifies and tells the others which one."""
    from accelerate.utils import broadcast_object_list

    choice = [_newest_intact(run_dir) if accelerator.is_main_process else None]
    path, problem = broadcast_object_list(choice)[0]
    if problem:
        raise CollabrlError(problem)
    if path is None:
        return 0
    start = load_checkpoint(accelerator, Path(path))["iteration"] + 1
    accelerator.print(f"resumed from {path} at iteration {start}")
    return start


def load_checkpoint(accelerator, path: Path) -> dict[str, Any]:
    """Restore training state from ``path``; returns the saved trainer state (iteration, ...)."""
    accelerator.load_state(str(path))
    return json.loads((path / STATE_FILE).read_text())


def _newest_intact(run_dir: Path) -> tuple[str | None, str | None]:
    """(the newest intact checkpoint or None when there is none, the one-line error when every
    checkpoint is damaged); each damaged one newer than the one used is reported in one line."""
    done = complete_checkpoints(run_dir)
    for path in reversed(done):
        damage = checkpoint_damage(path)
        if damage is None:
            return str(path), None
        print(f"warning: checkpoint {path} is damaged ({damage}); trying the previous one")
    if done:
        return None, (
            f"no intact checkpoint in {checkpoint_dir(run_dir)} to resume from; "
            "pass --overwrite (without train.resume=true) to start afresh"
        )
    return None, None


def _recorded_files(path: Path) -> dict[str, tuple[int, str]] | None:
    """(size, SHA-256) by file, as the checkpoint's manifest records them; None when it is
    missing or damaged itself."""
    try:
        files = json.loads((path / MANIFEST_FILE).read_text())["files"]
        return {name: (int(e["size"]), str(e["sha256"])) for name, e in files.items()}
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None


def _file_records(folder: Path) -> dict[str, dict[str, Any]]:
    """Size and SHA-256 of every file under ``folder``, by path relative to it."""
    return {
        str(file.relative_to(folder)): {"size": file.stat().st_size, "sha256": file_sha256(file)}
        for file in sorted(folder.rglob("*"))
        if file.is_file()
    }

"""Validation during training: every N iterations the policy plays a held-out subset of the
recipe's evaluation, and the best policy so far is kept in ``<run>/best``.

Why through the evaluation protocol: validation numbers are then CollabBench numbers on fewer
episodes (the recipe's ``eval`` section: its partners, judge and game options, narrowed by
``train.validation`` to a few tasks, a few profiles per player type and the chosen seats), not a
second, subtly different loop. By default (``split: validation``) those are training tasks with
training profiles that the partners' draw leaves out, so the test tasks and profiles stay unseen
until the final evaluation; ``split: test`` validates on test data, as the released code does. The policy plays through the live rollout engine, so
it is the weights just pushed and nothing is loaded twice.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from collabrl.config import EngineSpec, EvalSpec, PlayerSpec, Recipe
from collabrl.config.recipe import spread as spread
from collabrl.config.recipe import validation_profiles, validation_roles, validation_tasks
from collabrl.envs.registry import get_game
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.report import OVERALL
from collabrl.factory import EngineCache
from collabrl.profiles import PLAYER_TYPES
from collabrl.records import write_text
from collabrl.rewards.judges import DIMENSIONS
from collabrl.training.policy import save_policy

BEST_DIR = "best"
"""``<run>/best``: ``policy/`` (an HF folder, as in a checkpoint) and ``validation.json``."""
VALIDATION_DIR = "validation"
"""``<run>/validation/iter_NNNNNN``: each validation's evaluation outputs (tables, trajectories)."""
REPORTED = ("efficiency", *DIMENSIONS, "affective")


def validation_spec(recipe: Recipe, model_path: str, iteration: int, run_dir: Path) -> EvalSpec:
    """The recipe's ``eval`` section narrowed by ``train.validation`` (its split's tasks and
    profiles), with the trained policy (at ``model_path``, through the rollout backend) in the
    evaluated seat."""
    settings = recipe.train.validation
    game = recipe.game.name
    base = recipe.evaluation()
    held_out = validation_profiles(recipe)
    per_task = settings.profiles_per_type * len(PLAYER_TYPES)
    policy = PlayerSpec(
        kind="llm",
        engine=EngineSpec(backend=recipe.policy.backend, model=model_path),
        sampling=recipe.policy.sampling,
        prompt=recipe.policy.prompt,
    )
    options = {game: base.game_options[game]} if game in base.game_options else {}
    partner, judge = validation_roles(recipe)
    return EvalSpec.model_validate(
        {
            **base.model_dump(),
            "games": [game],
            "split": "test" if held_out is None else "train",
            "tasks": validation_tasks(recipe),
            "partner": partner.model_dump(),
            "judge": judge.model_dump(),
            "profiles": held_out or None,  # None: the test split's, or profile-free
            "max_profiles": per_task if held_out is None else None,
            "seats": settings.seats,
            "policy": policy.model_dump(),
            "game_options": options,
            "workers": 1,  # the rollout engine serves one caller at a time
            "output_dir": str(run_dir / VALIDATION_DIR / f"iter_{iteration:06d}"),
        }
    )


class LiveEngines(EngineCache):
    """The evaluation's engine cache, answering the policy's spec with the live rollout engine;
    closing it closes only the engines it made (an LLM judge's or partner's)."""

    def __init__(self, spec: EngineSpec, engine: Any) -> None:
        super().__init__()
        self.live_key, self.live = spec.model_dump_json(), engine

    def get(self, spec: Any) -> Any:
        if spec is not None and spec.model_dump_json() == self.live_key:
            return self.live
        return super().get(spec)


def overall(tables: dict[str, Any], game: str) -> dict[str, float]:
    """Each reported metric of the game's Overall row, averaged over the seats that have it."""
    rows = tables[game][OVERALL].values()
    values = {}
    for metric in REPORTED:
        have = [row[metric] for row in rows if row.get(metric) is not None]
        if have:
            values[metric] = statistics.fmean(have)
    return values


def better(value: float, best: float | None, lower_is_better: bool) -> bool:
    """Whether ``value`` beats ``best`` (None: nothing to beat yet)."""
    if best is None:
        return True
    return value < best if lower_is_better else value > best


class Validator:
    """Runs the validations a recipe asks for and keeps the best policy."""

    def __init__(self, recipe: Recipe, run_dir: Path, model_path: str, engine: Any) -> None:
        self.recipe, self.run_dir, self.model_path = recipe, run_dir, model_path
        self.settings = recipe.train.validation
        self.engine = engine
        metric = self.settings.metric
        self.lower_is_better = metric == "efficiency" and get_game(recipe.game.name).lower_is_better
        self.best = best_value(run_dir, metric)  # a resumed run goes on beating its own best

    def due(self, iteration: int) -> bool:
        every = self.settings.every
        last = iteration == self.recipe.train.iterations - 1
        return bool(every) and ((iteration + 1) % every == 0 or last)

    def evaluate(self, iteration: int) -> dict[str, float]:
        """Play the validation episodes (main process only); the Overall metrics."""
        spec = validation_spec(self.recipe, self.model_path, iteration, self.run_dir)
        assert spec.policy.engine is not None, "validation_spec gives the policy its engine"
        engines = LiveEngines(spec.policy.engine, self.engine)
        result = run_evaluation(spec, engines=engines, progress=False)
        return overall(result.tables, self.recipe.game.name)

    def validate(self, accelerator, model, tokenizer, iteration: int) -> dict[str, float]:
        """Evaluate on the main process, share the result, and save the policy as the best one
        when the chosen metric improved (every rank: ZeRO-3 gathers). Returns ``val/*``
        metrics for the iteration's log."""
        from accelerate.utils import broadcast_object_list

        t0 = time.perf_counter()
        values = [self.evaluate(iteration) if accelerator.is_main_process else None]
        values = broadcast_object_list(values)[0]
        value = values.get(self.settings.metric)
        improved = value is not None and better(value, self.best, self.lower_is_better)
        if improved:
            self.best = value
            save_best(
                accelerator, model, tokenizer, self.run_dir, iteration, self.settings.metric, values
            )
        logged = {f"val/{k}": v for k, v in values.items()}
        logged["val/best"] = float(improved)
        logged["time/validation"] = time.perf_counter() - t0
        return logged


def save_best(
    accelerator, model, tokenizer, run_dir: Path, iteration: int, metric: str, values: dict
) -> Path:
    """Write ``<run>/best`` (the policy and why it is the best) in a staging folder that replaces
    the previous best whole, as checkpoints are written."""
    final = run_dir / BEST_DIR
    staging = final.with_name(final.name + ".tmp")
    main = accelerator.is_main_process
    if main and staging.exists():
        shutil.rmtree(staging)
    accelerator.wait_for_everyone()
    save_policy(model, tokenizer, staging / "policy", main)
    accelerator.wait_for_everyone()
    if main:
        record = {"iteration": iteration, "metric": metric, "value": values[metric]}
        record["overall"] = values
        write_text(staging / "validation.json", json.dumps(record, indent=1))
        if final.exists():
            shutil.rmtree(final)
        os.replace(staging, final)
    accelerator.wait_for_everyone()
    return final


def best_value(run_dir: Path, metric: str) -> float | None:
    """The value of ``metric`` that made the policy in ``<run>/best`` the best (None when there is
    none, or another metric chose it)."""
    try:
        record = json.loads((run_dir / BEST_DIR / "validation.json").read_text())
        return float(record["value"]) if record["metric"] == metric else None
    except (OSError, ValueError, KeyError, TypeError):
        return None

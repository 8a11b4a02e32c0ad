"""The pipeline's settings: one validated object, saved in the run directory so stages can rerun.

Defaults follow CollabBench (windows of 3 decisions, |Omega| = 3 games per profile, Eq. (1)
coefficients from D.1.2, beta = 0.5, top 30 per task, gamma = 0.5, xi = 0.1); everything is
configurable from a YAML/JSON file plus ``a.b=c`` overrides.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from omegaconf import OmegaConf
from pydantic import Field, PositiveInt, field_validator

from collabrl.envs.household.game import TIME_LIMIT, TRAINING_DECISIONS
from collabrl.envs.kitchen.game import TRAIN_HORIZON
from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError, RecipeError
from collabrl.sections import Strict

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,40}$")


class PipelineError(CollabrlError):
    """A pipeline problem the user can fix (bad config, missing stage output, missing extra)."""


class GamesSpec(Strict):
    """Which games are played and how long (short episodes keep generation cheap)."""

    household_tasks: list[str] = Field(default_factory=lambda: ["1_read_book"])
    kitchen_layouts: list[str] = Field(default_factory=lambda: ["cramped_room"])
    household_max_decisions: PositiveInt = TRAINING_DECISIONS
    household_max_ticks: PositiveInt = TIME_LIMIT
    kitchen_horizon: PositiveInt = TRAIN_HORIZON

    @field_validator("household_tasks", "kitchen_layouts")
    @classmethod
    def _known(cls, names: list[str], info: Any) -> list[str]:
        game = "household" if info.field_name == "household_tasks" else "kitchen"
        unknown = [n for n in names if n not in get_game(game).all_tasks()]
        if unknown:
            raise ValueError(f"unknown {game} task(s) {unknown}")
        return names


class GenerateSpec(Strict):
    """Stage 1: descriptor players (15 single-trait descriptors plus random combinations)."""

    random_combinations: int = Field(default=5, ge=0)
    episodes: PositiveInt = 1  # episodes per (descriptor, task)
    temperature: float = Field(default=0.7, ge=0)
    max_new_tokens: PositiveInt = 512


class ClusterSpec(Strict):
    """Stage 2: windows of ``window`` decisions, embedded and clustered by k-means."""

    window: PositiveInt = 3
    embedder: Literal["auto", "minilm", "hashing"] = "auto"
    k: PositiveInt = 8  # clusters per group
    by: Literal["game", "task"] = "game"
    min_size: PositiveInt = 2  # smaller clusters show no shared pattern and are dropped


class SummariseSpec(Strict):
    """Stage 3: one LLM summary per cluster."""

    samples: PositiveInt = 6  # windows shown to the summariser
    split: Literal["auto", "train", "test"] = "auto"
    max_new_tokens: PositiveInt = 512


class Coefficients(Strict):
    """Eq. (1): penalty alpha_p, max-penalty alpha_p^m and reward alpha_r."""

    penalty: float = Field(ge=0)
    max_penalty: float = Field(ge=0)
    reward: float = Field(ge=0)


def _paper_coefficients() -> dict[str, Coefficients]:
    return {
        "household": Coefficients(penalty=0.5, max_penalty=0.1, reward=0.1),
        "kitchen": Coefficients(penalty=0.1, max_penalty=0.1, reward=0.01),
    }


class FilterSpec(Strict):
    """Stage 4: play each candidate ``games`` times, judge its windows, keep the top ``top_k``."""

    games: PositiveInt = 3
    beta: float = Field(default=0.5, ge=0, le=1)
    top_k: PositiveInt = 30
    coefficients: dict[Literal["household", "kitchen"], Coefficients] = Field(
        default_factory=_paper_coefficients
    )
    temperature: float = Field(default=0.7, ge=0)
    max_new_tokens: PositiveInt = 512
    judge_max_new_tokens: PositiveInt = 512


class ReportSpec(Strict):
    """Stage 5: fidelity metrics of C.2 / D.3.3."""

    knn_k: PositiveInt = 5
    gamma: float = Field(default=0.5, ge=0, le=1)
    xi: float = Field(default=0.1, gt=0, le=2)


class EnginesSpec(Strict):
    """Engine configs (``make_engine`` form) per role; a missing role falls back to ``default``."""

    default: dict[str, Any] | None = None
    player: dict[str, Any] | None = None
    summariser: dict[str, Any] | None = None
    judge: dict[str, Any] | None = None

    def for_role(self, role: str) -> dict[str, Any]:
        spec = getattr(self, role) or self.default
        if spec is None:
            raise PipelineError(f"no engine for {role}: set engines.{role} or engines.default")
        return spec


class PipelineConfig(Strict):
    """Everything the five stages need."""

    name: str | None = None  # run name used in provenance; defaults to the run directory's name
    seed: int = 0
    games: GamesSpec = Field(default_factory=GamesSpec)
    generate: GenerateSpec = Field(default_factory=GenerateSpec)
    cluster: ClusterSpec = Field(default_factory=ClusterSpec)
    summarise: SummariseSpec = Field(default_factory=SummariseSpec)
    filter: FilterSpec = Field(default_factory=FilterSpec)
    report: ReportSpec = Field(default_factory=ReportSpec)
    engines: EnginesSpec = Field(default_factory=EnginesSpec)

    def run_name(self, run_dir: Path) -> str:
        name = self.name or Path(run_dir).resolve().name
        if not RUN_NAME.match(name):
            raise PipelineError(
                f"run name {name!r} must be 1-41 letters, digits, '_', '.' or '-' "
                "(set `name` in the config)"
            )
        return name

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def load_config(
    path: str | os.PathLike[str] | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> PipelineConfig:
    """Defaults, updated by a YAML file and ``a.b=c`` overrides (the recipe loader and override
    parser); errors are one line.

    Both are merged key by key onto the defaults, so a partial section (one coefficient, one
    engine option) keeps the other defaults.
    """
    from collabrl.config import load_settings, settings_file

    layers = [OmegaConf.create(PipelineConfig().model_dump(mode="json"))]
    where = "pipeline config"
    if path is not None:
        file = Path(path)
        if not file.is_file():
            raise PipelineError(f"pipeline config not found: {file}")
        layers.append(settings_file(file, "a pipeline config"))
        where = str(file)
    try:
        return load_settings(PipelineConfig, OmegaConf.merge(*layers), overrides, where)
    except RecipeError as err:
        raise PipelineError(str(err)) from None

"""The pipeline's settings: one validated object, saved in the run directory so stages can rerun.

Defaults follow CollabBench (windows of 3 decisions, |Omega| = 3 games per profile, Eq. (1)
coefficients from D.1.2, beta = 0.5, top 30 per task, gamma = 0.5, xi = 0.1); everything is
configurable from a YAML/JSON file plus ``a.b=c`` overrides. The games are registered game
sections, as in recipes, and each game declares its own defaults and coefficients on its section
(``profile_games``, ``profile_coefficients``), so a plug-in game gets profiles too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

import yaml
from omegaconf import OmegaConf
from pydantic import Field, PositiveInt, model_validator

from collabrl.config import EngineSpec
from collabrl.config.recipe import GameSpec
from collabrl.envs.registry import GameSection, get_game, registered_games
from collabrl.errors import CollabrlError, RecipeError
from collabrl.records import quoted
from collabrl.sections import Strict

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,40}$")


class PipelineError(CollabrlError):
    """A pipeline problem the user can fix (bad config, missing stage output, missing extra)."""


def default_games() -> list[GameSection]:
    """Every registered game that declares ``profile_games``, as its section with those values."""
    return [
        section.model_validate(section.profile_games)
        for section in registered_games().values()
        if section.profile_games is not None
    ]


class GenerateSpec(Strict):
    """Stage 1: descriptor players (15 single-trait descriptors plus random combinations)."""

    random_combinations: int = Field(default=5, ge=0)
    """Random multi-trait descriptors added to the 15 single-trait ones."""
    episodes: PositiveInt = 1
    """Episodes per (descriptor, game)."""
    temperature: float = Field(default=0.7, ge=0)
    """Sampling temperature of the descriptor players."""
    max_new_tokens: PositiveInt = 512
    """Longest reply of a descriptor player, in tokens."""


class ClusterSpec(Strict):
    """Stage 2: windows of ``window`` decisions, embedded and clustered by k-means."""

    window: PositiveInt = 3
    """Decisions per window (the paper's K = 3)."""
    embedder: Literal["auto", "minilm", "hashing"] = "auto"
    """auto: MiniLM when the pipeline extra is installed, else the hashing embedder."""
    k: PositiveInt = 8
    """Clusters per group."""
    by: Literal["game", "task"] = "game"
    """Cluster the windows of each game together, or of each task."""
    min_size: PositiveInt = 2
    """Smaller clusters show no shared pattern and are dropped."""


class SummariseSpec(Strict):
    """Stage 3: one LLM summary per cluster."""

    samples: PositiveInt = 6
    """Windows of a cluster shown to the summariser."""
    split: Literal["auto", "train", "test"] = "auto"
    """Split of the profiles made; auto: test for a task only in the game's test split."""
    max_new_tokens: PositiveInt = 512
    """Longest summary, in tokens."""


class Coefficients(Strict):
    """Eq. (1): penalty alpha_p, max-penalty alpha_p^m and reward alpha_r."""

    penalty: float = Field(ge=0)
    """alpha_p: weight of the mean deduction."""
    max_penalty: float = Field(ge=0)
    """alpha_p^m: weight of the largest deduction."""
    reward: float = Field(ge=0)
    """alpha_r: weight of the windows without a deduction."""


def declared_coefficients() -> dict[str, Coefficients]:
    """Each registered game's own Eq. (1) coefficients (its section's ``profile_coefficients``)."""
    return {
        name: Coefficients(penalty=p, max_penalty=m, reward=r)
        for name, section in registered_games().items()
        if section.profile_coefficients is not None
        for p, m, r in [section.profile_coefficients]
    }


class FilterSpec(Strict):
    """Stage 4: play each candidate ``games`` times, judge its windows, keep the top ``top_k``."""

    games: PositiveInt = 3
    """Episodes each candidate plays (|Omega|)."""
    beta: float = Field(default=0.5, ge=0, le=1)
    """Weight of the action-consistency score against the personality score."""
    top_k: PositiveInt = 30
    """Profiles kept per task."""
    coefficients: dict[str, Coefficients] = Field(default_factory=declared_coefficients)
    """Eq. (1) coefficients by game; default: what each game's section declares (the paper's
    D.1.2 values for the household and kitchen games)."""
    temperature: float = Field(default=0.7, ge=0)
    """Sampling temperature of the candidate players."""
    max_new_tokens: PositiveInt = 512
    """Longest reply of a candidate player, in tokens."""
    judge_max_new_tokens: PositiveInt = 512
    """Longest judge reply, in tokens."""


class ReportSpec(Strict):
    """Stage 5: fidelity metrics of C.2 / D.3.3."""

    knn_k: PositiveInt = 5
    """Neighbours of the k-NN coverage measures."""
    gamma: float = Field(default=0.5, ge=0, le=1)
    """Weight of diversity against coverage in the fidelity score."""
    xi: float = Field(default=0.1, gt=0, le=2)
    """Distance threshold of the coverage measure."""


class EnginesSpec(Strict):
    """The engine of each LLM role (the recipes' engine section); a missing role falls back to
    ``default``."""

    default: EngineSpec | None = None
    """Engine of every role that names none."""
    player: EngineSpec | None = None
    """Engine of the descriptor and candidate players (stages 1 and 4)."""
    summariser: EngineSpec | None = None
    """Engine that summarises clusters into profiles (stage 3)."""
    judge: EngineSpec | None = None
    """Engine of the consistency judges (stage 4)."""

    def for_role(self, role: str) -> EngineSpec:
        spec = getattr(self, role) or self.default
        if spec is None:
            raise PipelineError(f"no engine for {role}: set engines.{role} or engines.default")
        return spec


class PipelineConfig(Strict):
    """Everything the five stages need."""

    name: str | None = None
    """Run name used in provenance; default: the run directory's name."""
    seed: int = 0
    """Seed of descriptors, episodes and clustering."""
    games: list[GameSpec] = Field(default_factory=default_games, min_length=1)
    """The games and tasks played, each a game section as in a recipe (name, task and that
    game's options); default: every game whose section declares profile_games."""
    generate: GenerateSpec = Field(default_factory=GenerateSpec)
    """Stage 1: descriptor players."""
    cluster: ClusterSpec = Field(default_factory=ClusterSpec)
    """Stage 2: windows, embeddings and k-means."""
    summarise: SummariseSpec = Field(default_factory=SummariseSpec)
    """Stage 3: cluster summaries."""
    filter: FilterSpec = Field(default_factory=FilterSpec)
    """Stage 4: interaction-based filtering."""
    report: ReportSpec = Field(default_factory=ReportSpec)
    """Stage 5: fidelity report."""
    engines: EnginesSpec = Field(default_factory=EnginesSpec)
    """LLM engines by role."""

    @model_validator(mode="after")
    def _coefficients_for_every_game(self) -> PipelineConfig:
        missing = sorted({g.name for g in self.games} - set(self.filter.coefficients))
        if missing:
            raise ValueError(
                f"filter.coefficients: no Eq. (1) coefficients for {', '.join(missing)} (its "
                "section declares none); set filter.coefficients.<game>.penalty/max_penalty/reward"
            )
        return self

    def section(self, game: str, task: str) -> GameSection:
        """The configured section of ``game`` playing ``task`` (the game's profile_games values
        when the settings list no section of that game)."""
        configured = next((g for g in self.games if g.name == game), None)
        if configured is None:
            section = get_game(game)
            configured = section.model_validate(section.profile_games or {})
        return configured.for_task(task)

    def run_name(self, run_dir: Path) -> str:
        name = self.name or Path(run_dir).resolve().name
        if not RUN_NAME.match(name):
            raise PipelineError(
                f"run name {quoted(name)} must be 1-41 letters, digits, '_', '.' or '-' "
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

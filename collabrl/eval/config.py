"""The evaluation settings as one validated object (the lead folds it into recipes).

Defaults are the CollabBench protocol: both games, every test task x every test profile, the
policy in the Agent 1 seat and again in the Agent 2 seat, windows of K = 3, a = b = 0.8.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from collabrl.config import EngineSpec, PlayerSpec, SamplingSpec, Strict
from collabrl.numbers import NonNegativeInt, PositiveInt

GameName = Literal["household", "kitchen"]


class PartnerSpec(Strict):
    """Who fills the partner seat; the profile is set per episode from the test split.

    ``expert`` ignores the profile (a profile-blind control); ``persona`` is the scripted
    profile-driven player; ``llm`` role-plays the profile through ``engine``.
    """

    kind: Literal["persona", "expert", "llm"] = "persona"
    engine: EngineSpec | None = None
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)

    @model_validator(mode="after")
    def _engine_for_llm(self) -> PartnerSpec:
        if self.kind == "llm" and (self.engine is None or not self.engine.model):
            raise ValueError("an llm partner needs partner.engine.model (and backend)")
        return self


class JudgeSpec(Strict):
    """``heuristic``: the offline proxy (labelled in every report); ``llm``: through ``engine``."""

    kind: Literal["heuristic", "llm"] = "heuristic"
    engine: EngineSpec | None = None
    max_new_tokens: PositiveInt = 512
    batch_size: PositiveInt = 256  # judge conversations per generate call (progress granularity)

    @model_validator(mode="after")
    def _engine_for_llm(self) -> JudgeSpec:
        if self.kind == "llm" and (self.engine is None or not self.engine.model):
            raise ValueError("an llm judge needs judge.engine.model (and backend)")
        return self


class EvalSpec(Strict):
    """What to evaluate, against whom, how often, and where to write the results."""

    games: list[GameName] = Field(default_factory=lambda: ["household", "kitchen"], min_length=1)
    tasks: list[str] | None = None  # subset of test tasks / kitchen layouts (None: all)
    profiles: list[str] | None = None  # subset of test profile ids (None: all)
    max_profiles: PositiveInt | None = None  # N test profiles per task, spread over player types
    seats: list[Literal[1, 2]] = Field(default_factory=lambda: [1, 2], min_length=1)
    seeds: list[NonNegativeInt] = Field(default_factory=lambda: [0], min_length=1)
    policy: PlayerSpec = Field(default_factory=PlayerSpec)
    partner: PartnerSpec = Field(default_factory=PartnerSpec)
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    oracle: bool = False  # policy also sees the partner's profile and previous decision
    window: PositiveInt = 3
    a: float = Field(0.8, ge=0)
    b: float = Field(0.8, ge=0)
    household_max_ticks: PositiveInt = 250
    household_max_decisions: PositiveInt = 50
    kitchen_horizon: PositiveInt = 400
    workers: PositiveInt = 1  # episodes played concurrently (threads; for remote LLM engines)
    output_dir: str = "runs/eval"

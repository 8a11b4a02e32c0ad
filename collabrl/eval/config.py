"""The evaluation settings as one validated object (`collabrl eval` reads it from key=value overrides or a settings file).

Defaults are the CollabBench protocol: both games, every test task x every test profile, the
policy in the Agent 1 seat and again in the Agent 2 seat, windows of K = 3, a = b = 0.8.
Sizes have the recipe's upper bounds, and task and profile names are checked here, so that a
typo is a one-line error before any episode is played, never an empty table.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from collabrl.config import (
    MAX_BATCH,
    MAX_NEW_TOKENS,
    MAX_TICKS,
    EngineSpec,
    PlayerSpec,
    SamplingSpec,
    Seed,
    Strict,
    require_engine,
)
from collabrl.envs.household.game import TIME_LIMIT
from collabrl.envs.kitchen.game import EVAL_HORIZON
from collabrl.errors import CollabrlError
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.profiles.tasks import HOUSEHOLD_TEST_TASKS, KITCHEN_LAYOUTS

GameName = Literal["household", "kitchen"]
EVAL_TASKS = {"household": tuple(HOUSEHOLD_TEST_TASKS), "kitchen": tuple(KITCHEN_LAYOUTS)}
"""The tasks each game is evaluated on: household test tasks, every kitchen layout."""

MAX_EVAL_SEEDS = 1_000  # seeds per evaluation (CollabBench: 1)
MAX_EVAL_PROFILES = 10_000  # profiles per task (the shipped test split has a few dozen)
MAX_WORKERS = 1_024  # episodes played concurrently
MAX_POLICY_RETRIES = 5  # extra attempts after an unusable policy reply


class PartnerSpec(Strict):
    """Who fills the partner seat; the profile is set per episode from the test split.

    ``expert`` ignores the profile (a profile-blind control); ``persona`` is the scripted
    profile-driven player; ``llm`` role-plays the profile through ``engine`` with the
    simulated-player prompt. ``use_profile=false`` (llm only) is the paper's "homogeneous"
    partner of the diversity analysis: the same LLM and prompt without any profile. Its episodes
    still follow the test profiles' jobs (same count and tasks as the diverse arm), each with its
    own sampling seed, so the two arms compare like for like.
    """

    kind: Literal["persona", "expert", "llm"] = "persona"
    use_profile: bool = True
    engine: EngineSpec | None = None
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)

    @model_validator(mode="after")
    def _engine_for_llm(self) -> PartnerSpec:
        require_engine(self.kind, self.engine, "partner")
        if not self.use_profile and self.kind != "llm":
            raise ValueError(
                f"partner.use_profile=false is the profile-free LLM partner; "
                f"it needs partner.kind=llm, not {self.kind}"
            )
        return self

    @property
    def label(self) -> str:
        """How tables and stamps name this partner set."""
        return "llm (homogeneous, no profile)" if not self.use_profile else self.kind


class JudgeSpec(Strict):
    """``heuristic``: the offline proxy (labelled in every report); ``llm``: through ``engine``."""

    kind: Literal["heuristic", "llm"] = "heuristic"
    engine: EngineSpec | None = None
    max_new_tokens: PositiveInt = Field(512, le=MAX_NEW_TOKENS)
    # judge conversations per generate call (progress granularity); at most MAX_BATCH
    batch_size: PositiveInt = Field(256, le=MAX_BATCH)

    @model_validator(mode="after")
    def _engine_for_llm(self) -> JudgeSpec:
        require_engine(self.kind, self.engine, "judge")
        return self


class EvalSpec(Strict):
    """What to evaluate, against whom, how often, and where to write the results."""

    games: list[GameName] = Field(default_factory=lambda: ["household", "kitchen"], min_length=1)
    # subset of test tasks / kitchen layouts (None: all)
    tasks: list[str] | None = Field(None, min_length=1)
    profiles: list[str] | None = Field(None, min_length=1)  # subset of test profile ids (None: all)
    # N test profiles per task, spread over player types; at most MAX_EVAL_PROFILES
    max_profiles: PositiveInt | None = Field(None, le=MAX_EVAL_PROFILES)
    seats: list[Literal[1, 2]] = Field(default_factory=lambda: [1, 2], min_length=1)
    seeds: list[Seed] = Field(default_factory=lambda: [0], min_length=1, max_length=MAX_EVAL_SEEDS)
    policy: PlayerSpec = Field(default_factory=PlayerSpec)
    partner: PartnerSpec = Field(default_factory=PartnerSpec)
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    oracle: bool = False  # policy also sees the partner's profile and previous decision
    # Extra attempts an LLM policy gets after an unusable reply. 0 = the paper's single pass
    # (default); 1 = one retry with the parser's complaints shown. Tables say which was used.
    policy_retries: NonNegativeInt = Field(0, le=MAX_POLICY_RETRIES)
    window: PositiveInt = Field(3, le=MAX_TICKS)
    a: float = Field(0.8, ge=0)
    b: float = Field(0.8, ge=0)
    household_max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    # A safety cap per seat, not a rule of the benchmark (CWAH evaluation has only the tick
    # limit; a decision costs at least a tick, so at the tick limit it never ends an ordinary
    # episode): an episode it ends is reported as "stalled" and left out of the step means.
    household_max_decisions: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    kitchen_horizon: PositiveInt = Field(EVAL_HORIZON, le=MAX_TICKS)
    # reference: the paper's skill layer (chefs may block each other); cooperative: collabrl's
    kitchen_motion: Literal["reference", "cooperative"] = "reference"
    # episodes played concurrently (threads; for remote LLM engines); at most MAX_WORKERS
    workers: PositiveInt = Field(1, le=MAX_WORKERS)
    output_dir: str = "runs/eval"

    @model_validator(mode="after")
    def _tasks_fit_games(self) -> EvalSpec:
        """A task that is unknown or of an unselected game would select no episode at all."""
        for task in self.tasks or ():
            game = next((g for g, tasks in EVAL_TASKS.items() if task in tasks), None)
            if game is None:
                known = "; ".join(f"{g}: {', '.join(ts)}" for g, ts in EVAL_TASKS.items())
                raise ValueError(f"tasks: unknown evaluation task {task!r}; test tasks are {known}")
            if game not in self.games:
                raise ValueError(f"tasks: {task!r} is a {game} task but games={self.games}")
        return self

    @model_validator(mode="after")
    def _profiles_fit_selection(self) -> EvalSpec:
        """A profile outside the test split, the games or the tasks would be dropped silently."""
        from collabrl.profiles import get_profile

        for profile_id in self.profiles or ():
            try:
                profile = get_profile(profile_id)
            except CollabrlError as exc:
                raise ValueError(f"profiles: {exc}") from None
            if profile.split != "test":
                raise ValueError(
                    f"profiles: {profile_id!r} is a {profile.split} profile; "
                    "evaluation plays test profiles only"
                )
            if profile.game not in self.games:
                raise ValueError(
                    f"profiles: {profile_id!r} is a {profile.game} profile but games={self.games}"
                )
            if self.tasks is not None and profile.task not in self.tasks:
                raise ValueError(
                    f"profiles: {profile_id!r} plays task {profile.task!r}, "
                    f"which is not in tasks={self.tasks}"
                )
        return self

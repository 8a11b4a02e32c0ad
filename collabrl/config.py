"""Recipes: a YAML file plus ``a.b=c`` overrides, validated into one typed, printable object.

OmegaConf does the merging and ``${...}`` interpolation; pydantic does the validation. Every
validation problem becomes a one-line :class:`RecipeError` naming the key and what is allowed.
Hostile or careless input (a binary or huge file, a "billion laughs" YAML document, absurd sizes,
names that do not exist) is refused here, at ``collabrl lint``, not minutes into a run.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from collabrl.engines.options import OPTIONS, option_names
from collabrl.envs.household.game import TIME_LIMIT, TRAINING_DECISIONS
from collabrl.envs.kitchen.game import EVAL_HORIZON, TRAIN_HORIZON
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES as KITCHEN_LAYOUTS
from collabrl.errors import CollabrlError, RecipeError
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.settings_files import clip, load_yaml, read_text_file, resolve_bounded, yaml_mapping
from collabrl.sft.config import SFTSpec

if TYPE_CHECKING:
    from collabrl.profiles import Profile

# Upper bounds on sizes: far above any real run, but finite, so that a typo such as
# rollout.groups=99999999999999999999999 is a one-line error at lint, not a run that allocates
# until the machine dies.
MAX_TICKS = 100_000  # ticks or decisions per episode (the paper: 250-400 ticks, 50 decisions)
MAX_NEW_TOKENS = 131_072  # tokens per response: the longest context windows of today's models
MAX_PROMPT_TOKENS = 1_048_576  # prompt tokens
MAX_GROUPS = 4_096  # rollout groups, and episodes per group (the paper: 4 x 8)
MAX_ITERATIONS = 10**7  # training iterations, optimizer steps, checkpoint intervals
MAX_EPISODES = 10**6  # episodes of one ``collabrl play``
MAX_BATCH = 1_048_576  # samples per mini-batch or micro-batch
MAX_EPOCHS = 1_000  # passes over one iteration's samples
MAX_LORA_RANK = 65_536  # above every model's hidden size
MAX_SEATS = 64  # seats of one game (CollabBench: 1 agent + 0-3 teammates)
MAX_SEED = 2**32 - 1  # numpy and torch take seeds in [0, 2**32)

Seed = Annotated[StrictInt, Field(ge=0, le=MAX_SEED)]


def _listing(names: Iterable[str], limit: int = 6) -> str:
    """The first few of ``names`` for a one-line message (``a, b, c, ... (40 in all)``)."""
    ordered = sorted(names)
    shown = ", ".join(ordered[:limit])
    return shown if len(ordered) <= limit else f"{shown}, ... ({len(ordered)} in all)"


class Strict(BaseModel):
    """Base for recipe sections: unknown keys are errors, values are checked on assignment, and
    no float may be NaN or infinite."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


def _distinct(seats: list[str]) -> list[str]:
    """Seats are addressed by name (players, messages, records): two equal names would merge."""
    repeated = sorted(name for name, n in Counter(seats).items() if n > 1)
    if repeated:
        raise ValueError(f"seat names must be distinct; repeated: {clip(repr(repeated))}")
    return seats


SeatNames = Annotated[
    list[Annotated[str, Field(min_length=1)]],
    Field(min_length=1, max_length=MAX_SEATS),
    AfterValidator(_distinct),
]


class HouseholdSpec(Strict):
    """CWAH-MultiPlayer: one household task, played by ``len(seats)`` seats."""

    name: Literal["household"] = "household"
    task: str = "0_read_book"
    seats: SeatNames = Field(default_factory=lambda: ["Alice", "Bob"])
    max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    max_decisions: PositiveInt = Field(TRAINING_DECISIONS, le=MAX_TICKS)

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        from collabrl.envs.household.tasks import get_task

        try:
            get_task(task)
        except KeyError as exc:
            raise ValueError(str(exc)) from None
        return task


def _check_kitchen_seats(layout: str, seats: list[str]) -> None:
    """A kitchen layout has one chef start per seat; any other count fails when the game starts."""
    from collabrl.envs.kitchen.layouts import load_layout

    starts = len(load_layout(layout).starts)
    if len(seats) != starts:
        raise ValueError(
            f"layout {layout!r} has {starts} chef starts, so it needs {starts} seats, "
            f"got {len(seats)}"
        )


class KitchenSpec(Strict):
    """Cook-MultiPlayer: one Overcooked layout."""

    name: Literal["kitchen"] = "kitchen"
    layout: Literal[KITCHEN_LAYOUTS] = "cramped_room"  # type: ignore[valid-type]
    seats: SeatNames = Field(default_factory=lambda: ["Player 0", "Player 1"])
    horizon: PositiveInt = Field(EVAL_HORIZON, le=MAX_TICKS)  # training uses rollout.horizon
    cooking: Literal["auto", "interact"] = "auto"  # auto: a full pot starts cooking by itself
    # reference: the paper's skill controller (ProAgent's; chefs may block each other for good);
    # cooperative: collabrl's (reserved paths, stepping aside, giving up, pickup(soup))
    motion: Literal["reference", "cooperative"] = "reference"

    @field_validator("seats")
    @classmethod
    def _one_seat_per_start(cls, seats: list[str], info: ValidationInfo) -> list[str]:
        if "layout" in info.data:  # absent when the layout itself is invalid
            _check_kitchen_seats(info.data["layout"], seats)
        return seats


GameSpec = Annotated[HouseholdSpec | KitchenSpec, Field(discriminator="name")]


def _check_engine_options(options: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """Unknown option keys would reach the engine's dataclass and die there with a TypeError."""
    backend = info.data.get("backend")
    valid = option_names(backend) if backend in OPTIONS else frozenset()
    unknown = sorted(str(k) for k in options if k not in valid)
    if valid and unknown:
        raise ValueError(
            f"unknown option(s) {clip(', '.join(unknown))} for engine backend {backend!r}; "
            f"valid: {', '.join(sorted(valid))}"
        )
    return options


# Option keys of an engine, checked against the options dataclass of the sibling ``backend``.
EngineOptions = Annotated[dict[str, Any], AfterValidator(_check_engine_options)]


class EngineSpec(Strict):
    """Which inference backend and model: a local HF folder, or a server-side model name."""

    backend: Literal["transformers", "openai", "vllm"] = "transformers"
    model: str = ""
    options: EngineOptions = Field(default_factory=dict)  # backend options (device, ...)


def require_engine(kind: str, engine: EngineSpec | None, role: str) -> None:
    """An LLM role without a model fails only when its first prompt is sent: refuse it at lint."""
    if kind == "llm" and (engine is None or not engine.model):
        raise ValueError(f"an llm {role} needs engine.model (and engine.backend)")


class SamplingSpec(Strict):
    """Sampling settings of one LLM role."""

    temperature: float = Field(0.7, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    max_new_tokens: PositiveInt = Field(512, le=MAX_NEW_TOKENS)


class PlayerSpec(Strict):
    """Who fills a seat: a rule-based expert, a persona-scripted player, an LLM, or a person
    (``human``: played in the browser through ``collabrl serve``)."""

    kind: Literal["expert", "persona", "llm", "human"] = "expert"
    profile: str | None = None  # profile id: required for persona, optional persona for llm
    engine: EngineSpec | None = None  # llm only
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)

    @model_validator(mode="after")
    def _complete(self) -> PlayerSpec:
        if self.kind == "persona" and not self.profile:
            raise ValueError("a persona player needs a profile id (players.N.profile=...)")
        require_engine(self.kind, self.engine, "player")
        if self.profile:
            _check_profile(self.profile)
        return self


def _check_profile(profile_id: str) -> None:
    """Fail at recipe load, in one line, on a profile id that does not exist."""
    from collabrl.profiles import get_profile

    try:
        get_profile(profile_id)
    except CollabrlError as exc:  # ProfileError: keep only its message
        raise ValueError(str(exc)) from None


class LoraSpec(Strict):
    """LoRA adapters (PEFT); the reference policy is the base model with adapters disabled."""

    rank: PositiveInt = Field(32, le=MAX_LORA_RANK)
    alpha: PositiveInt = 16
    dropout: float = Field(0.0, ge=0, lt=1)
    target_modules: list[str] | str = "all-linear"

    @field_validator("target_modules")
    @classmethod
    def _some_modules(cls, modules: list[str] | str) -> list[str] | str:
        """PEFT with no target modules either fails deep in model loading or trains nothing."""
        names = [modules] if isinstance(modules, str) else modules
        if not names or not all(name.strip() for name in names):
            raise ValueError("name at least one module, e.g. all-linear or [q_proj, v_proj]")
        return modules


class PolicySpec(Strict):
    """The trained model and how it generates rollouts.

    ``model`` is an HF folder, or ``tiny``/``tiny-small`` for a seeded random model with its own
    tokenizer, created under the run directory (offline, for CPU runs and tests).
    """

    model: str = "tiny"
    backend: Literal["transformers", "vllm"] = "transformers"
    engine_options: EngineOptions = Field(default_factory=dict)  # TransformersOptions/VLLMOptions
    lora: LoraSpec | None = None
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    # A longer prompt is not generated from: the decision counts as invalid and as a generation
    # error (metric failures/policy); a rollout where every decision fails stops the run.
    max_prompt_tokens: PositiveInt = Field(4096, le=MAX_PROMPT_TOKENS)


class PartnerSpec(Strict):
    """Who plays beside the policy during training (profiles drawn per group).

    ``persona``: scripted profile-driven players; ``llm``: an LLM role-playing the profile with
    the simulated-player prompt (``use_profile=false``: the same LLM and prompt without a profile,
    the paper's profile-free "homogeneous" partner); ``expert``: the rule-based expert;
    ``self``: self-play, the partner seats are played by the policy itself (its rollout engine,
    so a frozen copy of the current weights, refreshed every iteration; the paper's
    "w/o personality" ablation); ``none``: single-seat games.
    """

    kind: Literal["persona", "llm", "expert", "self", "none"] = "persona"
    split: Literal["train", "test"] = "train"  # which profiles partners are drawn from
    profiles: list[str] = Field(default_factory=list)  # explicit profile ids (else the split)
    use_profile: bool = True  # false: llm partners play without a profile (homogeneous partner)
    engine: EngineSpec | None = None  # llm partners
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)

    @field_validator("profiles")
    @classmethod
    def _known_profiles(cls, profiles: list[str]) -> list[str]:
        for profile_id in profiles:
            _check_profile(profile_id)
        return profiles

    @model_validator(mode="after")
    def _engine_for_llm(self) -> PartnerSpec:
        require_engine(self.kind, self.engine, "partner")
        return self


class RolloutSpec(Strict):
    """G groups x N episodes; a group shares task, seed and partner profile."""

    groups: PositiveInt = Field(4, le=MAX_GROUPS)
    episodes_per_group: PositiveInt = Field(8, le=MAX_GROUPS)
    tasks: list[str] | Literal["train", "test"] = "train"  # household tasks / kitchen layouts
    target_seat: NonNegativeInt = 0
    max_decisions: PositiveInt = Field(TRAINING_DECISIONS, le=MAX_TICKS)  # per seat and episode
    horizon: PositiveInt = Field(TRAIN_HORIZON, le=MAX_TICKS)  # kitchen ticks per training episode


class JudgeSpec(Strict):
    """The step-level interactivity judge."""

    kind: Literal["heuristic", "llm", "none"] = "heuristic"
    engine: EngineSpec | None = None
    sampling: SamplingSpec = Field(default_factory=lambda: SamplingSpec(temperature=0.0))

    @model_validator(mode="after")
    def _engine_for_llm(self) -> JudgeSpec:
        require_engine(self.kind, self.engine, "judge")
        return self


class RewardSpec(Strict):
    """Hybrid reward weights (facts: efficiency, -0.1 format, +0.01 message, 0.25 x judge).

    Step rewards (the step-level signal, compared within anchor groups) are format +
    communication + judge (+ progress when set); the efficiency reward never enters them.
    """

    efficiency: float = 1.0
    household_free_steps: NonNegativeInt = 40
    household_rate: float = 0.025
    kitchen_scale: PositiveFloat = 100.0
    format_penalty: float = -0.1
    communication: float = 0.01
    judge_weight: float = 0.25
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    # Goal units newly completed by the team between a decision and the seat's next one
    # (household: goal objects put in place; kitchen: soups served) pay this much as a step term.
    # The released CWAH code uses 0.2; the paper uses none (0, the default).
    progress: NonNegativeFloat = 0.0
    # What GiGPO's episode-level advantage compares within a group. "efficiency" (the paper,
    # 4.2.2): the trajectory efficiency reward alone, one value per episode, normalised over the
    # group's episodes. "efficiency_plus_step" (the released code): every step sample is scored
    # efficiency + its own step terms and normalised over the group's step samples.
    episode_level: Literal["efficiency", "efficiency_plus_step"] = "efficiency"


class AlgoSpec(Strict):
    """GiGPO advantages + PPO-clip loss with a KL penalty (paper settings by default)."""

    name: Literal["gigpo", "grpo"] = "gigpo"
    omega: float = 1.0
    gamma: float = Field(0.0, ge=0, le=1)
    norm: Literal["mean_std_norm", "mean_norm"] = "mean_std_norm"
    clip: PositiveFloat = 0.2
    dual_clip: NonNegativeFloat = 3.0
    kl_coef: NonNegativeFloat = 0.01
    entropy_coef: NonNegativeFloat = 0.0
    # above 1 no LLM fine-tune converges, and torch's Adam overflows float32 near 1e38
    lr: PositiveFloat = Field(1e-6, le=1.0)
    weight_decay: NonNegativeFloat = 0.0
    # optimizer steps of linear learning-rate warm-up (at most MAX_ITERATIONS)
    warmup_steps: NonNegativeInt = Field(0, le=MAX_ITERATIONS)
    mini_batch: PositiveInt = Field(32, le=MAX_BATCH)  # samples per optimizer step
    micro_batch: PositiveInt = Field(4, le=MAX_BATCH)  # samples per forward pass
    epochs: PositiveInt = Field(1, le=MAX_EPOCHS)
    grad_clip: PositiveFloat = 1.0
    drop_uniform_groups: bool = False  # dynamic sampling: skip groups with no nonzero advantage
    # pi_old of the PPO ratio: "trainer" recomputes the samples' logprobs with the trainer's model
    # before the update (one extra forward per sample, as verl does); "rollout" uses the sampling
    # engine's logprobs (free, but biased when sampler and trainer differ, e.g. vLLM kernels).
    old_logprobs: Literal["trainer", "rollout"] = "trainer"
    # Correction of the sampler/trainer gap: "tis" weights each token's policy loss by
    # min(pi_old / pi_rollout, tis_cap) (truncated importance sampling); needs old_logprobs=trainer.
    rollout_correction: Literal["none", "tis"] = "none"
    tis_cap: PositiveFloat = 2.0
    # A mini-batch whose loss or gradient is not finite: "stop" the run with an error, or "skip"
    # its optimizer step and count it (metric skipped_steps). Weights that are not finite after
    # an update stop the run either way; no checkpoint is ever written from them.
    nonfinite: Literal["stop", "skip"] = "stop"

    @model_validator(mode="after")
    def _correction_needs_trainer_logprobs(self) -> AlgoSpec:
        if self.rollout_correction == "tis" and self.old_logprobs != "trainer":
            raise ValueError("rollout_correction=tis needs old_logprobs=trainer")
        return self


class DumpSpec(Strict):
    """Sampled rollouts written for ``collabrl view`` while a run trains (rollouts.jsonl)."""

    every: NonNegativeInt = Field(0, le=MAX_ITERATIONS)  # every N iterations; 0: never
    episodes: PositiveInt = Field(4, le=MAX_GROUPS * MAX_GROUPS)  # episodes written each time


class TrainSpec(Strict):
    """The outer loop: iterations, checkpoints, resume, logging."""

    iterations: PositiveInt = Field(100, le=MAX_ITERATIONS)
    checkpoint_every: NonNegativeInt = Field(10, le=MAX_ITERATIONS)  # 0: only at the end
    keep_checkpoints: PositiveInt = 2
    resume: bool = False
    wandb: Literal["auto", "online", "offline", "disabled"] = "auto"
    wandb_project: str = "collabrl"
    # Stop the run when, in one iteration, more than this share of one role's requests failed:
    # policy decisions without a completion, LLM partner requests, judged steps without a level
    # (a dead partner or judge server would otherwise train the policy on noise). 1.0 never
    # stops; the counts are logged either way (failures/<role>, requests/<role>).
    max_failure_rate: float = Field(0.5, ge=0, le=1)
    dump_rollouts: DumpSpec = Field(default_factory=lambda: DumpSpec())


class Recipe(Strict):
    """Everything one run needs; the resolved form is printed and recorded by every run."""

    name: str = "run"
    seed: Seed = 0  # 0 <= seed < 2**32: numpy and torch seed from it
    episodes: PositiveInt = Field(1, le=MAX_EPISODES)
    game: GameSpec = Field(default_factory=HouseholdSpec)
    players: list[PlayerSpec] = Field(default_factory=lambda: [PlayerSpec(), PlayerSpec()])
    output_dir: str = "runs"
    policy: PolicySpec = Field(default_factory=PolicySpec)
    partner: PartnerSpec = Field(default_factory=PartnerSpec)
    rollout: RolloutSpec = Field(default_factory=RolloutSpec)
    reward: RewardSpec = Field(default_factory=RewardSpec)
    algo: AlgoSpec = Field(default_factory=AlgoSpec)
    train: TrainSpec = Field(default_factory=TrainSpec)
    sft: SFTSpec = Field(default_factory=SFTSpec)

    @model_validator(mode="after")
    def _one_player_per_seat(self) -> Recipe:
        if len(self.players) != len(self.game.seats):
            raise ValueError(
                f"players has {len(self.players)} entries but game.seats has "
                f"{len(self.game.seats)}: give one player per seat"
            )
        if self.rollout.target_seat >= len(self.game.seats):
            raise ValueError(
                f"rollout.target_seat {self.rollout.target_seat} is not a seat index "
                f"(game.seats has {len(self.game.seats)})"
            )
        return self

    @model_validator(mode="after")
    def _training_tasks_exist(self) -> Recipe:
        """A wrong task name would fail only when a group draws it, minutes into a run."""
        tasks = self.rollout.tasks
        if isinstance(tasks, str):
            return self
        if not tasks:
            raise ValueError("rollout.tasks: empty list; name at least one task, or use train/test")
        for task in tasks:
            try:
                _check_training_task(self.game, task)
            except (KeyError, ValueError) as exc:
                raise ValueError(f"rollout.tasks: {exc}") from None
        return self

    @model_validator(mode="after")
    def _partners_available(self) -> Recipe:
        """The partner set is first drawn when training starts: an empty one must fail at lint."""
        if self.partner.kind == "none" and len(self.game.seats) > 1:
            raise ValueError(
                f"partner.kind=none needs a game with a single seat "
                f"(game.seats has {len(self.game.seats)})"
            )
        try:
            partner_profiles(self)
        except CollabrlError as exc:
            raise ValueError(str(exc)) from None
        return self

    def to_yaml(self) -> str:
        """The fully resolved recipe as YAML (what runs print and record)."""
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def _check_training_task(game: HouseholdSpec | KitchenSpec, task: str) -> None:
    """Raise (KeyError or ValueError, one line) unless ``game`` can be played on ``task``."""
    if game.name == "kitchen":
        _check_kitchen_seats(task, game.seats)
        return
    from collabrl.envs.household.tasks import get_task

    get_task(task)


def task_names(recipe: Recipe) -> set[str]:
    """Household task names or kitchen layouts the recipe trains on."""
    tasks = recipe.rollout.tasks
    if isinstance(tasks, list):
        return set(tasks)
    if recipe.game.name == "kitchen":
        return set(KITCHEN_LAYOUTS)
    from collabrl.envs.household.tasks import load_tasks

    return {t.name for t in load_tasks(tasks)}


def partner_profiles(recipe: Recipe) -> list[Profile]:
    """The profiles partners are drawn from (empty when partners play without one).

    An explicit id that does not fit the game and the training tasks is an error, not dropped:
    the run would otherwise train against another partner set than the recipe states.
    """
    partner = recipe.partner
    if partner.kind in ("expert", "self", "none") or not partner.use_profile:
        return []
    from collabrl.profiles import get_profile, load_profiles

    game, tasks = recipe.game.name, task_names(recipe)
    if partner.profiles:
        chosen = [get_profile(p) for p in partner.profiles]
        misfit = next((p for p in chosen if p.game != game or p.task not in tasks), None)
        if misfit is not None:
            raise CollabrlError(
                f"partner.profiles: {misfit.id!r} is a {misfit.game} profile for task "
                f"{misfit.task!r}, not for a training task of this {game} recipe "
                f"(rollout.tasks: {_listing(tasks)})"
            )
        return chosen
    chosen = [p for p in load_profiles(game=game, split=partner.split) if p.task in tasks]
    if not chosen:
        raise CollabrlError(
            f"partner.split={partner.split}: no {game} profiles for the training tasks "
            f"({_listing(tasks)})"
        )
    return chosen


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped inside the package."""
    folder = resources.files("collabrl.recipes")
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def _read_recipe_text(name_or_path: str) -> tuple[str, str]:
    """(text, where) of a recipe given as a file path or the name of a shipped recipe."""
    path = Path(name_or_path).expanduser()
    if os.path.lexists(path):
        return read_text_file(path, "a recipe"), str(path)
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files("collabrl.recipes") / f"{stem}.yaml"
    if "/" not in stem and shipped.is_file():
        return shipped.read_text(encoding="utf-8"), f"recipes/{stem}.yaml"
    raise RecipeError(
        f"recipe {clip(repr(name_or_path))} is neither a file nor a shipped recipe; "
        f"shipped: {', '.join(shipped_recipes())}"
    )


MAX_PROBLEMS = 4  # problems listed in one error line; the wrong file can hold thousands


def describe_validation_error(err: ValidationError, model: type[BaseModel]) -> str:
    """The problems of a validation error, each as ``key: what is wrong``, on one line (the first
    MAX_PROBLEMS, then a count: a wrong file given as a recipe must not flood the terminal)."""
    problems = []
    for item in err.errors()[:MAX_PROBLEMS]:
        loc = ".".join(str(p) for p in item["loc"] if not str(p).startswith("function-"))
        # Discriminated unions add the tag ("household") to the path: drop it for readability.
        loc = clip(loc.replace(".household.", ".").replace(".kitchen.", "."))
        if item["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, item["loc"][:-1])
            problems.append(f"{loc}: unknown key; allowed: {', '.join(allowed)}")
        else:
            got = item.get("input")
            shown = (
                "" if isinstance(got, dict | list) or got is None else f" (got {clip(repr(got))})"
            )
            msg = " ".join(item["msg"].removeprefix("Value error, ").split())
            # model-level checks name their keys themselves
            problems.append(f"{loc}: {msg}{shown}" if loc else msg)
    more = err.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more problem(s)" if more else "")


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the section at ``loc`` (best effort; used to explain unknown keys)."""
    for part in loc:
        if part in ("household", "kitchen"):
            model = HouseholdSpec if part == "household" else KitchenSpec
            continue
        field = model.model_fields.get(str(part)) if isinstance(part, str) else None
        if field is None:
            continue
        annotation = field.annotation
        args = getattr(annotation, "__args__", ())
        candidates = [
            a for a in (annotation, *args) if isinstance(a, type) and issubclass(a, BaseModel)
        ]
        if candidates:
            model = candidates[0]
    return list(model.model_fields)


def apply_override(config: Any, item: str) -> None:
    """Set one ``a.b=c`` override (``players.0.kind=expert`` indexes lists); YAML-typed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RecipeError(f"override {item!r} must look like key=value (e.g. seed=3)")
    try:
        parsed = load_yaml(value, f"override {clip(repr(item))}") if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    try:
        OmegaConf.update(config, key, parsed, merge=False, force_add=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError, KeyError) as exc:
        message = clip(str(exc).splitlines()[0], 160)
        raise RecipeError(f"cannot apply override {clip(repr(item))}: {message}") from None


def _raw_recipe(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[Any, str]:
    """The recipe's YAML as an OmegaConf node, with its ``base:`` recipe merged underneath.

    ``base: cwah_gigpo`` lets an ablation recipe state only what it changes.
    """
    text, where = _read_recipe_text(name_or_path)
    raw = yaml_mapping(text, where, "a recipe")
    base = raw.pop("base", None)
    try:
        node = OmegaConf.create(raw)
    except OmegaConfBaseException as exc:
        raise RecipeError(f"{where}: {clip(str(exc).splitlines()[0], 160)}") from None
    if base is None:
        return node, where
    if not isinstance(base, str) or base in seen:
        raise RecipeError(f"{where}: base must name another recipe (and not form a cycle)")
    parent, _ = _raw_recipe(base, (*seen, name_or_path))
    parent_game = parent.get("game", {}).get("name")
    if isinstance(raw.get("game"), dict) and raw["game"].get("name") != parent_game:
        parent.pop("game", None)  # another game: its options replace the base's, not merge in
    return OmegaConf.merge(parent, node), where


def load_recipe(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> Recipe:
    """Read, merge overrides into, resolve and validate a recipe. Raises only RecipeError."""
    config, where = _raw_recipe(name_or_path)
    try:
        for item in overrides:
            apply_override(config, item)
        data = resolve_bounded(config, where)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError) as exc:
        message = clip(str(exc).splitlines()[0], 160)
        raise RecipeError(f"{where}: {message}") from None
    try:
        return Recipe.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{where}: {describe_validation_error(exc, Recipe)}") from None

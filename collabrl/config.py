"""Recipes: a YAML file plus ``a.b=c`` overrides, validated into one typed, printable object.

OmegaConf does the merging and ``${...}`` interpolation; pydantic does the validation. Every
validation problem becomes a one-line :class:`RecipeError` naming the key and what is allowed.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from collabrl.envs.kitchen.layouts import LAYOUT_NAMES as KITCHEN_LAYOUTS
from collabrl.errors import RecipeError
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.sft.config import SFTSpec


class Strict(BaseModel):
    """Base for recipe sections: unknown keys are errors, values are checked on assignment, and
    no float may be NaN or infinite."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class HouseholdSpec(Strict):
    """CWAH-MultiPlayer: one household task, played by ``len(seats)`` seats."""

    name: Literal["household"] = "household"
    task: str = "0_read_book"
    seats: list[str] = Field(default_factory=lambda: ["Alice", "Bob"], min_length=1)
    max_ticks: PositiveInt = 250
    max_decisions: PositiveInt = 50

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        from collabrl.envs.household.tasks import get_task

        try:
            get_task(task)
        except KeyError as exc:
            raise ValueError(str(exc)) from None
        return task


class KitchenSpec(Strict):
    """Cook-MultiPlayer: one Overcooked layout."""

    name: Literal["kitchen"] = "kitchen"
    layout: Literal[KITCHEN_LAYOUTS] = "cramped_room"  # type: ignore[valid-type]
    seats: list[str] = Field(default_factory=lambda: ["Player 0", "Player 1"], min_length=1)
    horizon: PositiveInt = 400  # 400 ticks for evaluation, 150 in training
    cooking: Literal["auto", "interact"] = "auto"  # auto: a full pot starts cooking by itself


GameSpec = Annotated[HouseholdSpec | KitchenSpec, Field(discriminator="name")]


class EngineSpec(Strict):
    """Which inference backend and model: a local HF folder, or a server-side model name."""

    backend: Literal["transformers", "openai", "vllm"] = "transformers"
    model: str = ""
    options: dict[str, Any] = Field(
        default_factory=dict
    )  # backend options (device, base_url_env...)


class SamplingSpec(Strict):
    """Sampling settings of one LLM role."""

    temperature: float = Field(0.7, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    max_new_tokens: PositiveInt = 512


class PlayerSpec(Strict):
    """Who fills a seat: a rule-based expert, a persona-scripted player, or an LLM."""

    kind: Literal["expert", "persona", "llm"] = "expert"
    profile: str | None = None  # profile id: required for persona, optional persona for llm
    engine: EngineSpec | None = None  # llm only
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)

    @model_validator(mode="after")
    def _complete(self) -> PlayerSpec:
        if self.kind == "persona" and not self.profile:
            raise ValueError("a persona player needs a profile id (players.N.profile=...)")
        if self.kind == "llm" and (self.engine is None or not self.engine.model):
            raise ValueError("an llm player needs engine.model (and engine.backend)")
        if self.profile:
            _check_profile(self.profile)
        return self


def _check_profile(profile_id: str) -> None:
    """Fail at recipe load, in one line, on a profile id that does not exist."""
    from collabrl.profiles import get_profile

    try:
        get_profile(profile_id)
    except Exception as exc:  # ProfileError: keep only its message
        raise ValueError(str(exc)) from None


class LoraSpec(Strict):
    """LoRA adapters (PEFT); the reference policy is the base model with adapters disabled."""

    rank: PositiveInt = 32
    alpha: PositiveInt = 16
    dropout: float = Field(0.0, ge=0, lt=1)
    target_modules: list[str] | str = "all-linear"


class PolicySpec(Strict):
    """The trained model and how it generates rollouts.

    ``model`` is an HF folder, or ``tiny``/``tiny-small`` for a seeded random model with its own
    tokenizer, created under the run directory (offline, for CPU runs and tests).
    """

    model: str = "tiny"
    backend: Literal["transformers", "vllm"] = "transformers"
    engine_options: dict[str, Any] = Field(default_factory=dict)
    lora: LoraSpec | None = None
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    max_prompt_tokens: PositiveInt = 4096  # longer prompts are cut from the left of history


class PartnerSpec(Strict):
    """Who plays beside the policy during training (profiles drawn per group)."""

    kind: Literal["persona", "llm", "expert", "none"] = "persona"
    split: Literal["train", "test"] = "train"  # which profiles partners are drawn from
    profiles: list[str] = Field(default_factory=list)  # explicit profile ids (else the split)
    use_profile: bool = True  # false: llm partners play without a persona (ablation)
    engine: EngineSpec | None = None  # llm partners
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)


class RolloutSpec(Strict):
    """G groups x N episodes; a group shares task, seed and partner profile."""

    groups: PositiveInt = 4
    episodes_per_group: PositiveInt = 8
    tasks: list[str] | Literal["train", "test"] = "train"  # household tasks / kitchen layouts
    target_seat: NonNegativeInt = 0
    max_decisions: PositiveInt = 50  # per seat and episode
    horizon: PositiveInt = 150  # kitchen ticks per training episode


class JudgeSpec(Strict):
    """The step-level interactivity judge."""

    kind: Literal["heuristic", "llm", "none"] = "heuristic"
    engine: EngineSpec | None = None
    sampling: SamplingSpec = Field(default_factory=lambda: SamplingSpec(temperature=0.0))


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
    lr: PositiveFloat = 1e-6
    weight_decay: NonNegativeFloat = 0.0
    warmup_steps: NonNegativeInt = 0  # optimizer steps of linear learning-rate warm-up
    mini_batch: PositiveInt = 32
    micro_batch: PositiveInt = 4
    epochs: PositiveInt = 1
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


class TrainSpec(Strict):
    """The outer loop: iterations, checkpoints, resume, logging."""

    iterations: PositiveInt = 100
    checkpoint_every: NonNegativeInt = 10  # 0: only at the end
    keep_checkpoints: PositiveInt = 2
    resume: bool = False
    wandb: Literal["auto", "online", "offline", "disabled"] = "auto"
    wandb_project: str = "collabrl"


class Recipe(Strict):
    """Everything one run needs; the resolved form is printed and recorded by every run."""

    name: str = "run"
    seed: StrictInt = 0
    episodes: PositiveInt = 1
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

    def to_yaml(self) -> str:
        """The fully resolved recipe as YAML (what runs print and record)."""
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped inside the package."""
    folder = resources.files("collabrl.recipes")
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def _read_recipe_text(name_or_path: str) -> tuple[str, str]:
    """(text, where) of a recipe given as a file path or the name of a shipped recipe."""
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path.read_text(encoding="utf-8"), str(path)
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files("collabrl.recipes") / f"{stem}.yaml"
    if "/" not in stem and shipped.is_file():
        return shipped.read_text(encoding="utf-8"), f"recipes/{stem}.yaml"
    raise RecipeError(
        f"recipe {name_or_path!r} is neither a file nor a shipped recipe; "
        f"shipped: {', '.join(shipped_recipes())}"
    )


def describe_validation_error(err: ValidationError, model: type[BaseModel]) -> str:
    """All problems of a validation error, each as ``key: what is wrong``, on one line."""
    problems = []
    for item in err.errors():
        loc = ".".join(str(p) for p in item["loc"] if not str(p).startswith("function-"))
        # Discriminated unions add the tag ("household") to the path: drop it for readability.
        loc = loc.replace(".household.", ".").replace(".kitchen.", ".")
        if item["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, item["loc"][:-1])
            problems.append(f"{loc}: unknown key; allowed: {', '.join(allowed)}")
        else:
            got = item.get("input")
            shown = "" if isinstance(got, dict | list) or got is None else f" (got {got!r})"
            msg = item["msg"].removeprefix("Value error, ")
            problems.append(f"{loc or 'recipe'}: {msg}{shown}")
    return "; ".join(problems)


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
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    try:
        OmegaConf.update(config, key, parsed, merge=False, force_add=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError, KeyError) as exc:
        raise RecipeError(f"cannot apply override {item!r}: {str(exc).splitlines()[0]}") from None


def _raw_recipe(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[Any, str]:
    """The recipe's YAML as an OmegaConf node, with its ``base:`` recipe merged underneath.

    ``base: cwah_gigpo`` lets an ablation recipe state only what it changes.
    """
    text, where = _read_recipe_text(name_or_path)
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise RecipeError(f"{where}: not valid YAML{at}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(raw, dict):
        raise RecipeError(f"{where}: a recipe must be a mapping of keys to values")
    base = raw.pop("base", None)
    try:
        node = OmegaConf.create(raw)
    except OmegaConfBaseException as exc:
        raise RecipeError(f"{where}: {str(exc).splitlines()[0]}") from None
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
        data = OmegaConf.to_container(config, resolve=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError) as exc:
        message = str(exc).splitlines()[0]
        raise RecipeError(f"{where}: {message}") from None
    try:
        return Recipe.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{where}: {describe_validation_error(exc, Recipe)}") from None

"""Recipe sections of ``collabrl train``: the policy, rollouts, the hybrid reward, the algorithm
and the outer loop (paper settings by default)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field, NonNegativeFloat, PositiveFloat, field_validator, model_validator

from collabrl.config.roles import EngineOptions, SamplingSpec, TrainingJudgeSpec
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.prompt_files import PromptLayout
from collabrl.sections import (
    MAX_BATCH,
    MAX_EPOCHS,
    MAX_GROUPS,
    MAX_ITERATIONS,
    MAX_LORA_RANK,
    MAX_PROMPT_TOKENS,
    PolicySeat,
    Strict,
)

Tracker = Literal[
    "jsonl",
    "wandb",
    "tensorboard",
    "mlflow",
    "aim",
    "clearml",
    "comet_ml",
    "dvclive",
    "swanlab",
    "trackio",
]
"""``jsonl`` (collabrl's own) and every tracker accelerate supports (``accelerate.tracking``)."""
DEFAULT_TRACKERS: tuple[Tracker, ...] = ("jsonl", "wandb")
TRACKER_PACKAGES: dict[str, str] = {
    name: name for name in get_args(Tracker) if name not in ("jsonl", "wandb")
}
"""tracker -> the module it needs, which ``collabrl[<tracker>]`` installs. W&B is left out: it is
a default tracker, skipped with a note when its extra is missing, so old recipes keep running."""
VALIDATION_SEATS: tuple[PolicySeat, ...] = (1,)
VERL_WEIGHT_DECAY = 0.01  # verl actor.optim.weight_decay, kept by the CollabBench scripts


class LoraSpec(Strict):
    """LoRA adapters (PEFT); the reference policy is the base model with adapters disabled."""

    rank: PositiveInt = Field(32, le=MAX_LORA_RANK)
    """Adapter rank r."""
    alpha: PositiveInt = 16
    """Adapter scaling alpha (the update is scaled by alpha / r)."""
    dropout: float = Field(0.0, ge=0, lt=1)
    """Dropout on the adapter input."""
    target_modules: list[str] | str = "all-linear"
    """Modules that get adapters: all-linear or a list of module names."""

    @field_validator("target_modules")
    @classmethod
    def _some_modules(cls, modules: list[str] | str) -> list[str] | str:
        """PEFT with no target modules either fails deep in model loading or trains nothing."""
        names = [modules] if isinstance(modules, str) else modules
        if not names or not all(name.strip() for name in names):
            raise ValueError("name at least one module, e.g. all-linear or [q_proj, v_proj]")
        return modules


MAX_BUCKET_MB = 1 << 20  # one weight-push bucket: 1 TiB, above any model's weights


class WeightSyncSpec(Strict):
    """How updated weights reach a vLLM rollout engine that shares the trainer's GPUs (the
    transformers engine holds the trainer's own model and needs none of this)."""

    sleep_level: Literal[0, 1, 2] = 0
    """vLLM sleeps during each update and wakes before the rollout: 0 never; 1 offloads its weights
    to CPU and drops the KV cache; 2 drops both (full-weight runs: the push restores them). Needs
    policy.engine_options.enable_sleep_mode."""
    bucket_mb: PositiveInt = Field(1024, le=MAX_BUCKET_MB)
    """Full-weight pushes send whole decoder layers in buckets of about this many MiB; under ZeRO-3
    each bucket is gathered alone, so a push never holds a full copy of the model."""


class PolicySpec(Strict):
    """The trained model and how it generates rollouts."""

    model: str = "tiny"
    """HF folder, or tiny/tiny-small: a seeded random model made under the run folder (offline)."""
    backend: Literal["transformers", "vllm"] = "transformers"
    """Rollout engine: transformers (CPU or GPU) or vllm (GPU)."""
    engine_options: EngineOptions = Field(default_factory=dict)
    """Options of the rollout engine (TransformersOptions / VLLMOptions); checked at lint."""
    lora: LoraSpec | None = None
    """LoRA adapters; None trains every weight."""
    gradient_checkpointing: bool = False
    """Keep only each decoder layer's input for backward and recompute the layer there: about
    L times less activation memory for one more forward (``collabrl plan`` shows both)."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    """Rollout sampling."""
    max_prompt_tokens: PositiveInt = Field(4096, le=MAX_PROMPT_TOKENS)
    """A longer prompt is not generated from: the decision is invalid and counted as a failure."""
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra variables of the tokenizer's chat template, e.g. {enable_thinking: false} for Qwen3,
    whose own thinking mode would collide with the <think> tag of our reply format."""
    weight_sync: WeightSyncSpec = Field(default_factory=WeightSyncSpec)
    """vLLM only: sleep during updates and how weights are pushed."""
    prompt: PromptLayout = "paper"
    """The agent prompt's layout: paper (the E.6 prompt with rules and answer format) or compact
    (the seat's name and the observation only, for a model trained from scratch: about 40% fewer
    prompt tokens per household decision). Demonstrations, training and validation use it."""

    @model_validator(mode="after")
    def _weight_sync_fits(self) -> PolicySpec:
        """Sleep settings that vLLM would reject, or that would lose weights, fail at lint."""
        level = self.weight_sync.sleep_level
        if level == 0:
            return self
        if self.backend != "vllm":
            raise ValueError(
                "policy.weight_sync.sleep_level puts vLLM to sleep: needs backend=vllm"
            )
        if not self.engine_options.get("enable_sleep_mode"):
            raise ValueError(
                "policy.weight_sync.sleep_level needs policy.engine_options.enable_sleep_mode=true"
            )
        if level == 2 and self.lora is not None:
            raise ValueError(
                "policy.weight_sync.sleep_level=2 drops vLLM's base weights, which a LoRA run never "
                "pushes (it pushes adapters): use sleep_level=1"
            )
        return self


class RolloutSpec(Strict):
    """G groups x N episodes; a group shares task, seed and partner profile. Episode limits
    (ticks, decisions, horizon) are the ``game`` section's."""

    groups: PositiveInt = Field(4, le=MAX_GROUPS)
    """G: groups per iteration (the paper: 4)."""
    episodes_per_group: PositiveInt = Field(8, le=MAX_GROUPS)
    """N: episodes per group (the paper: 8)."""
    tasks: list[str] | Literal["train", "test"] = "train"
    """Tasks (household tasks, kitchen layouts, ...) groups draw from: a split or a list."""
    target_seat: NonNegativeInt | list[NonNegativeInt] = 0
    """Index into game.seats of the seat the policy plays, or a list of indices: several trained
    seats in one run, played by one shared policy (the prompt names each seat, which conditions
    it on its role); each seat's decisions are batched in the same engine call and its advantages
    normalised within its own groups and anchor groups. The first listed seat is the lead seat:
    the one rollout records and demonstrations name as the agent's."""

    @field_validator("target_seat")
    @classmethod
    def _distinct_seats(cls, seats: int | list[int]) -> int | list[int]:
        """An empty list trains nothing; a repeated seat would count its decisions twice."""
        if isinstance(seats, list) and (not seats or len(set(seats)) != len(seats)):
            raise ValueError(f"give one or more distinct seat indices, got {seats}")
        return seats

    @property
    def trained_seats(self) -> tuple[int, ...]:
        """Every trained seat's index, the lead seat first."""
        seats = self.target_seat
        return tuple(seats) if isinstance(seats, list) else (seats,)

    @property
    def lead_seat(self) -> int:
        """The first trained seat (the only one in a one-seat run)."""
        return self.trained_seats[0]


class RewardSpec(Strict):
    """Hybrid reward weights (facts: efficiency, -0.1 format, +0.01 message, 0.25 x judge).

    Step rewards (the step-level signal, compared within anchor groups) are format +
    communication + judge (+ progress when set); the efficiency reward (its shape is the game
    section's) never enters them.
    """

    efficiency: float = 1.0
    """Weight of the trajectory efficiency reward."""
    format_penalty: float = -0.1
    """Step reward of a reply with a missing tag or an unavailable action."""
    communication: float = 0.01
    """Step reward of a valid step that sends a message."""
    judge_weight: float = 0.25
    """Step reward per judge level (levels 0.1 .. 1.0)."""
    judge: TrainingJudgeSpec = Field(default_factory=TrainingJudgeSpec)
    """The step-level interactivity judge (the paper's E.3 prompt; sampling and retries as the released training judge's)."""
    progress: NonNegativeFloat = 0.0
    """Step reward per goal unit the team completed before the seat's next decision (the paper:
    0; the released CWAH code: 0.2)."""
    episode_level: Literal["efficiency", "efficiency_plus_step"] = "efficiency"
    """What GiGPO's episode-level advantage compares: efficiency (the paper, 4.2.2: one value per
    episode) or efficiency_plus_step (the released code: efficiency + each sample's step terms)."""


class AlgoSpec(Strict):
    """GiGPO advantages + PPO-clip loss with a KL penalty (paper settings by default)."""

    name: Literal["gigpo", "grpo"] = "gigpo"
    """gigpo (episode + step advantages) or grpo (episode advantage only)."""
    omega: float = 1.0
    """Weight of the step-level advantage."""
    gamma: float = Field(0.0, ge=0, le=1)
    """Discount of step rewards within an episode."""
    norm: Literal["mean_std_norm", "mean_norm"] = "mean_std_norm"
    """Advantage normalisation within a group."""
    step_norm: Literal["mean_std_norm", "mean_norm"] | None = None
    """The step level's normalisation within anchor groups; None: as ``norm`` (the paper and the
    released code). mean_norm keeps the step rewards' own scale, so an anchor group whose judge
    levels barely differ does not weigh as much as a group of episodes that succeeded or failed."""
    clip: PositiveFloat = 0.2
    """PPO ratio clip."""
    dual_clip: NonNegativeFloat = 3.0
    """Dual-clip bound for negative advantages (0: off)."""
    kl_coef: NonNegativeFloat = 0.01
    """Weight of the KL penalty to the reference policy."""
    entropy_coef: NonNegativeFloat = 0.0
    """Weight of the entropy bonus."""
    lr: PositiveFloat = Field(1e-6, le=1.0)
    """Learning rate (above 1 nothing converges and Adam overflows float32)."""
    weight_decay: NonNegativeFloat = VERL_WEIGHT_DECAY
    """AdamW weight decay. The paper states none; 0.01 is verl's actor default, which the released CollabBench training scripts keep (0: no decay)."""
    warmup_steps: NonNegativeInt = Field(0, le=MAX_ITERATIONS)
    """Optimizer steps of linear learning-rate warm-up."""
    mini_batch: PositiveInt = Field(32, le=MAX_BATCH)
    """Samples per optimizer step."""
    micro_batch: PositiveInt = Field(4, le=MAX_BATCH)
    """Samples per forward pass."""
    epochs: PositiveInt = Field(1, le=MAX_EPOCHS)
    """Passes over one iteration's samples."""
    grad_clip: PositiveFloat = 1.0
    """Gradient norm clip."""
    drop_uniform_groups: bool = False
    """Dynamic sampling: skip groups with no nonzero advantage."""
    old_logprobs: Literal["trainer", "rollout"] = "trainer"
    """pi_old of the PPO ratio: trainer (recomputed before the update, as verl does) or rollout
    (the sampling engine's, free but biased when sampler and trainer differ)."""
    rollout_correction: Literal["none", "tis"] = "none"
    """tis: weight each token's loss by min(pi_old / pi_rollout, tis_cap); needs old_logprobs=trainer."""
    tis_cap: PositiveFloat = 2.0
    """Cap of the truncated importance weight."""
    nonfinite: Literal["stop", "skip"] = "stop"
    """A mini-batch whose loss or gradient is not finite: stop the run, or skip its step (metric
    skipped_steps). Non-finite weights stop the run either way and are never checkpointed."""

    @model_validator(mode="after")
    def _correction_needs_trainer_logprobs(self) -> AlgoSpec:
        if self.rollout_correction == "tis" and self.old_logprobs != "trainer":
            raise ValueError("rollout_correction=tis needs old_logprobs=trainer")
        return self


class DumpSpec(Strict):
    """Sampled rollouts written for ``collabrl view`` while a run trains (rollouts.jsonl)."""

    every: NonNegativeInt = Field(0, le=MAX_ITERATIONS)
    """Write sampled rollouts every N iterations; 0: never."""
    episodes: PositiveInt = Field(4, le=MAX_GROUPS * MAX_GROUPS)
    """Episodes written each time."""


ValidationMetric = Literal["efficiency", "affective", "helpfulness", "trustfulness", "empathy"]


class ValidationSpec(Strict):
    """Held-out evaluation during training, through the recipe's ``eval`` section (its partners,
    judge and game options) narrowed to a small subset; the best policy so far is kept in
    <run>/best."""

    every: NonNegativeInt = Field(0, le=MAX_ITERATIONS)
    """Validate every N iterations and after the last one; 0: never."""
    split: Literal["validation", "test"] = "validation"
    """What picks the best policy: validation (held-out training profiles on training tasks; those profiles are left out of the training partners' draw, never a task's last one, so every training task is still trained on; the test tasks and profiles stay unseen until the final evaluation, as the paper keeps them) or test (test tasks and profiles, as the released code validates on its test set). The run's training_set.json names what was held out."""
    tasks: PositiveInt | None = Field(2, le=MAX_GROUPS)
    """N of the split's tasks (the recipe's training tasks, or the game's test tasks), spread evenly over them (None: all)."""
    profiles_per_type: PositiveInt = Field(1, le=MAX_GROUPS)
    """Profiles per player type: split=test, on each task; split=validation, in all, taken in turn from the tasks (one per task a round) as long as each keeps a training profile."""
    against: Literal["training", "eval"] = "training"
    """Whose partner and judge validation plays with: training (the run's own partner and judge engine, scoring the evaluation's dimensions; a self-play or judge-free run takes the eval section's for those) or eval (the recipe's eval section's)."""
    seats: list[PolicySeat] = Field(default_factory=lambda: list(VALIDATION_SEATS), min_length=1)
    """Seats the policy plays: 1 (Agent 1), 2 (Agent 2) or both."""
    metric: ValidationMetric = "efficiency"
    """Overall metric that picks the best policy (efficiency in the game's direction, e.g. fewer
    household steps; the affective ones higher)."""


class TrainSpec(Strict):
    """The outer loop: iterations, checkpoints, resume, logging."""

    iterations: PositiveInt = Field(100, le=MAX_ITERATIONS)
    """Training iterations (one rollout + one update each)."""
    checkpoint_every: NonNegativeInt = Field(10, le=MAX_ITERATIONS)
    """Iterations between checkpoints; 0: only at the end."""
    keep_checkpoints: PositiveInt = 2
    """Newest checkpoints kept on disk."""
    resume: bool = False
    """Continue from the newest checkpoint in output_dir."""
    wandb: Literal["auto", "online", "offline", "disabled"] = "auto"
    """W&B mode; auto: online when WANDB_API_KEY is set, else offline."""
    wandb_project: str = "collabrl"
    """W&B project."""
    trackers: list[Tracker] = Field(default_factory=lambda: list(DEFAULT_TRACKERS))
    """Where metrics go: jsonl (metrics.jsonl, read by resume and the report), wandb (as
    train.wandb says; skipped with a note without collabrl[wandb]), tensorboard
    (<run>/tensorboard: a local dashboard, no account), or any other tracker accelerate supports
    (mlflow, aim, clearml, comet_ml, dvclive, swanlab, trackio: each needs collabrl[<name>] and
    reads its own settings and keys from its environment variables)."""
    max_failure_rate: float = Field(0.5, ge=0, le=1)
    """Stop when, in one iteration, more than this share of one role's requests failed (policy,
    LLM partner, judge); 1.0 never stops. Counts are logged either way."""
    dump_rollouts: DumpSpec = Field(default_factory=DumpSpec)
    """Sampled rollouts for the trajectory viewer."""
    validation: ValidationSpec = Field(default_factory=ValidationSpec)
    """Held-out evaluation while training, and the best policy kept."""

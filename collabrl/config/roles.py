"""Recipe sections for the roles an LLM or a scripted player can fill: engines, sampling, seat
players, training and evaluation partners, judges. Each is defined once; training and evaluation
read the same classes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from collabrl.engines.options import OPTIONS, option_names
from collabrl.errors import CollabrlError
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.prompt_files import PromptLayout
from collabrl.rewards.judges.llm import (
    EVAL_JUDGE_MAX_NEW_TOKENS,
    EVAL_JUDGE_RETRIES,
    TRAIN_JUDGE_MAX_NEW_TOKENS,
    TRAIN_JUDGE_RETRIES,
    TRAIN_JUDGE_TEMPERATURE,
)
from collabrl.sections import MAX_NEW_TOKENS, MAX_POLICY_RETRIES, Strict
from collabrl.settings_files import clip


def listing(names: Iterable[str], limit: int = 6) -> str:
    """The first few of ``names`` for a one-line message (``a, b, c, ... (40 in all)``)."""
    ordered = sorted(names)
    shown = ", ".join(ordered[:limit])
    return shown if len(ordered) <= limit else f"{shown}, ... ({len(ordered)} in all)"


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


EngineOptions = Annotated[dict[str, Any], AfterValidator(_check_engine_options)]
"""Option keys of an engine, checked against the options dataclass of the sibling ``backend``."""


class EngineSpec(Strict):
    """Which inference backend and model: a local HF folder, or a server-side model name."""

    backend: Literal["transformers", "openai", "vllm"] = "transformers"
    """Inference backend: local transformers, an OpenAI-compatible server, or vLLM."""
    model: str = ""
    """HF folder (transformers, vllm) or the server's model name (openai)."""
    options: EngineOptions = Field(default_factory=dict)
    """Backend options (device, base_url, ...); unknown keys are refused at lint."""


def require_engine(kind: str, engine: EngineSpec | None, role: str) -> None:
    """An LLM role without a model fails only when its first prompt is sent: refuse it at lint."""
    if kind == "llm" and (engine is None or not engine.model):
        raise ValueError(f"an llm {role} needs engine.model (and engine.backend)")


def check_profile(profile_id: str) -> None:
    """Fail at recipe load, in one line, on a profile id that does not exist."""
    from collabrl.profiles import get_profile

    try:
        get_profile(profile_id)
    except CollabrlError as exc:  # ProfileError: keep only its message
        raise ValueError(str(exc)) from None


class SamplingSpec(Strict):
    """Sampling settings of one LLM role."""

    temperature: float = Field(0.7, ge=0)
    """Sampling temperature; 0 is greedy decoding."""
    top_p: float = Field(1.0, gt=0, le=1)
    """Nucleus sampling mass."""
    max_new_tokens: PositiveInt = Field(512, le=MAX_NEW_TOKENS)
    """Longest completion, in tokens."""


class PlayerSpec(Strict):
    """Who fills a seat: a rule-based expert, a persona-scripted player, an LLM, or a person
    (``human``: played in the browser through ``collabrl serve``)."""

    kind: Literal["expert", "persona", "llm", "human", "idle", "silent", "random"] = "expert"
    """expert, persona (needs profile), llm (needs engine), human (collabrl serve), idle (never acts: the floor of a benchmark, the partner playing alone), or a non-LLM baseline of Tables 4-5 (collabrl.agents.baselines): silent (the expert that never sends a message) or random (a random offered action)."""
    profile: str | None = None
    """Profile id: required for persona, optional persona of an llm player."""
    engine: EngineSpec | None = None
    """The llm player's engine."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    """The llm player's sampling."""
    prompt: PromptLayout = "paper"
    """An llm player in the agent's seat: its prompt layout (paper or compact; see
    ``policy.prompt``). Evaluate a policy trained with the compact layout with compact."""
    vary_wording: bool = True
    """A persona never sends the same chat line twice in an episode: a phrase said already gives way to the next unsaid one of its bank, then to two joined, then to a marked repeat ("Again: ..."); its random draws and actions are unchanged. False: the earlier wording (repeats and all), which the README's pinned learning and team figures were measured with."""

    @model_validator(mode="after")
    def _complete(self) -> PlayerSpec:
        if self.kind == "persona" and not self.profile:
            raise ValueError("a persona player needs a profile id (players.N.profile=...)")
        require_engine(self.kind, self.engine, "player")
        if self.profile:
            check_profile(self.profile)
        return self


MOTION_PARTNERS = ("human_proxy", "population")
"""Partner kinds that move a kitchen chef tick by tick (motion seats) and read no profile."""
MixedPartner = Literal["persona", "expert", "human_proxy", "population"]
"""The partner kinds ``partner.kind=mix`` draws from (those needing no engine of their own)."""
DEFAULT_MIX: tuple[MixedPartner, ...] = ("persona", "population", "human_proxy")


class PartnerSpec(Strict):
    """Who plays beside the policy (training: profiles drawn per group; evaluation: one episode
    per test profile).

    ``persona``: scripted profile-driven players; ``llm``: an LLM role-playing the profile with
    the simulated-player prompt (``use_profile=false``: the same LLM and prompt without a profile,
    the paper's profile-free "homogeneous" partner); ``expert``: the rule-based expert, blind to
    profiles; ``human_proxy``: a partner cloned from recorded human play (the game's human
    proxies, built by ``collabrl partners build-human-proxy``; profile-blind; in the kitchen it
    moves its chef tick by tick, so its seats are motion seats); ``population``: a member of a
    trained partner population (the kitchen's self-play and FCP agents, ``collabrl partners
    train-sp`` / ``train-fcp``), drawn per episode seed, so one member per training group;
    profile-blind, motion seats like the human proxy; ``self``: the policy plays the partner seats
    itself (training: through its rollout engine, a frozen copy of the current weights refreshed
    every iteration, the paper's "w/o personality" ablation; evaluation: the evaluated policy,
    which for a run that trained both seats is its co-trained partner, the self-play column of a
    cross-play table); ``none`` (training only): single-seat games; ``mix`` (training only): each
    group draws its partner kind from ``partner.mix`` (persona players, population members, human
    proxies, the expert), so one run trains against all of them, one kind per group.
    """

    kind: Literal[
        "persona", "llm", "expert", "human_proxy", "population", "self", "none", "mix"
    ] = "persona"
    """persona, llm, expert, human_proxy, population, self (the policy itself), none (training, single seat) or mix (training: a kind per group, drawn from partner.mix)."""
    mix: list[MixedPartner] = Field(default_factory=lambda: list(DEFAULT_MIX), min_length=1)
    """mix: the partner kinds groups draw from, each equally likely (persona, expert, human_proxy, population); persona groups draw a profile as partner.kind=persona does, the others play profile-blind."""
    split: Literal["train", "test"] = "train"
    """Training: the profile split partners are drawn from."""
    profiles: list[str] = Field(default_factory=list)
    """Training: explicit partner profile ids (instead of the whole split)."""
    use_profile: bool = True
    """False: an llm partner plays without any profile (the homogeneous partner)."""
    retries: NonNegativeInt = Field(0, le=MAX_POLICY_RETRIES)
    """Extra attempts of an llm partner after an unusable reply (the parser's complaints shown), in training and evaluation alike: 0 is the paper's single pass, as for the policy (the released code asks once too and falls back to a listed action); 1 was collabrl's earlier default."""
    engine: EngineSpec | None = None
    """The llm partner's engine."""
    sampling: SamplingSpec = Field(default_factory=SamplingSpec)
    """The llm partner's sampling."""
    proxies: str | None = None
    """human_proxy: the folder of built human proxies (default: $COLLABRL_HUMAN_PROXIES, else the user cache where collabrl partners build-human-proxy writes them)."""
    population: str | None = None
    """population: the folder of trained partner populations (default: $COLLABRL_POPULATIONS, else the user cache where collabrl partners train-sp and train-fcp write them)."""
    members: list[str] = Field(default_factory=list)
    """population: the members drawn from (e.g. [sp0_final, fcp0]); empty: every stored member of the task but the untrained *_init checkpoints."""
    vary_wording: bool = True
    """A persona never sends the same chat line twice in an episode: a phrase said already gives way to the next unsaid one of its bank, then to two joined, then to a marked repeat ("Again: ..."); its random draws and actions are unchanged. False: the earlier wording (repeats and all), which the README's pinned learning and team figures were measured with."""

    @field_validator("profiles")
    @classmethod
    def _known_profiles(cls, profiles: list[str]) -> list[str]:
        for profile_id in profiles:
            check_profile(profile_id)
        return profiles

    @model_validator(mode="after")
    def _complete(self) -> PartnerSpec:
        require_engine(self.kind, self.engine, "partner")
        if len(set(self.mix)) < len(self.mix):
            raise ValueError(f"partner.mix names a kind twice: {self.mix}")
        if not self.use_profile and self.kind != "llm":
            raise ValueError(
                f"partner.use_profile=false is the profile-free LLM partner; "
                f"it needs partner.kind=llm, not {self.kind}"
            )
        return self

    @property
    def label(self) -> str:
        """How tables and stamps name this partner set."""
        if self.kind == "mix":
            return f"mix ({', '.join(self.mix)})"
        return "llm (homogeneous, no profile)" if not self.use_profile else self.kind

    def drawn(self, kind: str) -> PartnerSpec:
        """This partner set as one group of a mix plays it: ``kind`` in place of ``mix``."""
        return self.model_copy(update={"kind": kind})


MAX_JUDGE_RETRIES = 100


class JudgeSpec(Strict):
    """A judge: ``heuristic`` (the offline proxy, labelled in every report), ``llm`` (through
    ``engine``), or ``none`` (training only: no interactivity reward). The defaults are the
    released evaluation judges' (the paper gives none): greedy, 900 tokens, 3 retries."""

    kind: Literal["heuristic", "llm", "none"] = "heuristic"
    """heuristic, llm (needs engine) or none (training only)."""
    engine: EngineSpec | None = None
    """The llm judge's engine."""
    sampling: SamplingSpec = Field(
        default_factory=lambda: SamplingSpec(
            temperature=0.0, max_new_tokens=EVAL_JUDGE_MAX_NEW_TOKENS
        )
    )
    """The llm judge's sampling (greedy, 900 tokens: the released evaluation judges')."""
    retries: NonNegativeInt = Field(EVAL_JUDGE_RETRIES, le=MAX_JUDGE_RETRIES)
    """Further calls, each with a new seed, for a verdict the parser cannot read or an empty reply (3: the released evaluation judges'); each judgement records its attempts, and results.json their sum."""

    @model_validator(mode="after")
    def _engine_for_llm(self) -> JudgeSpec:
        require_engine(self.kind, self.engine, "judge")
        return self


class TrainingJudgeSpec(JudgeSpec):
    """The step-level interactivity judge of training, with the released training judge's
    defaults where the paper gives none: temperature 0.7, 8192 tokens, up to 50 retries of an
    unusable verdict (each counted in the iteration's ``retries/judge``)."""

    sampling: SamplingSpec = Field(
        default_factory=lambda: SamplingSpec(
            temperature=TRAIN_JUDGE_TEMPERATURE, max_new_tokens=TRAIN_JUDGE_MAX_NEW_TOKENS
        )
    )
    """The judge's sampling (the released training judge's: temperature 0.7, 8192 tokens)."""
    retries: NonNegativeInt = Field(TRAIN_JUDGE_RETRIES, le=MAX_JUDGE_RETRIES)
    """Further calls, each with a new seed, for an unusable verdict (50: the released training judge's); a verdict still unusable leaves the step's level missing."""

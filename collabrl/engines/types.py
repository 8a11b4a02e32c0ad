"""Records and the one interface every LLM in collabrl is called through.

Why: rollout, partner players, judges and evaluation all talk to LLMs; one result shape lets any
backend (local transformers, vLLM, a remote OpenAI-compatible server) fill any of those roles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Message = dict[str, str]
"""One chat turn: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""

Conversation = Sequence[Message]

FinishReason = Literal["stop", "length"]
"""``stop``: end-of-sequence token or a stop string; ``length``: hit ``max_new_tokens``."""

DEFAULT_STOP: tuple[str, ...] = ("</action>",)


@dataclass(frozen=True)
class SamplingParams:
    """How to sample. ``temperature == 0`` means greedy decoding.

    ``stop`` strings end a completion and are kept at the end of its text. ``seed`` makes a call
    reproducible; where a backend seeds requests one by one, request ``i`` uses ``seed + i`` so
    identical prompts in one batch (a GRPO group) still get different samples.
    """

    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 256
    stop: tuple[str, ...] = DEFAULT_STOP
    n: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        object.__setattr__(self, "stop", tuple(self.stop))

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


@dataclass
class Completion:
    """One sampled continuation.

    ``token_ids``/``logprobs`` are filled by policy engines (transformers, vLLM) and ``None`` for
    remote servers. ``logprobs[i]`` is ``log_softmax(logits / T)[token_ids[i]]`` under the
    generating model, with ``T`` the sampling temperature (``T = 1`` for greedy), over the full
    vocabulary: the quantity PPO needs as the old policy's logprob at the training temperature.
    """

    text: str
    finish_reason: FinishReason
    token_ids: list[int] | None = None
    logprobs: list[float] | None = None


@dataclass
class GenerationResult:
    """Everything about one request. A failed request has ``error`` set and no completions;
    failures are reported here, never raised for the whole batch."""

    completions: list[Completion] = field(default_factory=list)
    prompt_token_ids: list[int] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def text(self) -> str:
        """Text of the first completion ("" for a failed request): the common n=1 case."""
        return self.completions[0].text if self.completions else ""


@runtime_checkable
class Engine(Protocol):
    """Batched chat generation: one result per conversation, in order."""

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]: ...

    def close(self) -> None: ...

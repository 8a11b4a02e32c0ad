"""The options of each inference backend (``engine.options`` / ``policy.engine_options`` in a
recipe), apart from the engines themselves so that checking a recipe imports neither torch nor
vllm."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class TransformersOptions:
    """``device``: cpu, cuda, cuda:N or auto. ``dtype``: float32 (default; bf16 is far slower on
    most CPUs), bfloat16 or float16. ``batch_size``: most conversations per ``generate`` call
    (None: 1 on a CPU, where unpadded prompts take the fused causal attention kernel and decode
    faster one at a time than padded together, measured 1.4x on 2 cores; 64 on a GPU).
    ``max_context``: prompt + new tokens limit (default: the model's max positions)."""

    device: str = "cpu"
    dtype: str = "float32"
    batch_size: int | None = None
    max_context: int | None = None


@dataclass
class OpenAIOptions:
    """``base_url_env``/``api_key_env``: env var names tried in order (first one set wins; no key
    is fine for local servers). ``concurrency``: most requests in flight per call. ``cache_dir``:
    where ``responses.sqlite`` lives (None: no cache). ``extra_body``: merged into every request,
    e.g. ``{"include_stop_str_in_output": true}`` or ``{"top_k": 20}`` for vLLM."""

    base_url_env: tuple[str, ...] = ("COLLABRL_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    api_key_env: tuple[str, ...] = ("COLLABRL_OPENAI_API_KEY", "OPENAI_API_KEY")
    concurrency: int = 16
    timeout_s: float = 60.0
    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 30.0
    cache_dir: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("base_url_env", "api_key_env"):
            value = getattr(self, name)
            setattr(self, name, (value,) if isinstance(value, str) else tuple(value))
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")

    def base_url(self) -> str | None:
        """The server URL now: the first of ``base_url_env`` that is set (None: none is)."""
        return next((os.environ[n] for n in self.base_url_env if os.environ.get(n)), None)


@dataclass
class VLLMOptions:
    """Main ``vllm.LLM`` arguments; anything else goes in ``llm_kwargs`` unchanged."""

    dtype: str = "auto"
    gpu_memory_utilization: float = 0.5
    max_model_len: int | None = None
    enforce_eager: bool = False
    enable_sleep_mode: bool = False
    enable_lora: bool = False
    max_lora_rank: int = 16
    tensor_parallel_size: int = 1
    seed: int = 0
    llm_kwargs: dict[str, Any] = field(default_factory=dict)


OPTIONS = {"transformers": TransformersOptions, "openai": OpenAIOptions, "vllm": VLLMOptions}


def option_names(backend: str) -> frozenset[str]:
    """The keys a recipe may set in the options of ``backend``."""
    return frozenset(f.name for f in fields(OPTIONS[backend]))

"""Inference engines: one batched chat-generation interface over transformers, vLLM and
OpenAI-compatible servers. Backends are imported lazily by :func:`make_engine`."""

from collabrl.engines.factory import EngineConfig, MissingExtraError, make_engine
from collabrl.engines.types import (
    DEFAULT_STOP,
    Completion,
    Conversation,
    Engine,
    GenerationResult,
    Message,
    SamplingParams,
)

__all__ = [
    "DEFAULT_STOP",
    "Completion",
    "Conversation",
    "Engine",
    "EngineConfig",
    "GenerationResult",
    "Message",
    "MissingExtraError",
    "SamplingParams",
    "make_engine",
]

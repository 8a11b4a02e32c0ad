"""What an OpenAI-compatible server sends back, checked and cleaned before anything keeps it.

Why one module: server replies and error bodies are where outside text enters our records, caches
and logs. Checking every field the engine uses (types included) here turns an odd reply into one
recorded failure instead of a crash deep in a run, and redacting secrets here means no writer
downstream (trajectories, datasets, caches, log lines) has to remember to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from collabrl.errors import first_problem

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
"""A configured key shorter than this (local servers' placeholders such as ``EMPTY``) is not
redacted: replacing it everywhere would garble ordinary text and protect nothing."""

_KEY_PATTERNS = re.compile(
    r"(?P<bearer>\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}"  # an Authorization header's credentials
    r"|\bsk-[A-Za-z0-9_-]{16,}"  # OpenAI, DeepSeek, Anthropic API keys
    r"|\bhf_[A-Za-z0-9]{30,}"  # Hugging Face tokens
)

ERROR_CHARS = 200
"""The most characters of server text one error message keeps (an error page can be huge)."""


class MalformedReply(ValueError):
    """The server answered 200 with a body that is not a usable chat completion."""


class _Reply(BaseModel):
    """Strict types (``"12"`` is not a count); fields the engine does not use are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")


class _Message(_Reply):
    content: str


class _Choice(_Reply):
    message: _Message
    finish_reason: str | None = None
    stop_reason: str | int | None = None  # vLLM: the stop string that matched, or a token id


TokenCount = Annotated[int, Field(ge=0)] | None


class _Usage(_Reply):
    prompt_tokens: TokenCount = None
    completion_tokens: TokenCount = None


class ChatCompletion(_Reply):
    """The part of a ``/v1/chat/completions`` response the engine reads."""

    choices: list[_Choice] = Field(min_length=1)
    usage: _Usage | None = None


class Redactor:
    """Replaces configured keys and common key patterns in server text with ``[redacted]``."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # longest first, so a key that contains another is replaced whole
        self.secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True
        )

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return _KEY_PATTERNS.sub(lambda m: (m["bearer"] or "") + REDACTED, text)

    def __repr__(self) -> str:  # never show the keys
        return f"Redactor({len(self.secrets)} secrets)"


def error_text(text: str, redact: Redactor) -> str:
    """Server text fit for an error message: redacted, on one line (every line break, U+2028 and
    U+0085 included, becomes a space) and at most ``ERROR_CHARS`` long."""
    return " ".join(redact(text).split())[:ERROR_CHARS]


def parse_reply(body: bytes, redact: Redactor) -> dict[str, Any]:
    """Reduce a chat completion to what the cache keeps (choices' redacted text, finish and stop
    reasons; token counts), or raise :class:`MalformedReply` naming the first bad field."""
    try:
        reply = ChatCompletion.model_validate_json(body)
    except ValidationError as exc:
        raise MalformedReply(
            f"malformed response: {error_text(first_problem(exc), redact)}"
        ) from None
    usage = reply.usage or _Usage()
    return {
        "choices": [
            {
                "text": redact(c.message.content),
                "finish_reason": c.finish_reason,
                "stop_reason": c.stop_reason,
            }
            for c in reply.choices
        ],
        "prompt_tokens": usage.prompt_tokens or 0,
        "completion_tokens": usage.completion_tokens or 0,
    }

"""An in-process Engine whose replies come from a Python function.

Why: judges, summarisers and LLM players must be tested offline and deterministically; one
reusable stand-in that speaks the :class:`collabrl.engines.types.Engine` protocol (including
failed requests) keeps tests from each growing their own fake.

Usage::

    engine = ScriptedEngine(lambda conv: '{"flaws": []}')
    engine.generate([[{"role": "user", "content": "hi"}]], SamplingParams())
    engine.calls  # every conversation it was sent, in order
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from collabrl.engines.types import (
    Completion,
    Conversation,
    GenerationResult,
    Message,
    SamplingParams,
)

Reply = str | BaseException | None
"""Reply text, or an exception instance / None meaning the request failed."""


class ScriptedEngine:
    """Answers each conversation with ``reply(conversation)``; records calls and params."""

    def __init__(self, reply: Callable[[list[Message]], Reply]) -> None:
        self.reply = reply
        self.calls: list[list[Message]] = []
        self.params: list[SamplingParams] = []
        self.closed = False

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        self.params.append(params)
        return [self._one([dict(m) for m in conv]) for conv in conversations]

    def _one(self, conversation: list[Message]) -> GenerationResult:
        self.calls.append(conversation)
        answer = self.reply(conversation)
        if answer is None:
            return GenerationResult(error="scripted failure: no reply")
        if isinstance(answer, BaseException):
            return GenerationResult(error=f"scripted failure: {type(answer).__name__}: {answer}")
        tokens = len(answer.split())
        return GenerationResult(
            completions=[Completion(answer, "stop")],
            prompt_tokens=sum(len(m["content"].split()) for m in conversation),
            completion_tokens=tokens,
        )

    def close(self) -> None:
        self.closed = True

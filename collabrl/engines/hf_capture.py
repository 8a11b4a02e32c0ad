"""Hooks into ``transformers`` generation that record what the policy engine must return.

Why: ``generate`` only hands back token ids; PPO needs each sampled token's logprob under the raw
model at the sampling temperature, and the exact step where a stop string ended each row (after
that, rows are filled with pad tokens, which may equal the eos token).
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor, StoppingCriteria


class SampledLogprobRecorder(LogitsProcessor):
    """Placed first in the processor list, so it sees the raw logits of every step.

    Stores ``log_softmax(logits / T)`` for the step; the next call (whose ``input_ids`` end with
    the token sampled from it) gathers that token's value. Memory stays O(rows x vocab).
    """

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature if temperature > 0 else 1.0
        self._pending: torch.Tensor | None = None
        self._steps: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._pending is not None:
            self._gather(input_ids[:, -1])
        self._pending = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores

    def _gather(self, tokens: torch.Tensor) -> None:
        assert self._pending is not None
        self._steps.append(self._pending.gather(1, tokens[:, None]).squeeze(1))
        self._pending = None

    def finish(self, sequences: torch.Tensor) -> torch.Tensor:
        """Logprobs of all generated tokens, shape (rows, generated steps)."""
        if self._pending is not None:
            self._gather(sequences[:, -1])
        return torch.stack(self._steps, dim=1)


class StopStepRecorder(StoppingCriteria):
    """Wraps a stopping criterion and remembers after how many generated tokens each row first
    stopped (0 = never)."""

    def __init__(self, inner: StoppingCriteria, prompt_len: int) -> None:
        self.inner = inner
        self.prompt_len = prompt_len
        self.stopped_at: torch.Tensor | None = None

    def __call__(
        self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs
    ) -> torch.BoolTensor:
        done = self.inner(input_ids, scores, **kwargs)
        if self.stopped_at is None:
            self.stopped_at = torch.zeros(input_ids.shape[0], dtype=torch.long, device=done.device)
        first = done & (self.stopped_at == 0)
        self.stopped_at[first] = input_ids.shape[1] - self.prompt_len
        return done

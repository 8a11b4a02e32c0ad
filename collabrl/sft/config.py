"""The ``sft`` recipe section: where demonstrations go and how the policy is fine-tuned on them.

Kept free of torch and of :mod:`collabrl.config` imports so ``Recipe`` can hold an ``sft`` field
without an import cycle. Everything else SFT needs comes from the existing sections: the model and
LoRA from ``policy``, tasks and seat from ``rollout``, partners from ``partner``, the demonstrator
from ``players[rollout.target_seat]`` (expert, or llm for a teacher model), logging and checkpoint
retention from ``train``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, PositiveFloat

from collabrl.numbers import PositiveInt


class _Section(BaseModel):
    """Unknown keys are errors, values are checked on assignment, floats are finite (as every
    recipe section)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class DemoSpec(_Section):
    """How ``collabrl demos`` plays and records demonstrations."""

    path: str | None = None  # JSONL file; None: <output_dir>/demos.jsonl
    episodes: PositiveInt = 24  # episodes played, cycling over partner profiles (or tasks)
    successful_only: bool = True  # drop the decisions of episodes the team did not finish
    # text: the action copied as written (the demonstrator's own form); letter: just its letter,
    # which the answer format also accepts and small models learn far sooner than copying text
    action_style: Literal["text", "letter"] = "text"


class SFTSpec(_Section):
    """Supervised fine-tuning on demonstration responses (the loss ignores prompt tokens)."""

    demos: DemoSpec = Field(default_factory=DemoSpec)
    epochs: PositiveInt = 3
    lr: PositiveFloat = Field(1e-4, le=1.0)  # above 1 no fine-tune converges (a typo guard)
    weight_decay: NonNegativeFloat = 0.0
    schedule: Literal["constant", "linear", "cosine"] = "cosine"
    warmup_ratio: float = Field(0.05, ge=0, lt=1)  # share of optimizer steps spent warming up
    batch_size: PositiveInt = 8  # examples per optimizer step (per process)
    micro_batch: PositiveInt = 4  # examples per forward pass; the rest is accumulated
    grad_clip: PositiveFloat = 1.0
    max_length: PositiveInt = 4096  # prompt + response tokens
    overlong: Literal["skip", "truncate"] = "skip"  # truncate: cut the prompt from the left

"""The ``sft`` recipe section: where demonstrations go and how the policy is fine-tuned on them.

Settings only (no torch): the trainer in :mod:`collabrl.sft` reads it. Everything else SFT needs
comes from the existing sections: the model and LoRA from ``policy``, tasks and seat from
``rollout``, partners from ``partner``, the demonstrator from ``players[rollout.target_seat]``
(expert, or llm for a teacher model), logging and checkpoint retention from ``train``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeFloat, PositiveFloat

from collabrl.numbers import PositiveInt
from collabrl.sections import Strict


class DemoSpec(Strict):
    """How ``collabrl demos`` plays and records demonstrations."""

    path: str | None = None
    """JSONL file; None: <output_dir>/demos.jsonl."""
    episodes: PositiveInt = 24
    """Episodes played, cycling over partner profiles (or tasks)."""
    successful_only: bool = True
    """Drop the decisions of episodes the team did not finish."""
    action_style: Literal["text", "letter"] = "text"
    """text: the action copied as written (the demonstrator's own form); letter: just its letter,
    which the answer format also accepts and small models learn far sooner than copying text."""


class SFTSpec(Strict):
    """Supervised fine-tuning on demonstration responses (the loss ignores prompt tokens)."""

    demos: DemoSpec = Field(default_factory=DemoSpec)
    """How collabrl demos plays and records demonstrations."""
    epochs: PositiveInt = 3
    """Passes over the demonstrations."""
    lr: PositiveFloat = Field(1e-4, le=1.0)
    """Learning rate (at most 1: above it no fine-tune converges, so it is a typo)."""
    weight_decay: NonNegativeFloat = 0.0
    """AdamW weight decay."""
    schedule: Literal["constant", "linear", "cosine"] = "cosine"
    """Learning-rate schedule after warm-up."""
    warmup_ratio: float = Field(0.05, ge=0, lt=1)
    """Share of optimizer steps spent warming up."""
    batch_size: PositiveInt = 8
    """Examples per optimizer step (per process)."""
    micro_batch: PositiveInt = 4
    """Examples per forward pass; the rest is accumulated."""
    grad_clip: PositiveFloat = 1.0
    """Gradient norm clip."""
    max_length: PositiveInt = 4096
    """Prompt + response tokens."""
    overlong: Literal["skip", "truncate"] = "skip"
    """Truncate: cut the prompt from the left."""

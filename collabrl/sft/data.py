"""Demonstrations -> token ids, exactly as the policy sees prompts and writes responses.

prompt ids = the chat template with the assistant turn opened (what the rollout engine encodes);
response ids = the response text's tokens + the eos token, so the model also learns to stop.
Prompt and response are tokenised separately, as in rollouts, so SFT and RL see the same ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from collabrl.training.update import TokenBatch, collate


@dataclass
class Example:
    """One demonstration decision as token ids."""

    prompt_ids: list[int]
    response_ids: list[int]


@dataclass
class Tokenized:
    """The usable examples and how many over-long ones were cut or dropped."""

    examples: list[Example]
    truncated: int = 0
    skipped: int = 0


def prompt_ids(
    tokenizer, messages: Sequence[dict[str, str]], template_kwargs: Mapping[str, Any] | None = None
) -> list[int]:
    """Token ids of the chat with the assistant turn opened, as the rollout engine encodes it
    with the same chat-template variables (``policy.chat_template_kwargs``)."""
    text = tokenizer.apply_chat_template(
        list(messages), add_generation_prompt=True, tokenize=False, **(template_kwargs or {})
    )
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def tokenize_demos(
    rows: Sequence[dict],
    tokenizer,
    max_length: int,
    overlong: str,
    template_kwargs: Mapping[str, Any] | None = None,
) -> Tokenized:
    """Examples of demo ``rows``; an example longer than ``max_length`` is skipped, or with
    ``overlong="truncate"`` its prompt loses tokens from the left (its response is never cut).
    ``template_kwargs``: the policy's chat-template variables, so SFT prompts match rollouts."""
    out = Tokenized(examples=[])
    eos = tokenizer.eos_token_id
    for row in rows:
        prompt = prompt_ids(tokenizer, row["prompt"], template_kwargs)
        text = row["completion"][0]["content"]
        response = tokenizer(text, add_special_tokens=False)["input_ids"] + [eos]
        excess = len(prompt) + len(response) - max_length
        if excess > 0:
            if overlong != "truncate" or excess >= len(prompt):
                out.skipped += 1
                continue
            prompt = prompt[excess:]
            out.truncated += 1
        out.examples.append(Example(prompt, response))
    return out


def collate_examples(examples: Sequence[Example], pad_id: int) -> TokenBatch:
    """One right-padded batch; ``response_mask`` marks the positions that carry loss."""
    n = len(examples)
    return collate(
        [e.prompt_ids for e in examples],
        [e.response_ids for e in examples],
        [[0.0] * len(e.response_ids) for e in examples],
        [0.0] * n,
        pad_id,
    )


def response_nll(model: torch.nn.Module, batch: TokenBatch) -> tuple[torch.Tensor, torch.Tensor]:
    """(sum of -log p over response tokens, number of response tokens).

    Prompt positions and padding carry no loss: the model is taught to answer, not to reproduce
    observations. Logits are computed only from the first response position on
    (``logits_to_keep``), which saves the vocabulary projection over the long prompts.
    """
    mask = batch.response_mask
    length = batch.input_ids.shape[1]
    first = int(mask.any(dim=0).nonzero()[0])  # earliest position that predicts a response token
    keep = length - first
    logits = model(
        input_ids=batch.input_ids, attention_mask=batch.attention_mask, logits_to_keep=keep
    ).logits[:, :-1]
    chosen = mask[:, first:].bool()
    targets = batch.input_ids[:, first + 1 :][chosen]
    nll = torch.nn.functional.cross_entropy(logits[chosen].float(), targets, reduction="sum")
    return nll, mask.sum()

"""PPO-clip policy loss with dual clipping and the low-variance KL penalty, token-mean.

All tensors are [batch, response_len]; ``mask`` is 1 on response tokens that count and 0 on
padding, so prompt tokens never carry loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over the tokens where mask is 1 (token-mean across the whole batch)."""
    return (values * mask).sum() / mask.sum().clamp_min(1.0)


def low_var_kl(
    logprobs: torch.Tensor, ref_logprobs: torch.Tensor, limit: float = 10.0
) -> torch.Tensor:
    """k3 estimator of KL(policy || reference) per token: exp(d) - d - 1 with d = ref - logp.

    Always >= 0, unbiased, low variance; clamped to +-limit for numerical safety.
    """
    d = (ref_logprobs - logprobs).clamp(-20.0, 20.0)
    return (torch.exp(d) - d - 1.0).clamp(-limit, limit)


@dataclass
class PolicyLossStats:
    """What the trainer logs about one policy-loss evaluation."""

    clip_fraction: float
    approx_kl: float  # mean (old - new) logprob: how far the update moved the policy


def ppo_clip_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip: float = 0.2,
    dual_clip: float = 3.0,
    weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, PolicyLossStats]:
    """Clipped surrogate: -min(r A, clip(r, 1-e, 1+e) A), bounded below by -c A when A < 0.

    Dual clipping (c = ``dual_clip``) stops a huge ratio on a negative advantage from dominating.
    ``weights`` (no gradient) scale each token's loss, e.g. truncated importance weights that
    correct for a sampler that differs from the trainer.
    """
    ratio = torch.exp(logprobs - old_logprobs)
    unclipped = -advantages * ratio
    clipped = -advantages * ratio.clamp(1.0 - clip, 1.0 + clip)
    loss = torch.maximum(unclipped, clipped)
    if dual_clip:
        loss = torch.where(advantages < 0, torch.minimum(loss, -advantages * dual_clip), loss)
    if weights is not None:
        loss = loss * weights.detach()
    with torch.no_grad():
        clip_fraction = masked_mean((clipped > unclipped).float(), mask).item()
        approx_kl = masked_mean(old_logprobs - logprobs, mask).item()
    return masked_mean(loss, mask), PolicyLossStats(clip_fraction, approx_kl)


def entropy_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """Per-token entropy of the categorical distribution given by ``logits`` [..., vocab]."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)

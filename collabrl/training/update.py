"""One PPO epoch over the rollout's samples: mini-batches of micro-batches, token-mean loss.

loss = PPO-clip(ratio, A) + kl_coef * KL_k3(policy || reference) - entropy_coef * entropy,
averaged over every response token of a mini-batch (prompt tokens carry no loss). Micro-batches
accumulate gradients; each is weighted by its share of the mini-batch's tokens so the result is
the exact token mean whatever the micro-batch split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch

from collabrl.algos.ppo import entropy_from_logits, low_var_kl, masked_mean, ppo_clip_loss
from collabrl.config import AlgoSpec


@dataclass
class TokenBatch:
    """Right-padded prompt+response rows and per-position targets (position t predicts t+1)."""

    input_ids: torch.Tensor  # [B, L]
    attention_mask: torch.Tensor  # [B, L]
    response_mask: torch.Tensor  # [B, L-1]: 1 where the predicted token is a response token
    old_logprobs: torch.Tensor  # [B, L-1]
    advantages: torch.Tensor  # [B, L-1]: the sample's advantage on each of its tokens


def collate(
    prompts: Sequence[list[int]],
    responses: Sequence[list[int]],
    old_logprobs: Sequence[list[float]],
    advantages: Sequence[float],
    pad_id: int,
) -> TokenBatch:
    """Lay samples out as one right-padded batch (masks come from lengths, never from pad ids)."""
    length = max(len(p) + len(r) for p, r in zip(prompts, responses, strict=True))
    b = len(prompts)
    ids = torch.full((b, length), pad_id, dtype=torch.long)
    attn = torch.zeros((b, length), dtype=torch.long)
    resp = torch.zeros((b, length - 1))
    old = torch.zeros((b, length - 1))
    adv = torch.zeros((b, length - 1))
    for i, (p, r, lp, a) in enumerate(
        zip(prompts, responses, old_logprobs, advantages, strict=True)
    ):
        n = len(p) + len(r)
        ids[i, :n] = torch.tensor(p + r)
        attn[i, :n] = 1
        # the token at position len(p)+k is predicted at position len(p)+k-1
        span = slice(len(p) - 1, n - 1)
        resp[i, span] = 1.0
        old[i, span] = torch.tensor(lp, dtype=torch.float32)
        adv[i, span] = float(a)
    return TokenBatch(ids, attn, resp, old, adv)


def token_logprobs(
    model: torch.nn.Module, batch: TokenBatch, temperature: float, with_entropy: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """log pi(token) at the sampling temperature for every position, and optionally entropy."""
    logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits
    logits = logits[:, :-1].float() / max(temperature, 1e-6)
    logp = torch.log_softmax(logits, dim=-1)
    chosen = logp.gather(-1, batch.input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    return chosen, (entropy_from_logits(logits) if with_entropy else None)


@dataclass
class UpdateStats:
    """Averages over the mini-batches of one update."""

    loss: float
    pg_loss: float
    kl: float
    entropy: float
    clip_fraction: float
    approx_kl: float
    grad_norm: float
    mismatch: float  # mean |rollout logprob - trainer logprob| before the first step
    mini_batches: int
    tokens: int


def ppo_update(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    accelerator,  # accelerate.Accelerator
    samples: Sequence,  # rollout Samples with prompt_ids/response_ids/old_logprobs
    advantages: Sequence[float],
    algo: AlgoSpec,
    temperature: float,
    pad_id: int,
    reference: Callable[[TokenBatch], torch.Tensor] | None,
    rng: np.random.Generator,
) -> UpdateStats:
    """Run ``algo.epochs`` passes of mini-batch PPO. ``reference(batch)`` gives the reference
    policy's token logprobs (None when the KL term is off)."""
    device = accelerator.device
    totals: dict[str, float] = {}
    mini_batches = tokens = 0
    mismatch: list[float] = []
    micro_per_mini = max(1, algo.mini_batch // algo.micro_batch)
    for _ in range(algo.epochs):
        order = rng.permutation(len(samples))
        for start in range(0, len(order), algo.mini_batch):
            chosen = order[start : start + algo.mini_batch]
            micro = [
                chosen[k : k + algo.micro_batch] for k in range(0, len(chosen), algo.micro_batch)
            ]
            mini_tokens = sum(len(samples[i].response_ids) for i in chosen)
            stats = _mini_batch(
                model,
                optimizer,
                scheduler,
                accelerator,
                samples,
                advantages,
                micro,
                micro_per_mini,
                mini_tokens,
                algo,
                temperature,
                pad_id,
                reference,
                device,
                mismatch if mini_batches == 0 else None,
            )
            for key, value in stats.items():
                totals[key] = totals.get(key, 0.0) + value
            mini_batches += 1
            tokens += mini_tokens
    mean = {k: v / max(mini_batches, 1) for k, v in totals.items()}
    return UpdateStats(
        loss=mean.get("loss", 0.0),
        pg_loss=mean.get("pg_loss", 0.0),
        kl=mean.get("kl", 0.0),
        entropy=mean.get("entropy", 0.0),
        clip_fraction=mean.get("clip_fraction", 0.0),
        approx_kl=mean.get("approx_kl", 0.0),
        grad_norm=mean.get("grad_norm", 0.0),
        mismatch=float(np.mean(mismatch)) if mismatch else 0.0,
        mini_batches=mini_batches,
        tokens=tokens,
    )


def _mini_batch(
    model,
    optimizer,
    scheduler,
    accelerator,
    samples,
    advantages,
    micro,
    micro_per_mini,
    mini_tokens,
    algo,
    temperature,
    pad_id,
    reference,
    device,
    mismatch,
) -> dict[str, float]:
    """Accumulate gradients over the micro-batches, then take one optimizer step.

    Short mini-batches are topped up with empty micro-batches so every optimizer step sees the
    same number of accumulation steps (DeepSpeed counts them).
    """
    out = {
        "loss": 0.0,
        "pg_loss": 0.0,
        "kl": 0.0,
        "entropy": 0.0,
        "clip_fraction": 0.0,
        "approx_kl": 0.0,
    }
    micro = list(micro) + [[]] * (micro_per_mini - len(micro))
    for k, indices in enumerate(micro):
        is_last = k == len(micro) - 1
        sync = nullcontext() if is_last else accelerator.no_sync(model)
        with sync:
            if len(indices) == 0:
                dummy = sum(p.sum() * 0.0 for p in model.parameters() if p.requires_grad)
                accelerator.backward(dummy)
                continue
            batch = collate(
                [samples[i].prompt_ids for i in indices],
                [samples[i].response_ids for i in indices],
                [samples[i].old_logprobs for i in indices],
                [advantages[i] for i in indices],
                pad_id,
            )
            batch = TokenBatch(*(t.to(device) for t in batch.__dict__.values()))
            logp, entropy = token_logprobs(model, batch, temperature, algo.entropy_coef > 0)
            mask = batch.response_mask
            if mismatch is not None:
                with torch.no_grad():
                    diff = masked_mean((logp - batch.old_logprobs).abs(), mask)
                    mismatch.append(float(diff))
            pg, pstats = ppo_clip_loss(
                logp,
                batch.old_logprobs,
                batch.advantages,
                mask,
                clip=algo.clip,
                dual_clip=algo.dual_clip,
            )
            loss = pg
            kl_value = torch.zeros(())
            if reference is not None and algo.kl_coef > 0:
                with torch.no_grad():
                    ref_logp = reference(batch)
                kl_value = masked_mean(low_var_kl(logp, ref_logp), mask)
                loss = loss + algo.kl_coef * kl_value
            ent_value = masked_mean(entropy, mask) if entropy is not None else torch.zeros(())
            loss = loss - algo.entropy_coef * ent_value
            # token-mean over the whole mini-batch: weight by this micro-batch's share of tokens;
            # accelerate divides by its accumulation steps, so multiply that back in.
            weight = mask.sum() / max(mini_tokens, 1) * accelerator.gradient_accumulation_steps
            accelerator.backward(loss * weight)
            share = float(mask.sum()) / max(mini_tokens, 1)
            out["loss"] += loss.item() * share
            out["pg_loss"] += pg.item() * share
            out["kl"] += kl_value.item() * share
            out["entropy"] += ent_value.item() * share
            out["clip_fraction"] += pstats.clip_fraction * share
            out["approx_kl"] += pstats.approx_kl * share
    grad_norm = accelerator.clip_grad_norm_(model.parameters(), algo.grad_clip)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    out["grad_norm"] = float(grad_norm) if grad_norm is not None else 0.0
    return out

"""One PPO epoch over the rollout's samples: mini-batches of micro-batches, token-mean loss.

loss = PPO-clip(ratio, A) + kl_coef * KL_k3(policy || reference) - entropy_coef * entropy,
averaged over every response token of a mini-batch (prompt tokens carry no loss). Micro-batches
accumulate gradients; each is weighted by its share of the mini-batch's tokens so the result is
the exact token mean whatever the micro-batch split.

pi_old (the ratio's denominator) is recomputed by the trainer before the update
(:func:`trainer_logprobs`, one no-grad forward per sample); the sampling engine's logprobs are
kept to measure the sampler/trainer gap and, optionally, to correct for it (truncated
importance sampling).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar, overload

import numpy as np
import torch

from collabrl.algos.ppo import entropy_from_logits, low_var_kl, masked_mean, ppo_clip_loss
from collabrl.config import AlgoSpec
from collabrl.errors import NonFiniteError

if TYPE_CHECKING:
    import numpy.typing as npt
    from accelerate import Accelerator

T = TypeVar("T")


@dataclass
class TokenBatch:
    """Right-padded prompt+response rows and per-position targets (position t predicts t+1)."""

    input_ids: torch.Tensor  # [B, L]
    attention_mask: torch.Tensor  # [B, L]
    response_mask: torch.Tensor  # [B, L-1]: 1 where the predicted token is a response token
    old_logprobs: torch.Tensor  # [B, L-1]: pi_old of the PPO ratio
    advantages: torch.Tensor  # [B, L-1]: the sample's advantage on each of its tokens
    rollout_logprobs: torch.Tensor  # [B, L-1]: the sampler's logprobs (for rollout correction)


def collate(
    prompts: Sequence[list[int]],
    responses: Sequence[list[int]],
    old_logprobs: Sequence[list[float]],
    advantages: Sequence[float],
    pad_id: int,
    rollout_logprobs: Sequence[list[float]] | None = None,
) -> TokenBatch:
    """Lay samples out as one right-padded batch (masks come from lengths, never from pad ids).
    Without ``rollout_logprobs`` the sampler is taken to be pi_old."""
    rollout_logprobs = old_logprobs if rollout_logprobs is None else rollout_logprobs
    length = max(len(p) + len(r) for p, r in zip(prompts, responses, strict=True))
    b = len(prompts)
    ids = torch.full((b, length), pad_id, dtype=torch.long)
    attn = torch.zeros((b, length), dtype=torch.long)
    resp, old, adv, sampled = (torch.zeros((b, length - 1)) for _ in range(4))
    rows = zip(prompts, responses, old_logprobs, advantages, rollout_logprobs, strict=True)
    for i, (p, r, lp, a, rp) in enumerate(rows):
        n = len(p) + len(r)
        ids[i, :n] = torch.tensor(p + r)
        attn[i, :n] = 1
        # the token at position len(p)+k is predicted at position len(p)+k-1
        span = slice(len(p) - 1, n - 1)
        resp[i, span] = 1.0
        old[i, span] = torch.tensor(lp, dtype=torch.float32)
        adv[i, span] = float(a)
        sampled[i, span] = torch.tensor(rp, dtype=torch.float32)
    return TokenBatch(ids, attn, resp, old, adv, sampled)


def token_logprobs(
    model: torch.nn.Module,
    batch: TokenBatch,
    temperature: float,
    with_entropy: bool = False,
    entropy_grad: bool = True,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """log pi(token) at the sampling temperature for every position [B, L-1], and optionally
    entropy (without a gradient unless ``entropy_grad``: measured, not trained on).

    Only positions from the batch's first response position on get logits
    (``logits_to_keep``); earlier positions, all prompt, are 0. Why: a prompt is tens of times
    longer than its reply, and the vocabulary projection and softmax over every prompt position
    were most of a small model's update time, for values the masks then drop."""
    length = batch.input_ids.shape[1]
    reply = batch.response_mask.any(dim=0).nonzero()
    first = int(reply[0]) if len(reply) else length - 1
    logits = model(
        input_ids=batch.input_ids,
        attention_mask=batch.attention_mask,
        logits_to_keep=length - first,
    ).logits
    logits = logits[:, :-1].float() / max(temperature, 1e-6)
    logp = torch.log_softmax(logits, dim=-1)
    chosen = logp.gather(-1, batch.input_ids[:, first + 1 :].unsqueeze(-1)).squeeze(-1)
    pad = (first, 0)  # back to [B, L-1]: the prompt positions carry no loss
    entropy = None
    if with_entropy:
        source = logits if entropy_grad else logits.detach()
        entropy = torch.nn.functional.pad(entropy_from_logits(source), pad)
    return torch.nn.functional.pad(chosen, pad), entropy


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
    mini_batches: int  # optimizer steps taken
    tokens: int
    skipped_steps: int  # mini-batches whose gradient was not finite (algo.nonfinite=skip)


@dataclass
class Optimisation:
    """Everything a PPO step needs besides the data (kept together so helpers stay short)."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    accelerator: Accelerator
    algo: AlgoSpec
    temperature: float
    pad_id: int
    reference: Callable[[TokenBatch], torch.Tensor] | None  # reference logprobs; None: no KL


@dataclass
class OldLogprobs:
    """pi_old per sample (one list per sample, one value per response token) and how far the
    sampler's logprobs were from the trainer's (mean and max absolute difference over tokens;
    None when pi_old is the sampler's own)."""

    values: list[list[float]]
    mismatch_mean: float | None = None
    mismatch_max: float | None = None


def _most_over_ranks(accelerator, count: int) -> int:
    """The largest ``count`` over the data-parallel ranks (every rank must run as many
    collective forwards and optimizer steps; one with less work pads)."""
    if accelerator.num_processes == 1:
        return count
    return int(accelerator.gather(torch.tensor([count], device=accelerator.device)).max())


def trainer_logprobs(opt: Optimisation, samples: Sequence) -> OldLogprobs:
    """pi_old as the trainer's model computes it (no gradient, micro-batch by micro-batch), and
    the sampler/trainer mismatch. Costs one forward pass per sample."""
    size = opt.algo.micro_batch
    chunks = [list(range(k, min(k + size, len(samples)))) for k in range(0, len(samples), size)]
    values: list[list[float]] = []
    gaps: list[torch.Tensor] = []
    with torch.no_grad():
        for c in range(_most_over_ranks(opt.accelerator, len(chunks))):
            if c >= len(chunks):
                padding_forward(opt.accelerator, opt.model, opt.pad_id)
                continue
            chosen = [samples[i] for i in chunks[c]]
            batch = _batch(opt, chosen, [0.0] * len(chosen), [s.rollout_logprobs for s in chosen])
            logp, _ = token_logprobs(opt.model, batch, opt.temperature)
            for row, s in enumerate(chosen):
                start = len(s.prompt_ids) - 1
                values.append(logp[row, start : start + len(s.response_ids)].tolist())
            gaps.append((logp - batch.rollout_logprobs).abs()[batch.response_mask.bool()].cpu())
    gap = torch.cat(gaps) if gaps else torch.zeros(0)
    if not gap.numel():
        return OldLogprobs(values)
    return OldLogprobs(values, float(gap.mean()), float(gap.max()))


def rollout_logprobs(samples: Sequence) -> OldLogprobs:
    """pi_old taken from the sampling engine (``algo.old_logprobs=rollout``)."""
    return OldLogprobs([list(s.rollout_logprobs) for s in samples])


def ppo_update(
    opt: Optimisation,
    samples: Sequence,  # rollout Samples with prompt_ids/response_ids/rollout_logprobs
    advantages: Sequence[float],
    old: Sequence[list[float]],  # pi_old per sample
    rng: np.random.Generator,
) -> UpdateStats:
    """Run ``algo.epochs`` passes of mini-batch PPO over ``samples`` in a shuffled order."""
    algo = opt.algo
    totals: dict[str, float] = {}
    mini_batches = tokens = skipped = 0
    micro_per_mini = max(1, algo.mini_batch // algo.micro_batch)
    n_mini = _most_over_ranks(opt.accelerator, -(-len(samples) // algo.mini_batch))
    for _ in range(algo.epochs):
        order = rng.permutation(len(samples))
        for m in range(n_mini):
            chosen = order[m * algo.mini_batch : (m + 1) * algo.mini_batch]
            micro: list[npt.NDArray[np.int64] | list[int]] = [
                chosen[k : k + algo.micro_batch] for k in range(0, len(chosen), algo.micro_batch)
            ]
            micro += [[]] * (micro_per_mini - len(micro))
            mini_tokens = sum(len(samples[i].response_ids) for i in chosen)
            batches = [
                _batch(
                    opt,
                    [samples[i] for i in m],
                    [advantages[i] for i in m],
                    [old[i] for i in m],
                )
                if len(m)
                else None
                for m in micro
            ]
            stats = _mini_batch(opt, batches, mini_tokens)
            if stats is None:
                skipped += 1
                continue
            for key, value in stats.items():
                totals[key] = totals.get(key, 0.0) + value
            mini_batches += 1
            tokens += mini_tokens
    mean = {k: v / max(mini_batches, 1) for k, v in totals.items()}
    return UpdateStats(
        **{f: mean.get(f, 0.0) for f in STAT_FIELDS},
        mini_batches=mini_batches,
        tokens=tokens,
        skipped_steps=skipped,
    )


STAT_FIELDS = ("loss", "pg_loss", "kl", "entropy", "clip_fraction", "approx_kl", "grad_norm")


def _batch(
    opt: Optimisation,
    samples: Sequence,
    advantages: Sequence[float],
    old: Sequence[list[float]],
) -> TokenBatch:
    """A micro-batch on the training device."""
    batch = collate(
        [s.prompt_ids for s in samples],
        [s.response_ids for s in samples],
        old,
        advantages,
        opt.pad_id,
        [s.rollout_logprobs for s in samples],
    )
    return TokenBatch(*(t.to(opt.accelerator.device) for t in batch.__dict__.values()))


def _micro_loss(opt: Optimisation, batch: TokenBatch) -> tuple[torch.Tensor, dict[str, float]]:
    """The token-mean loss of one micro-batch and its parts."""
    algo = opt.algo
    # the entropy is always measured (logged), and differentiated only when it is in the loss
    logp, entropy = token_logprobs(
        opt.model, batch, opt.temperature, with_entropy=True, entropy_grad=algo.entropy_coef > 0
    )
    mask = batch.response_mask
    weights = None
    if algo.rollout_correction == "tis":  # truncated importance weight pi_old / pi_rollout
        weights = torch.exp(batch.old_logprobs - batch.rollout_logprobs).clamp(max=algo.tis_cap)
    pg, pstats = ppo_clip_loss(
        logp,
        batch.old_logprobs,
        batch.advantages,
        mask,
        clip=algo.clip,
        dual_clip=algo.dual_clip,
        weights=weights,
    )
    loss = pg
    kl = torch.zeros(())
    if opt.reference is not None and algo.kl_coef > 0:
        with torch.no_grad():
            ref_logp = opt.reference(batch)
        kl = masked_mean(low_var_kl(logp, ref_logp), mask)
        loss = loss + algo.kl_coef * kl
    assert entropy is not None, "token_logprobs measures it when asked"
    ent = masked_mean(entropy, mask)
    if algo.entropy_coef > 0:
        loss = loss - algo.entropy_coef * ent
    parts = {
        "loss": loss.item(),
        "pg_loss": pg.item(),
        "kl": kl.item(),
        "entropy": ent.item(),
        "clip_fraction": pstats.clip_fraction,
        "approx_kl": pstats.approx_kl,
    }
    return loss, parts


def accumulate(
    accelerator, model, items: Sequence[T | None], backward_one: Callable[[T], None], pad_id: int
) -> None:
    """Backward over micro-batches with gradients synchronised only on the last one.

    ``None`` items (padding that keeps the accumulation count fixed) run a real 1x2-token forward
    with zero loss, so DDP and ZeRO-3 see the same collectives on every rank. DeepSpeed steps
    inside ``backward`` whenever ``sync_gradients`` is set (``no_sync`` does not clear it), so
    only the last micro-batch is marked as the boundary.
    """
    for k, item in enumerate(items):
        last = k == len(items) - 1
        accelerator.sync_gradients = last
        with nullcontext() if last else accelerator.no_sync(model):
            if item is None:
                accelerator.backward(padding_forward(accelerator, model, pad_id).sum() * 0.0)
            else:
                backward_one(item)


def padding_forward(accelerator, model, pad_id: int) -> torch.Tensor:
    """A real 1x2-token forward (float logits): the collectives of a forward pass, no data."""
    ids = torch.full((1, 2), pad_id, dtype=torch.long, device=accelerator.device)
    return model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits.float()


@overload
def optimizer_step(
    accelerator, model, optimizer, scheduler, grad_clip: float, skip_nonfinite: Literal[False] = ...
) -> float: ...
@overload
def optimizer_step(
    accelerator, model, optimizer, scheduler, grad_clip: float, skip_nonfinite: bool
) -> float | None: ...
def optimizer_step(
    accelerator, model, optimizer, scheduler, grad_clip: float, skip_nonfinite: bool = False
) -> float | None:
    """Clip, step, schedule, zero; returns the gradient norm before clipping.

    A gradient that is not finite (a NaN or infinite loss gives one) is never applied: it raises
    :class:`NonFiniteError`, or with ``skip_nonfinite`` the step is skipped and None returned.
    (Under DeepSpeed the engine steps inside ``backward``; the loop's weight check covers it.)
    """
    grad_norm = accelerator.clip_grad_norm_(model.parameters(), grad_clip)
    norm = float(grad_norm) if grad_norm is not None else 0.0
    if not math.isfinite(norm):
        optimizer.zero_grad(set_to_none=True)
        if skip_nonfinite:
            return None
        raise NonFiniteError(
            f"the gradient norm is {norm}: the loss or gradient is not finite; lower the "
            "learning rate, or set algo.nonfinite=skip to skip such steps"
        )
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return norm


def _mini_batch(
    opt: Optimisation, batches: Sequence[TokenBatch | None], mini_tokens: int
) -> dict[str, float] | None:
    """Accumulate gradients over the micro-batches, then take one optimizer step (None: the
    step was skipped, its gradient not being finite).

    Short mini-batches arrive topped up with empty (None) micro-batches so every optimizer step
    sees the same number of accumulation steps (DeepSpeed counts them).
    """
    accelerator = opt.accelerator
    out = dict.fromkeys(STAT_FIELDS[:-1], 0.0)

    def backward_one(batch: TokenBatch) -> None:
        loss, parts = _micro_loss(opt, batch)
        # token-mean over the whole mini-batch: weight by this micro-batch's share of tokens;
        # accelerate divides by its accumulation steps, so multiply that back in.
        share = float(batch.response_mask.sum()) / max(mini_tokens, 1)
        accelerator.backward(loss * share * accelerator.gradient_accumulation_steps)
        for key, value in parts.items():
            out[key] += value * share

    accumulate(accelerator, opt.model, batches, backward_one, opt.pad_id)
    skip = opt.algo.nonfinite == "skip"
    norm = optimizer_step(
        accelerator, opt.model, opt.optimizer, opt.scheduler, opt.algo.grad_clip, skip
    )
    if norm is None:
        return None
    out["grad_norm"] = norm
    return out

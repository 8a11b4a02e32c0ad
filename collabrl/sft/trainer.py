"""Supervised fine-tuning on demonstrations, top to bottom: data -> policy -> epochs -> HF folder.

Uses the RL loop's building blocks (policy loading with optional LoRA, ``Accelerator`` so the same
DeepSpeed configs work, ``RunLogger``, atomic ``save_checkpoint``), so an SFT run looks like a
GiGPO run on disk. With LoRA, each checkpoint's ``policy/`` folder holds the *merged* weights: it
loads with ``AutoModelForCausalLM.from_pretrained`` (so ``collabrl eval --checkpoint`` and
``policy.model=<folder>`` accept it) and vLLM can serve it.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from collabrl.config import Recipe
from collabrl.config.sft import SFTSpec
from collabrl.errors import CollabrlError
from collabrl.records import RunClaim
from collabrl.sft.data import Example, collate_examples, response_nll, tokenize_demos
from collabrl.sft.demos import demos_path, read_demos
from collabrl.training.checkpoint import resume_settings, save_checkpoint
from collabrl.training.logging import RunLogger
from collabrl.training.policy import fill_deepspeed_config, load_policy, start_run
from collabrl.training.update import TokenBatch, accumulate, optimizer_step


def train_sft(recipe: Recipe, spec: SFTSpec, overwrite: bool = False) -> Path:
    """Fine-tune ``recipe.policy`` on the demonstrations; returns the final policy folder.
    ``overwrite``: move a run already in ``recipe.output_dir`` aside instead of refusing the
    folder (the demonstrations SFT reads there are copied back)."""
    from transformers import get_scheduler

    recipe.check_extras()
    path = demos_path(recipe, spec.demos)
    rows = read_demos(path)  # a bad file fails before any model loads
    claim = RunClaim(
        "sft",
        resume_settings(recipe),
        overwrite=overwrite,
        joins=("demos",),
        inputs=_inputs_in(Path(recipe.output_dir), path),
    )
    accelerator, run_dir, model_path = start_run(recipe, spec.batch_size // spec.micro_batch, claim)
    main = accelerator.is_main_process

    # --- data and policy ------------------------------------------------------------------------
    policy = load_policy(recipe.policy, model_path, need_reference=False)
    data = tokenize_demos(
        rows,
        policy.tokenizer,
        spec.max_length,
        spec.overlong,
        recipe.policy.chat_template_kwargs,
    )
    if not data.examples:
        raise CollabrlError(f"no usable demonstrations (skipped {data.skipped} over-long ones)")
    accelerator.print(
        f"{len(data.examples)} examples ({data.truncated} truncated, {data.skipped} skipped as "
        f"longer than {spec.max_length} tokens)"
    )
    # Each process trains on its own shard; every process takes the same number of steps.
    shard = data.examples[accelerator.process_index :: accelerator.num_processes]
    steps_per_epoch = math.ceil(len(data.examples) / accelerator.num_processes / spec.batch_size)
    total_steps = steps_per_epoch * spec.epochs
    trainable = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=spec.lr, weight_decay=spec.weight_decay)
    scheduler = get_scheduler(
        spec.schedule,
        optimizer,
        num_warmup_steps=round(spec.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    fill_deepspeed_config(accelerator, spec.micro_batch, spec.grad_clip)
    model, optimizer, scheduler = accelerator.prepare(policy.model, optimizer, scheduler)
    logger = RunLogger.for_recipe(recipe, run_dir, enabled=main)

    # --- epochs ---------------------------------------------------------------------------------
    rng = np.random.default_rng([recipe.seed, 5])
    pad_id = policy.tokenizer.pad_token_id
    step = 0
    model.train()
    for epoch in range(spec.epochs):
        t0 = time.perf_counter()
        order = rng.permutation(len(shard))
        bar = tqdm(range(steps_per_epoch), desc=f"SFT epoch {epoch + 1}", disable=not main)
        epoch_nll = epoch_tokens = 0.0
        for k in bar:
            batch = [shard[i] for i in order[k * spec.batch_size : (k + 1) * spec.batch_size]]
            nll, tokens, grad_norm = _step(
                model, optimizer, scheduler, accelerator, batch, spec, pad_id
            )
            epoch_nll, epoch_tokens = epoch_nll + nll, epoch_tokens + tokens
            bar.set_postfix(loss=f"{nll / max(tokens, 1):.3f}")
            metrics = {
                "epoch": epoch,
                "loss": nll / max(tokens, 1),
                "tokens": tokens,
                "grad_norm": grad_norm,
                "lr": scheduler.get_last_lr()[0],
            }
            logger.log(step, metrics)
            step += 1
        loss = epoch_nll / max(epoch_tokens, 1)
        accelerator.print(
            f"epoch {epoch + 1}/{spec.epochs}: loss {loss:.4f}, {int(epoch_tokens)} response "
            f"tokens, {time.perf_counter() - t0:.1f}s"
        )
        state = {"epoch": epoch, "steps": step, "loss": loss}
        keep = recipe.train.keep_checkpoints
        final = save_checkpoint(accelerator, model, policy.tokenizer, run_dir, epoch, keep, state)
    logger.close()
    accelerator.print(f"final loss {loss:.4f}; policy: {final / 'policy'}")
    return final / "policy"


def _inputs_in(run_dir: Path, demos: Path) -> tuple[str, ...]:
    """The names of the demonstration files (JSONL and HF copy) when they lie in ``run_dir``,
    where ``collabrl demos`` puts them by default: they are SFT's input, not another run."""
    if demos.parent.resolve() != run_dir.resolve():
        return ()
    return demos.name, demos.with_suffix(".hf").name


def _step(
    model, optimizer, scheduler, accelerator, batch: list[Example], spec: SFTSpec, pad_id: int
) -> tuple[float, float, float]:
    """One optimizer step over ``batch`` in micro-batches; the loss is the token mean over the
    whole batch whatever the split. Returns (summed nll, response tokens, grad norm)."""
    micro: list[list[Example] | None] = [
        batch[i : i + spec.micro_batch] for i in range(0, len(batch), spec.micro_batch)
    ]
    tokens = sum(len(e.response_ids) for e in batch)
    accum = accelerator.gradient_accumulation_steps
    micro += [None] * (accum - len(micro))  # same accumulation count every step (DeepSpeed)
    total = 0.0

    def backward_one(examples: list[Example]) -> None:
        nonlocal total
        padded = collate_examples(examples, pad_id)
        padded = TokenBatch(*(t.to(accelerator.device) for t in padded.__dict__.values()))
        nll, _ = response_nll(model, padded)
        # accelerate divides by the accumulation steps: multiply back for an exact token mean
        accelerator.backward(nll / max(tokens, 1) * accum)
        total += float(nll.detach())

    accumulate(accelerator, model, micro, backward_one, pad_id)
    grad_norm = optimizer_step(accelerator, model, optimizer, scheduler, spec.grad_clip)
    return total, float(tokens), grad_norm

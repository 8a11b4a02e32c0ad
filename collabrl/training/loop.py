"""The GiGPO training recipe, top to bottom: rollout -> rewards -> advantages -> PPO -> log.

Run it with ``python train.py recipe=NAME key=value ...`` or
``accelerate launch [--config_file launch/zero2.yaml] train.py recipe=NAME ...``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from accelerate.utils import gather_object
from tqdm import trange

from collabrl.config import Recipe
from collabrl.errors import CollabrlError
from collabrl.factory import make_engine_from_spec, make_judge, sampling_params
from collabrl.records import RunClaim
from collabrl.training.checkpoint import resume_checkpoint, resume_settings, save_checkpoint
from collabrl.training.dump import dump_rollouts, keep_rationales
from collabrl.training.groups import (
    make_slots,
    partner_profiles,
    plan_groups,
    write_training_set,
)
from collabrl.training.judging import StepJudging
from collabrl.training.lockstep import run_rollout
from collabrl.training.logging import RunLogger
from collabrl.training.metrics import (
    combine_ranks,
    failure_counts,
    failure_rates,
    iteration_metrics,
    summary_line,
)
from collabrl.training.policy import (
    Policy,
    ensure_finite_weights,
    fill_deepspeed_config,
    load_policy,
    prepare_reference,
    start_run,
)
from collabrl.training.rewards import advantage_parts, informative, score_rollout
from collabrl.training.update import (
    Optimisation,
    ppo_update,
    rollout_logprobs,
    token_logprobs,
    trainer_logprobs,
)
from collabrl.training.validation import Validator
from collabrl.training.weight_sync import WeightSync

RESUME_HINT = "pass train.resume=true to continue it, or --overwrite to move it aside"


class Stopwatch:
    """Named laps of one iteration: ``lap(name)`` records the seconds since the previous lap."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = now - self.last
        self.last = now

    def total(self) -> float:
        return time.perf_counter() - self.start


@dataclass
class Run:
    """What one training run is made of, built once by :func:`setup`."""

    recipe: Recipe
    accelerator: Any
    run_dir: Path
    model: Any  # the prepared (possibly wrapped) policy model
    policy: Policy
    optimisation: Optimisation
    engine: Any  # the rollout engine
    sync: WeightSync
    validator: Validator
    partner_engine: Any
    judge: Any
    profiles: list
    logger: RunLogger
    start: int  # the first iteration to run (after a resumed checkpoint)


def setup(recipe: Recipe, overwrite: bool = False) -> Run:
    """Claim the run folder, load the policy, its optimiser and reference, the rollout engine and
    its weight sync, partners, judge and logger, and resume from the last checkpoint if asked."""
    from transformers import get_scheduler

    recipe.check_trainable()
    algo = recipe.algo
    claim = RunClaim(
        "train",
        resume_settings(recipe),
        overwrite=overwrite,
        resume=recipe.train.resume,
        hint=RESUME_HINT,
    )
    accelerator, run_dir, model_path = start_run(recipe, algo.mini_batch // algo.micro_batch, claim)
    if accelerator.is_main_process:  # what the run draws and what validation holds out
        write_training_set(run_dir, recipe)
    policy = load_policy(recipe.policy, model_path, need_reference=algo.kl_coef > 0)
    trainable = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=algo.lr, weight_decay=algo.weight_decay)
    scheduler = get_scheduler("constant_with_warmup", optimizer, num_warmup_steps=algo.warmup_steps)
    fill_deepspeed_config(accelerator, algo.micro_batch, algo.grad_clip)
    model, optimizer, scheduler = accelerator.prepare(policy.model, optimizer, scheduler)
    if policy.reference_model is not None:
        policy.reference_model = prepare_reference(policy.reference_model, accelerator)
    engine = _rollout_engine(recipe, accelerator.unwrap_model(model), policy.tokenizer, model_path)
    sync = WeightSync(
        engine, recipe.policy.weight_sync, recipe.policy.backend, policy.lora, run_dir, accelerator
    )
    partner_engine = None
    if recipe.partner.kind == "llm":
        assert recipe.partner.engine is not None, "PartnerSpec refuses an llm partner without one"
        partner_engine = make_engine_from_spec(recipe.partner.engine)
    elif recipe.partner.kind == "self":
        partner_engine = engine  # self-play: each iteration's policy weights play the partner
    temperature = recipe.policy.sampling.temperature or 1.0

    def reference(batch):
        return policy.reference(lambda m: token_logprobs(m, batch, temperature)[0])

    optimisation = Optimisation(
        model,
        optimizer,
        scheduler,
        accelerator,
        algo,
        temperature,
        policy.tokenizer.pad_token_id,
        reference if algo.kl_coef > 0 else None,
    )
    logger = RunLogger.for_recipe(recipe, run_dir, enabled=accelerator.is_main_process)
    start = resume_checkpoint(accelerator, run_dir) if recipe.train.resume else 0
    logger.truncate_after(start - 1)  # lines logged after the checkpoint are redone
    if start:  # vLLM started from the model folder, not from the checkpoint's weights
        sync.refresh(accelerator.unwrap_model(model))
    return Run(
        recipe,
        accelerator,
        run_dir,
        model,
        policy,
        optimisation,
        engine,
        sync,
        Validator(recipe, run_dir, model_path, engine),
        partner_engine,
        keep_rationales(make_judge(recipe.reward.judge), recipe.train.dump_rollouts),
        partner_profiles(recipe),
        logger,
        start,
    )


def train(recipe: Recipe, overwrite: bool = False) -> Path:
    """Train the policy the recipe describes; returns the run directory. ``overwrite``: move a
    run already in ``recipe.output_dir`` aside instead of refusing the folder."""
    run = setup(recipe, overwrite)
    main = run.accelerator.is_main_process
    for iteration in trange(run.start, recipe.train.iterations, desc="GiGPO", disable=not main):
        metrics = iterate(run, iteration)
        if run.validator.due(iteration):  # held-out episodes; the best policy kept in <run>/best
            run.model.eval()
            unwrapped = run.accelerator.unwrap_model(run.model)
            tokenizer = run.policy.tokenizer
            metrics |= run.validator.validate(run.accelerator, unwrapped, tokenizer, iteration)
        run.logger.log(iteration, metrics)
        run.accelerator.print(summary_line(iteration, metrics))
        every = recipe.train.checkpoint_every
        last = iteration == recipe.train.iterations - 1
        if last or (every and (iteration + 1) % every == 0):
            save_checkpoint(
                run.accelerator,
                run.model,
                run.policy.tokenizer,
                run.run_dir,
                iteration,
                recipe.train.keep_checkpoints,
                {"metrics": metrics},
            )
    run.logger.close()
    return run.run_dir


def iterate(run: Run, iteration: int) -> dict[str, Any]:
    """One iteration: rollout -> rewards -> advantages -> PPO update -> weights to the rollout
    engine; returns the iteration's metrics, combined over every rank's rollouts."""
    recipe, algo, accelerator, model = run.recipe, run.recipe.algo, run.accelerator, run.model
    clock = Stopwatch()
    rank = accelerator.process_index
    slots = make_slots(
        recipe, plan_groups(recipe, run.profiles, iteration, rank), run.partner_engine
    )
    judging = StepJudging(run.judge, profiles={p.id: p for p in run.profiles})
    model.eval()
    seed = (recipe.seed * 1_000_003 + iteration) * 1_009 + rank
    params = sampling_params(recipe.policy.sampling, seed=seed)
    times = run_rollout(slots, run.engine, params, on_steps=judging.submit)
    synced = run.sync.release()  # a colocated vLLM sleeps: its GPU memory goes to the trainer
    clock.lap("rollout")
    levels = judging.collect()
    scored = score_rollout(slots, levels, recipe.reward, recipe.game)
    failures = failure_counts(slots, levels, judging.retries)
    _check_failures(slots, failures, recipe.train.max_failure_rate, iteration)
    clock.lap("judge_wait")
    parts = advantage_parts(scored, algo)
    advantages = parts.total
    if accelerator.is_main_process:
        dump = recipe.train.dump_rollouts
        dump_rollouts(run.run_dir, dump, iteration, recipe.seed, slots, scored, parts, run.judge)
    keep = informative(scored, advantages, algo.drop_uniform_groups)
    samples = [scored.samples[i] for i in keep]
    model.train()
    old = (
        trainer_logprobs(run.optimisation, samples)
        if algo.old_logprobs == "trainer"
        else rollout_logprobs(samples)
    )
    clock.lap("old_logprobs")
    stats = ppo_update(
        run.optimisation,
        samples,
        [float(advantages[i]) for i in keep],
        old.values,
        np.random.default_rng([recipe.seed, iteration, rank, 2]),
    )
    ensure_finite_weights(accelerator, model, iteration)
    clock.lap("training")
    synced |= run.sync.refresh(accelerator.unwrap_model(model))  # wake it, push the new weights
    timings = {
        "generation": times.generation,
        "partners": times.partners,
        "game": times.game,
        **{k: clock.laps[k] for k in ("judge_wait", "old_logprobs", "training")},
        **synced,
        "iteration": clock.total(),
    }
    metrics = iteration_metrics(slots, scored, parts, keep, stats, old, timings, failures)
    return combine_ranks(gather_object([metrics]))  # every rank's rollouts, not rank 0's


def _check_failures(slots, counts: dict[str, int], limit: float, iteration: int) -> None:
    """Stop when this rank's rollout cannot teach. If no policy decision produced tokens, nothing
    can be learnt whatever the limit: the message names the engine's first error (usually a
    prompt over ``policy.max_prompt_tokens``). Otherwise, more than ``train.max_failure_rate`` of
    a role's requests failing stops the run: rewards from a dead partner or judge server would
    train the policy on noise."""
    decisions = counts["requests/policy"]
    if decisions and counts["failures/policy"] == decisions:
        error = next(s.error for slot in slots for s in slot.samples if s.error)
        raise CollabrlError(
            f"iteration {iteration}: none of the {decisions} policy decisions produced "
            f"tokens; first engine error: {error}"
        )
    over = [
        f"{role} {rate:.2f} ({counts[f'failures/{role}']} of {counts[f'requests/{role}']})"
        for role, rate in failure_rates(counts).items()
        if rate > limit
    ]
    if over:
        raise CollabrlError(
            f"iteration {iteration}: failure rate above train.max_failure_rate={limit}: "
            + ", ".join(over)
        )


def _rollout_engine(recipe: Recipe, model, tokenizer, model_path: str):
    """transformers: the trainer's own model object (no copy); vLLM: a separate engine, started
    with LoRA enabled in LoRA runs (their pushes are adapters)."""
    options = dict(recipe.policy.engine_options)
    template = recipe.policy.chat_template_kwargs
    if recipe.policy.backend == "vllm":
        from accelerate import PartialState

        from collabrl.engines.vllm_engine import VLLMEngine, VLLMOptions

        if recipe.policy.lora is not None:
            options["enable_lora"] = True
            options.setdefault("max_lora_rank", recipe.policy.lora.rank)
        options = colocated_vllm_options(options, PartialState().num_processes)
        return VLLMEngine(model_path, VLLMOptions(**options), template)
    from collabrl.engines.hf import TransformersEngine, TransformersOptions

    options.setdefault(
        "max_context", recipe.policy.max_prompt_tokens + recipe.policy.sampling.max_new_tokens
    )
    options["device"] = str(next(model.parameters()).device)
    return TransformersEngine(model, tokenizer, TransformersOptions(**options), template)


def colocated_vllm_options(options: dict[str, Any], processes: int) -> dict[str, Any]:
    """vLLM options for one of ``processes`` trainer ranks, each with its own vLLM on its own GPU.

    Under ``accelerate launch`` on several GPUs, a vLLM that starts its own worker process puts
    its model on the first visible GPU in every rank. vLLM's ``external_launcher`` executor runs
    the model inside the rank's process instead, on the rank's device, using the ``RANK`` /
    ``LOCAL_RANK`` / ``MASTER_ADDR`` the launcher set (as TRL's colocate mode does). Each rank
    samples its own groups, so a rank's vLLM holds the whole model: tensor parallelism across
    ranks would need the ranks of a group to share prompts, and is refused."""
    if processes == 1:
        return options
    if options.get("tensor_parallel_size", 1) != 1:
        raise CollabrlError(
            f"policy.engine_options.tensor_parallel_size={options['tensor_parallel_size']}: with "
            f"{processes} trainer processes each rank runs its own vLLM on its own GPU; use "
            "tensor_parallel_size=1 (or one trainer process)"
        )
    llm_kwargs = {
        "distributed_executor_backend": "external_launcher",
        **options.get("llm_kwargs", {}),
    }
    return {**options, "llm_kwargs": llm_kwargs}


def recipe_main(argv: list[str], overwrite: bool = False) -> None:
    """The training script's entry point (``python train.py``, ``accelerate launch train.py`` and
    ``collabrl train`` all land here): validate ``recipe=NAME key=value ...``, print the resolved
    recipe, train (``overwrite``: move a run already in the output folder aside)."""
    from collabrl.cli_options import recipe_from_args

    recipe = recipe_from_args(argv)
    print(recipe.to_yaml())
    run_dir = train(recipe, overwrite)
    print(f"run directory: {run_dir}")

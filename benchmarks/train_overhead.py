"""Training overhead on CPU with the tiny "small" model:

(a) trainer tokens/s: ``ppo_update`` over a fixed batch of synthetic samples vs a bare torch
    forward + backward + AdamW loop over the same rows with the same mini/micro-batching
    (goal: ratio trainer/bare >= 0.9);
(b) rollout wall time vs pure generation: ``run_rollout`` with expert partners, then the engine's
    ``generate`` alone on the recorded prompts with the same seeds (goal: ratio <= 1.05);
(c) GiGPO advantages on 1M step samples (seconds);
(d) the cost of pi_old: the trainer's no-grad forward over the same samples
    (``trainer_logprobs``) as a fraction of the PPO update's time.

Run: ``python benchmarks/train_overhead.py [--quick]``; a few minutes on 2 cores. Times are the
best of interleaved repeats, to resist noise from other processes on the machine.
"""

from __future__ import annotations

import argparse
import copy
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from collabrl.engines import Engine, GenerationResult, SamplingParams
    from collabrl.engines.types import Conversation
    from collabrl.training.lockstep import RolloutTimes


def best_of(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best wall time of each function, run interleaved ``repeats`` times."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {k: min(v) for k, v in times.items()}


# --- (a) trainer vs bare loop ---------------------------------------------------------------------


def synthetic_samples(n: int, vocab: int, rng: np.random.Generator) -> list[SimpleNamespace]:
    """Rollout-like samples: prompts of 150-400 tokens, responses of 16-48 tokens."""
    out = []
    for _ in range(n):
        p, r = int(rng.integers(150, 400)), int(rng.integers(16, 48))
        out.append(
            SimpleNamespace(
                prompt_ids=rng.integers(3, vocab, p).tolist(),
                response_ids=rng.integers(3, vocab, r).tolist(),
                rollout_logprobs=(-rng.random(r) * 3).tolist(),
            )
        )
    return out


def bench_update(model_dir: str, n: int, repeats: int, kl: bool) -> dict[str, float]:
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM, get_scheduler

    from collabrl.config import AlgoSpec
    from collabrl.training.update import (
        Optimisation,
        TokenBatch,
        collate,
        ppo_update,
        token_logprobs,
        trainer_logprobs,
    )

    algo = AlgoSpec(mini_batch=16, micro_batch=4, lr=1e-5, kl_coef=0.01 if kl else 0.0)
    accelerator = Accelerator(gradient_accumulation_steps=algo.mini_batch // algo.micro_batch)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    vocab = model.config.vocab_size
    samples = synthetic_samples(n, vocab, np.random.default_rng(0))
    advantages = np.random.default_rng(1).standard_normal(n).tolist()
    tokens = sum(len(s.response_ids) for s in samples)
    ref_model = copy.deepcopy(model).eval().requires_grad_(False) if kl else None

    # trainer
    opt = torch.optim.AdamW(model.parameters(), lr=algo.lr)
    sched = get_scheduler("constant", opt)
    tmodel, topt, tsched = accelerator.prepare(model, opt, sched)

    def reference(batch: TokenBatch) -> torch.Tensor:
        assert ref_model is not None  # the trainer is given this function only with kl
        return token_logprobs(ref_model, batch, 1.0)[0]

    opt_state = Optimisation(
        tmodel, topt, tsched, accelerator, algo, 1.0, 0, reference if kl else None
    )

    old = [s.rollout_logprobs for s in samples]

    def trainer() -> None:
        tmodel.train()
        ppo_update(opt_state, samples, advantages, old, np.random.default_rng(7))

    def pi_old() -> None:
        tmodel.train()
        trainer_logprobs(opt_state, samples)

    # bare loop: same permutation, same micro-batches, pre-collated, plain torch
    order = np.random.default_rng(7).permutation(n)
    minis = []
    for start in range(0, n, algo.mini_batch):
        chosen = order[start : start + algo.mini_batch]
        micro = [chosen[k : k + algo.micro_batch] for k in range(0, len(chosen), algo.micro_batch)]
        minis.append(
            [
                collate(
                    [samples[i].prompt_ids for i in m],
                    [samples[i].response_ids for i in m],
                    [samples[i].rollout_logprobs for i in m],
                    [advantages[i] for i in m],
                    0,
                )
                for m in micro
            ]
        )
    bare_opt = torch.optim.AdamW(model.parameters(), lr=algo.lr)

    def bare() -> None:
        model.train()
        for mini in minis:
            total = sum(float(b.response_mask.sum()) for b in mini)
            for b in mini:
                logits = model(input_ids=b.input_ids, attention_mask=b.attention_mask).logits
                logp = torch.log_softmax(logits[:, :-1].float(), -1)
                logp = logp.gather(-1, b.input_ids[:, 1:, None]).squeeze(-1)
                ratio = torch.exp(logp - b.old_logprobs)
                loss = -(ratio * b.advantages * b.response_mask).sum() / total
                if ref_model is not None:  # kl
                    with torch.no_grad():
                        ref = ref_model(input_ids=b.input_ids, attention_mask=b.attention_mask)
                        ref_logp = torch.log_softmax(ref.logits[:, :-1].float(), -1)
                        ref_logp = ref_logp.gather(-1, b.input_ids[:, 1:, None]).squeeze(-1)
                    d = ref_logp - logp
                    kl_term = (torch.exp(d) - d - 1) * b.response_mask
                    loss = loss + algo.kl_coef * kl_term.sum() / total
                loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), algo.grad_clip)
            bare_opt.step()
            bare_opt.zero_grad(set_to_none=True)

    trainer()  # warm-up (allocator, kernels)
    bare()
    times = best_of({"trainer": trainer, "bare": bare, "pi_old": pi_old}, repeats)
    return {
        "tokens": tokens,
        "trainer_tok_s": tokens / times["trainer"],
        "bare_tok_s": tokens / times["bare"],
        "ratio": times["bare"] / times["trainer"],
        "pi_old_s": times["pi_old"],
        "update_s": times["trainer"],
    }


# --- (b) rollout vs generation --------------------------------------------------------------------


class RecordingEngine:
    """Wraps an engine: records every ``generate`` call (prompts + params) and its time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.calls: list[tuple[list[Conversation], SamplingParams]] = []
        self.seconds = 0.0

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        self.calls.append((list(conversations), params))
        t0 = time.perf_counter()
        out = self.engine.generate(conversations, params)
        self.seconds += time.perf_counter() - t0
        return out

    def close(self) -> None:
        self.engine.close()


@dataclass
class Recorded:
    """What the latest timed rollout recorded: its engine calls, its own split of the time, and
    how many samples it made."""

    engine: RecordingEngine
    times: RolloutTimes
    samples: int


def bench_rollout(model_dir: str, repeats: int, groups: int, decisions: int) -> dict[str, float]:
    from collabrl.config import load_recipe
    from collabrl.engines.hf import TransformersEngine, TransformersOptions
    from collabrl.factory import sampling_params
    from collabrl.training.groups import make_slots, plan_groups
    from collabrl.training.lockstep import run_rollout

    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            "partner.kind=expert",
            "reward.judge.kind=none",
            f"rollout.groups={groups}",
            "rollout.episodes_per_group=2",
            f"game.max_decisions={decisions}",
            "policy.sampling.max_new_tokens=24",
        ],
    )
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    engine = TransformersEngine(
        model, AutoTokenizer.from_pretrained(model_dir), TransformersOptions(max_context=2048)
    )
    params = sampling_params(recipe.policy.sampling, seed=11)
    last: list[Recorded] = []

    def rollout() -> None:
        slots = make_slots(recipe, plan_groups(recipe, [], 0))
        rec = RecordingEngine(engine)
        times = run_rollout(slots, rec, params)
        last[:] = [Recorded(rec, times, sum(len(s.samples) for s in slots))]

    rollout()  # warm-up + first recording
    calls = last[0].engine.calls

    def generation_only() -> None:
        for chats, p in calls:
            engine.generate(chats, p)

    times = best_of({"rollout": rollout, "generation": generation_only}, repeats)
    parts = last[0].times
    return {
        "calls": len(calls),
        "samples": last[0].samples,
        "rollout_s": times["rollout"],
        "generation_s": times["generation"],
        "ratio": times["rollout"] / times["generation"],
        "in_rollout_generation_s": parts.generation,
        "in_rollout_partners_s": parts.partners,
        "in_rollout_game_s": parts.game,
    }


# --- (c) GiGPO advantages -------------------------------------------------------------------------


def bench_gigpo(n: int, repeats: int) -> dict[str, float]:
    from collabrl.algos.gigpo import gigpo_advantages

    rng = np.random.default_rng(0)
    steps, episodes = 50, 8  # samples per episode, episodes per group
    episode = np.arange(n) // steps
    group = episode // episodes
    # anchors: (room, holding) style tuples with many repeats inside a group
    anchor = [(int(g), int(a)) for g, a in zip(group, rng.integers(0, 20, n), strict=True)]
    step_reward = rng.normal(size=n).tolist()
    episode_return = rng.normal(size=n // steps)[episode].tolist()
    group_l, episode_l = group.tolist(), episode.tolist()

    def run() -> np.ndarray:
        return gigpo_advantages(
            group_l, episode_l, anchor, step_reward, episode_return, gamma=0.95, omega=1.0
        )

    out = run()
    assert out.shape == (n,) and np.isfinite(out).all()
    return {"samples": n, "seconds": best_of({"gigpo": run}, repeats)["gigpo"]}


# --- main -----------------------------------------------------------------------------------------


def main() -> None:
    if isinstance(sys.stdout, io.TextIOWrapper):  # show each result as it comes, even piped
        sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--model", help="HF model folder (default: a fresh tiny 'small' model)")
    parser.add_argument("--kl", action="store_true", help="include the KL reference forward")
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", torch.get_num_threads())))
    repeats = 2 if args.quick else 3

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model
        if model_dir is None:
            from collabrl.models.tiny import make_tiny_model

            model_dir = str(make_tiny_model(os.path.join(tmp, "small"), seed=0, size="small"))
        a = bench_update(model_dir, 32, repeats, args.kl)
        print(
            f"(a) trainer {a['trainer_tok_s']:.0f} tok/s  bare {a['bare_tok_s']:.0f} tok/s  "
            f"ratio {a['ratio']:.3f} (goal >= 0.9; {a['tokens']} response tokens, "
            f"kl={'on' if args.kl else 'off'})"
        )
        b = bench_rollout(model_dir, repeats, 2, 4)
        print(
            f"(b) rollout {b['rollout_s']:.2f}s  generation only {b['generation_s']:.2f}s  "
            f"ratio {b['ratio']:.3f} (goal <= 1.05; {b['calls']} generate calls, "
            f"{b['samples']} samples; inside rollout: generation {b['in_rollout_generation_s']:.2f}s"
            f" partners {b['in_rollout_partners_s']:.2f}s game {b['in_rollout_game_s']:.2f}s)"
        )
    c = bench_gigpo(200_000 if args.quick else 1_000_000, repeats)
    print(f"(c) GiGPO advantages on {c['samples']:,} samples: {c['seconds']:.2f}s")
    pi_old_share = a["pi_old_s"] / a["update_s"]
    print(
        f"(d) pi_old forward {a['pi_old_s']:.2f}s vs PPO update {a['update_s']:.2f}s on the "
        f"same 32 samples: {pi_old_share:.3f} of the update"
    )
    print()
    print(f"{'benchmark':<28}{'value':>10}  goal")
    print(f"{'trainer / bare tokens/s':<28}{a['ratio']:>10.3f}  >= 0.9")
    print(f"{'rollout / generation time':<28}{b['ratio']:>10.3f}  <= 1.05")
    print(f"{'GiGPO 1M samples (s)':<28}{c['seconds']:>10.2f}")
    print(f"{'pi_old forward / update':<28}{pi_old_share:>10.3f}")


if __name__ == "__main__":
    main()

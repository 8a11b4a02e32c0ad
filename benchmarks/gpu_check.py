"""GPU check: what the paper-scale path costs on one GPU, offline, in a few minutes.

For random-initialised models shaped like Qwen2.5-0.5B and Qwen2.5-1.5B (built from configs, bf16,
a synthetic tokenizer of Qwen's vocabulary size; nothing is downloaded) it prints:

(a) rollout tokens/s of the transformers engine against bare ``model.generate`` on the same
    prompts, and of the vLLM engine (when vllm is importable) against the same bare generate;
(b) trainer tokens/s: ``ppo_update`` against a bare forward + backward + AdamW over the same rows
    in the same micro-batches;
(c) peak GPU memory of each phase;
(d) the weight push into vLLM: streamed in buckets of whole layers, and vLLM's sleep (level 1 and
    2) and wake, when the platform has sleep mode.

Run: ``python benchmarks/gpu_check.py [--sizes 0.5b 1.5b] [--json out.json]``.
``--cpu-smoke``: tiny shapes in float32 on the CPU, to check the script itself without a GPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import TypedDict

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_overhead import best_of, synthetic_samples  # noqa: E402


class Shape(TypedDict):
    """The sizes of a Qwen2 model that set its compute and memory."""

    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    vocab_size: int


# Qwen2.5 shapes (config.json of each release); "smoke" is for --cpu-smoke
SHAPES: dict[str, Shape] = {
    "0.5b": Shape(hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                  num_attention_heads=14, num_key_value_heads=2, vocab_size=151936),
    "1.5b": Shape(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                  num_attention_heads=12, num_key_value_heads=2, vocab_size=151936),
    "smoke": Shape(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                   num_attention_heads=2, num_key_value_heads=1, vocab_size=4096),
}  # fmt: skip


def build_model(folder: Path, shape: Shape, dtype: torch.dtype, device: str):
    """A seeded random Qwen2 model and a tokenizer with its vocabulary size, saved to ``folder``
    (vLLM loads by path); returns (model on ``device``, tokenizer)."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    from collabrl.models.tiny import make_tiny_tokenizer

    tokenizer = make_tiny_tokenizer()
    tokenizer.add_tokens([f"<x{i}>" for i in range(shape["vocab_size"] - len(tokenizer))])
    config = Qwen2Config(
        **shape,
        tie_word_embeddings=True,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "default", "rope_theta": 1_000_000.0},
        rms_norm_eps=1e-6,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        dtype=dtype,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return model.eval(), tokenizer


def conversations(count: int, words: int) -> list[list[dict[str, str]]]:
    """Prompts of about ``words`` tokens each, different in every row."""
    rooms = ["kitchen", "garden", "hallway", "bedroom", "bathroom"]
    return [
        [
            {"role": "system", "content": "You play a cooperative household game with a partner."},
            {"role": "user", "content": " ".join(f"{rooms[(i + k) % 5]}" for k in range(words))},
        ]
        for i in range(count)
    ]


class Peak:
    """Peak accelerator memory of a block, in GiB (0 on CPU)."""

    def __init__(self, device: str) -> None:
        self.cuda = device.startswith("cuda")
        self.gib = 0.0

    def __enter__(self) -> Peak:
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.cuda:
            torch.cuda.synchronize()
            self.gib = torch.cuda.max_memory_allocated() / 2**30


# --- (a) rollout ----------------------------------------------------------------------------------


def bench_rollout(model, tokenizer, args, device: str) -> dict[str, float]:
    from collabrl.engines import SamplingParams
    from collabrl.engines.hf import TransformersEngine, TransformersOptions

    engine = TransformersEngine(
        model, tokenizer, TransformersOptions(device=device, batch_size=args.prompts)
    )
    convs = conversations(args.prompts, args.prompt_words)
    params = SamplingParams(temperature=1.0, max_new_tokens=args.new_tokens, stop=(), seed=0)
    enc = tokenizer.pad(
        {"input_ids": [engine.encode(c) for c in convs]}, padding=True, return_tensors="pt"
    ).to(device)
    counted: dict[str, int] = {}

    def bare() -> None:
        out = model.generate(
            **enc,
            max_new_tokens=args.new_tokens,
            do_sample=True,
            top_k=0,
            pad_token_id=tokenizer.pad_token_id,
        )
        counted["bare"] = int(out.shape[0] * (out.shape[1] - enc["input_ids"].shape[1]))

    def ours() -> None:
        results = engine.generate(convs, params)
        assert all(r.ok for r in results), results[0].error
        counted["engine"] = sum(r.completion_tokens for r in results)

    bare()  # warm-up
    ours()
    with Peak(device) as peak:
        times = best_of({"bare": bare, "engine": ours}, args.repeats)
    return {
        "bare_tok_s": counted["bare"] / times["bare"],
        "engine_tok_s": counted["engine"] / times["engine"],
        "peak_gib": peak.gib,
    }


# --- (b) trainer ----------------------------------------------------------------------------------


def bench_trainer(model, args, device: str) -> dict[str, float]:
    from accelerate import Accelerator
    from transformers import get_scheduler

    from collabrl.config import AlgoSpec
    from collabrl.training.update import Optimisation, TokenBatch, collate, ppo_update

    algo = AlgoSpec(mini_batch=16, micro_batch=4, lr=1e-6, kl_coef=0.0)
    accelerator = Accelerator(
        cpu=device == "cpu", gradient_accumulation_steps=algo.mini_batch // algo.micro_batch
    )
    rng = np.random.default_rng(0)
    samples = [
        SimpleNamespace(
            prompt_ids=rng.integers(3, 1000, args.prompt_words).tolist(),
            response_ids=s.response_ids,
            rollout_logprobs=s.rollout_logprobs,
        )
        for s in synthetic_samples(args.train_samples, 1000, rng)
    ]
    advantages = rng.standard_normal(len(samples)).tolist()
    old = [s.rollout_logprobs for s in samples]
    tokens = sum(len(s.prompt_ids) + len(s.response_ids) for s in samples)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=algo.lr)
    tmodel, topt, tsched = accelerator.prepare(
        model, optimizer, get_scheduler("constant", optimizer)
    )
    opt = Optimisation(tmodel, topt, tsched, accelerator, algo, 1.0, 0, None)
    order = np.random.default_rng(7).permutation(len(samples))
    minis = []
    for start in range(0, len(samples), algo.mini_batch):
        chosen = order[start : start + algo.mini_batch]
        micro = [chosen[k : k + algo.micro_batch] for k in range(0, len(chosen), algo.micro_batch)]
        rows = [[samples[i] for i in m] for m in micro]
        batches = [
            collate(
                [s.prompt_ids for s in r],
                [s.response_ids for s in r],
                [s.rollout_logprobs for s in r],
                [advantages[i] for i in m],
                0,
            )
            for r, m in zip(rows, micro, strict=True)
        ]
        minis.append([TokenBatch(*(t.to(device) for t in b.__dict__.values())) for b in batches])

    def trainer() -> None:
        ppo_update(opt, samples, advantages, old, np.random.default_rng(7))

    def bare() -> None:  # the same rows and micro-batches in plain torch
        for mini in minis:
            total = sum(float(b.response_mask.sum()) for b in mini)
            for b in mini:
                logits = model(input_ids=b.input_ids, attention_mask=b.attention_mask).logits
                logp = torch.log_softmax(logits[:, :-1].float(), -1)
                logp = logp.gather(-1, b.input_ids[:, 1:, None]).squeeze(-1)
                ratio = torch.exp(logp - b.old_logprobs)
                (-(ratio * b.advantages * b.response_mask).sum() / total).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), algo.grad_clip)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

    trainer()  # warm-up (allocator, kernels, optimizer state)
    bare()
    peaks: dict[str, float] = {}

    def peaked(name: str, fn):  # each one's own peak: what collabrl plan estimates
        def run() -> None:
            with Peak(device) as p:
                fn()
            peaks[name] = max(peaks.get(name, 0.0), p.gib)

        return run

    times = best_of(
        {"trainer": peaked("trainer", trainer), "bare": peaked("bare", bare)}, args.repeats
    )
    model.eval()
    return {
        "trainer_tok_s": tokens / times["trainer"],
        "bare_tok_s": tokens / times["bare"],
        "peak_gib": max(peaks.values()),
        "trainer_peak_gib": peaks["trainer"],
        "bare_peak_gib": peaks["bare"],
    }


# --- (a, d) vLLM ----------------------------------------------------------------------------------


def bench_vllm(folder: Path, model, tokenizer, args) -> dict[str, float]:
    """vLLM rollout tokens/s, then the streamed weight push and sleep/wake timings."""
    from vllm.platforms import current_platform

    from collabrl.engines import SamplingParams
    from collabrl.engines.vllm_engine import VLLMEngine, VLLMOptions
    from collabrl.training.weight_sync import weight_buckets

    sleep = current_platform.is_sleep_mode_available()
    options = VLLMOptions(
        dtype="bfloat16" if not args.cpu_smoke else "float32",
        gpu_memory_utilization=args.vllm_memory,
        max_model_len=2048,
        enforce_eager=not args.vllm_graphs,
        enable_sleep_mode=sleep,
    )
    t0 = time.perf_counter()
    engine = VLLMEngine(str(folder), options)
    out: dict[str, float] = {"vllm_start_s": time.perf_counter() - t0}
    convs = conversations(args.prompts, args.prompt_words)
    params = SamplingParams(temperature=1.0, max_new_tokens=args.new_tokens, stop=(), seed=0)
    engine.generate(convs[:4], params)  # warm-up
    counted = {}

    def rollout() -> None:
        counted["tokens"] = sum(r.completion_tokens for r in engine.generate(convs, params))

    seconds = best_of({"rollout": rollout}, args.repeats)["rollout"]
    out["vllm_tok_s"] = counted["tokens"] / seconds
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    for mb in args.bucket_mb:
        t0 = time.perf_counter()
        engine.load_weights(weight_buckets(model, mb << 20))
        out[f"push_{mb}mb_s"] = time.perf_counter() - t0
        out[f"push_{mb}mb_gb_s"] = size / 1e9 / out[f"push_{mb}mb_s"]
    if sleep:
        for level in (1, 2):
            t0 = time.perf_counter()
            engine.sleep(level)
            out[f"sleep{level}_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            engine.wake_up(["weights"])
            if level == 2:  # the weights were dropped: push them again, as training does
                engine.load_weights(weight_buckets(model, args.bucket_mb[-1] << 20))
            engine.wake_up(["kv_cache"])
            out[f"wake{level}_s"] = time.perf_counter() - t0
        rollout()  # still generates after a level-2 sleep and a push
    engine.close()
    return out


# --- main -----------------------------------------------------------------------------------------


def check(size: str, args, device: str, dtype: torch.dtype, tmp: Path) -> dict[str, float]:
    folder = tmp / size
    t0 = time.perf_counter()
    model, tokenizer = build_model(folder, SHAPES[size], dtype, device)
    row: dict[str, float] = {"build_s": time.perf_counter() - t0}
    row["params_m"] = sum(p.numel() for p in model.parameters()) / 1e6
    rollout = bench_rollout(model, tokenizer, args, device)
    row |= {f"rollout_{k}": v for k, v in rollout.items()}
    trainer = bench_trainer(model, args, device)
    row |= {f"train_{k}": v for k, v in trainer.items()}
    if importlib.util.find_spec("vllm") is not None:
        row |= bench_vllm(folder, model, tokenizer, args)
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return row


def report(rows: dict[str, dict[str, float]]) -> str:
    lines = [
        "| model | params (M) | HF engine / bare generate tok/s | vLLM / bare generate tok/s "
        "| trainer / bare fwd+bwd tok/s | peak GiB rollout / train | push (s, GB/s) "
        "| sleep / wake level 1, level 2 (s) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for size, r in rows.items():
        vllm = (
            f"{r['vllm_tok_s']:.0f} / {r['rollout_bare_tok_s']:.0f}" if "vllm_tok_s" in r else "—"
        )
        pushes = [k for k in r if k.startswith("push_") and k.endswith("mb_s")]
        push = ", ".join(
            f"{k[5:-2]}: {r[k]:.2f}, {r[k.replace('_s', '_gb_s')]:.1f}" for k in pushes
        )
        sleep = (
            f"{r['sleep1_s']:.2f} / {r['wake1_s']:.2f}, {r['sleep2_s']:.2f} / {r['wake2_s']:.2f}"
            if "sleep1_s" in r
            else "—"
        )
        lines.append(
            f"| {size} | {r['params_m']:.0f} "
            f"| {r['rollout_engine_tok_s']:.0f} / {r['rollout_bare_tok_s']:.0f} "
            f"({r['rollout_engine_tok_s'] / r['rollout_bare_tok_s']:.2f}) | {vllm} "
            f"| {r['train_trainer_tok_s']:.0f} / {r['train_bare_tok_s']:.0f} "
            f"({r['train_trainer_tok_s'] / r['train_bare_tok_s']:.2f}) "
            f"| {r['rollout_peak_gib']:.1f} / {r['train_peak_gib']:.1f} | {push or '—'} | {sleep} |"
        )
    return "\n".join(lines)


def main() -> None:
    if isinstance(sys.stdout, io.TextIOWrapper):  # show each result as it comes, even piped
        sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["0.5b", "1.5b"], choices=["0.5b", "1.5b"])
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes, float32, on the CPU")
    ap.add_argument("--prompts", type=int, default=64, help="conversations per rollout call")
    ap.add_argument("--prompt-words", type=int, default=300)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--train-samples", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--bucket-mb", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--vllm-memory", type=float, default=0.3, help="vLLM's share of the GPU")
    ap.add_argument("--vllm-graphs", action="store_true", help="CUDA graphs (slower start)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    if args.cpu_smoke:
        device, dtype, sizes = "cpu", torch.float32, ["smoke"]
        args.prompts, args.prompt_words, args.new_tokens = 4, 20, 8
        args.train_samples, args.repeats, args.bucket_mb = 8, 1, [1]
    elif not torch.cuda.is_available():
        sys.exit("error: no GPU here; run with --cpu-smoke to check the script on the CPU")
    else:
        device, dtype, sizes = "cuda", torch.bfloat16, args.sizes
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    start = time.perf_counter()
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            rows[size] = check(size, args, device, dtype, Path(tmp))
            print(f"{size}: {json.dumps({k: round(v, 3) for k, v in rows[size].items()})}")
    where = torch.cuda.get_device_name() if device == "cuda" else "CPU (smoke)"
    print(f"\n{where}, torch {torch.__version__}, {time.perf_counter() - start:.0f} s in all\n")
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps({"device": where, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""GPU suite: everything one short GPU lease can tell about collabrl's GPU path, in one command.

    benchmarks/gpu_suite.sh OUT [--cpu-smoke]      (or python benchmarks/gpu_suite.py OUT ...)

Writes ``OUT/suite.json`` (every figure), ``OUT/summary.md`` (the tables) and ``OUT/suite.log``
(each stage's output). Stages, each in its own process under a hard time limit (GPU budget in
seconds; the whole suite stops at 540 s = 9 minutes whatever the stages do):

| stage | GPU budget | what it measures |
|---|--:|---|
| env | 20 | device, memory, versions; which optional packages import |
| gpu_check | 120 | benchmarks/gpu_check.py at the Qwen2.5-0.5B and -1.5B shapes in bf16 (random weights from configs): rollout tok/s of the transformers engine vs bare ``generate``, trainer tok/s of one PPO update vs a bare forward+backward, peak memory (and the trainer's peak against ``collabrl plan``'s estimate for the same shape) |
| deepspeed | 70 | ZeRO-2 and ZeRO-3 on the one GPU (0.5B shape, the trainer's PPO update): update tok/s and peak memory against the plan; skipped with a line naming the wheel when deepspeed is not importable |
| demos | 30 | expert demonstrations on the household game's training tasks (persona partners) |
| sft | 75 | a from-scratch policy (tiny tokenizer, 26 M parameters) fine-tuned on them |
| gigpo | 105 | GiGPO from the SFT policy against persona partners, iterations until the budget |
| eval | 120 | SFT and SFT + GiGPO (and the idle floor, the expert ceiling) on held-out jobs, with paired 95% intervals as benchmarks/learning.py reports them |

What the learning run's sizes buy (GPU; :data:`LEARNING`): 256 demonstration episodes (about 6,000
decisions) are 40 times the CPU quickstart's, enough examples for a 26 M-parameter model to learn
the answer format from scratch; SFT takes as many of them as a measured throughput probe says fit
its budget; GiGPO iterations of 8 groups x 8 episodes (about 1,500 decisions each) cost about what
4 groups cost on a GPU, whose batched generate is bound by the decoding loop, not by the rows;
the evaluation's 30 held-out jobs (10 test tasks x 3 test profiles, seat 1) are played 30 at a
time, their decisions decoded together (``eval.workers``, :mod:`collabrl.engines.batching`).

``--cpu-smoke`` runs every stage on tiny shapes on the CPU (CI runs it); without it the suite
refuses to start when no GPU is visible. On a GPU, wheels carried in ``.whl/`` (made by
benchmarks/gpu_carry.sh) are installed first into a folder of the suite's own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOTAL_S = 540  # the whole suite: 9 minutes on one H200
SMOKE_TOTAL_S = 600  # --cpu-smoke: a runaway in CI still ends (52 s on 2 idle cores)


@dataclass(frozen=True)
class Stage:
    name: str
    gpu_s: int  # time limit on a GPU
    smoke_s: int  # time limit with --cpu-smoke
    needs: tuple[str, ...] = ()


STAGES = (
    Stage("env", 20, 60),
    Stage("gpu_check", 120, 120),
    Stage("deepspeed", 70, 180),
    Stage("demos", 30, 60),
    Stage("sft", 75, 120, needs=("demos",)),
    Stage("gigpo", 105, 180, needs=("sft",)),
    Stage("eval", 120, 240, needs=("gigpo",)),
)

# The learning run's sizes: on a GPU, and on tiny shapes for --cpu-smoke.
LEARNING: dict[str, dict[str, Any]] = {
    "gpu": {
        "policy": dict(hidden=512, layers=8, heads=8, kv_heads=4, intermediate=1536),
        "demo_episodes": 256,
        "sft": ["sft.epochs=2", "sft.lr=1.0e-3", "sft.batch_size=32", "sft.micro_batch=8"],
        "gigpo": [
            "rollout.groups=8",
            "rollout.episodes_per_group=8",
            "algo.mini_batch=64",
            "algo.micro_batch=8",
            "algo.lr=2.0e-5",
        ],
        "max_iterations": 20,
        "eval_tasks": None,  # every test task (10)
        "eval_profiles": 3,
        "max_new_tokens": 160,
    },
    "smoke": {
        "policy": dict(hidden=64, layers=2, heads=1, kv_heads=1, intermediate=128),
        "demo_episodes": 2,
        "sft_examples": 24,
        "sft": ["sft.epochs=1", "sft.lr=1.0e-3", "sft.batch_size=4", "sft.micro_batch=1"],
        "gigpo": [
            "rollout.groups=1",
            "rollout.episodes_per_group=2",
            "algo.mini_batch=32",
            "algo.micro_batch=1",
            "algo.lr=1.0e-4",
            "game.max_decisions=8",
        ],
        "max_iterations": 1,
        "eval_tasks": ["0_read_book", "10_put_dishwasher"],
        "eval_profiles": 1,
        "eval_options": ["eval.game_options={household: {max_decisions: 12}}"],
        "max_new_tokens": 32,
    },
}
SEED = 0


# --- the orchestrator -----------------------------------------------------------------------------


def carried_wheels(site: Path) -> str | None:
    """Install .whl/*.whl (GPU machines only: the wheels are built for their Python) into
    ``site``; returns what was installed, or None when nothing is carried."""
    wheels = sorted((ROOT / ".whl").glob("*.whl"))
    if not wheels:
        return None
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps"]
    cmd += ["--no-compile", "--no-cache-dir", "--upgrade", "--target", str(site)]
    subprocess.run([*cmd, *map(str, wheels)], check=True)
    return ", ".join(w.name.split("-")[0] for w in wheels)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_stage(stage: Stage, args: argparse.Namespace, env: dict[str, str], limit: float) -> dict:
    """One stage in its own process, killed at ``limit`` seconds; its JSON result and status."""
    log = args.work / f"{stage.name}.log"
    cmd = [sys.executable, str(Path(__file__).resolve()), str(args.out), "--stage", stage.name]
    cmd += ["--work", str(args.work), "--budget", str(limit)]
    cmd += ["--cpu-smoke"] if args.cpu_smoke else []
    start = time.perf_counter()
    with log.open("w") as sink:
        try:
            done = subprocess.run(
                cmd, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=limit
            )
            status = "ok" if done.returncode == 0 else f"failed (exit {done.returncode})"
        except subprocess.TimeoutExpired:
            status = f"timed out after {limit:.0f} s"
    seconds = time.perf_counter() - start
    result_file = args.work / f"{stage.name}.json"
    result = json.loads(result_file.read_text()) if result_file.is_file() else {}
    if status == "ok" and result.get("skipped"):
        status = "skipped"
    return {"status": status, "seconds": round(seconds, 1), "limit_s": limit, "result": result}


def orchestrate(args: argparse.Namespace) -> int:
    import torch

    if not args.cpu_smoke and not torch.cuda.is_available():
        print(
            "error: no GPU here (torch.cuda.is_available() is False): the GPU suite needs one; "
            "--cpu-smoke runs it on tiny shapes on the CPU"
        )
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    args.work = args.work or Path(tempfile.mkdtemp(prefix="collabrl-gpu-suite-"))
    args.work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.update(WANDB_MODE="disabled", HF_HUB_OFFLINE="1")
    path = [str(ROOT)]
    suite: dict[str, Any] = {"mode": "cpu-smoke" if args.cpu_smoke else "gpu", "stages": {}}
    if not args.cpu_smoke:
        site = args.work / "site"
        suite["carried"] = carried_wheels(site)
        if suite["carried"]:
            path.insert(0, str(site))
    env["PYTHONPATH"] = os.pathsep.join(path + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    total = SMOKE_TOTAL_S if args.cpu_smoke else TOTAL_S
    start = time.perf_counter()
    chosen = [s for s in STAGES if not args.only or s.name in args.only]
    for stage in chosen:
        left = total - (time.perf_counter() - start)
        missing = [  # a stage left out by --only: its results are in --work already
            n for n in stage.needs if n in suite["stages"] and suite["stages"][n]["status"] != "ok"
        ]
        if missing or left < 5:
            why = f"needs {', '.join(missing)}" if missing else "the suite's time is up"
            suite["stages"][stage.name] = {"status": f"not run ({why})", "seconds": 0}
        else:
            limit = min(stage.smoke_s if args.cpu_smoke else stage.gpu_s, left)
            suite["stages"][stage.name] = run_stage(stage, args, env, limit)
        row = suite["stages"][stage.name]
        print(f"{stage.name}: {row['status']} ({row['seconds']:.0f} s)", flush=True)
        suite["seconds"] = round(time.perf_counter() - start, 1)
        (args.out / "suite.json").write_text(json.dumps(suite, indent=1))
    write_log(args, chosen)
    summary = render(suite)
    (args.out / "summary.md").write_text(summary)
    print(f"\n{summary}")
    if not args.keep_work:
        shutil.rmtree(args.work, ignore_errors=True)
    failed = [n for n, r in suite["stages"].items() if r["status"] not in ("ok", "skipped")]
    return 1 if failed and args.cpu_smoke else 0


def write_log(args: argparse.Namespace, stages: list[Stage], lines: int = 300) -> None:
    """Each stage's output, its last ``lines`` lines, in one file."""
    parts = []
    for stage in stages:
        log = args.work / f"{stage.name}.log"
        text = log.read_text(errors="replace").splitlines()[-lines:] if log.is_file() else []
        parts.append(f"===== {stage.name} =====\n" + "\n".join(text))
    (args.out / "suite.log").write_text("\n".join(parts) + "\n")


# --- the stages (each runs in its own process) ----------------------------------------------------


def stage_env(smoke: bool, work: Path) -> dict[str, Any]:
    import importlib.util
    import platform

    import torch
    import transformers

    out: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cpus": os.cpu_count(),
        "importable": {
            m: importlib.util.find_spec(m) is not None
            for m in ("accelerate", "peft", "deepspeed", "vllm", "datasets", "flash_attn")
        },
    }
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        out |= {
            "device": props.name,
            "gpu_memory_gib": round(props.total_memory / 2**30, 1),
            "cuda": torch.version.cuda,
        }
    else:
        out["device"] = "CPU (smoke)"
    return out


def _gpu_check_args(smoke: bool) -> argparse.Namespace:
    """gpu_check.py's defaults (its --cpu-smoke sizes with ``smoke``)."""
    args = argparse.Namespace(
        sizes=["0.5b", "1.5b"],
        cpu_smoke=smoke,
        prompts=64,
        prompt_words=300,
        new_tokens=128,
        train_samples=64,
        repeats=2,
        bucket_mb=[256, 1024],
        vllm_memory=0.3,
        vllm_graphs=False,
    )
    if smoke:
        args.prompts, args.prompt_words, args.new_tokens = 4, 20, 8
        args.train_samples, args.repeats, args.bucket_mb = 8, 1, [1]
    return args


def qwen_shape(size: str):
    """gpu_check's shape as collabrl plan sees it."""
    import gpu_check

    from collabrl.training.shapes import shape_from_config

    cfg = gpu_check.SHAPES[size]
    return shape_from_config(
        {**cfg, "tie_word_embeddings": True, "model_type": "qwen2"}, size, "gpu_check"
    )


def planned_peak_gib(shape, parallel, work) -> float:
    """The plan's update-phase total without the CUDA context (the allocator does not count it)."""
    from collabrl.training.plan import CUDA_CONTEXT, GIB, plan_memory

    plan = plan_memory(shape, parallel, work, 1 << 50)
    context = CUDA_CONTEXT if not parallel.cpu else 0
    return (plan.total("update") - context) / GIB


def stage_gpu_check(smoke: bool, work: Path) -> dict[str, Any]:
    import gpu_check
    import torch

    from collabrl.training.plan import Parallel, Workload

    args = _gpu_check_args(smoke)
    device, dtype = ("cpu", torch.float32) if smoke else ("cuda", torch.bfloat16)
    sizes = ["smoke"] if smoke else args.sizes
    rows: dict[str, dict[str, float]] = {}
    for size in sizes:
        rows[size] = gpu_check.check(size, args, device, dtype, work / "gpu_check")
        # the trainer's rows: prompt_words prompt tokens + replies of at most 47 (16-48), 4 a pass
        workload = Workload(micro_batch=4, seq=args.prompt_words + 47, kept=48, reference=False)
        par = Parallel(cpu=smoke, weights_bf16=not smoke)
        rows[size]["plan_trainer_peak_gib"] = planned_peak_gib(qwen_shape(size), par, workload)
        print(size, json.dumps(rows[size]), flush=True)
        shutil.rmtree(work / "gpu_check", ignore_errors=True)
    return {"rows": rows, "table": gpu_check.report(rows)}


def stage_deepspeed(smoke: bool, work: Path) -> dict[str, Any]:
    """ZeRO-2, then ZeRO-3, each in a process of its own (DeepSpeed's state is global)."""
    import importlib.util

    if importlib.util.find_spec("deepspeed") is None:
        return {
            "skipped": "deepspeed is not importable: carry its wheel (benchmarks/gpu_carry.sh "
            "builds .whl/deepspeed-0.19.8-py3-none-any.whl with DS_BUILD_OPS=0; "
            "hjson and pydantic with it)"
        }
    out = {}
    for zero in (2, 3):
        result = work / f"zero{zero}.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), str(work), "--stage", "zero"]
        cmd += ["--zero", str(zero), "--work", str(work)] + (["--cpu-smoke"] if smoke else [])
        env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}
        env.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1")  # one rank, no launcher
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        print(done.stdout[-4000:], done.stderr[-4000:], flush=True)
        out[f"zero{zero}"] = (
            json.loads(result.read_text())
            if result.is_file()
            else {"error": f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"}
        )
    return out


def stage_zero(smoke: bool, work: Path, zero: int) -> dict[str, Any]:
    """The trainer's PPO update under DeepSpeed ZeRO-``zero`` on one device (bf16 on a GPU)."""
    import numpy as np
    import torch
    from accelerate import Accelerator
    from accelerate.utils import DeepSpeedPlugin
    from train_overhead import synthetic_samples
    from transformers import Qwen2Config, Qwen2ForCausalLM, get_scheduler

    from collabrl.config import AlgoSpec
    from collabrl.training.plan import Parallel, Workload
    from collabrl.training.policy import fill_deepspeed_config
    from collabrl.training.update import Optimisation, ppo_update

    size = "smoke" if smoke else "0.5b"
    config_file = ROOT / "launch" / "ds" / (f"zero{zero}_cpu.json" if smoke else f"zero{zero}.json")
    algo = AlgoSpec(mini_batch=16, micro_batch=4, lr=1e-6, kl_coef=0.0)
    plugin = DeepSpeedPlugin(hf_ds_config=str(config_file))
    accelerator = Accelerator(
        cpu=smoke,
        deepspeed_plugin=plugin,
        gradient_accumulation_steps=algo.mini_batch // algo.micro_batch,
    )
    fill_deepspeed_config(accelerator, algo.micro_batch, algo.grad_clip)
    import gpu_check

    torch.manual_seed(0)
    config = Qwen2Config(**gpu_check.SHAPES[size], tie_word_embeddings=True)
    model = Qwen2ForCausalLM(config).float()  # the trainer loads float32; DeepSpeed casts
    optimizer = torch.optim.AdamW(model.parameters(), lr=algo.lr)
    model, optimizer, scheduler = accelerator.prepare(
        model, optimizer, get_scheduler("constant", optimizer)
    )
    model.train()
    rng = np.random.default_rng(0)
    prompt = 20 if smoke else 300
    samples = synthetic_samples(8 if smoke else 64, 1000, rng)
    for s in samples:
        s.prompt_ids = rng.integers(3, 1000, prompt).tolist()
    tokens = sum(len(s.prompt_ids) + len(s.response_ids) for s in samples)
    advantages = rng.standard_normal(len(samples)).tolist()
    old = [s.rollout_logprobs for s in samples]
    run = Optimisation(model, optimizer, scheduler, accelerator, algo, 1.0, 0, None)
    cuda = torch.cuda.is_available() and not smoke
    ppo_update(run, samples, advantages, old, np.random.default_rng(7))  # warm-up
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(1 if smoke else 2):
        t0 = time.perf_counter()
        ppo_update(run, samples, advantages, old, np.random.default_rng(7))
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else 0.0
    par = Parallel(gpus=1, zero=zero, bf16=not smoke, deepspeed=True, cpu=smoke)
    workload = Workload(micro_batch=4, seq=prompt + 47, kept=48, reference=False)
    return {
        "params_m": sum(
            p.ds_numel if hasattr(p, "ds_numel") else p.numel() for p in model.parameters()
        )
        / 1e6,
        "update_tok_s": tokens / min(times),
        "peak_gib": peak,
        "plan_peak_gib": planned_peak_gib(qwen_shape(size), par, workload),
    }


# --- the learning run -----------------------------------------------------------------------------


def make_policy(folder: Path, shape: dict[str, int]) -> Path:
    """A from-scratch Llama with the tiny tokenizer (its own BPE; nothing downloaded)."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    from collabrl.models.tiny import make_tiny_tokenizer

    tokenizer = make_tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=shape["hidden"],
        intermediate_size=shape["intermediate"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        num_key_value_heads=shape["kv_heads"],
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def sft_recipe(work: Path, sizes: dict[str, Any], demos: Path):
    from collabrl.config import load_recipe

    return load_recipe(
        "cwah_sft_cpu",
        [
            f"seed={SEED}",
            f"output_dir={work / 'sft'}",
            f"policy.model={work / 'policy0'}",
            f"sft.demos.episodes={sizes['demo_episodes']}",
            f"sft.demos.path={demos}",
            "train.trackers=[jsonl]",
            *sizes["sft"],
        ],
    )


def stage_demos(smoke: bool, work: Path) -> dict[str, Any]:
    import importlib.util

    from collabrl.records import write_jsonl
    from collabrl.sft.demos import demos_path, record_demos, write_demos

    sizes = LEARNING["smoke" if smoke else "gpu"]
    t0 = time.perf_counter()
    make_policy(work / "policy0", sizes["policy"])
    build_s = time.perf_counter() - t0
    recipe = sft_recipe(work, sizes, work / "demos.jsonl")
    rows = list(record_demos(recipe, recipe.sft.demos))
    path = demos_path(recipe, recipe.sft.demos)
    path.parent.mkdir(parents=True, exist_ok=True)
    if importlib.util.find_spec("datasets") is not None:
        write_demos(rows, path)
    else:  # the JSONL alone is what SFT reads
        write_jsonl(path, rows)
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(work / "policy0")
    params = config.vocab_size * config.hidden_size + config.num_hidden_layers * (
        2 * config.hidden_size**2
        + 2
        * config.hidden_size
        * config.num_key_value_heads
        * (config.hidden_size // config.num_attention_heads)
        + 3 * config.hidden_size * config.intermediate_size
    )
    return {
        "policy_params_m": round(params / 1e6, 1),
        "policy_build_s": round(build_s, 1),
        "episodes": sizes["demo_episodes"],
        "examples": len(rows),
        "demos_s": round(time.perf_counter() - t0 - build_s, 1),
    }


def stage_sft(smoke: bool, work: Path, budget_s: float) -> dict[str, Any]:
    """SFT on as many demonstration examples as a throughput probe says fit ``budget_s``."""
    from collabrl.records import read_jsonl, write_jsonl
    from collabrl.sft.demos import demos_path
    from collabrl.sft.trainer import train_sft

    sizes = LEARNING["smoke" if smoke else "gpu"]
    recipe = sft_recipe(work, sizes, work / "demos.jsonl")
    rows = read_jsonl(demos_path(recipe, recipe.sft.demos))
    probe_s, per_example = sft_probe(recipe, rows, smoke)
    epochs = recipe.sft.epochs
    usable = budget_s * 0.7 - probe_s - 15  # model load, checkpoint, imports
    fit = max(recipe.sft.batch_size, int(usable / max(per_example, 1e-6) / epochs))
    keep = rows[: sizes["sft_examples"]] if smoke else rows[: min(len(rows), fit)]
    subset = work / "sft_demos.jsonl"
    write_jsonl(subset, keep)
    recipe = sft_recipe(work, sizes, subset)
    t0 = time.perf_counter()
    policy = train_sft(recipe, recipe.sft)
    (work / "sft_policy.txt").write_text(str(policy))
    return {
        "examples_available": len(rows),
        "examples_used": len(keep),
        "epochs": epochs,
        "probe_s_per_example": round(per_example, 4),
        "train_s": round(time.perf_counter() - t0, 1),
        "policy": str(policy),
    }


def sft_probe(recipe, rows: list[dict], smoke: bool) -> tuple[float, float]:
    """Seconds of the probe and seconds per example of SFT's forward + backward + step, from
    three micro-batches of the longest examples (the trainer's loader, its precision)."""
    import torch
    from accelerate import Accelerator

    from collabrl.sft.data import collate_examples, response_nll, tokenize_demos
    from collabrl.training.policy import load_policy
    from collabrl.training.update import TokenBatch

    t0 = time.perf_counter()
    policy = load_policy(recipe.policy, recipe.policy.model, need_reference=False)
    accelerator = Accelerator()
    model = accelerator.prepare(policy.model)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    spec = recipe.sft
    data = tokenize_demos(rows[:64], policy.tokenizer, spec.max_length, spec.overlong)
    examples = sorted(data.examples, key=lambda e: -len(e.prompt_ids) - len(e.response_ids))
    micro = recipe.sft.micro_batch
    batches = [examples[k * micro : (k + 1) * micro] for k in range(3)]
    batches = [b for b in batches if b]
    timed = []
    for batch in batches:
        padded = collate_examples(batch, policy.tokenizer.pad_token_id)
        padded = TokenBatch(*(t.to(accelerator.device) for t in padded.__dict__.values()))
        start = time.perf_counter()
        nll, count = response_nll(model, padded)
        accelerator.backward(nll / count)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        timed.append((time.perf_counter() - start) / len(batch))
    del model, optimizer, policy
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    per_example = min(timed[1:] or timed)  # the first pays for kernels and allocator warm-up
    return time.perf_counter() - t0, per_example


def gigpo_recipe(work: Path, sizes: dict[str, Any], iterations: int):
    from collabrl.config import load_recipe

    sft_policy = (work / "sft_policy.txt").read_text().strip()
    return load_recipe(
        "cwah_gigpo_cpu",
        [
            f"seed={SEED}",
            f"policy.model={sft_policy}",
            f"output_dir={work / 'gigpo'}",
            f"policy.sampling.max_new_tokens={sizes['max_new_tokens']}",
            f"train.iterations={iterations}",
            "train.checkpoint_every=1",
            "train.keep_checkpoints=1",
            "train.resume=true",
            "train.trackers=[jsonl]",
            *sizes["gigpo"],
        ],
    )


def stage_gigpo(smoke: bool, work: Path, budget_s: float) -> dict[str, Any]:
    """One more iteration at a time (resuming the run) while the next still fits the budget."""
    from collabrl.records import read_jsonl
    from collabrl.training.loop import train

    sizes = LEARNING["smoke" if smoke else "gpu"]
    start = time.perf_counter()
    last = 0.0
    done = 0
    while done < sizes["max_iterations"]:
        elapsed = time.perf_counter() - start
        if done and elapsed + 1.3 * last > budget_s - 10:
            break
        t0 = time.perf_counter()
        run_dir = train(gigpo_recipe(work, sizes, done + 1))
        last = time.perf_counter() - t0
        done += 1
        print(f"iteration {done}: {last:.1f} s", flush=True)
    (work / "gigpo_run.txt").write_text(str(run_dir))
    metrics = read_jsonl(Path(run_dir) / "metrics.jsonl")
    keep = (
        "success_rate",
        "reward/efficiency",
        "valid_rate",
        "messages_per_step",
        "signal/live_groups",
        "loss",
        "time/generation",
        "time/training",
        "time/iteration",
    )
    return {
        "iterations": done,
        "seconds_per_iteration": round(last, 1),
        "metrics": [{k: r[k] for k in keep if k in r} for r in metrics],
    }


def evaluate(work: Path, sizes: dict[str, Any], name: str, policy: list[str], smoke: bool):
    from collabrl.config import load_recipe
    from collabrl.eval.protocol import run_evaluation
    from collabrl.eval.report import episode_rows

    tasks = sizes["eval_tasks"]
    from collabrl.envs.registry import get_game

    jobs = len(tasks or get_game("household").tasks("test")) * sizes["eval_profiles"]
    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            *([f"eval.tasks=[{', '.join(tasks)}]"] if tasks else []),
            f"eval.max_profiles={sizes['eval_profiles']}",
            "eval.seats=[1]",
            f"eval.seeds=[{SEED}]",
            f"eval.workers={jobs}",
            *policy,
            f"eval.output_dir={work / f'eval_{name}'}",
            *sizes.get("eval_options", ()),
        ],
    )
    result = run_evaluation(recipe.evaluation(), progress=False)
    return episode_rows(result.outcomes), result.stamp["merged_calls"]


def stage_eval(smoke: bool, work: Path) -> dict[str, Any]:
    import importlib.util

    from tabulate import tabulate

    if importlib.util.find_spec("datasets") is None:  # not on the GPU image: no HF copies
        import collabrl.eval.protocol

        collabrl.eval.protocol.write_hf_dataset = lambda *args, **kwargs: None  # type: ignore[assignment]

    from collabrl.eval.compare import compare, comparison_rows, verdict
    from collabrl.quickstart import CEILING, FLOOR, latest_policy, results_table

    sizes = LEARNING["smoke" if smoke else "gpu"]
    device = "cpu" if smoke else "cuda"

    def llm(folder: str) -> list[str]:
        return [
            "eval.policy.kind=llm",
            "eval.policy.engine.backend=transformers",
            f"eval.policy.engine.model={folder}",
            f"eval.policy.engine.options={{device: {device}}}",
            f"eval.policy.sampling={{temperature: 0.7, max_new_tokens: {sizes['max_new_tokens']}}}",
        ]

    sft_policy = (work / "sft_policy.txt").read_text().strip()
    rl_policy = latest_policy(Path((work / "gigpo_run.txt").read_text().strip()))
    episodes, times, batches = {}, {}, {}
    for name, policy in {
        "SFT": llm(sft_policy),
        "SFT + GiGPO": llm(rl_policy),
        FLOOR: ["eval.policy.kind=idle"],
        CEILING: ["eval.policy.kind=expert"],
    }.items():
        t0 = time.perf_counter()
        episodes[name], merged = evaluate(
            work, sizes, name.replace(" ", "_").replace(":", ""), policy, smoke
        )
        times[name] = round(time.perf_counter() - t0, 1)
        if merged and merged["calls"]:
            batches[name] = merged
        print(f"{name}: {len(episodes[name])} episodes in {times[name]} s", flush=True)
    paired = compare(episodes["SFT"], episodes["SFT + GiGPO"], "SFT", "SFT + GiGPO")
    rows = results_table(episodes)
    return {
        "jobs": len(episodes["SFT"]),
        "seconds": times,
        "batched_calls": batches,
        "rows": rows,
        "table": tabulate(rows, headers="keys", tablefmt="github", floatfmt=".3f"),
        "paired": comparison_rows(paired),
        "verdict": verdict(paired),
    }


# --- the summary ----------------------------------------------------------------------------------


def render(suite: dict[str, Any]) -> str:
    """summary.md: stage times, then each stage's tables."""
    from tabulate import tabulate

    stages = suite["stages"]
    env = stages.get("env", {}).get("result", {})
    lines = [
        f"# collabrl GPU suite ({suite['mode']})",
        "",
        f"{env.get('device', '?')}, {env.get('gpu_memory_gib', '-')} GiB; torch {env.get('torch', '?')}, "
        f"transformers {env.get('transformers', '?')}, Python {env.get('python', '?')}; "
        f"carried: {suite.get('carried') or 'nothing'}; {suite.get('seconds', 0):.0f} s in all",
        "",
        tabulate(
            [[n, r["status"], r["seconds"], r.get("limit_s", "")] for n, r in stages.items()],
            headers=["stage", "status", "seconds", "limit (s)"],
            tablefmt="github",
        ),
    ]
    check = stages.get("gpu_check", {}).get("result", {})
    if check.get("rows"):
        lines += ["", "## gpu_check", "", check["table"], ""]
        plan_rows = [
            [s, r["params_m"], r.get("train_trainer_peak_gib", 0), r["plan_trainer_peak_gib"]]
            for s, r in check["rows"].items()
        ]
        lines.append(
            tabulate(
                plan_rows,
                headers=[
                    "shape",
                    "params (M)",
                    "PPO update peak GiB (measured)",
                    "collabrl plan GiB",
                ],
                tablefmt="github",
                floatfmt=".2f",
            )
        )
    ds = stages.get("deepspeed", {}).get("result", {})
    if ds.get("skipped"):
        lines += ["", "## DeepSpeed", "", f"skipped: {ds['skipped']}"]
    elif ds:
        rows = [
            [
                k,
                *(
                    v.get(c, v.get("error", ""))
                    for c in ("update_tok_s", "peak_gib", "plan_peak_gib")
                ),
            ]
            for k, v in ds.items()
        ]
        lines += ["", "## DeepSpeed on one device", ""]
        lines.append(
            tabulate(
                rows,
                headers=["stage", "update tok/s", "peak GiB", "plan GiB"],
                tablefmt="github",
                floatfmt=".2f",
            )
        )
    learning = {n: stages.get(n, {}).get("result", {}) for n in ("demos", "sft", "gigpo", "eval")}
    if any(learning.values()):
        d, s, g, e = (learning[n] for n in ("demos", "sft", "gigpo", "eval"))
        lines += ["", "## learning run (household, persona partners)", ""]
        if d:
            lines.append(
                f"- policy: {d.get('policy_params_m')} M parameters from scratch, tiny tokenizer; demonstrations: {d.get('episodes')} expert episodes, {d.get('examples')} examples ({d.get('demos_s')} s)"
            )
        if s:
            lines.append(
                f"- SFT: {s.get('examples_used')} of {s.get('examples_available')} examples x {s.get('epochs')} epochs in {s.get('train_s')} s (probe: {s.get('probe_s_per_example')} s per example)"
            )
        if g:
            lines.append(
                f"- GiGPO: {g.get('iterations')} iterations, {g.get('seconds_per_iteration')} s for the last"
            )
        if e:
            lines += [
                f"- held-out jobs: {e.get('jobs')} per policy; seconds {e.get('seconds')}; batched calls {e.get('batched_calls')}",
                "",
                e["table"],
                "",
            ]
            lines.append(tabulate(e["paired"], headers="keys", tablefmt="github"))
            lines += ["", f"verdict: {e['verdict']}"]
    return "\n".join(lines) + "\n"


# --- entry ----------------------------------------------------------------------------------------


STAGE_FUNCS: dict[str, Callable[..., dict[str, Any]]] = {
    "env": stage_env,
    "gpu_check": stage_gpu_check,
    "deepspeed": stage_deepspeed,
    "demos": stage_demos,
    "eval": stage_eval,
}


def run_one(args: argparse.Namespace) -> None:
    """``--stage NAME``: run one stage here and write its JSON into the work folder."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # gpu_check, train_overhead
    import torch

    if torch.cuda.is_available() and not args.cpu_smoke:
        torch.set_float32_matmul_precision("high")  # TF32 matrix products (on a CPU: slower)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    smoke, work = args.cpu_smoke, args.work
    budget = args.budget
    if args.stage == "zero":
        result = stage_zero(smoke, work, args.zero)
        (work / f"zero{args.zero}.json").write_text(json.dumps(result, indent=1))
        return
    if args.stage == "sft":
        result = stage_sft(smoke, work, budget)
    elif args.stage == "gigpo":
        result = stage_gigpo(smoke, work, budget)
    else:
        result = STAGE_FUNCS[args.stage](smoke, work)
    (work / f"{args.stage}.json").write_text(json.dumps(result, indent=1, default=str))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for suite.json, summary.md, suite.log")
    parser.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU (CI)")
    parser.add_argument("--only", nargs="+", choices=[s.name for s in STAGES], help="these stages")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temp)")
    parser.add_argument("--keep-work", action="store_true", help="keep the scratch folder")
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    parser.add_argument("--zero", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=float, default=60.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage:
        run_one(args)
        return
    sys.exit(orchestrate(args))


if __name__ == "__main__":
    main()

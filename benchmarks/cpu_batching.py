"""Batched decoding on the CPU: what the compact setup's ``policy.engine_options.batch_size`` and
``eval.workers`` buy, measured side by side on one machine state.

1. Decoding: the quickstart's SFT policy replies to real prompts of the compact layout (its own
   demonstrations, every 23rd decision) in one ``generate`` call per batch size; decisions per
   second at each size, and the ratio to one at a time (the transformers default on a CPU).
2. Evaluation: the held-out evaluation of the same policy with ``eval.workers=1`` (one episode at
   a time, one-row calls) and with the recipe's workers (the episodes' decisions decoded together
   in lockstep rounds, :mod:`collabrl.engines.batching`); wall time of each and the ratio.

    python benchmarks/cpu_batching.py [--sft FOLDER] [--out runs/cpu_batching]

``--sft``: a finished SFT run of the compact setup (the quickstart's ``sft`` folder); without it
one is trained first (demonstrations and SFT, about 2 minutes, not timed).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tabulate import tabulate

from collabrl.config import load_recipe
from collabrl.engines.hf import TransformersEngine
from collabrl.engines.options import TransformersOptions
from collabrl.engines.types import SamplingParams
from collabrl.quickstart import QuickstartPlan, evaluate_policy, latest_policy, llm_policy, run_sft

BATCH_SIZES = (1, 4, 8, 16, 32)


def decode_rates(
    plan: QuickstartPlan, policy: str, demos: Path, rows: int, repeats: int
) -> list[dict[str, float]]:
    """Decisions per second at each batch size (best of ``repeats``), same prompts and seed,
    sampled as the GiGPO recipe samples."""
    lines = demos.read_text(encoding="utf-8").splitlines()
    prompts = [json.loads(line)["prompt"] for line in lines[::23][:rows]]
    sampling = load_recipe(plan.rl_recipe, []).policy.sampling
    params = SamplingParams(
        temperature=sampling.temperature, max_new_tokens=sampling.max_new_tokens, seed=1
    )
    out = []
    for size in BATCH_SIZES:
        engine = TransformersEngine.from_pretrained(policy, TransformersOptions(batch_size=size))
        engine.generate(prompts[:4], params)  # warm-up
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            engine.generate(prompts, params)
            best = min(best, time.perf_counter() - t0)
        out.append({"batch size": size, "decisions/s": len(prompts) / best})
    for row in out:
        row["x one at a time"] = row["decisions/s"] / out[0]["decisions/s"]
    return out


def eval_times(plan: QuickstartPlan, policy: str) -> list[dict[str, float]]:
    """Wall time of the held-out evaluation one episode at a time and with the recipe's workers."""
    workers = load_recipe(plan.rl_recipe, []).evaluation().workers
    out = []
    for count in (1, workers):
        t0 = time.perf_counter()
        rows = evaluate_policy(
            plan, f"workers{count}", [*llm_policy(plan, policy), f"eval.workers={count}"]
        )
        out.append({"eval.workers": count, "jobs": len(rows), "seconds": time.perf_counter() - t0})
    for row in out:
        row["x one at a time"] = out[0]["seconds"] / row["seconds"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sft", type=Path, help="a finished compact SFT run folder")
    parser.add_argument("--out", type=Path, default=Path("runs/cpu_batching"))
    parser.add_argument("--rows", type=int, default=32, help="prompts decoded per measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    plan = QuickstartPlan(out=args.out)
    if args.sft is None:
        run_sft(plan)
    sft = args.sft or plan.out / "sft"
    policy = latest_policy(sft)
    for table in (
        decode_rates(plan, policy, sft / "demos.jsonl", args.rows, args.repeats),
        eval_times(plan, policy),
    ):
        print(tabulate(table, headers="keys", tablefmt="github", floatfmt=".2f"), end="\n\n")


if __name__ == "__main__":
    main()

"""Does the CPU quickstart learn? SFT vs SFT + GiGPO on held-out tasks and profiles, per seed.

For each seed: demonstrations -> SFT -> (a) GiGPO with the full hybrid reward and (b) GiGPO with
the efficiency reward only (the paper's "w/o affective" ablation), each evaluated on held-out
household tasks with test profiles. Prints per-seed rows, then mean and spread per policy.

Goal: GiGPO improves the held-out efficiency reward over SFT in every seed without lowering the
affective proxy; without the affective reward, message frequency ends lower than with it.

    python benchmarks/learning.py [--seeds 0 1 2] [--iterations 8] [--out runs/learning]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate

from collabrl.quickstart import QuickstartPlan, evaluate_policy, latest_policy, run_gigpo, run_sft
from collabrl.records import read_jsonl

NO_AFFECTIVE = ("reward.format_penalty=0", "reward.communication=0", "reward.judge.kind=none")
METRICS = ("efficiency_reward", "success", "steps", "message_freq", "valid_rate", "affective_proxy")


def one_seed(out: Path, seed: int, iterations: int) -> list[dict]:
    """SFT, GiGPO and GiGPO without affective reward for one seed, each evaluated held out."""
    plan = QuickstartPlan(out=out / f"seed{seed}", seed=seed, iterations=iterations)
    sft = run_sft(plan)
    rows = [{"seed": seed, "policy": "SFT", **evaluate_policy(sft, plan, "sft"), "signal": None}]
    for label, extra in (("SFT + GiGPO", ()), ("SFT + GiGPO w/o affective", NO_AFFECTIVE)):
        variant = QuickstartPlan(
            out=plan.out / label.replace(" ", "_").replace("/", ""),
            seed=seed,
            iterations=iterations,
            extra_rl=extra,
        )
        run_dir = run_gigpo(variant, sft)
        rows.append(
            {
                "seed": seed,
                "policy": label,
                **evaluate_policy(latest_policy(run_dir), variant, "eval"),
                "signal": signal(run_dir),
            }
        )
    return rows


def signal(run_dir: Path) -> float:
    """The share of training iterations with any nonzero advantage: at 0 the policy never
    received a gradient and is the SFT policy unchanged."""
    rows = read_jsonl(run_dir / "metrics.jsonl")
    return sum(r["adv/abs_max"] > 0 for r in rows) / len(rows)


def summarise(rows: list[dict]) -> list[dict]:
    """Mean and standard deviation across seeds, per policy."""
    out = []
    for policy in dict.fromkeys(r["policy"] for r in rows):
        mine = [r for r in rows if r["policy"] == policy]
        line = {"policy": policy, "seeds": len(mine)}
        for m in METRICS:
            values = np.array([r[m] for r in mine], dtype=float)
            line[m] = f"{np.nanmean(values):.3f} ± {np.nanstd(values):.3f}"
        out.append(line)
    return out


def verdicts(rows: list[dict]) -> list[str]:
    """The two claims the benchmark checks, stated with what was measured."""
    by = {(r["seed"], r["policy"]): r for r in rows}
    seeds = sorted({r["seed"] for r in rows})
    better = [
        by[s, "SFT + GiGPO"]["efficiency_reward"] > by[s, "SFT"]["efficiency_reward"] for s in seeds
    ]
    kept = [
        by[s, "SFT + GiGPO"]["affective_proxy"] >= by[s, "SFT"]["affective_proxy"] - 1e-9
        for s in seeds
    ]
    quieter = [
        by[s, "SFT + GiGPO w/o affective"]["message_freq"] < by[s, "SFT + GiGPO"]["message_freq"]
        for s in seeds
    ]
    silent = [by[s, "SFT + GiGPO w/o affective"]["signal"] == 0 for s in seeds]
    return [
        f"GiGPO beats SFT on held-out efficiency reward in {sum(better)}/{len(seeds)} seeds",
        f"GiGPO keeps the affective proxy at least at SFT's level in {sum(kept)}/{len(seeds)} seeds",
        f"without the affective reward, message frequency ends lower in "
        f"{sum(quieter)}/{len(seeds)} seeds",
        f"without the affective reward, no advantage was ever nonzero (the policy is SFT's) in "
        f"{sum(silent)}/{len(seeds)} seeds",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--out", type=Path, default=Path("runs/learning"))
    args = parser.parse_args()
    start = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for seed in args.seeds:  # each seed's rows are printed and saved as soon as they exist
        seed_rows = one_seed(args.out, seed, args.iterations)
        print(tabulate(seed_rows, headers="keys", tablefmt="github", floatfmt=".3f"), flush=True)
        with open(args.out / "learning.jsonl", "a", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in seed_rows)
        rows += seed_rows
    print()
    print(tabulate(summarise(rows), headers="keys", tablefmt="github"))
    for line in verdicts(rows):
        print("-", line)
    print(f"wall time {(time.perf_counter() - start) / 60:.1f} min")


if __name__ == "__main__":
    main()

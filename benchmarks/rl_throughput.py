"""Training episodes per minute of GiGPO on the CPU: the quickstart's compact setup against the
paper-prompt setup, measured side by side in one run.

Each setup (:data:`collabrl.quickstart.SETUPS`) first gets its own SFT policy, exactly as the
quickstart makes it (demonstrations, then SFT; not timed), so rollouts generate replies of the
length a trained policy writes. Then the two GiGPO recipes train in turns, ``--iterations`` at a
time, ``--rounds`` times, on the same machine state; every iteration's wall time comes from the
run's own ``time/iteration`` (rollout, pi_old, update). It prints episodes per minute per setup
(median and range over iterations, the first of each run left out as warm-up) and the ratio
compact / paper of the medians with its range over rounds.

    python benchmarks/rl_throughput.py [--iterations 3] [--rounds 2] [--out runs/throughput]
        [--sft compact=FOLDER paper=FOLDER]

``--sft SETUP=FOLDER`` reuses an SFT policy a quickstart (or an earlier run) made with the same
recipe and seed instead of training it again.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
from pathlib import Path

from tabulate import tabulate

from collabrl.config import load_recipe
from collabrl.quickstart import SETUPS, QuickstartPlan, run_gigpo, run_sft
from collabrl.records import read_jsonl


def episodes_per_minute(run_dir: Path, episodes: int) -> list[float]:
    """One figure per iteration after the first (warm-up: lazy imports, allocator growth)."""
    rows = read_jsonl(run_dir / "metrics.jsonl")[1:]
    return [60.0 * episodes / r["time/iteration"] for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3, help="per run, the first is warm-up")
    parser.add_argument("--rounds", type=int, default=2, help="turns of both setups")
    parser.add_argument("--out", type=Path, default=Path("runs/throughput"))
    parser.add_argument("--sft", nargs="*", default=[], help="SETUP=FOLDER of a finished SFT")
    args = parser.parse_args()
    sft = dict(item.split("=", 1) for item in args.sft)
    for setup in SETUPS:
        if setup in sft:
            continue
        plan = QuickstartPlan(out=args.out / setup, setup=setup)
        marker = args.out / setup / "sft_policy.txt"
        if not marker.is_file():
            shutil.rmtree(args.out / setup / "sft", ignore_errors=True)
            marker.write_text(run_sft(plan), encoding="utf-8")
        sft[setup] = marker.read_text(encoding="utf-8")
    rates: dict[str, list[float]] = {s: [] for s in SETUPS}
    ratios = []
    for turn in range(args.rounds):
        medians = {}
        for setup in SETUPS:
            plan = QuickstartPlan(
                out=args.out / setup / f"round{turn}",
                setup=setup,
                iterations=args.iterations,
                extra_rl=("train.wandb=disabled",),
            )
            shutil.rmtree(plan.out, ignore_errors=True)
            run_dir = run_gigpo(plan, sft[setup])
            rollout = load_recipe(plan.rl_recipe, []).rollout
            got = episodes_per_minute(run_dir, rollout.groups * rollout.episodes_per_group)
            rates[setup] += got
            medians[setup] = statistics.median(got)
        ratios.append(medians["compact"] / medians["paper"])
    rows = [
        {
            "setup": s,
            "recipe": SETUPS[s][1],
            "episodes/min (median)": statistics.median(r),
            "min": min(r),
            "max": max(r),
            "iterations": len(r),
        }
        for s, r in rates.items()
    ]
    print(tabulate(rows, headers="keys", tablefmt="github", floatfmt=".2f"))
    print(
        f"compact / paper: {statistics.median(ratios):.2f}x "
        f"(range over {len(ratios)} rounds {min(ratios):.2f}-{max(ratios):.2f}; goal: at least 4x)"
    )


if __name__ == "__main__":
    main()

"""Does the CPU quickstart learn? The paper's claims as measured rows, per seed and pooled.

For each seed: demonstrations -> SFT -> (a) GiGPO with the full hybrid reward and (b) GiGPO with
the efficiency reward only (the paper's "w/o affective" ablation). Every policy, and the floor
(an idle agent: the partner alone) and the ceiling (the expert in the agent's seat), plays the
same held-out jobs (test tasks x test profiles of every player type x seats x seeds). Per seed
and pooled over seeds it prints each policy's means and the paired difference against SFT with
its 95% interval, then the verdicts:

- hybrid reward vs SFT on the efficiency reward (above in every seed; pooled interval > 0) and
  on the affective proxy; success not lower beyond its interval;
- w/o affective: a non-zero gradient in at least 75% of its iterations, and a lower message
  frequency than the full reward in every seed (the paper's "silent executor").

Resumable: each finished stage (SFT, a GiGPO run, an evaluation) is saved under ``--out`` as it
ends, a killed GiGPO run continues from its last checkpoint, and a rerun with the same arguments
skips what is done.

    python benchmarks/learning.py [--setup compact|paper] [--seeds 0 1 2 3 4] [--iterations N]
        [--out runs/learning]

To choose a setting, add arms and evaluate on training jobs, never on the test split:
``--arm "omega 4=algo.omega=4" --eval-split train --eval-profiles 2`` trains a third GiGPO arm
with those recipe overrides (space-separated) and plays every policy on the training tasks with
their training profiles; the verdicts then describe training jobs, not held-out ones.

``--setup`` picks the CPU setup (:data:`collabrl.quickstart.SETUPS`): ``compact``, the quickstart's
(a tokenizer fitted to the game's text, the compact prompt), ``paper`` (the paper's prompt and
the generic tiny tokenizer), so both stay measured, or ``cook`` (the compact setup on the
kitchen game). The held-out jobs are the quickstart's.

``--human-proxy`` plays every policy a second time on the same jobs beside the human proxy
(``partner.kind=human_proxy``, the kitchen's partner cloned from recorded people; build it first
with ``collabrl partners build-human-proxy``) and reports the paired differences there too: does
what a policy learnt beside persona partners carry over to a human-like one?
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from collabrl.eval.compare import Comparison, compare
from collabrl.quickstart import (
    CEILING,
    FLOOR,
    SETUPS,
    QuickstartPlan,
    evaluate_policy,
    latest_policy,
    llm_policy,
    reference_rows,
    results_table,
    run_gigpo,
    run_sft,
)
from collabrl.records import read_jsonl

NO_AFFECTIVE = ("reward.format_penalty=0", "reward.communication=0", "reward.judge.kind=none")
ARMS = {"SFT + GiGPO": (), "SFT + GiGPO w/o affective": NO_AFFECTIVE}
SFT = "SFT"
FULL, SILENT = ARMS
COMPARED = ("efficiency_reward", "success", "message_ratio", "valid_rate", "affective")


def beside_proxy(plan: QuickstartPlan) -> tuple[str, ...]:
    """Evaluation overrides for the human proxy as the partner. The proxy has no profile, so
    its jobs vary the episode seed instead (one profile per task, as many seeds as the plan has
    profiles): as many jobs as beside persona partners, each a different episode for the policy's
    draws too, not only the proxy's."""
    seeds = ", ".join(str(s) for s in range(plan.eval_profiles))
    return ("eval.partner.kind=human_proxy", "eval.max_profiles=1", f"eval.seeds=[{seeds}]")


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).strip("_").lower()


def stage(path: Path, run: Any) -> Any:
    """The saved result of a finished stage, or ``run()``'s, saved as soon as it returns."""
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    result = run()
    staging = path.with_suffix(".tmp")
    staging.write_text(json.dumps(result), encoding="utf-8")
    staging.replace(path)
    return result


def gradient_signal(run_dir: Path) -> dict[str, float]:
    """Over a run's iterations: the share whose reward gave a non-zero policy gradient (some
    group or anchor group with a non-zero advantage; the KL term alone does not count), the mean
    share of live groups and of the gradient from the episode level, and the last iteration's
    message rate."""
    rows = read_jsonl(run_dir / "metrics.jsonl")
    n = len(rows)
    return {
        "nonzero_gradient": sum(
            r.get("signal/live_groups", 0.0) + r.get("signal/live_step_groups", 0.0) > 0
            for r in rows
        )
        / n,
        "live_groups": sum(r.get("signal/live_groups", 0.0) for r in rows) / n,
        "episode_share": sum(r.get("signal/episode_share", 0.0) for r in rows) / n,
        "train_success": sum(r.get("success_rate", 0.0) for r in rows) / n,
        "final_train_msg": rows[-1]["messages_per_step"],
    }


def extra_arm(text: str) -> tuple[str, tuple[str, ...]]:
    """``"LABEL=OVERRIDES"`` -> (label, overrides); the overrides are split at spaces."""
    label, sep, overrides = text.partition("=")
    if not sep or not label.strip() or label.strip() in (SFT, *ARMS):
        raise SystemExit(f"--arm wants 'LABEL=OVERRIDES' with a new label, got {text!r}")
    return label.strip(), tuple(overrides.split())


def one_seed(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Every stage of one seed (skipping those already saved): episode rows per policy and the
    gradient signal of each GiGPO arm."""
    out = args.out / f"seed{seed}"
    out.mkdir(parents=True, exist_ok=True)
    sizes = {
        "seed": seed,
        "iterations": args.iterations,
        "eval_seats": args.seats,
        "setup": args.setup,
        "eval_split": args.eval_split,
        "eval_profiles": args.eval_profiles,
    }
    plan = QuickstartPlan(out=out, **sizes)

    def sft() -> str:
        shutil.rmtree(out / "sft", ignore_errors=True)  # an unfinished SFT starts over
        return run_sft(plan)

    sft_policy = stage(out / "sft.json", sft)
    policies = {SFT: (plan, llm_policy(plan, sft_policy))}
    signal = {}
    for arm, extra in args.arms.items():
        arm_plan = QuickstartPlan(
            out=out / slug(arm),
            **sizes,
            extra_rl=(*extra, "train.resume=true", "train.checkpoint_every=1"),
        )
        run_dir = stage(
            out / f"{slug(arm)}_run.json", lambda p=arm_plan: str(run_gigpo(p, sft_policy))
        )
        signal[arm] = gradient_signal(Path(run_dir))
        policies[arm] = (arm_plan, llm_policy(arm_plan, latest_policy(Path(run_dir))))

    def played(beside: tuple[str, ...], mark: str) -> dict[str, Any]:
        """Every policy, then the floor and the ceiling, on the plan's jobs (``beside``: the
        partner overrides, ``mark``: their stage files' suffix)."""
        episodes = {
            name: stage(
                out / f"eval_{slug(name)}{mark}.json",
                lambda p=p, q=q, n=name: evaluate_policy(p, f"{slug(n)}{mark}", [*q, *beside]),
            )
            for name, (p, q) in policies.items()
        }
        references = stage(
            out / f"references{mark}.json", lambda: reference_rows(plan, beside, mark)
        )
        return episodes | references

    result = {"episodes": played((), ""), "signal": signal}
    if args.human_proxy:
        result["human_proxy"] = played(beside_proxy(plan), "_proxy")
    return result


def pooled(
    results: dict[int, dict[str, Any]], policy: str, played: str = "episodes"
) -> list[dict[str, Any]]:
    """A policy's episode rows over every seed, each job named with its seed so pairs stay
    within a seed (``played``: "episodes", or "human_proxy" for the rows beside the proxy)."""
    return [
        {**row, "task": f"seed{seed}/{row['task']}"}
        for seed, r in results.items()
        for row in r[played][policy]
    ]


def difference_rows(label: str, c: Comparison) -> dict[str, Any]:
    return {
        "comparison": label,
        "jobs": c.jobs,
        **{m: c.difference[m].cell() for m in COMPARED if m in c.difference},
    }


def added_arms(arms: Sequence[str]) -> list[str]:
    """The arms ``--arm`` added to the hybrid and w/o-affective ones."""
    return [a for a in arms if a not in ARMS]


def report(
    results: dict[int, dict[str, Any]], arms: Sequence[str] = tuple(ARMS), jobs: str = "held-out"
) -> list[str]:
    """Print the per-seed and pooled tables; returns the verdict lines (``jobs`` names the jobs
    played: held-out, or training when choosing a setting)."""
    comparisons: dict[Any, dict[str, Comparison]] = {}
    for seed, r in results.items():
        eps = r["episodes"]
        comparisons[seed] = {arm: compare(eps[SFT], eps[arm], SFT, arm) for arm in arms}
        comparisons[seed]["quieter"] = compare(eps[FULL], eps[SILENT], FULL, SILENT)
        for arm in added_arms(arms):
            comparisons[seed][f"quieter than {arm}"] = compare(eps[arm], eps[SILENT], arm, SILENT)
        print(f"\n## seed {seed}")
        print(tabulate(results_table(eps), headers="keys", tablefmt="github", floatfmt=".3f"))
        print(
            tabulate(
                [{"arm": a, **s} for a, s in r["signal"].items()],
                headers="keys",
                tablefmt="github",
                floatfmt=".3f",
            )
        )
    pool = {p: pooled(results, p) for p in (SFT, *arms, FLOOR, CEILING)}
    comparisons["pooled"] = {arm: compare(pool[SFT], pool[arm], SFT, arm) for arm in arms}
    comparisons["pooled"]["quieter"] = compare(pool[FULL], pool[SILENT], FULL, SILENT)
    print("\n## pooled over seeds")
    print(tabulate(results_table(pool), headers="keys", tablefmt="github", floatfmt=".3f"))
    lines = [
        difference_rows(f"seed {s}: {c.label_b} - {c.label_a}", c)
        for s, cs in comparisons.items()
        for c in cs.values()
    ]
    print("\n## paired differences (mean [95% CI])")
    print(tabulate(lines, headers="keys", tablefmt="github"))
    return verdicts(results, comparisons, arms, jobs)


def proxy_report(results: dict[int, dict[str, Any]], arms: Sequence[str]) -> list[str]:
    """The same policies beside the human proxy: the pooled table, each arm's paired
    difference from SFT per seed and pooled, and a verdict line per arm."""
    beside = {s: r["human_proxy"] for s, r in results.items()}
    pool = {p: pooled(results, p, "human_proxy") for p in (SFT, *arms, FLOOR, CEILING)}
    print("\n## beside the human proxy, pooled over seeds")
    print(tabulate(results_table(pool), headers="keys", tablefmt="github", floatfmt=".3f"))
    found = {
        (label, arm): compare(eps[SFT], eps[arm], SFT, arm)
        for label, eps in [*((f"seed {s}", e) for s, e in beside.items()), ("pooled", pool)]
        for arm in arms
    }
    rows = [difference_rows(f"{label}: {arm} - {SFT}", c) for (label, arm), c in found.items()]
    print(tabulate(rows, headers="keys", tablefmt="github"))
    lines = []
    for arm in arms:
        better = sum(
            found[(f"seed {s}", arm)].difference["efficiency_reward"].mean > 0 for s in beside
        )
        lines.append(
            f"beside the human proxy, {arm} above SFT on efficiency reward in {better}/"
            f"{len(beside)} seeds; pooled {found[('pooled', arm)].difference['efficiency_reward'].cell()}"
        )
    return lines


def verdicts(
    results: dict[int, dict[str, Any]],
    comparisons: dict[Any, dict[str, Comparison]],
    arms: Sequence[str],
    jobs: str = "held-out",
) -> list[str]:
    """The claims the issue checks, each with what was measured."""
    seeds = sorted(results)
    eff = {s: comparisons[s][FULL].difference["efficiency_reward"] for s in seeds}
    pooled_eff = comparisons["pooled"][FULL].difference["efficiency_reward"]
    pooled_success = comparisons["pooled"][FULL].difference.get("success")
    pooled_aff = comparisons["pooled"][FULL].difference.get("affective")
    trained = {s: results[s]["signal"][SILENT]["nonzero_gradient"] for s in seeds}
    quieter = {s: comparisons[s]["quieter"].difference["message_ratio"].mean < 0 for s in seeds}
    lines = [
        f"hybrid reward above SFT on {jobs} efficiency reward in {sum(eff[s].mean > 0 for s in seeds)}/{len(seeds)} seeds; pooled difference {pooled_eff.cell()} ({'excludes' if pooled_eff.excludes_zero else 'includes'} zero)",
        f"success: pooled difference {pooled_success.cell()} ({'lower beyond its interval' if pooled_success.high < 0 else 'not lower beyond its interval'})"
        if pooled_success
        else "success: not measured (the game's episodes have no success, e.g. the kitchen's score)",
        f"affective proxy: pooled difference {pooled_aff.cell() if pooled_aff else 'n/a'}",
        f"w/o affective: non-zero gradient in {', '.join(f'{trained[s]:.0%}' for s in seeds)} of iterations (goal: at least 75% in each)",
        f"w/o affective ends quieter than the full reward in {sum(quieter.values())}/{len(seeds)} seeds",
    ]
    for arm in added_arms(arms):
        better = sum(comparisons[s][arm].difference["efficiency_reward"].mean > 0 for s in seeds)
        louder = sum(
            comparisons[s][f"quieter than {arm}"].difference["message_ratio"].mean < 0
            for s in seeds
        )
        lines += [
            f"{arm}: above SFT on efficiency reward in {better}/{len(seeds)} seeds; pooled "
            f"{comparisons['pooled'][arm].difference['efficiency_reward'].cell()}",
            f"w/o affective ends quieter than {arm} in {louder}/{len(seeds)} seeds",
        ]
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--iterations", type=int, default=QuickstartPlan.iterations)
    parser.add_argument("--seats", type=int, nargs="+", default=list(QuickstartPlan.eval_seats))
    parser.add_argument("--setup", choices=sorted(SETUPS), default=QuickstartPlan.setup)
    parser.add_argument("--out", type=Path, default=Path("runs/learning"))
    parser.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="LABEL=OVERRIDES",
        help="one more GiGPO arm: its label, '=', its recipe overrides (space-separated)",
    )
    parser.add_argument(
        "--eval-split",
        choices=["test", "train"],
        default=QuickstartPlan.eval_split,
        help="the jobs every policy plays: test (the benchmark) or train (to choose a setting)",
    )
    parser.add_argument("--eval-profiles", type=int, default=QuickstartPlan.eval_profiles)
    parser.add_argument(
        "--human-proxy",
        action="store_true",
        help="also play every policy beside the human proxy (games with recorded human play)",
    )
    args = parser.parse_args(argv)
    args.arms = {**ARMS, **dict(extra_arm(a) for a in args.arm)}
    start = time.perf_counter()
    results = {}
    for seed in args.seeds:
        results[seed] = one_seed(args, seed)
        print(f"seed {seed} done after {(time.perf_counter() - start) / 60:.1f} min", flush=True)
    jobs = "training" if args.eval_split == "train" else "held-out"
    lines = report(results, list(args.arms), jobs)
    if args.human_proxy:
        lines += proxy_report(results, list(args.arms))
    (args.out / "verdicts.json").write_text(json.dumps(lines, indent=1), encoding="utf-8")
    for line in lines:
        print("-", line)
    print(f"wall time {(time.perf_counter() - start) / 60:.1f} min (this invocation)")


if __name__ == "__main__":
    main()

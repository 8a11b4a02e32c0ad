"""The CPU quickstart: demonstrations -> SFT -> GiGPO -> held-out evaluation -> HTML report.

Every stage is an ordinary recipe run (``cwah_sft_cpu`` then ``cwah_gigpo_cpu``), so what the
quickstart does can be repeated step by step with ``collabrl demos/sft``, ``train.py`` and
``collabrl eval``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.config import EngineSpec, load_recipe
from collabrl.engines.types import SamplingParams
from collabrl.eval.compare import METRICS, compare, comparison_rows, value, verdict
from collabrl.stats import Interval

SETUPS = {
    "compact": ("cwah_sft_compact_cpu", "cwah_gigpo_compact_cpu"),
    "paper": ("cwah_sft_cpu", "cwah_gigpo_cpu"),
    "cook": ("cook_sft_compact_cpu", "cook_gigpo_compact_cpu"),
}
"""CPU setups: (SFT recipe, GiGPO recipe). ``compact``: the tiny model with a tokenizer fitted to
the game's text and the compact prompt layout (the quickstart's default); ``paper``: the paper's
prompt with the generic tiny tokenizer (kept measured beside it); ``cook``: the compact setup on
Cook-MultiPlayer (the paper's other game), whose held-out partners include the human proxy."""
FLOOR, CEILING = "floor: idle agent", "ceiling: expert agent"
"""The reference rows on the same jobs: an agent that never acts (its partner plays alone) and
the rule-based expert in the agent's seat."""


@dataclass
class QuickstartPlan:
    """Sizes of each stage (the goal: every stage of the defaults within 15 minutes on a 2-core
    machine; measured figures are on the docs' results page)."""

    out: Path
    seed: int = 0
    iterations: int | None = None  # None: the GiGPO recipe's train.iterations
    eval_tasks: Sequence[str] | None = None  # None: every held-out (test) task
    eval_profiles: int = 12  # test profiles per task (of 15), spread over the player types
    eval_seats: Sequence[int] = (1,)  # the seat the recipes train in (rollout.target_seat 0)
    eval_seeds: Sequence[int] = (0,)
    extra_rl: Sequence[str] = ()  # overrides for the GiGPO recipe (e.g. ablations)
    extra_sft: Sequence[str] = ()  # overrides for the SFT recipe
    setup: str = "compact"  # a key of SETUPS
    eval_split: str = "test"  # the benchmark's held-out jobs; "train" only to tune on training jobs

    @property
    def sft_recipe(self) -> str:
        return SETUPS[self.setup][0]

    @property
    def rl_recipe(self) -> str:
        return SETUPS[self.setup][1]


def policy_summary(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Means of one evaluated policy's episode rows (:func:`collabrl.eval.report.episode_rows`)."""
    out: dict[str, float] = {}
    for column, heading in METRICS.items():
        values = [value(r, column) for r in rows]
        values = [v for v in values if not np.isnan(v)]
        out[heading] = float(np.mean(values)) if values else float("nan")
    out["episodes"] = len(rows)
    return out


def evaluate_policy(plan: QuickstartPlan, name: str, policy: Sequence[str]) -> list[dict[str, Any]]:
    """Episode rows of one policy on the plan's held-out jobs (test tasks x test profiles x
    seats x seeds, persona partners, proxy judge: the GiGPO recipe's ``eval`` section).
    ``policy``: ``eval.policy`` overrides; every policy plays exactly the same jobs."""
    from collabrl.eval.protocol import run_evaluation
    from collabrl.eval.report import episode_rows

    tasks = [f"eval.tasks=[{', '.join(plan.eval_tasks)}]"] if plan.eval_tasks else []
    recipe = load_recipe(
        plan.rl_recipe,
        [
            f"eval.split={plan.eval_split}",
            *tasks,
            f"eval.max_profiles={plan.eval_profiles}",
            f"eval.seats=[{', '.join(map(str, plan.eval_seats))}]",
            f"eval.seeds=[{', '.join(map(str, plan.eval_seeds))}]",
            *policy,
            f"eval.output_dir={plan.out / f'eval_{name}'}",
        ],
    )
    return episode_rows(run_evaluation(recipe.evaluation(), progress=False).outcomes)


def llm_policy(plan: QuickstartPlan, folder: str) -> list[str]:
    """``eval.policy`` overrides for a trained HF folder on the transformers engine, prompted and
    sampled as the GiGPO recipe trains it."""
    policy = load_recipe(plan.rl_recipe, []).policy
    return [
        "eval.policy.kind=llm",
        "eval.policy.engine.backend=transformers",
        f"eval.policy.engine.model={folder}",
        f"eval.policy.engine.options={json.dumps(policy.engine_options)}",
        f"eval.policy.prompt={policy.prompt}",
        f"eval.policy.sampling={{temperature: {policy.sampling.temperature}, "
        f"max_new_tokens: {policy.sampling.max_new_tokens}}}",
    ]


def reference_rows(
    plan: QuickstartPlan, partner: Sequence[str] = (), mark: str = ""
) -> dict[str, list[dict[str, Any]]]:
    """The floor and the ceiling on the plan's jobs (scripted, so they take seconds);
    ``partner``: overrides of the partner they play beside, ``mark``: their folders' suffix."""
    return {
        FLOOR: evaluate_policy(plan, f"floor{mark}", ["eval.policy.kind=idle", *partner]),
        CEILING: evaluate_policy(plan, f"ceiling{mark}", ["eval.policy.kind=expert", *partner]),
    }


def gap_closed(policy: float, floor: float, ceiling: float) -> float:
    """Where ``policy`` lies between the floor (0) and the ceiling (1): how much of what an
    expert adds over the partner alone this policy adds."""
    return (policy - floor) / (ceiling - floor) if ceiling != floor else float("nan")


def results_table(episodes: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One summary row per policy, with its place between floor and ceiling."""
    rows: list[dict[str, Any]] = [
        {"policy": name, **policy_summary(r)} for name, r in episodes.items()
    ]
    by = {r["policy"]: r for r in rows}
    key = METRICS["efficiency_reward"]
    if FLOOR in by and CEILING in by:
        for row in rows:
            row["floor→ceiling"] = gap_closed(row[key], by[FLOOR][key], by[CEILING][key])
    return rows


def latest_policy(run_dir: Path) -> str:
    """The HF policy folder of a run's newest checkpoint."""
    from collabrl.training.checkpoint import complete_checkpoints

    done = complete_checkpoints(run_dir)
    if not done:
        raise RuntimeError(f"{run_dir} has no finished checkpoint")
    return str(done[-1] / "policy")


def expert_agreement(plan: QuickstartPlan, folder: str, episodes: int = 10) -> Interval:
    """How often the policy at ``folder``, decoding greedily, picks the expert's action on the
    decisions of ``episodes`` expert episodes on held-out tasks with test partners (mean over
    decisions, 95% interval): a capacity diagnostic. If the SFT policy is far from the expert
    and RL moves it no closer, the model may be too small to represent a better policy."""
    from collabrl.agents.protocol import parse_response
    from collabrl.factory import make_engine_from_spec
    from collabrl.sft.demos import record_demos
    from collabrl.stats import mean_ci

    tasks = plan.eval_tasks or type(load_recipe(plan.sft_recipe, []).game).tasks("test")
    recipe = load_recipe(
        plan.sft_recipe,
        [
            f"seed={plan.seed}",
            f"rollout.tasks=[{', '.join(tasks)}]",
            "partner.split=test",
            f"output_dir={plan.out / 'agreement'}",
        ],
    )
    spec = recipe.sft.demos.model_copy(update={"episodes": episodes, "successful_only": False})
    rows = list(record_demos(recipe, spec, progress=False))
    options = load_recipe(plan.rl_recipe, []).policy.engine_options
    engine = make_engine_from_spec(
        EngineSpec(backend="transformers", model=folder, options=options)
    )
    try:
        params = SamplingParams(
            temperature=0.0, max_new_tokens=recipe.policy.sampling.max_new_tokens
        )
        replies = engine.generate([r["prompt"] for r in rows], params)
    finally:
        engine.close()
    agree = [
        float(
            parse_response(reply.text, row["actions"]).action
            == parse_response(row["completion"][0]["content"], row["actions"]).action
        )
        for row, reply in zip(rows, replies, strict=True)
    ]
    return mean_ci(agree)


def run_sft(plan: QuickstartPlan) -> str:
    """Record expert demonstrations and fine-tune the tiny model on them; returns its folder."""
    from collabrl.sft.demos import demos_path, record_demos, write_demos
    from collabrl.sft.trainer import train_sft

    recipe = load_recipe(
        plan.sft_recipe, [f"seed={plan.seed}", f"output_dir={plan.out / 'sft'}", *plan.extra_sft]
    )
    rows = list(record_demos(recipe, recipe.sft.demos))
    write_demos(rows, demos_path(recipe, recipe.sft.demos))
    return str(train_sft(recipe, recipe.sft))


def run_gigpo(plan: QuickstartPlan, sft_policy: str) -> Path:
    """GiGPO from the SFT policy against persona partners with the heuristic judge."""
    from collabrl.training.loop import train

    recipe = load_recipe(
        plan.rl_recipe,
        [
            f"seed={plan.seed}",
            f"policy.model={sft_policy}",
            f"output_dir={plan.out / 'gigpo'}",
            *([f"train.iterations={plan.iterations}"] if plan.iterations else []),
            "train.checkpoint_every=0",  # the last iteration is always saved
            *plan.extra_rl,
        ],
    )
    return train(recipe)


def quickstart(plan: QuickstartPlan) -> dict[str, Any]:
    """Run every stage; returns the summary rows, the paired comparison of GiGPO against SFT
    and its verdict, and writes ``results.json`` and the run's ``report.html``."""
    from collabrl.report.html import write_report

    started = time.perf_counter()
    sft_policy = run_sft(plan)
    rl_dir = run_gigpo(plan, sft_policy)
    episodes = {
        "SFT": evaluate_policy(plan, "sft", llm_policy(plan, sft_policy)),
        "SFT + GiGPO": evaluate_policy(plan, "gigpo", llm_policy(plan, latest_policy(rl_dir))),
        **reference_rows(plan),
    }
    rows = results_table(episodes)
    paired = compare(episodes["SFT"], episodes["SFT + GiGPO"], "SFT", "SFT + GiGPO")
    agreement = {
        "SFT": expert_agreement(plan, sft_policy),
        "SFT + GiGPO": expert_agreement(plan, latest_policy(rl_dir)),
    }
    minutes = (time.perf_counter() - started) / 60
    jobs = episodes["SFT"]
    notes = [
        f"held-out jobs: {len({r['task'] for r in jobs})} test tasks x "
        f"{plan.eval_profiles} test profiles (every player type) x seats "
        f"{list(plan.eval_seats)} x seeds {list(plan.eval_seeds)} = {len(jobs)} episodes per "
        "policy, the same jobs for every policy; persona partners",
        "floor→ceiling: where the policy's efficiency reward lies between the idle agent (0: "
        "the partner alone) and the expert agent (1)",
        "affective proxy: CB-Affective (0-5) from the offline heuristic judge, a proxy for the "
        "paper's LLM judges",
        "agreement with the expert's action on the decisions of 10 expert episodes on the "
        "held-out tasks (greedy decoding; a capacity diagnostic): "
        + ", ".join(f"{name} {a.cell(2)}" for name, a in agreement.items()),
        f"wall time {minutes:.1f} min",
    ]
    comparison = comparison_rows(paired)
    report = write_report(
        rl_dir,
        "collabrl quickstart",
        rows,
        notes,
        {"SFT + GiGPO - SFT, paired by job (95% CI)": comparison},
    )
    result = {
        "rows": rows,
        "comparison": comparison,
        "verdict": verdict(paired),
        "expert_agreement": {name: a.mean for name, a in agreement.items()},
        "notes": notes,
    }
    (plan.out / "results.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"report: {report}")
    return result

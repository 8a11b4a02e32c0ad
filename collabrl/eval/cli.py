"""``collabrl eval``: the CollabBench protocol from the command line.

Settings are a recipe's ``eval`` section with ``key=value`` overrides: ``collabbench`` is the
paper's protocol with real models (LLM partners and LLM judges behind an OpenAI-compatible server
named by environment variables); ``collabbench_proxy``, run when no recipe is named, is its offline
proxy (persona partners, heuristic judge; labelled in every table). A key that names a field
is relative to the ``eval`` section (``tasks=...`` is ``eval.tasks=...``) unless only the recipe
has it (``game.seats=...``) or it starts with ``eval.``. E.g.::

    collabrl eval games=[household] tasks=[0_read_book] max_profiles=3   # the offline proxy
    collabrl eval collabbench policy.kind=llm policy.engine.backend=openai \
        policy.engine.model=Qwen/Qwen2.5-7B-Instruct      # COLLABRL_OPENAI_BASE_URL=... set
    collabrl eval --checkpoint runs/step_100/policy    # a local HF folder via transformers
    collabrl eval --compare runs/eval_sft runs/eval_gigpo   # paired by job, with 95% intervals
    collabrl eval compare runs/oracle runs/base runs/trained  # Table 1 layout (collabrl report table)
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from collabrl.cli_options import OVERWRITE
from collabrl.errors import CollabrlError
from collabrl.records import (
    RunClaim,
    check_writable,
    claim_folder,
    mark_completed,
    previous_run,
    settings_hashes,
)

DEFAULT_RECIPE = "collabbench_proxy"
"""The offline proxy (labelled as such in its tables); ``collabbench`` is the paper's protocol."""


def build_spec(args: tuple[str, ...], checkpoint: str | None, oracle: bool):
    """The evaluation settings: the recipe's ``eval`` section (its games resolved) after the
    overrides and flags."""
    from collabrl.config import load_recipe

    recipe_name = args[0] if args and "=" not in args[0] else DEFAULT_RECIPE
    overrides = [_in_eval_section(a) for a in args if a != recipe_name or "=" in a]
    if checkpoint:
        overrides += [
            "eval.policy.kind=llm",
            "eval.policy.engine.backend=transformers",
            f"eval.policy.engine.model={checkpoint}",
        ]
    if oracle:
        overrides.append("eval.oracle=true")
    return load_recipe(recipe_name, overrides).evaluation()


def _in_eval_section(override: str) -> str:
    """``tasks=...`` -> ``eval.tasks=...``: keys are relative to the eval section, except those
    only the recipe has (``game.seats=...``) and ``eval.`` itself."""
    from collabrl.config import EvalSpec, Recipe

    head = override.partition("=")[0].strip().split(".")[0]
    recipe_only = head in Recipe.model_fields and head not in EvalSpec.model_fields
    return override if recipe_only or head in ("eval", "") else f"eval.{override}"


@click.command("eval")
@click.argument("args", nargs=-1, metavar="[RECIPE] [KEY=VALUE]...")
@click.option("--checkpoint", default=None, help="Evaluate a local HF model folder (transformers).")
@click.option("--oracle", is_flag=True, help="Oracle setting: policy sees the partner's profile.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option(
    "--compare",
    nargs=2,
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR_A DIR_B",
    help="Compare two evaluation folders paired by job (B - A, 95% intervals); runs nothing.",
)
@OVERWRITE
def eval_command(
    args: tuple[str, ...],
    checkpoint: str | None,
    oracle: bool,
    quiet: bool,
    compare: tuple[Path, Path] | None,
    overwrite: bool,
) -> None:
    """Run the CollabBench evaluation (CB-Efficiency + CB-Affective) and write the tables."""
    if compare is not None:
        if args or checkpoint or oracle:
            raise click.UsageError("--compare reads two finished evaluations; it takes no settings")
        _print_comparison(*compare)
        return

    from collabrl.eval import reliability_table
    from collabrl.eval.cost import estimate_cost
    from collabrl.eval.journal import JOURNAL
    from collabrl.eval.protocol import proxy_note, resume_settings, run_evaluation
    from collabrl.eval.report import episode_rows, summary_table
    from collabrl.eval.runner import select_jobs
    from collabrl.eval.servers import check_servers
    from collabrl.eval.teams import team_markdown

    spec = build_spec(args, checkpoint, oracle)
    check_servers(spec)  # before any folder is made: nothing is left behind
    folder = check_writable(Path(spec.output_dir))
    jobs = select_jobs(spec)
    cost = estimate_cost(spec, jobs)
    if cost is not None:
        click.echo(cost.line())
    settings = resume_settings(spec, jobs, proxy=spec.judge.kind == "heuristic")
    claim = RunClaim("eval", settings, overwrite=overwrite)
    resume = not overwrite and _resumes(folder, claim)
    out = claim_folder(folder, dataclasses.replace(claim, resume=resume))
    result = run_evaluation(spec, progress=not quiet, journal=True)
    mark_completed(out, {"episodes": len(result.outcomes)})
    if result.resumed:
        click.echo(
            f"resumed: {result.resumed} of {len(result.outcomes)} episodes were recorded in "
            f"{out / JOURNAL} by an earlier run"
        )
    note = proxy_note(result.stamp["judge_is_proxy"], result.stamp["partner_set"]["kind"])
    if note:
        click.echo(note)
    click.echo(summary_table(result.tables))
    episodes = {result.stamp["policy"]: episode_rows(result.outcomes)}
    click.echo(reliability_table.markdown(reliability_table.build(episodes)))
    if result.teams:
        click.echo(team_markdown(result.teams))
    for warning in result.warnings:
        click.echo(warning, err=True)
    click.echo(f"wrote {result.output_dir}/tables.md (and .csv, results.json, trajectories)")


def _resumes(folder: Path, claim: RunClaim) -> bool:
    """Whether ``folder`` holds an earlier evaluation with the same settings, which this run
    continues (:mod:`collabrl.eval.journal`).

    Why here and not in :func:`collabrl.records.check_claim`: an evaluation resumes without being
    asked (it redoes nothing), so its refusal of other settings must name them and --overwrite
    before anything changes. Any other run in the folder is left to ``claim_folder`` to refuse.
    """
    previous = previous_run(folder, claim)
    if previous is None or previous.get("command") != "eval":
        return False
    old, new = previous.get("settings_sha256") or {}, settings_hashes(claim.settings)
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if differ:
        raise CollabrlError(
            f"{folder} already holds an earlier `eval` run (started "
            f"{previous.get('started', '?')}) with other settings (differing: "
            f"{', '.join(differ)}); rerun with its settings to resume it, or pass --overwrite "
            "to move it aside"
        )
    return True


def _print_comparison(a: Path, b: Path) -> None:
    """The paired table of two evaluation folders and the verdict on efficiency."""
    from collabrl.eval.compare import compare, comparison_markdown, read_episodes, verdict

    result = compare(read_episodes(a), read_episodes(b), str(a), str(b))
    click.echo(comparison_markdown(result))
    if "efficiency_reward" in result.difference:
        click.echo(verdict(result))

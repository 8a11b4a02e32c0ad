"""``collabrl eval``: the CollabBench protocol from the command line.

Settings come from an optional YAML file (an :class:`EvalSpec`) and ``key=value`` overrides with
YAML values and dotted keys, e.g.::

    collabrl eval games=[household] tasks=[0_read_book] max_profiles=3 judge.kind=heuristic
    collabrl eval my_eval.yaml policy.kind=llm policy.engine.backend=openai \
        policy.engine.model=Qwen/Qwen2.5-7B-Instruct judge.kind=llm judge.engine.backend=openai \
        judge.engine.model=deepseek-v3.1
    collabrl eval --checkpoint runs/step_100/policy    # a local HF folder via transformers
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import ValidationError

from collabrl.cli_options import OVERWRITE
from collabrl.config import apply_override, describe_validation_error
from collabrl.errors import CollabrlError
from collabrl.records import RunClaim, claim_folder, mark_completed
from collabrl.settings_files import read_text_file, resolve_bounded, yaml_mapping


def _settings_file(arg: str) -> dict[str, Any]:
    """The mapping of an eval settings file, read with the recipe's bounds and one-line errors."""
    path = Path(arg)
    if not os.path.lexists(path):
        raise CollabrlError(f"eval settings file not found: {arg}")
    return yaml_mapping(read_text_file(path, "an eval settings"), arg, "an eval settings file")


def build_spec(args: tuple[str, ...], checkpoint: str | None, oracle: bool):
    """Merge the YAML file (if any), ``key=value`` overrides and flags into an EvalSpec.

    Overrides use the recipe syntax and parser (``policy.engine.model=...``, YAML values).
    """
    from collabrl.eval.config import EvalSpec

    tree = OmegaConf.create({})
    for arg in args:
        if "=" in arg:
            apply_override(tree, arg)
        else:
            tree = OmegaConf.merge(tree, _settings_file(arg))
    if checkpoint:
        tree.policy = {"kind": "llm", "engine": {"backend": "transformers", "model": checkpoint}}
    if oracle:
        tree.oracle = True
    try:
        return EvalSpec.model_validate(resolve_bounded(tree, "eval settings"))
    except OmegaConfBaseException as exc:
        raise CollabrlError(f"eval settings: {str(exc).splitlines()[0]}") from None
    except ValidationError as exc:
        problems = describe_validation_error(exc, EvalSpec)
        raise CollabrlError(f"invalid eval settings: {problems}") from None


@click.command("eval")
@click.argument("args", nargs=-1, metavar="[SETTINGS.yaml] [KEY=VALUE]...")
@click.option("--checkpoint", default=None, help="Evaluate a local HF model folder (transformers).")
@click.option("--oracle", is_flag=True, help="Oracle setting: policy sees the partner's profile.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@OVERWRITE
def eval_command(
    args: tuple[str, ...], checkpoint: str | None, oracle: bool, quiet: bool, overwrite: bool
) -> None:
    """Run the CollabBench evaluation (CB-Efficiency + CB-Affective) and write the tables."""
    from collabrl.eval.protocol import PROXY_NOTE, run_evaluation
    from collabrl.eval.report import summary_table

    spec = build_spec(args, checkpoint, oracle)
    out = claim_folder(
        Path(spec.output_dir), RunClaim("eval", spec.model_dump(mode="json"), overwrite=overwrite)
    )
    result = run_evaluation(spec, progress=not quiet)
    mark_completed(out, {"episodes": len(result.outcomes)})
    if result.stamp["judge_is_proxy"]:
        click.echo(PROXY_NOTE)
    click.echo(summary_table(result.tables))
    for warning in result.warnings:
        click.echo(warning, err=True)
    click.echo(f"wrote {result.output_dir}/tables.md (and .csv, results.json, trajectories)")

"""``collabrl profiles``: run the profile pipeline stage by stage or all at once.

Every stage reads and writes files in RUN_DIR, so a failed or changed stage can be rerun alone:

    collabrl profiles run runs/p1 --config pipeline.yaml engines.default.model=my-model
    collabrl profiles summarise runs/p1          # reuses runs/p1/config.yaml
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from collabrl.pipeline.run import STAGES, Resources, run_stage
from collabrl.pipeline.rundir import RunDir

_HELP = {
    "generate": "Stage 1: descriptor-driven players play the configured tasks (trajectories).",
    "cluster": "Stage 2: cut trajectories into windows, embed them and k-means them.",
    "summarise": "Stage 3: an LLM writes a candidate profile for each cluster.",
    "filter": "Stage 4: play each candidate, judge its consistency, keep the top k per task.",
    "report": "Stage 5: fidelity metrics before vs after filtering (table, JSON, Markdown).",
}


@click.group("profiles")
def profiles() -> None:
    """Build high-fidelity player profiles from played games (CollabBench pipeline)."""


def _run_options(command: Callable[..., None]) -> Callable[..., None]:
    """The arguments and options every stage command takes (decorators, applied in order)."""
    command = click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")(command)
    command = click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Pipeline config (YAML/JSON); default: RUN_DIR/config.yaml if present.",
    )(command)
    command = click.option("--quiet", is_flag=True, help="No progress bars.")(command)
    return click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))(command)


def _execute(
    stages: tuple[str, ...],
    run_dir: Path,
    config_path: Path | None,
    overrides: tuple[str, ...],
    quiet: bool,
) -> None:
    run = RunDir(run_dir)
    config = run.config(config_path, overrides)
    with Resources(config) as res:
        for stage in stages:
            click.echo(run_stage(stage, run, res, progress=not quiet).render())


def _stage_command(stage: str) -> click.Command:
    def command(
        run_dir: Path, config_path: Path | None, overrides: tuple[str, ...], quiet: bool
    ) -> None:
        _execute((stage,), run_dir, config_path, overrides, quiet)

    command.__doc__ = _HELP[stage]
    return click.command(stage)(_run_options(command))


for _stage in STAGES:
    profiles.add_command(_stage_command(_stage))


@profiles.command("run")
@_run_options
def run_all(
    run_dir: Path, config_path: Path | None, overrides: tuple[str, ...], quiet: bool
) -> None:
    """Run all five stages in order."""
    _execute(STAGES, run_dir, config_path, overrides, quiet)

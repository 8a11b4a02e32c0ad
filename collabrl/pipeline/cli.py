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


LEVEL_LETTERS = {"low": "l", "medium": "m", "high": "h", "unknown": "?"}


@profiles.command("list")
@click.option("--game", default=None, help="One game (default: all).")
@click.option("--split", type=click.Choice(["train", "test"]), default=None)
@click.option("--task", default=None, help="One task or layout (e.g. cramped_room).")
@click.option(
    "--type", "player_type", default=None, help="One player type (e.g. independent_loner)."
)
@click.option(
    "--file",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A profile file (.jsonl/.json/.yaml) instead of the shipped library.",
)
def list_profiles(
    game: str | None,
    split: str | None,
    task: str | None,
    player_type: str | None,
    path: Path | None,
) -> None:
    """List profiles to choose a partner or a simulated participant from: id, game, task,
    split, player type, Big Five (O C E A N: low/medium/high) and behaviour."""
    from tabulate import tabulate

    from collabrl.errors import CollabrlError
    from collabrl.profiles import load_profiles
    from collabrl.settings_files import clip

    chosen = load_profiles(game=game, split=split, task=task, path=path)
    if player_type is not None:
        types = sorted({p.player_type for p in chosen})
        chosen = [p for p in chosen if p.player_type == player_type]
        if not chosen:
            raise CollabrlError(
                f"no profiles of type {clip(player_type, 40)!r} here; types: {', '.join(types)}"
            )
    rows = [
        (
            p.id,
            p.game,
            p.task,
            p.split,
            p.player_type,
            " ".join(LEVEL_LETTERS[level] for level in p.big_five.model_dump().values()),
            clip(p.behavior, 70),
        )
        for p in chosen
    ]
    headers = ["id", "game", "task", "split", "type", "O C E A N", "behaviour"]
    click.echo(tabulate(rows, headers=headers, tablefmt="github"))
    click.echo(
        f"\n{len(rows)} profile(s); name one as a study condition's agent.profile, a recipe "
        "seat's profile, or in simulated.profiles"
    )

"""The ``collabrl`` command line. Every user error is one line on stderr and exit code 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from tabulate import tabulate
from tqdm import tqdm

from collabrl.cli_options import OVERWRITE, RECIPE_ARGS, recipe_from_args
from collabrl.errors import CollabrlError
from collabrl.records import RunClaim, claim_folder, mark_completed, write_jsonl, write_text


class _Commands(click.Group):
    """The subcommands, and one two-word alias: ``collabrl eval compare DIR...`` is
    ``collabrl report table DIR...`` (the joined Table 1 layout).

    Why here: the alias joins two packages of one layer, and only the command line sits above
    both, so neither ``eval`` nor ``report`` imports the other.
    """

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        report = self.commands.get("report")
        if args[:2] == ["eval", "compare"] and isinstance(report, click.Group):
            return "eval compare", report.get_command(ctx, "table"), args[2:]
        return super().resolve_command(ctx, args)


@click.group(cls=_Commands)
@click.version_option(package_name="collabrl")
def cli() -> None:
    """collabrl: train LLM agents to collaborate with diverse simulated partners."""


@cli.command()
@RECIPE_ARGS
@click.option("--explain", is_flag=True, help="Print each key with its one-line documentation.")
@click.option(
    "--for",
    "command",
    type=click.Choice(["train", "play", "demos", "serve"]),
    default=None,
    help="Also refuse what this command would (training: a players list; play: none).",
)
def lint(args: tuple[str, ...], explain: bool, command: str | None) -> None:
    """Validate a recipe (name or path) with overrides and print it fully resolved."""
    try:
        recipe = recipe_from_args(args)
    except CollabrlError:
        from collabrl.study.spec.load import is_study_file

        named = [a for a in args if "=" not in a]
        if len(named) == 1 and is_study_file(named[0]):
            raise CollabrlError(
                f"{named[0]} is a study file, not a recipe: check it with "
                f"collabrl study lint {' '.join(args)}"
            ) from None
        raise
    if command == "train":
        recipe.check_trainable()
    elif command is not None:
        recipe.seat_players(command)
    if explain:
        from collabrl.config.explain import explain_recipe

        click.echo(explain_recipe(recipe), nl=False)
    else:
        click.echo(recipe.to_yaml(), nl=False)


@cli.command()
@RECIPE_ARGS
@click.option("--quiet", is_flag=True, help="Print only the summary, not the transcript.")
@click.option("--no-save", is_flag=True, help="Do not write recipe.yaml/episodes.jsonl.")
@OVERWRITE
def play(args: tuple[str, ...], quiet: bool, no_save: bool, overwrite: bool) -> None:
    """Play episodes of a recipe's game with its players and print transcripts and results."""
    from collabrl.agents.prompts import role_prompt_stamps
    from collabrl.episode import format_transcript, play_episode
    from collabrl.factory import make_game, make_player

    recipe = recipe_from_args(args)
    specs = recipe.seat_players("play")
    out = Path(recipe.output_dir)
    if not no_save:
        claim_folder(out, RunClaim("play", recipe.model_dump(mode="json"), overwrite=overwrite))
    game = make_game(recipe.game)
    players = {
        seat: make_player(spec, recipe.game, game, recipe.seed)
        for seat, spec in zip(recipe.game.seats, specs, strict=True)
    }
    records = []
    for i in tqdm(range(recipe.episodes), desc="episodes", disable=quiet or recipe.episodes == 1):
        record = play_episode(game, players, recipe.seed + i, recipe.game.unusable_reply)
        records.append(record)
        if not quiet:
            click.echo(f"=== episode {i} (seed {record.seed}) ===")
            click.echo(format_transcript(record))
    rows = [{"episode": i, **_scalar_items(r.summary)} for i, r in enumerate(records)]
    click.echo(tabulate(rows, headers="keys", tablefmt="github"))
    if not no_save:
        write_text(out / "recipe.yaml", recipe.to_yaml())
        write_text(out / "prompts.json", json.dumps(role_prompt_stamps(), indent=2))
        path = write_jsonl(out / "episodes.jsonl", (r.to_dict() for r in records))
        mark_completed(out, {"episodes": len(records)})
        click.echo(f"wrote {path}")


def _scalar_items(summary: dict) -> dict:
    """The summary fields that fit in a table cell."""
    return {k: v for k, v in summary.items() if isinstance(v, int | float | str | bool)}


@cli.command()
@click.option("--game", default=None, help="One registered game (default: all).")
@click.option("--split", type=click.Choice(["train", "test"]), default=None)
def tasks(game: str | None, split: str | None) -> None:
    """List the tasks of the installed games (game, task, splits, what it asks for)."""
    from collabrl.envs.registry import game_names, get_game

    rows = []
    for name in [game] if game else game_names():
        section = get_game(name)
        for task in section.all_tasks():
            splits = [s for s in ("train", "test") if task in section.tasks(s)]
            if split is None or split in splits:
                rows.append((name, task, "/".join(splits), section.task_summary(task)))
    click.echo(tabulate(rows, headers=["game", "task", "split", "goal"], tablefmt="github"))


@cli.command("check")
@click.argument("game")
@click.option(
    "--task",
    "chosen",
    multiple=True,
    help="A task to play (repeatable; default: the first training and the first test task).",
)
@click.option("--seeds", default="0,1", show_default=True, help="Episode seeds, comma-separated.")
@click.option("--max-steps", type=int, default=5_000, show_default=True)
def check(game: str, chosen: tuple[str, ...], seeds: str, max_steps: int) -> None:
    """Check an installed game against the game contract (docs/game-contract.md): seeded random
    episodes through every rule collabrl relies on; the first broken rule is one line."""
    from pydantic import ValidationError

    from collabrl.envs.checker import RULES, GameCheckError, check_game
    from collabrl.envs.registry import get_game
    from collabrl.errors import first_problem

    section = get_game(game)
    picked = chosen or tuple(
        dict.fromkeys((*section.tasks("train")[:1], *section.tasks("test")[:1]))
    )
    try:
        numbers = tuple(int(s) for s in seeds.split(","))
    except ValueError:
        raise CollabrlError(f"--seeds takes integers separated by commas, not {seeds!r}") from None
    for task in picked:
        try:
            made = section.model_validate({section.task_key: task})
        except ValidationError as exc:
            raise CollabrlError(f"{game} task {task!r}: {first_problem(exc)}") from None
        try:
            check_game(made.make_game, seeds=numbers, max_steps=max_steps, section=made)
        except GameCheckError as err:
            raise CollabrlError(f"{game} {task}: {err}") from None
        click.echo(f"{game} {task}: passes all {len(RULES)} rules (seeds {seeds})")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("runs/quickstart"))
@click.option("--seed", type=int, default=0)
@click.option("--iterations", type=int, default=None, help="GiGPO iterations after SFT.")
@OVERWRITE
def quickstart(out: Path, seed: int, iterations: int | None, overwrite: bool) -> None:
    """Small real training on this CPU: demos -> SFT -> GiGPO -> held-out evaluation + report."""
    from collabrl.quickstart import QuickstartPlan
    from collabrl.quickstart import quickstart as run_quickstart

    plan = QuickstartPlan(out=out, seed=seed)
    if iterations is not None:
        plan.iterations = iterations
    settings = {"seed": seed, "iterations": plan.iterations}
    claim_folder(out, RunClaim("quickstart", settings, overwrite=overwrite))
    result = run_quickstart(plan)
    mark_completed(out, {"policies": [row["policy"] for row in result["rows"]]})
    click.echo(tabulate(result["rows"], headers="keys", tablefmt="github", floatfmt=".3f"))
    click.echo()
    click.echo(tabulate(result["comparison"], headers="keys", tablefmt="github", floatfmt=".3f"))
    click.echo(result["verdict"])


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@OVERWRITE
def train(args: tuple[str, ...], overwrite: bool) -> None:
    """Train a policy: same as ``python train.py recipe=NAME key=value ...``."""
    from collabrl.training.loop import recipe_main

    recipe_main(list(args), overwrite)


@cli.command()
@RECIPE_ARGS
@click.option("--gpus", type=int, default=None, help="GPUs (default: the launch config's).")
@click.option("--gpu-memory", type=float, default=80.0, show_default=True, help="GiB per GPU.")
@click.option(
    "--launch",
    default=None,
    help="accelerate config (a path or a name in launch/; default: the recipe header's).",
)
def plan(args: tuple[str, ...], gpus: int | None, gpu_memory: float, launch: str | None) -> None:
    """GPU memory per GPU of a recipe's training; exit code 1 when it does not fit."""
    from collabrl.training.plan_recipe import format_plan, plan_from_args

    result = plan_from_args(
        args,
        launch=launch,
        gpus=gpus,
        gpu_gib=gpu_memory,
    )
    click.echo(format_plan(result), nl=False)
    if not result.fits:
        sys.exit(1)


def _register_groups() -> None:
    """Subcommand groups that live next to the code they drive."""
    from collabrl.eval.cli import eval_command
    from collabrl.eval.partners_cli import partners
    from collabrl.models.cli import models
    from collabrl.pipeline.cli import profiles
    from collabrl.report.cli import report
    from collabrl.report.hub_cli import hub
    from collabrl.sft.cli import demos_command, sft_command
    from collabrl.study.cli import study
    from collabrl.web.cli import serve_command, view_command

    cli.add_command(models)
    cli.add_command(profiles)
    cli.add_command(demos_command)
    cli.add_command(sft_command)
    cli.add_command(eval_command)
    cli.add_command(hub)
    cli.add_command(serve_command)
    cli.add_command(view_command)
    cli.add_command(study)
    cli.add_command(report)
    cli.add_command(partners)


_register_groups()


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors become ``error: ...`` on stderr with exit code 2."""
    try:
        cli.main(args=argv, standalone_mode=False)
    except CollabrlError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)

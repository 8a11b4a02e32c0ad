"""``collabrl demos`` and ``collabrl sft``: record demonstrations, then fine-tune on them.

collabrl demos cwah_sft_cpu              # -> runs/cwah_sft_cpu/demos.jsonl
collabrl sft cwah_sft_cpu                # -> runs/cwah_sft_cpu/checkpoints/iter_N/policy
accelerate launch -m collabrl sft cwah_sft_lora policy.model=models/SmolLM2-1.7B-Instruct
"""

from __future__ import annotations

import click
from tabulate import tabulate

from collabrl.cli_options import OVERWRITE

ARGS = click.argument("args", nargs=-1, metavar="RECIPE [KEY=VALUE]...")


@click.command("demos")
@ARGS
@click.option("--quiet", is_flag=True, help="No progress bar.")
@OVERWRITE
def demos_command(args: tuple[str, ...], quiet: bool, overwrite: bool) -> None:
    """Record demonstrations: the recipe's demonstrator (players[rollout.target_seat]: expert or
    llm teacher) plays beside training partners; each decision is saved with its exact prompt."""
    from collabrl.cli_options import recipe_from_args
    from collabrl.records import RunClaim, claim_folder, mark_completed
    from collabrl.sft.demos import (
        DemoStats,
        check_demo_recipe,
        demos_path,
        record_demos,
        write_demos,
    )

    recipe = recipe_from_args(args)
    check_demo_recipe(recipe)
    spec = recipe.sft.demos
    path = demos_path(recipe, spec)
    claim = RunClaim("demos", recipe.model_dump(mode="json"), overwrite=overwrite)
    claim_folder(path.parent, claim)
    stats = DemoStats()
    rows = list(record_demos(recipe, spec, stats, progress=not quiet))
    dataset = write_demos(rows, path)
    mark_completed(path.parent, {"episodes": stats.episodes, "examples": stats.kept})
    table = sorted(stats.by_task.items())
    click.echo(tabulate(table, headers=["task", "examples"], tablefmt="github"))
    click.echo(
        f"{stats.episodes} episodes ({stats.successful} successful), {stats.decisions} decisions, "
        f"{stats.kept} kept, {stats.invalid} invalid -> {path} (HF dataset: {dataset})"
    )


@click.command("sft")
@ARGS
@OVERWRITE
def sft_command(args: tuple[str, ...], overwrite: bool) -> None:
    """Supervised fine-tuning of the recipe's policy on its demonstrations (LoRA or full)."""
    from collabrl.cli_options import recipe_from_args
    from collabrl.sft.trainer import train_sft

    recipe = recipe_from_args(args)
    click.echo(recipe.to_yaml(), nl=False)
    train_sft(recipe, recipe.sft, overwrite)

"""Arguments and options shared by several ``collabrl`` subcommands (and the training script),
defined once so they read the same."""

from __future__ import annotations

import click

from collabrl.config import Recipe, load_recipe
from collabrl.errors import RecipeError

OVERWRITE = click.option(
    "--overwrite",
    is_flag=True,
    help="Move a run already in the output folder aside (to FOLDER.old-TIME) instead of refusing.",
)

RECIPE_ARGS = click.argument("args", nargs=-1, metavar="RECIPE [KEY=VALUE]...")


def split_recipe_args(args: tuple[str, ...] | list[str]) -> tuple[str, list[str]]:
    """Accept ``NAME k=v ...`` and ``recipe=NAME k=v ...`` alike; return (recipe, overrides)."""
    recipe, overrides = None, []
    for arg in args:
        if arg.startswith("recipe="):
            recipe = arg.removeprefix("recipe=")
        elif "=" not in arg and recipe is None:
            recipe = arg
        else:
            overrides.append(arg)
    if not recipe:
        raise RecipeError("no recipe given: pass a recipe name or path, e.g. household_experts")
    return recipe, overrides


def recipe_from_args(args: tuple[str, ...] | list[str]) -> Recipe:
    """Load and validate the recipe named on the command line."""
    return load_recipe(*split_recipe_args(args))

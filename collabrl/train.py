"""Training entry point shared by ``train.py``, ``accelerate launch train.py`` and
``collabrl train``: parse ``recipe=NAME key=value ...``, print the resolved recipe, train."""

from __future__ import annotations


def run(argv: list[str], overwrite: bool = False) -> None:
    """Validate the recipe named on the command line and run GiGPO training (``overwrite``: move
    a run already in its output folder aside)."""
    from collabrl.cli import recipe_from_args
    from collabrl.training.loop import train

    recipe = recipe_from_args(argv)
    print(recipe.to_yaml())
    run_dir = train(recipe, overwrite)
    print(f"run directory: {run_dir}")

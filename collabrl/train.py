"""Training entry point shared by ``train.py`` and ``collabrl train``.

GiGPO training arrives with a later milestone; until then the entry validates the recipe and stops
with a clear message instead of pretending to train.
"""

from __future__ import annotations

from collabrl.errors import CollabrlError


def run(argv: list[str]) -> None:
    """Parse ``recipe=NAME key=value ...`` and train (not available yet: a clear error)."""
    from collabrl.cli import recipe_from_args

    recipe = recipe_from_args(argv)
    raise CollabrlError(
        f"recipe {recipe.name!r} is valid, but training is not implemented in this version of "
        "collabrl yet; `collabrl play RECIPE` runs games with scripted players"
    )

"""The ``output_dir`` key of recipes and evaluations (and of any settings file naming where a
command writes)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator


def _names_a_folder(value: str) -> str:
    """Refuse an empty or blank folder name.

    Why: ``Path("")`` is the current folder, so ``output_dir=`` would claim it and scatter a
    run's outputs among whatever files are there instead of failing at lint.
    """
    if not value.strip():
        raise ValueError("must name a folder; an empty one would write into the current folder")
    return value


OutputDir = Annotated[str, AfterValidator(_names_a_folder)]
"""A folder a command writes its outputs into: any path but an empty or blank one."""

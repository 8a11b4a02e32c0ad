"""Lint of a study's randomisations: where each is made, and what its strata read."""

from __future__ import annotations

from collabrl.errors import RecipeError
from collabrl.study.spec.logic import check_expression
from collabrl.study.spec.schema import EndPage, Study


def check_randomisations(study: Study) -> None:
    """Each randomisation's page exists and is no end page, and its strata expression reads
    only declared state and questions; raises RecipeError (one line)."""
    pages = {p.id: p for p in study.pages}
    for r in study.randomise:
        where = f"randomise {r.id}"
        if r.at is not None and r.at not in pages:
            raise RecipeError(f"{where}: at names unknown page {r.at!r}")
        if r.at is not None and isinstance(pages[r.at], EndPage):
            raise RecipeError(f"{where}: at {r.at!r} is an end page: nothing follows to vary")
        if r.strata is not None:
            check_expression(study, r.strata, f"{where} strata", "survey")

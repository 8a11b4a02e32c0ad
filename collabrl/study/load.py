"""Reading a study file: a path or a shipped study's name, an optional ``base:`` study merged
underneath, ``key=value`` overrides, then validation (one-line errors, like recipes).

What the manifest and the database keep is the *resolved* study (base merged, overrides applied,
templates written out) and its SHA-256: two runs with the same hash ran the same protocol. The
files it came from are kept too, with their own hashes, so a reader can audit the chain.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import yaml
from pydantic import ValidationError

from collabrl.config import describe_validation_error
from collabrl.config.loader import FileKind, SourceFile, layered_node, load_settings
from collabrl.errors import RecipeError
from collabrl.study.schema import PAGE_KINDS, Study

STUDIES = FileKind("study", "collabrl.studies")


def shipped_studies() -> list[str]:
    """Names of the studies shipped inside the package."""
    return STUDIES.shipped()


@dataclass(frozen=True)
class LoadedStudy:
    """A validated study and everything needed to audit it."""

    study: Study
    sources: list[SourceFile]  # the file first, then its base(s)
    overrides: list[str] = field(default_factory=list)

    @property
    def resolved_yaml(self) -> str:
        """The protocol as run: every value, base merged, overrides applied, templates expanded."""
        return yaml.safe_dump(self.study.model_dump(mode="json"), sort_keys=False)

    @property
    def sha256(self) -> str:
        """Hash of the resolved protocol (what the database is bound to)."""
        return hashlib.sha256(self.resolved_yaml.encode("utf-8")).hexdigest()


def _describe(err: ValidationError) -> str:
    """The validation problems on one line; an unknown key of a page names that page kind's
    keys (the recipe describer only knows plain sections, not the page union)."""
    for item in err.errors():
        loc = item["loc"]
        if item["type"] == "extra_forbidden" and loc[0] == "pages" and len(loc) == 4:
            keys = ", ".join(PAGE_KINDS[str(loc[2])].model_fields)
            return f"pages.{loc[1]} ({loc[2]} page): unknown key {loc[3]!r}; allowed: {keys}"
    return describe_validation_error(err, Study)


def load_study(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> LoadedStudy:
    """Read, merge, override and validate a study. Raises only RecipeError."""
    node, sources = layered_node(STUDIES, name_or_path)
    study = load_settings(Study, node, overrides, sources[0].where, describe=_describe)
    return LoadedStudy(study, sources, list(overrides))


def split_study_args(args: tuple[str, ...] | list[str]) -> tuple[str, list[str]]:
    """``STUDY key=value ...`` into (study, overrides)."""
    names = [a for a in args if "=" not in a]
    if len(names) != 1:
        raise RecipeError("give one study (a file or a shipped name), then key=value overrides")
    return names[0], [a for a in args if "=" in a]

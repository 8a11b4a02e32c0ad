"""Reading a study file: a path or a shipped study's name, an optional ``base:`` study merged
underneath, ``key=value`` overrides, then validation (one-line errors, like recipes).

What the manifest and the database keep is the *resolved* study (base merged, overrides applied,
templates written out) and its SHA-256: two runs with the same hash ran the same protocol. The
files it came from are kept too, with their own hashes, so a reader can audit the chain.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import BaseModel, ValidationError

from collabrl.config import describe_validation_error
from collabrl.config.loader import FileKind, SourceFile, layered_node, load_settings
from collabrl.errors import RecipeError
from collabrl.study.spec.schema import PAGE_KINDS, Study

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

    @cached_property  # the protocol is fixed once loaded; a round's record names its hash
    def resolved_yaml(self) -> str:
        """The protocol as run: every value, base merged, overrides applied, templates expanded."""
        return yaml.safe_dump(self.study.model_dump(mode="json"), sort_keys=False)

    @cached_property
    def sha256(self) -> str:
        """Hash of the resolved protocol (what the database is bound to)."""
        return hashlib.sha256(self.resolved_yaml.encode("utf-8")).hexdigest()


def protocol_differences(before: Any, after: Any, where: str = "") -> tuple[list[str], list[str]]:
    """Compare two resolved protocols (``resolved_yaml`` parsed): the keys only ``after`` has,
    and the keys whose values differ (or that only ``before`` has), as dotted paths.

    A newer collabrl reading the same study file resolves every option it has added at its
    default: those keys are *added*; anything else that differs is a *changed* protocol."""
    if isinstance(before, dict) and isinstance(after, dict):
        added = [f"{where}{key}" for key in after.keys() - before.keys()]
        changed = [f"{where}{key}" for key in before.keys() - after.keys()]
        inside = [(before[k], after[k], f"{where}{k}.") for k in before.keys() & after.keys()]
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        added, changed = [], []
        inside = [(old, after[i], f"{where}{i}.") for i, old in enumerate(before)]
    else:
        return [], [] if before == after else [where.rstrip(".") or "(the whole study)"]
    for old, new, path in inside:
        more, other = protocol_differences(old, new, path)
        added += more
        changed += other
    return sorted(added), sorted(changed)


MAX_PROBLEMS = 12  # a study file is short: every problem of it fits on the line


def _page_key(loc: tuple[Any, ...]) -> str | None:
    """An unknown key in a page (``pages.1.survey.branches.0.value``), with the keys that the
    page kind, or the part of it the key is in, allows (the recipe describer only knows plain
    sections, not the page union)."""
    if len(loc) < 4 or loc[0] != "pages" or loc[2] not in PAGE_KINDS:
        return None
    model: type[BaseModel] = PAGE_KINDS[str(loc[2])]
    for part in loc[3:-1]:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            continue  # a list index
        inner = [
            a
            for a in (field.annotation, *get_args(field.annotation))
            if isinstance(a, type) and issubclass(a, BaseModel)
        ]
        model = inner[0] if inner else model
    inside = "".join(f".{p}" for p in loc[3:-1])
    keys = ", ".join(model.model_fields)
    return f"pages.{loc[1]} ({loc[2]} page){inside}: unknown key {loc[-1]!r}; allowed: {keys}"


def _describe(err: ValidationError) -> str:
    """Every validation problem on one line, unknown keys first; an unknown key of a page names
    the keys its page kind allows there."""
    return describe_validation_error(err, Study, limit=MAX_PROBLEMS, unknown_key=_page_key)


def load_study(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> LoadedStudy:
    """Read, merge, override and validate a study. Raises only RecipeError."""
    node, sources = layered_node(STUDIES, name_or_path)
    study = load_settings(Study, node, overrides, sources[0].where, describe=_describe)
    return LoadedStudy(study, sources, list(overrides))


STUDY_ONLY = ("pages", "conditions", "questionnaire", "design", "timers", "completion")
"""Top-level keys only a study file has (a recipe has none of them)."""


def is_study_file(name_or_path: str) -> bool:
    """Whether ``name_or_path`` is a study (a shipped one's name, or a YAML file with a study's
    top-level keys), for commands that take recipes to point at ``collabrl study``."""
    if name_or_path in shipped_studies():
        return True
    path = Path(name_or_path)
    try:
        if not path.is_file() or path.stat().st_size > 1_000_000:
            return False
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(raw, dict) and any(key in raw for key in STUDY_ONLY)


def split_study_args(args: tuple[str, ...] | list[str]) -> tuple[str, list[str]]:
    """``STUDY key=value ...`` into (study, overrides)."""
    names = [a for a in args if "=" not in a]
    if len(names) != 1:
        raise RecipeError("give one study (a file or a shipped name), then key=value overrides")
    return names[0], [a for a in args if "=" in a]

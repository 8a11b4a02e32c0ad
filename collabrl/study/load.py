"""Reading a study file: a path or a shipped study's name, an optional ``base:`` study merged
underneath, ``key=value`` overrides, then validation (one-line errors, like recipes).

What the manifest and the database keep is the *resolved* study (base merged, overrides applied,
templates written out) and its SHA-256: two runs with the same hash ran the same protocol. The
files it came from are kept too, with their own hashes, so a reader can audit the chain.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import ValidationError

from collabrl.config import apply_override, describe_validation_error
from collabrl.errors import RecipeError
from collabrl.settings_files import clip, read_text_file, resolve_bounded, yaml_mapping
from collabrl.study.schema import PAGE_KINDS, Study

SHIPPED = "collabrl.studies"


def shipped_studies() -> list[str]:
    """Names of the studies shipped inside the package."""
    folder = resources.files(SHIPPED)
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


@dataclass(frozen=True)
class SourceFile:
    """One file a study was read from, with its hash."""

    where: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


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


def _read(name_or_path: str, relative_to: Path | None) -> SourceFile:
    path = Path(name_or_path).expanduser()
    if relative_to is not None and not path.is_absolute():
        candidate = relative_to / path
        path = candidate if os.path.lexists(candidate) else path
    if os.path.lexists(path):
        return SourceFile(str(path), read_text_file(path, "a study"))
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files(SHIPPED) / f"{stem}.yaml"
    if "/" not in stem and shipped.is_file():
        return SourceFile(f"studies/{stem}.yaml", shipped.read_text(encoding="utf-8"))
    raise RecipeError(
        f"study {clip(repr(name_or_path))} is neither a file nor a shipped study; "
        f"shipped: {', '.join(shipped_studies())}"
    )


def _raw(name_or_path: str, relative_to: Path | None, seen: tuple[str, ...]) -> tuple[Any, list]:
    """The study's YAML as an OmegaConf node with its ``base:`` merged underneath (lists are
    replaced, not merged: a variant restates the conditions it changes)."""
    source = _read(name_or_path, relative_to)
    raw = yaml_mapping(source.text, source.where, "a study")
    base = raw.pop("base", None)
    node = OmegaConf.create(raw)
    if base is None:
        return node, [source]
    if not isinstance(base, str) or source.where in seen:
        raise RecipeError(f"{source.where}: base must name another study (and not form a cycle)")
    folder = Path(source.where).parent if not source.where.startswith("studies/") else None
    parent, chain = _raw(base, folder, (*seen, source.where))
    game = raw["game"].get("name") if isinstance(raw.get("game"), dict) else None
    if game is not None and game != parent.get("game", {}).get("name"):
        parent.pop("game", None)  # another game: its options replace the base's, not merge in
    return OmegaConf.merge(parent, node), [source, *chain]


def _describe(err: ValidationError) -> str:
    """The validation problems on one line; an unknown key of a page names that page kind's
    keys (the recipe describer only knows plain sections, not the page union)."""
    for item in err.errors():
        loc = item["loc"]
        if item["type"] == "extra_forbidden" and loc[0] == "pages" and len(loc) == 4:
            keys = ", ".join(PAGE_KINDS[loc[2]].model_fields)
            return f"pages.{loc[1]} ({loc[2]} page): unknown key {loc[3]!r}; allowed: {keys}"
    return describe_validation_error(err, Study)


def load_study(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> LoadedStudy:
    """Read, merge, override and validate a study. Raises only RecipeError."""
    node, sources = _raw(name_or_path, None, ())
    where = sources[0].where
    try:
        for item in overrides:
            apply_override(node, item)
        data = resolve_bounded(node, where)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError) as exc:
        raise RecipeError(f"{where}: {clip(str(exc).splitlines()[0], 160)}") from None
    try:
        study = Study.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{where}: {_describe(exc)}") from None
    return LoadedStudy(study, sources, list(overrides))


def split_study_args(args: tuple[str, ...] | list[str]) -> tuple[str, list[str]]:
    """``STUDY key=value ...`` into (study, overrides)."""
    names = [a for a in args if "=" not in a]
    if len(names) != 1:
        raise RecipeError("give one study (a file or a shipped name), then key=value overrides")
    return names[0], [a for a in args if "=" in a]

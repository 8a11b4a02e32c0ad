"""Reading settings: YAML files plus ``a.b=c`` overrides, validated into a typed section.

OmegaConf does the merging and ``${...}`` interpolation; pydantic does the validation. Every
problem becomes a one-line :class:`RecipeError` naming the key and what is allowed. Hostile or
careless input (a binary or huge file, a "billion laughs" YAML document, absurd sizes, names that
do not exist) is refused here, at ``collabrl lint``, not minutes into a run. Recipes and the
profile pipeline's settings both load through :func:`load_settings`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ValidationError

from collabrl.config.recipe import Recipe
from collabrl.envs.registry import registered_games
from collabrl.errors import RecipeError
from collabrl.settings_files import clip, load_yaml, read_text_file, resolve_bounded, yaml_mapping

Settings = TypeVar("Settings", bound=BaseModel)
MAX_PROBLEMS = 4  # problems listed in one error line; the wrong file can hold thousands


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped inside the package."""
    folder = resources.files("collabrl.recipes")
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def _read_recipe_text(name_or_path: str) -> tuple[str, str]:
    """(text, where) of a recipe given as a file path or the name of a shipped recipe."""
    path = Path(name_or_path).expanduser()
    if os.path.lexists(path):
        return read_text_file(path, "a recipe"), str(path)
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files("collabrl.recipes") / f"{stem}.yaml"
    if "/" not in stem and shipped.is_file():
        return shipped.read_text(encoding="utf-8"), f"recipes/{stem}.yaml"
    raise RecipeError(
        f"recipe {clip(repr(name_or_path))} is neither a file nor a shipped recipe; "
        f"shipped: {', '.join(shipped_recipes())}"
    )


def _readable_loc(loc: Sequence[Any]) -> list[Any]:
    """A validation error's path without pydantic's internals: the game union adds the game's
    name after ``game`` ("game.household.task"), validators add "function-..." parts."""
    games = registered_games()
    parts = []
    for i, part in enumerate(loc):
        if str(part).startswith("function-") or (i and loc[i - 1] == "game" and part in games):
            continue
        parts.append(part)
    return parts


def describe_validation_error(err: ValidationError, model: type[BaseModel]) -> str:
    """The problems of a validation error, each as ``key: what is wrong``, on one line (the first
    MAX_PROBLEMS, then a count: a wrong file given as a recipe must not flood the terminal)."""
    problems = []
    # unknown keys first: in the wrong file they say more than the sections it lacks
    items = sorted(err.errors(), key=lambda item: item["type"] != "extra_forbidden")
    for item in items[:MAX_PROBLEMS]:
        loc = clip(".".join(str(p) for p in _readable_loc(item["loc"])))
        if item["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, item["loc"][:-1])
            problems.append(f"{loc}: unknown key; allowed: {', '.join(allowed)}")
        else:
            got = item.get("input")
            shown = (
                "" if isinstance(got, dict | list) or got is None else f" (got {clip(repr(got))})"
            )
            msg = " ".join(item["msg"].removeprefix("Value error, ").split())
            # model-level checks name their keys themselves
            problems.append(f"{loc}: {msg}{shown}" if loc else msg)
    more = err.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more problem(s)" if more else "")


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the section at ``loc`` (best effort; used to explain unknown keys)."""
    games = registered_games()
    for part in loc:
        if part in games:
            model = games[part]
            continue
        field = model.model_fields.get(str(part)) if isinstance(part, str) else None
        if field is None:
            continue
        annotation = field.annotation
        args = getattr(annotation, "__args__", ())
        candidates = [
            a for a in (annotation, *args) if isinstance(a, type) and issubclass(a, BaseModel)
        ]
        if candidates:
            model = candidates[0]
    return list(model.model_fields)


def apply_override(config: Any, item: str) -> None:
    """Set one ``a.b=c`` override (``players.0.kind=expert`` indexes lists); YAML-typed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RecipeError(f"override {item!r} must look like key=value (e.g. seed=3)")
    try:
        parsed = load_yaml(value, f"override {clip(repr(item))}") if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    try:
        OmegaConf.update(config, key, parsed, merge=False, force_add=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError, KeyError) as exc:
        message = clip(str(exc).splitlines()[0], 160)
        raise RecipeError(f"cannot apply override {clip(repr(item))}: {message}") from None


def settings_file(path: Path, what: str) -> Any:
    """The mapping of a settings YAML file as an OmegaConf node (bounded, one-line errors)."""
    return _node(yaml_mapping(read_text_file(path, what), str(path), what), str(path))


def _node(raw: dict[str, Any], where: str) -> Any:
    try:
        return OmegaConf.create(raw)
    except OmegaConfBaseException as exc:
        raise RecipeError(f"{where}: {clip(str(exc).splitlines()[0], 160)}") from None


def load_settings(
    model: type[Settings], config: Any, overrides: Sequence[str], where: str
) -> Settings:
    """Merge ``overrides`` into ``config`` (an OmegaConf node), resolve ``${...}`` with bounds
    and validate the result as ``model``. Raises only RecipeError."""
    try:
        for item in overrides:
            apply_override(config, item)
        data = resolve_bounded(config, where)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError) as exc:
        message = clip(str(exc).splitlines()[0], 160)
        raise RecipeError(f"{where}: {message}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{where}: {describe_validation_error(exc, model)}") from None


def _raw_recipe(name_or_path: str, seen: tuple[str, ...] = ()) -> tuple[Any, str]:
    """The recipe's YAML as an OmegaConf node, with its ``base:`` recipe merged underneath.

    ``base: cwah_gigpo`` lets an ablation recipe state only what it changes.
    """
    text, where = _read_recipe_text(name_or_path)
    raw = yaml_mapping(text, where, "a recipe")
    base = raw.pop("base", None)
    node = _node(raw, where)
    if base is None:
        return node, where
    if not isinstance(base, str) or base in seen:
        raise RecipeError(f"{where}: base must name another recipe (and not form a cycle)")
    parent, _ = _raw_recipe(base, (*seen, name_or_path))
    parent_game = parent.get("game", {}).get("name")
    game = raw["game"].get("name") if isinstance(raw.get("game"), dict) else None
    if game is not None and game != parent_game:
        parent.pop("game", None)  # another game: its options replace the base's, not merge in
    return OmegaConf.merge(parent, node), where


def load_recipe(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> Recipe:
    """Read, merge overrides into, resolve and validate a recipe. Raises only RecipeError."""
    config, where = _raw_recipe(name_or_path)
    return load_settings(Recipe, config, overrides, where)

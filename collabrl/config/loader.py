"""Reading settings: YAML files plus ``a.b=c`` overrides, validated into a typed section.

OmegaConf does the merging and ``${...}`` interpolation; pydantic does the validation. Every
problem becomes a one-line :class:`RecipeError` naming the key and what is allowed. Hostile or
careless input (a binary or huge file, a "billion laughs" YAML document, absurd sizes, names that
do not exist) is refused here, at ``collabrl lint``, not minutes into a run. Recipes and the
profile pipeline's settings and studies all load through :func:`load_settings`; recipes and
studies share :func:`layered_node` (a path or shipped name, with a ``base:`` underneath).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ValidationError

from collabrl.config.recipe import Recipe
from collabrl.envs.registry import registered_games
from collabrl.errors import RecipeError
from collabrl.records import MAX_QUOTED, quoted
from collabrl.settings_files import clip, load_yaml, read_text_file, resolve_bounded, yaml_mapping

Settings = TypeVar("Settings", bound=BaseModel)
MAX_PROBLEMS = 4  # problems listed in one error line; the wrong file can hold thousands


@dataclass(frozen=True)
class SourceFile:
    """One settings file a recipe or study was read from: where, its text, and its hash."""

    where: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class FileKind:
    """A kind of layered settings file: ``recipe`` files in ``collabrl.recipes``, ``study`` files
    in ``collabrl.studies``. Both name a file path or a shipped name, and may name a ``base:``."""

    what: str
    package: str

    def shipped(self) -> list[str]:
        """Names of the files of this kind shipped inside the package."""
        folder = resources.files(self.package)
        return sorted(
            p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
        )


RECIPES = FileKind("recipe", "collabrl.recipes")


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped inside the package."""
    return RECIPES.shipped()


def read_source(kind: FileKind, name_or_path: str, relative_to: Path | None = None) -> SourceFile:
    """A file path (tried under ``relative_to`` first, the folder of the file naming it as its
    base) or the name of a shipped file of ``kind``."""
    path = Path(name_or_path).expanduser()
    if relative_to is not None and not path.is_absolute():
        candidate = relative_to / path
        path = candidate if os.path.lexists(candidate) else path
    if os.path.lexists(path):
        return SourceFile(str(path), read_text_file(path, f"a {kind.what}"))
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files(kind.package) / f"{stem}.yaml"
    if "/" not in stem and _is_file(shipped):
        folder = kind.package.rpartition(".")[2]
        return SourceFile(f"{folder}/{stem}.yaml", shipped.read_text(encoding="utf-8"))
    raise RecipeError(
        f"{kind.what} {clip(repr(name_or_path))} is neither a file nor a shipped {kind.what}; "
        f"shipped: {', '.join(kind.shipped())}"
    )


def _is_file(path: Any) -> bool:
    """``path.is_file()``, False where the name cannot be a file at all (too long for the file
    system), which ``is_file`` raises for instead of answering."""
    try:
        return bool(path.is_file())
    except OSError:
        return False


def layered_node(
    kind: FileKind,
    name_or_path: str,
    relative_to: Path | None = None,
    seen: tuple[str, ...] = (),
) -> tuple[Any, list[SourceFile]]:
    """A settings file as an OmegaConf node with its ``base:`` merged underneath, and the files
    it came from (the file first, then its bases).

    ``base: cwah_gigpo`` lets an ablation recipe state only what it changes. Lists are replaced,
    not merged; a ``game`` section naming another game replaces the base's instead of merging.
    """
    source = read_source(kind, name_or_path, relative_to)
    raw = yaml_mapping(source.text, source.where, f"a {kind.what}")
    base = raw.pop("base", None)
    node = _node(raw, source.where)
    if base is None:
        return node, [source]
    if not isinstance(base, str) or source.where in seen:
        raise RecipeError(
            f"{source.where}: base must name another {kind.what} (and not form a cycle)"
        )
    shipped = source.where.startswith(kind.package.rpartition(".")[2] + "/")
    folder = None if shipped else Path(source.where).parent
    parent, chain = layered_node(kind, base, folder, (*seen, source.where))
    game = raw["game"].get("name") if isinstance(raw.get("game"), dict) else None
    if game is not None and game != parent.get("game", {}).get("name"):
        parent.pop("game", None)
    return OmegaConf.merge(parent, node), [source, *chain]


def _readable_loc(loc: Sequence[Any]) -> list[Any]:
    """A validation error's path without pydantic's internals: the game union adds the game's
    name after ``game`` ("game.household.task") or after an item of a list of games
    ("games.0.household.task"), validators add "function-..." parts."""
    games = registered_games()
    parts = []
    for i, part in enumerate(loc):
        after_game = i and (loc[i - 1] == "game" or isinstance(loc[i - 1], int))
        if str(part).startswith("function-") or (after_game and part in games):
            continue
        parts.append(part)
    return parts


def describe_validation_error(
    err: ValidationError,
    model: type[BaseModel],
    *,
    limit: int = MAX_PROBLEMS,
    unknown_key: Callable[[tuple[Any, ...]], str | None] | None = None,
) -> str:
    """The problems of a validation error, each as ``key: what is wrong``, on one line (the first
    ``limit``, then a count: a wrong file given as a recipe must not flood the terminal).
    ``unknown_key(loc)`` may word an unknown key itself (None: the default wording)."""
    problems = []
    # unknown keys first: in the wrong file they say more than the sections it lacks
    items = sorted(err.errors(), key=lambda item: item["type"] != "extra_forbidden")
    for item in items[:limit]:
        loc = clip(".".join(str(p) for p in _readable_loc(item["loc"])))
        extra = item["type"] == "extra_forbidden"
        worded = unknown_key(item["loc"]) if extra and unknown_key else None
        if worded:
            problems.append(worded)
        elif extra:
            allowed = _allowed_keys(model, item["loc"][:-1])
            problems.append(f"{loc}: unknown key; allowed: {', '.join(allowed)}")
        else:
            got = item.get("input")
            shown = (
                "" if isinstance(got, dict | list) or got is None else f" (got {clip(repr(got))})"
            )
            msg = _shorten_quotes(" ".join(item["msg"].removeprefix("Value error, ").split()))
            # model-level checks name their keys themselves
            problems.append(f"{loc}: {msg}{shown}" if loc else msg)
    more = err.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more problem(s)" if more else "")


_LONG_QUOTE = re.compile(rf"'([^']{{{MAX_QUOTED + 1},}})'")


def _shorten_quotes(message: str) -> str:
    """``message`` with each long single-quoted value cut by :func:`collabrl.records.quoted`.

    Why: pydantic's and the games' own messages quote the input (``Input tag '...'``, ``unknown
    game '...'``) however long it is; this keeps every validation error line bounded.
    """
    return _LONG_QUOTE.sub(lambda m: quoted(m.group(1)), message)


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


def _item_example(items: list[dict], where: str, part: str, rest: str) -> str:
    """The override ``where.<part>.<rest>`` rewritten to address one of the list's ``items``.

    ``part`` is an item's name (``games.kitchen.x`` -> ``games.1.x``), a key inside the items
    (``games.kitchen_layouts`` -> ``games.1.kitchen_layouts``, the item that has it or whose name
    it starts with), or a wrong index (``players.first.kind`` -> ``players.0.kind``).
    """
    names = [item.get("name") for item in items]
    if part in names:
        return ".".join(x for x in (where, str(names.index(part)), rest) if x)
    for i, (item, name) in enumerate(zip(items, names, strict=True)):
        if part in item or (isinstance(name, str) and part.startswith(name)):
            return ".".join(x for x in (where, str(i), part, rest) if x)
    return ".".join(x for x in (where, "0", rest or part) if x)


def _list_problem(node: ListConfig, parts: list[str], depth: int) -> str | None:
    """Why ``parts[depth]`` cannot index the list ``node``: a name, or a number past its end."""
    part, where = parts[depth], ".".join(parts[:depth])
    if part.isdigit() and int(part) < len(node):
        return None
    raw = OmegaConf.to_container(node, resolve=False)  # '???' and ${...} stay text
    items = [item if isinstance(item, dict) else {} for item in raw or ()]
    names = [
        f"{where}.{i} is {item['name']}"
        for i, item in enumerate(items)
        if isinstance(item.get("name"), str)
    ]
    shown = f" ({', '.join(names)})" if names else ""
    if part.isdigit():
        return f"{where} has {len(node)} item(s), numbered from 0{shown}"
    example = _item_example(items, where, part, ".".join(parts[depth + 1 :]))
    return (
        f"{where} is a list of {len(node)} item(s), not a section: address its items by "
        f"number{shown}, e.g. {example}=..."
    )


def _list_named_by_key(config: Any, key: str) -> str | None:
    """Why ``key`` cannot address ``config``: a list indexed by a name, or past its end; None when
    the path's lists are all indexed by numbers in range.

    Why: OmegaConf's own words for these ("invalid literal for int() with base 10: 'x'") name
    neither the list nor how to address its items; the items of a list of sections are told apart
    by their ``name`` where they have one, so the message can show which number is which.
    """
    node, parts = config, key.split(".")
    for depth, part in enumerate(parts):
        if isinstance(node, ListConfig):
            problem = _list_problem(node, parts, depth)
            if problem:
                return problem
            node = node._get_node(int(part))  # the node itself, unresolved, as below
        elif isinstance(node, DictConfig) and part in node:
            node = node._get_node(part)  # the node itself: an interpolation stays unresolved
        else:
            return None
    return None


def apply_override(config: Any, item: str) -> None:
    """Set one ``a.b=c`` override (``players.0.kind=expert`` indexes lists); YAML-typed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RecipeError(f"override {quoted(item)} must look like key=value (e.g. seed=3)")
    try:
        parsed = load_yaml(value, f"override {clip(repr(item))}") if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    problem = _list_named_by_key(config, key)
    if problem:
        raise RecipeError(f"cannot apply override {clip(repr(item))}: {problem}")
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
    model: type[Settings],
    config: Any,
    overrides: Sequence[str],
    where: str,
    describe: Callable[[ValidationError], str] | None = None,
) -> Settings:
    """Merge ``overrides`` into ``config`` (an OmegaConf node), resolve ``${...}`` with bounds
    and validate the result as ``model``; ``describe`` words a validation error (default:
    :func:`describe_validation_error`). Raises only RecipeError."""
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
        problem = describe(exc) if describe else describe_validation_error(exc, model)
        raise RecipeError(f"{where}: {problem}") from None


def load_recipe(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> Recipe:
    """Read, merge overrides into, resolve and validate a recipe. Raises only RecipeError."""
    config, sources = layered_node(RECIPES, name_or_path)
    return load_settings(Recipe, config, overrides, sources[0].where)

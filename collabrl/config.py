"""Recipes: a YAML file plus ``a.b=c`` overrides, validated into one typed, printable object.

OmegaConf does the merging and ``${...}`` interpolation; pydantic does the validation. Every
validation problem becomes a one-line :class:`RecipeError` naming the key and what is allowed.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    ValidationError,
    field_validator,
    model_validator,
)

from collabrl.errors import RecipeError

KITCHEN_LAYOUTS = (
    "cramped_room",
    "asymmetric_advantages",
    "coordination_ring",
    "forced_coordination",
    "counter_circuit",
)


class Strict(BaseModel):
    """Base for recipe sections: unknown keys are errors, values are checked on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class HouseholdSpec(Strict):
    """CWAH-MultiPlayer: one household task, played by ``len(seats)`` seats."""

    name: Literal["household"] = "household"
    task: str = "0_read_book"
    seats: list[str] = Field(default_factory=lambda: ["Alice", "Bob"], min_length=1)
    max_ticks: PositiveInt = 250
    max_decisions: PositiveInt = 50

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        from collabrl.envs.household.tasks import get_task

        try:
            get_task(task)
        except KeyError as exc:
            raise ValueError(str(exc)) from None
        return task


class KitchenSpec(Strict):
    """Cook-MultiPlayer: one Overcooked layout."""

    name: Literal["kitchen"] = "kitchen"
    layout: Literal[KITCHEN_LAYOUTS] = "cramped_room"  # type: ignore[valid-type]
    seats: list[str] = Field(default_factory=lambda: ["Player 0", "Player 1"], min_length=1)
    horizon: PositiveInt = 400  # 400 ticks for evaluation, 150 in training
    cooking: Literal["auto", "interact"] = "auto"  # auto: a full pot starts cooking by itself


GameSpec = Annotated[HouseholdSpec | KitchenSpec, Field(discriminator="name")]


class PlayerSpec(Strict):
    """Who fills a seat."""

    kind: Literal["expert"] = "expert"


class Recipe(Strict):
    """Everything one run needs; the resolved form is printed and recorded by every run."""

    name: str = "run"
    seed: int = 0
    episodes: PositiveInt = 1
    game: GameSpec = Field(default_factory=HouseholdSpec)
    players: list[PlayerSpec] = Field(default_factory=lambda: [PlayerSpec(), PlayerSpec()])
    output_dir: str = "runs"

    @model_validator(mode="after")
    def _one_player_per_seat(self) -> Recipe:
        if len(self.players) != len(self.game.seats):
            raise ValueError(
                f"players has {len(self.players)} entries but game.seats has "
                f"{len(self.game.seats)}: give one player per seat"
            )
        return self

    def to_yaml(self) -> str:
        """The fully resolved recipe as YAML (what runs print and record)."""
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped inside the package."""
    folder = resources.files("collabrl.recipes")
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def _read_recipe_text(name_or_path: str) -> tuple[str, str]:
    """(text, where) of a recipe given as a file path or the name of a shipped recipe."""
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path.read_text(encoding="utf-8"), str(path)
    stem = name_or_path.removesuffix(".yaml")
    shipped = resources.files("collabrl.recipes") / f"{stem}.yaml"
    if "/" not in stem and shipped.is_file():
        return shipped.read_text(encoding="utf-8"), f"recipes/{stem}.yaml"
    raise RecipeError(
        f"recipe {name_or_path!r} is neither a file nor a shipped recipe; "
        f"shipped: {', '.join(shipped_recipes())}"
    )


def _format_validation_error(err: ValidationError, model: type[BaseModel]) -> str:
    """All problems of a validation error, each as ``key: what is wrong``, on one line."""
    problems = []
    for item in err.errors():
        loc = ".".join(str(p) for p in item["loc"] if not str(p).startswith("function-"))
        # Discriminated unions add the tag ("household") to the path: drop it for readability.
        loc = loc.replace(".household.", ".").replace(".kitchen.", ".")
        if item["type"] == "extra_forbidden":
            allowed = _allowed_keys(model, item["loc"][:-1])
            problems.append(f"{loc}: unknown key; allowed: {', '.join(allowed)}")
        else:
            got = item.get("input")
            shown = "" if isinstance(got, dict | list) or got is None else f" (got {got!r})"
            msg = item["msg"].removeprefix("Value error, ")
            problems.append(f"{loc or 'recipe'}: {msg}{shown}")
    return "; ".join(problems)


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the section at ``loc`` (best effort; used to explain unknown keys)."""
    for part in loc:
        if part in ("household", "kitchen"):
            model = HouseholdSpec if part == "household" else KitchenSpec
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


def _apply_override(config: Any, item: str) -> None:
    """Set one ``a.b=c`` override (``players.0.kind=expert`` indexes lists); YAML-typed value."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RecipeError(f"override {item!r} must look like key=value (e.g. seed=3)")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    try:
        OmegaConf.update(config, key, parsed, merge=False, force_add=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError, KeyError) as exc:
        raise RecipeError(f"cannot apply override {item!r}: {str(exc).splitlines()[0]}") from None


def load_recipe(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> Recipe:
    """Read, merge overrides into, resolve and validate a recipe. Raises only RecipeError."""
    text, where = _read_recipe_text(name_or_path)
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise RecipeError(f"{where}: not valid YAML{at}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(raw, dict):
        raise RecipeError(f"{where}: a recipe must be a mapping of keys to values")
    try:
        config = OmegaConf.create(raw)
        for item in overrides:
            _apply_override(config, item)
        data = OmegaConf.to_container(config, resolve=True)
    except (OmegaConfBaseException, TypeError, ValueError, IndexError) as exc:
        message = str(exc).splitlines()[0]
        raise RecipeError(f"{where}: {message}") from None
    try:
        return Recipe.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(f"{where}: {_format_validation_error(exc, Recipe)}") from None

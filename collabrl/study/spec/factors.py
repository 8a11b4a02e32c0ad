"""Multi-factor designs: conditions generated from factor levels (e.g. collaboration structure
x agent), each factor varied within or between subjects.

A study with ``design.factors`` lists no ``conditions``: every combination of one level per
factor is a condition, its id the level ids joined by ``-`` (``gates-expert``), its agent (or
a chat or document round and its ``chat_agent``), game options (a collaboration structure:
``{structure: gates}``), prompt and name taken from the levels that give them. Assignment
stays balanced (:mod:`collabrl.study.spec.design`): the combinations of the between-subject
factors' levels are *cells*; a session group is assigned one cell, and plays that cell's
within-subject conditions in a counterbalanced order; groups cycle through every cell x order
x task, so a recruitment target that is a multiple of that block fills every cell equally (lint
refuses any other target).
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from collabrl.config import PlayerSpec
from collabrl.sections import Strict
from collabrl.study.spec.chat_agent import ChatAgent

LEVEL_ID = r"^[A-Za-z][A-Za-z0-9_]{0,30}$"  # no "-": it joins level ids into condition ids
SEPARATOR = "-"


class Level(Strict):
    """One level of a factor: what conditions at this level take from it."""

    id: str = Field(pattern=LEVEL_ID)
    """Id of the level (in condition ids and the export's factor.* columns)."""
    name: str | None = Field(None, max_length=30)
    """What participants see for it (the condition's name joins its levels' names; keep it
    neutral, e.g. "Agent A")."""
    agent: PlayerSpec | None = None
    """The agent of game rounds at this level (exactly one factor's levels give agents)."""
    round: Literal["game", "chat", "document"] | None = None
    """What a round at this level is (one factor's levels give it; null everywhere: game)."""
    chat_agent: ChatAgent | None = None
    """The agent of chat and document rounds at this level (one factor's levels give it)."""
    hub_model: bool = False
    """The agent's model is a hub id (lint does not look for it on disk)."""
    game_options: dict[str, Any] = Field(default_factory=dict)
    """Game options of conditions at this level (e.g. {structure: gates})."""
    prompt: str | None = Field(None, max_length=20_000)
    """An llm agent's persona prompt at this level ({state.x}, {answers.page.q} filled in)."""
    profile_from: str | None = None
    """A state variable naming the agent's profile at this level."""


class Factor(Strict):
    """One factor of the design."""

    name: str = Field(pattern=LEVEL_ID)
    """Name of the factor (the export's factor.<name> column)."""
    within: bool = False
    """True: every participant meets every level (within subjects); false: one level each."""
    levels: list[Level] = Field(min_length=2)
    """The levels."""

    @model_validator(mode="after")
    def _unique(self) -> Factor:
        ids = [level.id for level in self.levels]
        if len(set(ids)) != len(ids):
            raise ValueError(f"factor {self.name}: level ids repeat: {ids}")
        return self


def parse_factors(raw: Any) -> list[Factor]:
    """``design.factors`` as read from the file; ValueError naming the first problem's place
    (the conditions are generated from them before the study itself is validated)."""
    if not isinstance(raw, list):
        raise ValueError("design.factors: give a list of factors")
    factors = []
    for index, item in enumerate(raw):
        try:
            factors.append(Factor.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "".join(f".{part}" for part in first["loc"])
            message = first["msg"].removeprefix("Value error, ")
            raise ValueError(f"design.factors.{index}{where}: {message}") from None
    return factors


def combinations(factors: list[Factor]) -> list[tuple[Level, ...]]:
    """Every combination of one level per factor, the last factor varying fastest."""
    return list(itertools.product(*(f.levels for f in factors)))


def condition_id(levels: tuple[Level, ...]) -> str:
    return SEPARATOR.join(level.id for level in levels)


def _one(factors: list[Factor], levels: tuple[Level, ...], key: str) -> Any:
    """The value of ``key`` the levels give (at most one factor may give it)."""
    given = [
        (f.name, getattr(level, key))
        for f, level in zip(factors, levels, strict=True)
        if getattr(level, key)
    ]
    if len({name for name, _ in given}) > 1:
        raise ValueError(
            f"design.factors: {key} comes from {' and '.join(n for n, _ in given)}; "
            "give it in one factor's levels only"
        )
    return given[0][1] if given else None


def generated_conditions(factors: list[Factor]) -> list[dict[str, Any]]:
    """The study's conditions (as study-file mappings) from its factors; ValueError (one line)
    where the levels do not make complete conditions."""
    out = []
    for index, levels in enumerate(combinations(factors)):
        agent, chat_agent = _one(factors, levels, "agent"), _one(factors, levels, "chat_agent")
        if agent is None and chat_agent is None:
            raise ValueError(
                "design.factors: one factor's levels must each give an agent (agent: for game "
                "rounds, chat_agent: for chat and document rounds)"
            )
        options: dict[str, Any] = {}
        for factor, level in zip(factors, levels, strict=True):
            clash = sorted(set(options) & set(level.game_options))
            if clash:
                raise ValueError(
                    f"design.factors: game option {clash[0]} is set by two factors "
                    f"(at level {level.id} of {factor.name})"
                )
            options.update(level.game_options)
        names = [level.name for level in levels if level.name]
        out.append(
            {
                "id": condition_id(levels),
                "name": " ".join(names) if names else f"Agent {_letters(index)}",
                "agent": agent.model_dump(exclude_defaults=True) if agent else None,
                "round": _one(factors, levels, "round") or "game",
                "chat_agent": chat_agent.model_dump(exclude_defaults=True) if chat_agent else None,
                "hub_model": any(level.hub_model for level in levels),
                "game_options": options,
                "prompt": _one(factors, levels, "prompt"),
                "profile_from": _one(factors, levels, "profile_from"),
                "levels": {f.name: level.id for f, level in zip(factors, levels, strict=True)},
            }
        )
    return out


def _letters(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: neutral names for conditions without named levels."""
    word = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        word = chr(65 + rest) + word
    return word


def describe(factors: list[Factor]) -> str:
    """The factors in a few words: ``structure (between, 2) x agent (within, 2)``."""
    return " x ".join(
        f"{f.name} ({'within' if f.within else 'between'}, {len(f.levels)})" for f in factors
    )


def cells(factors: list[Factor]) -> list[list[str]]:
    """Per combination of the between-subject levels (a cell), the ids of its conditions in
    the order the within-subject levels combine."""
    between = [f for f in factors if not f.within]
    within = [f for f in factors if f.within]
    by_levels = {
        tuple(level.id for level in levels): condition_id(levels)
        for levels in combinations(factors)
    }
    out = []
    for outer in itertools.product(*(f.levels for f in between)):
        fixed = {f.name: level.id for f, level in zip(between, outer, strict=True)}
        cell = []
        for inner in itertools.product(*(f.levels for f in within)):
            chosen = fixed | {f.name: level.id for f, level in zip(within, inner, strict=True)}
            cell.append(by_levels[tuple(chosen[f.name] for f in factors)])
        out.append(cell)
    return out

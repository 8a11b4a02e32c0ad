"""Private guidance: task knowledge one simulated teammate holds and nobody else does.

Why: the study this follows gives each simulated collaborator distinct private guidance, so that
a team does better only if that expertise is surfaced and routed to the work. Here a pack of
guidance is a list of facts about one task (where some goal objects start; which containers hold
nothing the goal needs). A profile may carry one pack (``Profile.guidance``): an LLM player
sees it in its own prompt only (``Profile.persona``), a persona player acts on it and shares it
when its temperament lets it, and an expert teammate gets it through ``brief``. Packs are shipped
per task (``collabrl/data/profiles/guidance.json``, written by ``scripts/make_guidance.py``);
``load_guidance`` gives a task's packs in the order teammates receive them.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

GUIDANCE_PACKAGE = "collabrl.data.profiles"
GUIDANCE_FILE = "guidance.json"
PRIVATE_NOTE = "Private knowledge (only you know this; it helps the team only if you share it):"


class Fact(BaseModel):
    """One fact: a goal object's place (``object_at``) or a container to skip (``nothing_in``;
    ``where`` is then ``in``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["object_at", "nothing_in"]
    fixture: int
    fixture_name: str = Field(min_length=1, max_length=40)
    where: Literal["in", "on"] = "in"
    object: int | None = None
    name: str | None = Field(None, min_length=1, max_length=40)

    @model_validator(mode="after")
    def _object_named(self) -> Fact:
        if (self.kind == "object_at") != (self.object is not None and self.name is not None):
            raise ValueError("an object_at fact names its object and name; nothing_in does not")
        return self

    def place(self) -> str:
        return f"<{self.fixture_name}> ({self.fixture})"


class Guidance(BaseModel):
    """One teammate's pack of private guidance for one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str = Field(min_length=1, max_length=40)
    facts: tuple[Fact, ...] = Field(min_length=1, max_length=40)

    def sentences(self) -> list[str]:
        """The facts in words: one per goal object, then one naming every container to skip."""
        found = [f for f in self.facts if f.kind == "object_at"]
        out = [f"<{f.name}> ({f.object}) is {f.where} {f.place()}" for f in found]
        empty = [f.place() for f in self.facts if f.kind == "nothing_in"]
        if empty:
            out.append(f"nothing the goal needs is in {', '.join(empty)}")
        return out

    def statement(self) -> str:
        """The pack as a message to teammates (what a holder says when it shares it)."""
        return "I know this: " + "; ".join(self.sentences()) + "."

    def private_text(self) -> str:
        """The pack as the holder's prompt shows it."""
        return f"{PRIVATE_NOTE} " + "; ".join(self.sentences()) + "."

    def found(self) -> dict[int, tuple[str, int]]:
        """Goal objects it places: object id -> (name, fixture id)."""
        return {f.object: (f.name, f.fixture) for f in self.facts if f.kind == "object_at"}  # type: ignore[misc]

    def empty(self) -> list[int]:
        """Containers it says hold nothing the goal needs."""
        return [f.fixture for f in self.facts if f.kind == "nothing_in"]


@cache
def _shipped() -> dict[str, dict[str, tuple[Guidance, ...]]]:
    text = files(GUIDANCE_PACKAGE).joinpath(GUIDANCE_FILE).read_text(encoding="utf-8")
    return {
        game: {
            task: tuple(Guidance.model_validate(p) for p in packs)
            for task, packs in by_task.items()
        }
        for game, by_task in json.loads(text).items()
    }


def load_guidance(game: str, task: str) -> tuple[Guidance, ...]:
    """The shipped packs of ``task``, in the order teammates receive them (empty: none shipped)."""
    return _shipped().get(game, {}).get(task, ())

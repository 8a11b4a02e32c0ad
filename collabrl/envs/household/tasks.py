"""The household task set: 50 tasks (five families), their split, and loading by name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

from collabrl.envs.household.world import load_apartments
from collabrl.errors import UnknownNameError

FAMILIES = ("read_book", "put_dishwasher", "prepare_food", "put_fridge", "setup_table")
TASKS_PER_FAMILY = 10
TEST_TASK_NAMES = (
    "0_read_book",
    "5_read_book",
    "10_put_dishwasher",
    "16_put_dishwasher",
    "20_prepare_food",
    "26_prepare_food",
    "30_put_fridge",
    "32_put_fridge",
    "40_setup_table",
    "49_setup_table",
)


def family_of(task_id: int) -> str:
    """Family of a task id: ids come in blocks of ten per family."""
    return FAMILIES[task_id // TASKS_PER_FAMILY]


def task_name(task_id: int) -> str:
    return f"{task_id}_{family_of(task_id)}"


def plural(noun: str) -> str:
    """English plural of an object name: book -> books, waterglass -> waterglasses, chips stays."""
    if noun.endswith(("ss", "sh", "ch", "x")):
        return noun + "es"
    return noun if noun.endswith("s") else noun + "s"


@dataclass(frozen=True)
class Predicate:
    """Goal predicate: at least ``count`` objects named ``object`` ON/INSIDE fixture ``target``."""

    relation: str  # "ON" or "INSIDE"
    object: str
    count: int
    target: int


@dataclass(frozen=True)
class Task:
    """One episode's world: apartment, where every object starts, the goal, the start rooms."""

    id: int
    name: str
    family: str
    split: str
    apartment: int
    objects: tuple[tuple[int, str, int], ...]  # (object id, name, fixture id)
    goal: tuple[Predicate, ...]
    start_rooms: tuple[int, ...]

    @property
    def goal_text(self) -> str:
        """E.g. 'Put 2 books, 1 remotecontrol onto the <coffeetable> (256).'"""
        apartment = load_apartments()[self.apartment]
        by_target: dict[tuple[str, int], list[str]] = {}
        for p in self.goal:
            by_target.setdefault((p.relation, p.target), []).append(
                f"{p.count} {p.object if p.count == 1 else plural(p.object)}"
            )
        parts = [
            f"{', '.join(items)} {'into' if relation == 'INSIDE' else 'onto'} the "
            f"{apartment.fixture_token(target)}"
            for (relation, target), items in by_target.items()
        ]
        return "Put " + "; and ".join(parts) + "."

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(
            id=data["id"],
            name=data["name"],
            family=data["family"],
            split=data["split"],
            apartment=data["apartment"],
            objects=tuple((o["id"], o["name"], o["at"]) for o in data["objects"]),
            goal=tuple(Predicate(**p) for p in data["goal"]),
            start_rooms=tuple(data["start_rooms"]),
        )


@lru_cache(maxsize=1)
def _all_tasks() -> tuple[Task, ...]:
    text = files("collabrl.data.household").joinpath("tasks.json").read_text()
    return tuple(Task.from_dict(t) for t in json.loads(text))


def load_tasks(split: str | None = None) -> list[Task]:
    """All tasks in id order, or only those of ``split`` ("train" or "test")."""
    if split not in (None, "train", "test"):
        raise ValueError(f"unknown split {split!r}; use 'train', 'test' or None")
    return [t for t in _all_tasks() if split is None or t.split == split]


def get_task(name: str) -> Task:
    """The task called ``name`` (e.g. ``"0_read_book"``); a clear error for unknown names."""
    for task in _all_tasks():
        if task.name == name:
            return task
    examples = ", ".join(TEST_TASK_NAMES[:4])
    raise UnknownNameError(
        f"unknown household task {name!r}; names are '<id>_<family>' for ids 0..49, e.g. {examples}"
    )

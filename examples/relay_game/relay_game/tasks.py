"""The relay game's tasks: corridors with parcels, generated procedurally from the task name.

A task is data, but so small that it is regenerated rather than shipped: the name
``r{rooms}p{parcels}v{variant}`` seeds :class:`random.Random` (string seeds are hashed with
SHA-512, so every Python process on every machine builds the same task). Parcel 0 always starts
in the west half of the corridor and goes to the east half, so with two seats at least one parcel
must be relayed through the hand-off room.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from collabrl.envs.registry import Split

PARCEL_NAMES = ("red", "blue", "green", "yellow")  # parcel names, in order of generation
MIN_ROOMS = 3  # the smallest corridor in which a parcel can cross the middle room
# (rooms, parcels, variant) of every task, per split
TASK_SPECS: dict[Split, tuple[tuple[int, int, int], ...]] = {
    "train": ((5, 2, 0), (5, 2, 1), (6, 2, 0), (6, 3, 0), (7, 3, 0), (7, 3, 1)),
    "test": ((6, 3, 1), (7, 2, 0)),
}
DEFAULT_TASK = "r5p2v0"  # the first train task


@dataclass(frozen=True)
class Parcel:
    """A parcel: where it lies at the start and the room it must be delivered to."""

    name: str
    start: int
    dest: int


@dataclass(frozen=True)
class Task:
    """A corridor of ``rooms`` rooms (0 = west end) and the parcels to deliver in it."""

    name: str
    rooms: int
    parcels: tuple[Parcel, ...]


def task_name(rooms: int, parcels: int, variant: int) -> str:
    return f"r{rooms}p{parcels}v{variant}"


def build_task(rooms: int, parcels: int, variant: int) -> Task:
    """The task with these numbers (any numbers, not only the listed tasks)."""
    if rooms < MIN_ROOMS or not 1 <= parcels <= len(PARCEL_NAMES):
        raise ValueError(
            f"a task needs at least {MIN_ROOMS} rooms and 1-{len(PARCEL_NAMES)} parcels"
        )
    name = task_name(rooms, parcels, variant)
    rng = random.Random(f"relay:{name}")
    middle = (rooms - 1) // 2
    out = [Parcel(PARCEL_NAMES[0], rng.randrange(middle), rng.randrange(middle + 1, rooms))]
    for parcel in PARCEL_NAMES[1:parcels]:
        start, dest = rng.sample(range(rooms), 2)
        out.append(Parcel(parcel, start, dest))
    return Task(name, rooms, tuple(out))


def task_names(split: Split) -> tuple[str, ...]:
    """Names of the tasks of ``split``."""
    return tuple(task_name(*spec) for spec in TASK_SPECS[split])


def get_task(name: str) -> Task:
    """A listed task by name; KeyError names the known tasks."""
    for split in TASK_SPECS:
        for spec in TASK_SPECS[split]:
            if task_name(*spec) == name:
                return build_task(*spec)
    known = ", ".join(task_names("train") + task_names("test"))
    raise KeyError(f"unknown relay task {name!r}; known tasks: {known}")


def zones(rooms: int, seats: int) -> list[tuple[int, int]]:
    """Each seat's stretch of corridor (first room, last room), west to east.

    Neighbouring zones share their boundary room, the hand-off room where a parcel changes hands.
    Every zone spans at least two rooms, so a corridor of ``rooms`` rooms has room for at most
    ``rooms - 1`` seats.
    """
    if not 1 <= seats <= rooms - 1:
        raise ValueError(f"a corridor of {rooms} rooms has room for 1-{rooms - 1} seats")
    bounds = [k * (rooms - 1) // seats for k in range(seats + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(seats)]

"""Apartments of the household game: rooms on a grid, fixtures (surfaces, containers), distances.

A grid cell is about one room across; cells between rooms that hold no room are hallways, so a
walk costs ``TICKS_PER_ROOM_STEP`` per cell of Manhattan distance.

Apartments are data (``collabrl/data/household/apartments.json``, written by
``scripts/make_household_tasks.py``); this module only gives them types and travel times.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

TICKS_PER_ROOM_STEP = 5  # walking one grid cell between rooms (opening or grabbing takes 1)
APPROACH_TICKS = 1  # walking to a fixture inside the current room
HOLD_LIMIT = 2  # objects one seat can carry at once (CWAH; the rules text says "two")


def token(name: str, ident: int) -> str:
    """How every entity is written in text: ``<name> (id)``."""
    return f"<{name}> ({ident})"


@dataclass(frozen=True)
class Room:
    """A room and its grid cell (travel time grows with grid distance)."""

    id: int
    name: str
    cell: tuple[int, int]


@dataclass(frozen=True)
class Fixture:
    """Furniture that holds objects: a surface (always visible) or a container (open/closed)."""

    id: int
    name: str
    room: int
    container: bool


@dataclass(frozen=True)
class Apartment:
    """One layout: rooms, fixtures and the travel time between every pair of rooms."""

    id: int
    name: str
    rooms: dict[int, Room]
    fixtures: dict[int, Fixture]
    travel: dict[tuple[int, int], int]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Apartment:
        rooms = {r["id"]: Room(r["id"], r["name"], tuple(r["cell"])) for r in data["rooms"]}
        fixtures = {
            f["id"]: Fixture(f["id"], f["name"], f["room"], f["container"])
            for f in data["fixtures"]
        }
        travel = {
            (a.id, b.id): TICKS_PER_ROOM_STEP
            * (abs(a.cell[0] - b.cell[0]) + abs(a.cell[1] - b.cell[1]))
            for a in rooms.values()
            for b in rooms.values()
        }
        return cls(data["id"], data["name"], rooms, fixtures, travel)

    def room_named(self, name: str) -> Room:
        """The room called ``name`` (every apartment has exactly one of each kind)."""
        for room in self.rooms.values():
            if room.name == name:
                return room
        raise KeyError(f"apartment {self.id} has no room {name!r}")

    def room_token(self, room_id: int) -> str:
        room = self.rooms[room_id]
        return token(room.name, room.id)

    def fixture_token(self, fixture_id: int) -> str:
        fixture = self.fixtures[fixture_id]
        return token(fixture.name, fixture.id)


@lru_cache(maxsize=1)
def load_apartments() -> dict[int, Apartment]:
    """All shipped apartments by id (read once per process)."""
    text = files("collabrl.data.household").joinpath("apartments.json").read_text()
    return {a["id"]: Apartment.from_dict(a) for a in json.loads(text)}

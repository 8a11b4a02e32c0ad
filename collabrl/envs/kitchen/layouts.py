"""Kitchen layouts: grids shipped as package data, parsed once into lookup tables the engine uses.

The five grids are identical to Overcooked-AI's so that scores and fixtures are comparable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Literal, get_args

from collabrl.errors import UnknownNameError

Pos = tuple[int, int]

LayoutName = Literal[
    "cramped_room",
    "asymmetric_advantages",
    "coordination_ring",
    "forced_coordination",
    "counter_circuit",
]
LAYOUT_NAMES: tuple[LayoutName, ...] = get_args(LayoutName)

COUNTER, POT, ONION_SOURCE, DISH_SOURCE, SERVE, FLOOR = "X", "P", "O", "D", "S", " "
DIRECTIONS: tuple[Pos, ...] = ((0, -1), (0, 1), (1, 0), (-1, 0))  # north, south, east, west


@dataclass(frozen=True)
class Layout:
    """A parsed kitchen grid: tile kinds by position, chef starts and per-kind tile lists."""

    name: str
    overcooked_ai_name: str
    grid: tuple[str, ...]  # terrain only (start digits replaced by floor)
    tiles: dict[Pos, str]
    starts: tuple[Pos, ...]
    floor: frozenset[Pos]

    def of_kind(self, kind: str) -> tuple[Pos, ...]:
        """Positions of every tile of ``kind`` in reading order (rows top to bottom)."""
        return tuple(sorted((p for p, k in self.tiles.items() if k == kind), key=lambda p: p[::-1]))

    @property
    def pots(self) -> tuple[Pos, ...]:
        return self.of_kind(POT)

    @property
    def counters(self) -> tuple[Pos, ...]:
        return self.of_kind(COUNTER)

    def access_cells(self, tile: Pos) -> list[tuple[Pos, Pos]]:
        """Floor cells next to ``tile`` with the direction a chef there must face to reach it."""
        out = []
        for dx, dy in DIRECTIONS:
            cell = (tile[0] - dx, tile[1] - dy)
            if cell in self.floor:
                out.append((cell, (dx, dy)))
        return out


def parse_grid(name: str, rows: list[str], overcooked_ai_name: str = "") -> Layout:
    """Build a :class:`Layout` from grid rows (digits 1..9 mark chef starts on floor cells)."""
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"layout {name!r}: rows of unequal length")
    tiles: dict[Pos, str] = {}
    starts: dict[int, Pos] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch.isdigit():
                starts[int(ch)] = (x, y)
                ch = FLOOR
            if ch not in (COUNTER, POT, ONION_SOURCE, DISH_SOURCE, SERVE, FLOOR):
                raise ValueError(f"layout {name!r}: unknown tile {ch!r} at {(x, y)}")
            tiles[(x, y)] = ch
    grid = tuple("".join(tiles[(x, y)] for x in range(len(rows[0]))) for y in range(len(rows)))
    floor = frozenset(p for p, k in tiles.items() if k == FLOOR)
    return Layout(
        name=name,
        overcooked_ai_name=overcooked_ai_name or name,
        grid=grid,
        tiles=tiles,
        starts=tuple(starts[i] for i in sorted(starts)),
        floor=floor,
    )


@cache
def load_layout(name: str) -> Layout:
    """Load a shipped layout by name (see ``LAYOUT_NAMES``); unknown names are an error."""
    if name not in LAYOUT_NAMES:
        raise UnknownNameError(
            f"unknown kitchen layout {name!r}; choose one of {', '.join(LAYOUT_NAMES)}"
        )
    raw = json.loads(files("collabrl.data.kitchen").joinpath(f"{name}.json").read_text("utf-8"))
    return parse_grid(raw["name"], raw["grid"], raw.get("overcooked_ai_name", ""))

"""Motion layers: how the skills chefs are running become low-level actions, one tick at a time.

Two layers share the skills' targets and completion rules and differ in how chefs move:

``reference`` (the default) is the skill controller of ProAgent, which CollabBench's
Cook-MultiPlayer runs unchanged in its evaluation. Each tick a chef takes the first step of a
shortest path to its skill's nearest goal, treating teammates' current cells as walls (a goal
cell a teammate stands on is unreachable; equally short paths are told apart by ProAgent's
search order). With no such path it either stays or steps along the shortest path that ignores
teammates, bumping into them, at even odds. Nothing else resolves a blocking: there is no path reservation, no stepping aside, no random unstuck step, and a skill
never ends because it is blocked, only when done or impossible, so chefs can hold each other up
for the rest of the episode. A chef waiting or sending a message moves at random over the floor
cells next to it (or stays), as ProAgent's ``wait`` does. Its skill set is the paper's, without
``pickup(soup)``.

``cooperative`` is collabrl's own layer, kept as an option: lower seats' planned paths are
reserved so chefs swap places round opposite sides of a ring, a waiting chef steps off a blocked
teammate's path, a chef blocked twice in a row takes a random step, one blocked
``GIVE_UP_AFTER`` ticks in a row drops its skill so its seat can rethink, and a soup left on a
counter can be picked up again with ``pickup(soup)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from collabrl.envs.kitchen.engine import (
    ACTIONS,
    DIRECTION_NAMES,
    EAST,
    NORTH,
    SOUTH,
    STAY,
    WEST,
    KitchenState,
)
from collabrl.envs.kitchen.layouts import Layout, Pos
from collabrl.envs.kitchen.planner import Planner
from collabrl.envs.kitchen.skills import COOPERATIVE_SKILLS, REFERENCE_SKILLS

BUMP_CHANCE = 0.5  # reference: odds a fully blocked chef walks into its teammate instead of staying
PROAGENT_ORDER = (WEST, NORTH, EAST, SOUTH)  # reference: ProAgent's search order (tie-breaking)
STUCK_PATIENCE = 2  # cooperative: blocked moves in a row before a random side step
GIVE_UP_AFTER = 12  # cooperative: blocked moves in a row that end a skill (the seat rethinks)
RANDOM_STEPS = ACTIONS[:5]  # the four moves and stay

Move = tuple[str, bool]  # a low-level action, and whether the chef meant to walk this tick


@dataclass(frozen=True)
class Intent:
    """What one chef's activity asks of the motion layer this tick."""

    targets: Sequence[Pos] | None  # tiles its skill may use; None while waiting or messaging
    stuck: int = 0  # walking moves in a row that went nowhere so far


class MotionLayer(Protocol):
    """Turns every chef's intent into one low-level action per tick."""

    name: str
    skills: tuple[str, ...]  # movement skills offered to seats, in display order
    give_up_after: int | None  # blocked ticks that end a skill; None: never

    def moves(
        self, state: KitchenState, intents: Sequence[Intent], rng: random.Random
    ) -> list[Move]:
        """One move per chef, in seat order."""
        ...


class ReferenceMotion:
    """The ProAgent / CollabBench skill controller: shortest paths, blocking left unresolved."""

    name = "reference"
    skills: tuple[str, ...] = REFERENCE_SKILLS
    give_up_after: int | None = None

    def __init__(self, layout: Layout, planner: Planner) -> None:
        self.planner = planner
        self._idle_moves = {cell: _idle_moves(layout, cell) for cell in layout.floor}

    def moves(
        self, state: KitchenState, intents: Sequence[Intent], rng: random.Random
    ) -> list[Move]:
        cells = [c.pos for c in state.chefs]
        return [self._move(state, i, intent, cells, rng) for i, intent in enumerate(intents)]

    def _move(
        self, state: KitchenState, i: int, intent: Intent, cells: list[Pos], rng: random.Random
    ) -> Move:
        """Seat ``i``'s move; a fully blocked chef counts as walking, so its ``stuck`` count grows."""
        chef = state.chefs[i]
        if intent.targets is None:
            return rng.choice(self._idle_moves[chef.pos]), False
        others = frozenset(cells[:i] + cells[i + 1 :])
        planned = self.planner.next_action(
            chef.pos,
            chef.facing,
            intent.targets,
            others,
            occupied_goals=False,
            order=PROAGENT_ORDER,
        )
        if planned is None and rng.random() < BUMP_CHANCE:
            planned = self.planner.next_action(
                chef.pos, chef.facing, intent.targets, order=PROAGENT_ORDER
            )
        if planned is None:
            return STAY, True
        action, path = planned
        return action, bool(path)


class CooperativeMotion:
    """collabrl's own controller: reserved paths, stepping aside, unstuck steps, giving up."""

    name = "cooperative"
    skills: tuple[str, ...] = COOPERATIVE_SKILLS
    give_up_after: int | None = GIVE_UP_AFTER

    def __init__(self, layout: Layout, planner: Planner) -> None:
        self.layout = layout
        self.planner = planner

    def moves(
        self, state: KitchenState, intents: Sequence[Intent], rng: random.Random
    ) -> list[Move]:
        reserved: set[Pos] = set()  # cells on the paths of lower seats, which have right of way
        paths: list[list[Pos]] = [[] for _ in intents]
        moves = [
            self._walk(state, i, intent, reserved, paths, rng) for i, intent in enumerate(intents)
        ]
        for j, intent in enumerate(intents):
            aside = self._make_way(state, j, intents, paths) if intent.targets is None else None
            if aside:
                moves[j] = (aside, False)
        return moves

    def _walk(
        self,
        state: KitchenState,
        i: int,
        intent: Intent,
        reserved: set[Pos],
        paths: list[list[Pos]],
        rng: random.Random,
    ) -> Move:
        """Seat ``i``'s move, steering clear of teammates and of the paths lower seats planned.

        Avoiding planned paths makes two chefs swapping places on a ring go round opposite sides
        instead of meeting head-on; when that leaves no path, teammates alone are avoided, and
        the last resort walks up to them and waits for them to clear.
        """
        if intent.targets is None:
            return STAY, False
        chef = state.chefs[i]
        others = {c.pos for j, c in enumerate(state.chefs) if j != i}
        planned = None
        obstacles: Collection[Pos]
        for obstacles in ((others | reserved) - {chef.pos}, others, frozenset()):
            planned = self.planner.next_action(chef.pos, chef.facing, intent.targets, obstacles)
            if planned is not None:
                break
        if planned is None:
            return STAY, False
        action, path = planned
        if path and intent.stuck >= STUCK_PATIENCE:
            return rng.choice(RANDOM_STEPS), True
        reserved.update(path)
        paths[i] = path
        return action, bool(path)

    def _make_way(
        self, state: KitchenState, j: int, intents: Sequence[Intent], paths: list[list[Pos]]
    ) -> str | None:
        """A waiting chef steps off the path of a teammate it is blocking (no parking deadlock)."""
        chefs = state.chefs
        pos = chefs[j].pos
        for i, intent in enumerate(intents):
            if i == j or intent.stuck < 1 or pos not in paths[i]:
                continue
            taken = {c.pos for c in chefs} | set(paths[i])
            for direction, name in DIRECTION_NAMES.items():
                cell = (pos[0] + direction[0], pos[1] + direction[1])
                if cell in self.layout.floor and cell not in taken:
                    return name
        return None


MOTION_LAYERS: dict[str, Callable[[Layout, Planner], MotionLayer]] = {
    ReferenceMotion.name: ReferenceMotion,
    CooperativeMotion.name: CooperativeMotion,
}
MOTIONS = tuple(MOTION_LAYERS)


def make_motion(name: str, layout: Layout, planner: Planner) -> MotionLayer:
    """The motion layer called ``name`` (see ``MOTIONS``); unknown names are an error."""
    if name not in MOTION_LAYERS:
        raise ValueError(f"motion must be one of {MOTIONS}, got {name!r}")
    return MOTION_LAYERS[name](layout, planner)


def _idle_moves(layout: Layout, cell: Pos) -> tuple[str, ...]:
    """Stay, or a step onto a neighbouring floor cell: what a waiting ProAgent chef picks from."""
    steps = [
        name
        for (dx, dy), name in DIRECTION_NAMES.items()
        if (cell[0] + dx, cell[1] + dy) in layout.floor
    ]
    return (STAY, *steps)

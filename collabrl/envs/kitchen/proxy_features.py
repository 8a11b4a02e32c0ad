"""What the human proxy sees of a kitchen state: a fixed-length vector per layout and seat.

In the spirit of Carroll et al.'s featurised states, but per layout (one proxy per layout, as
their behaviour cloning was): both chefs' cells (one-hot over the layout's floor), facings and
held items; each pot's contents and cooking progress; each counter's item; what the chef faces;
the first move of a shortest path towards each kind of station and item (walking round the other
chef), the way people head for the nearest onion or dish; and which seat it plays. Not its own
previous action: with it, the clone learnt to repeat itself (people's pauses come in runs) and
stood still for long stretches in closed loop, scoring about half as much.
"""

from __future__ import annotations

import numpy as np

from collabrl.envs.kitchen.engine import (
    COOK_TIME,
    INTERACT,
    MOVES,
    SOUP_ONIONS,
    Item,
    KitchenState,
    Soup,
)
from collabrl.envs.kitchen.layouts import (
    COUNTER,
    DIRECTIONS,
    DISH_SOURCE,
    ONION_SOURCE,
    POT,
    SERVE,
    Layout,
)
from collabrl.envs.kitchen.planner import Planner

HELD = (None, "onion", "dish", "soup")
COUNTER_ITEMS = ("onion", "dish", "soup")
FACED = (COUNTER, POT, ONION_SOURCE, DISH_SOURCE, SERVE)  # the faced tile's kind
SEATS = 2
STATIONS = (ONION_SOURCE, DISH_SOURCE, POT, SERVE)  # heading for each, and for counter items:
PATH_ITEMS = (*COUNTER_ITEMS, None)  # onions, dishes, soups on counters, and free counters
FIRST_MOVES = (*MOVES, INTERACT)
PATH_SCALE = 10.0  # path lengths are divided by this


def _held(item: Item | None) -> int:
    return HELD.index("soup" if isinstance(item, Soup) else item)


class Featurizer:
    """Turns (state, seat) into the proxy's input vector for one layout."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.cells = {c: i for i, c in enumerate(sorted(layout.floor, key=lambda p: p[::-1]))}
        self.pots = layout.pots
        self.counters = {c: i for i, c in enumerate(layout.counters)}
        self.planner = Planner(layout)
        f = len(self.cells)
        self.size = (
            2 * (f + len(DIRECTIONS) + len(HELD))
            + 4 * len(self.pots)
            + len(COUNTER_ITEMS) * len(self.counters)
            + len(FACED)
            + 1  # the faced counter holds something
            + (len(STATIONS) + len(PATH_ITEMS)) * (len(FIRST_MOVES) + 1)
            + SEATS
        )

    def features(self, state: KitchenState, seat: int) -> np.ndarray:
        """The vector for ``seat`` (0 or 1) in ``state``."""
        x = np.zeros(self.size, dtype=np.float32)
        at = 0
        me, other = state.chefs[seat], state.chefs[1 - seat]
        for chef in (me, other):
            x[at + self.cells[chef.pos]] = 1.0
            at += len(self.cells)
            x[at + DIRECTIONS.index(chef.facing)] = 1.0
            at += len(DIRECTIONS)
            x[at + _held(chef.held)] = 1.0
            at += len(HELD)
        for pot in self.pots:
            slot, value = _pot_slot(state.pots.get(pot))
            x[at + slot] = value
            at += 4
        for cell, item in state.counters.items():
            index = self.counters.get(cell)
            if index is not None:
                name = "soup" if isinstance(item, Soup) else item
                x[at + len(COUNTER_ITEMS) * index + COUNTER_ITEMS.index(name)] = 1.0
        at += len(COUNTER_ITEMS) * len(self.counters)
        faced = (me.pos[0] + me.facing[0], me.pos[1] + me.facing[1])
        kind = self.layout.tiles.get(faced)
        if kind in FACED:
            x[at + FACED.index(kind)] = 1.0
        at += len(FACED)
        x[at] = float(faced in state.counters)
        at += 1
        for targets in self._targets(state):
            planned = self.planner.next_action(me.pos, me.facing, targets, (other.pos,))
            if planned is not None:
                x[at + FIRST_MOVES.index(planned[0])] = 1.0
                x[at + len(FIRST_MOVES)] = len(planned[1]) / PATH_SCALE
            at += len(FIRST_MOVES) + 1
        x[at + seat] = 1.0
        return x

    def _targets(self, state: KitchenState) -> list[list[tuple[int, int]]]:
        """The tiles of each station kind, then the counters holding each item, then the free
        counters (an empty list where there is none)."""
        out = [list(self.layout.of_kind(kind)) for kind in STATIONS]
        held = {
            c: ("soup" if isinstance(i, Soup) else i)
            for c, i in state.counters.items()
            if c in self.counters
        }
        for name in PATH_ITEMS:
            out.append([c for c in self.counters if held.get(c) == name])
        return out


def _pot_slot(soup: Soup | None) -> tuple[int, float]:
    """A pot's four features as (which one is set, its value): empty, filling (onions so far),
    cooking (ticks so far), ready."""
    if soup is None:
        return 0, 1.0
    if soup.idle:
        return 1, soup.onions / SOUP_ONIONS
    if soup.ready(COOK_TIME):
        return 3, 1.0
    return 2, soup.tick / COOK_TIME

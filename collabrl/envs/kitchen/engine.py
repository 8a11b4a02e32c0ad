"""Low-level kitchen state and tick transition, matching Overcooked-AI 1.1.0 rule for rule.

Pure Python and mutable in place, so rollouts can run many ticks per second without numpy or
deep copies. ``cook_mode="interact"`` reproduces Overcooked-AI 1.x (an empty-handed interact
starts a pot); ``"auto"`` reproduces CollabBench/ProAgent (a pot starts once it holds 3 onions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from collabrl.envs.kitchen.layouts import (
    COUNTER,
    DISH_SOURCE,
    ONION_SOURCE,
    POT,
    SERVE,
    Layout,
    Pos,
)

NORTH, SOUTH, EAST, WEST = (0, -1), (0, 1), (1, 0), (-1, 0)
STAY, INTERACT = "stay", "interact"
# Low-level actions in Overcooked-AI's index order.
ACTIONS = ("north", "south", "east", "west", STAY, INTERACT)
MOVES: dict[str, Pos] = {"north": NORTH, "south": SOUTH, "east": EAST, "west": WEST}
DIRECTION_NAMES = {v: k for k, v in MOVES.items()}

ONION, DISH = "onion", "dish"
SOUP_ONIONS = 3  # pot capacity and the one recipe on the menu
COOK_TIME = 20
SOUP_VALUE = 20
COOK_MODES = ("auto", "interact")


class Soup:
    """Onions in a pot, cooking, or a finished soup on a dish. ``tick`` is -1 until cooking."""

    __slots__ = ("onions", "tick")

    def __init__(self, onions: int, tick: int = -1) -> None:
        self.onions = onions
        self.tick = tick

    @property
    def idle(self) -> bool:
        return self.tick < 0

    def ready(self, cook_time: int = COOK_TIME) -> bool:
        return self.tick >= cook_time

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Soup) and (self.onions, self.tick) == (other.onions, other.tick)

    def __hash__(self) -> int:
        return hash((self.onions, self.tick))

    def __repr__(self) -> str:
        return f"Soup({self.onions}, {self.tick})"


Item = str | Soup  # "onion", "dish" or a Soup


@dataclass
class Chef:
    pos: Pos
    facing: Pos = NORTH
    held: Item | None = None


@dataclass
class KitchenState:
    chefs: list[Chef]
    pots: dict[Pos, Soup] = field(default_factory=dict)  # only non-empty pots
    counters: dict[Pos, Item] = field(default_factory=dict)  # only occupied counters
    tick: int = 0
    score: int = 0


class KitchenEngine:
    """Applies joint low-level actions to a :class:`KitchenState` (one call = one tick)."""

    def __init__(
        self,
        layout: Layout,
        cook_mode: str = "auto",
        cook_time: int = COOK_TIME,
        soup_value: int = SOUP_VALUE,
    ) -> None:
        if cook_mode not in COOK_MODES:
            raise ValueError(f"cook_mode must be one of {COOK_MODES}, got {cook_mode!r}")
        self.layout = layout
        self.cook_mode = cook_mode
        self.cook_time = cook_time
        self.soup_value = soup_value
        self._tiles = layout.tiles
        self._floor = layout.floor

    def start_state(self) -> KitchenState:
        """Chefs on their start cells facing north, empty hands, empty kitchen."""
        return KitchenState(chefs=[Chef(p) for p in self.layout.starts])

    def step(self, state: KitchenState, actions: Sequence[str]) -> int:
        """Advance ``state`` by one tick in place; returns the points scored this tick.

        Order as in Overcooked-AI: interacts (chef 0 first), then simultaneous movement where any
        collision or swap keeps every chef in place, then pots cook and the clock advances.
        """
        reward = 0
        for chef, action in zip(state.chefs, actions, strict=True):
            if action == INTERACT:
                reward += self._interact(state, chef)
        self._move(state.chefs, actions)
        cook_time = self.cook_time
        for soup in state.pots.values():
            if 0 <= soup.tick < cook_time:
                soup.tick += 1
        state.tick += 1
        state.score += reward
        return reward

    def _move(self, chefs: list[Chef], actions: Sequence[str]) -> None:
        old = [c.pos for c in chefs]
        new = list(old)
        for i, (chef, action) in enumerate(zip(chefs, actions, strict=True)):
            delta = MOVES.get(action)
            if delta is None:
                continue
            chef.facing = delta
            target = (chef.pos[0] + delta[0], chef.pos[1] + delta[1])
            if target in self._floor:
                new[i] = target
        if new == old:
            return
        n = len(chefs)
        for i in range(n):
            for j in range(i + 1, n):
                if new[i] == new[j] or (new[i] == old[j] and new[j] == old[i]):
                    return
        for chef, pos in zip(chefs, new, strict=True):
            chef.pos = pos

    def _interact(self, state: KitchenState, chef: Chef) -> int:
        target = (chef.pos[0] + chef.facing[0], chef.pos[1] + chef.facing[1])
        kind = self._tiles.get(target)
        held = chef.held
        if kind == COUNTER:
            if held is not None and target not in state.counters:
                state.counters[target] = held
                chef.held = None
            elif held is None and target in state.counters:
                chef.held = state.counters.pop(target)
        elif kind == ONION_SOURCE and held is None:
            chef.held = ONION
        elif kind == DISH_SOURCE and held is None:
            chef.held = DISH
        elif kind == POT:
            self._use_pot(state, chef, target)
        elif kind == SERVE and isinstance(held, Soup):
            chef.held = None
            return self.soup_value if held.onions == SOUP_ONIONS else 0
        return 0

    def _use_pot(self, state: KitchenState, chef: Chef, pot: Pos) -> None:
        soup = state.pots.get(pot)
        held = chef.held
        if held is None:
            if self.cook_mode == "interact" and soup is not None and soup.idle:
                soup.tick = 0
        elif held == DISH:
            if soup is not None and soup.ready(self.cook_time):
                chef.held = state.pots.pop(pot)
        elif held == ONION:
            if soup is None:
                soup = state.pots[pot] = Soup(0)
            elif not soup.idle or soup.onions >= SOUP_ONIONS:
                return
            soup.onions += 1
            chef.held = None
            if self.cook_mode == "auto" and soup.onions == SOUP_ONIONS:
                soup.tick = 0

"""The kitchen's high-level skills: which are legal for a chef, what tiles they aim at, when done.

Skills are what players choose (the CollabBench/ProAgent skill set, which the cooperative motion
layer extends with ``pickup(soup)``); the game's motion layer turns a running skill into
low-level actions, one tick at a time. Legality includes reachability, so a chef walled off
from the pots (forced_coordination) is never offered ``put_onion_in_pot()``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from collabrl.envs.kitchen.engine import DISH, ONION, SOUP_ONIONS, KitchenEngine, KitchenState, Soup
from collabrl.envs.kitchen.layouts import DISH_SOURCE, ONION_SOURCE, SERVE, Pos
from collabrl.envs.kitchen.planner import Planner

PICKUP_ONION = "pickup(onion)"
PICKUP_DISH = "pickup(dish)"
PICKUP_SOUP = "pickup(soup)"
PUT_ONION = "put_onion_in_pot()"
PLACE_ON_COUNTER = "place_obj_on_counter()"
FILL_DISH = "fill_dish_with_soup()"
DELIVER = "deliver_soup()"
START_COOKING = "start_cooking()"  # offered only in cook_mode="interact"
WAIT = "wait(x)"  # offered once; a decision names the ticks, e.g. "wait(5)"
SET_MESSAGE = "set_message()"
MAX_WAIT = 20

# Which actions each layout offers besides the movement skills (``action_set``). "paper": wait(x)
# everywhere, as the paper lists it among the Cook skills (appendix E.1, E.2) and its agent prompt
# explains it (E.6). "released": the per-layout action table of the released ProAgent evaluation
# agent, which lists no wait(x) on these layouts; a wait chosen there is an action not offered.
ACTION_SETS = ("paper", "released")
RELEASED_NO_WAIT = frozenset({"cramped_room", "counter_circuit"})


def offers_wait(layout: str, action_set: str) -> bool:
    """Whether ``wait(x)`` is among the actions offered on ``layout`` under ``action_set``."""
    if action_set not in ACTION_SETS:
        raise ValueError(f"action_set must be one of {ACTION_SETS}, got {action_set!r}")
    return action_set == "paper" or layout not in RELEASED_NO_WAIT


# The paper's movement skills (ProAgent's, plus start_cooking for cook_mode="interact").
REFERENCE_SKILLS = (
    PICKUP_ONION,
    PICKUP_DISH,
    PUT_ONION,
    START_COOKING,
    FILL_DISH,
    DELIVER,
    PLACE_ON_COUNTER,
)
# The cooperative motion layer adds a way to take back a soup put down on a counter.
COOPERATIVE_SKILLS = (*REFERENCE_SKILLS, PICKUP_SOUP)

# The job each movement skill serves (process metrics: claims like "I'll do the dishes" name jobs).
JOBS = {
    PICKUP_ONION: "onion",
    PUT_ONION: "onion",
    START_COOKING: "onion",
    PICKUP_DISH: "dish",
    FILL_DISH: "dish",
    DELIVER: "dish",
    PICKUP_SOUP: "dish",
    PLACE_ON_COUNTER: "counter",
}

_WAIT_RE = re.compile(r"wait\(\s*(\d+|x)\s*\)")

# What a chef must hold for each skill, and what it holds once the skill succeeded.
_NEEDS: dict[str, Callable[[object], bool]] = {
    PICKUP_ONION: lambda h: h is None,
    PICKUP_DISH: lambda h: h is None,
    PICKUP_SOUP: lambda h: h is None,
    PUT_ONION: lambda h: h == ONION,
    START_COOKING: lambda h: h is None,
    FILL_DISH: lambda h: h == DISH,
    DELIVER: lambda h: isinstance(h, Soup),
    PLACE_ON_COUNTER: lambda h: h is not None,
}
_DONE: dict[str, Callable[[object], bool]] = {
    PICKUP_ONION: lambda h: h == ONION,
    PICKUP_DISH: lambda h: h == DISH,
    PICKUP_SOUP: lambda h: isinstance(h, Soup),
    PUT_ONION: lambda h: h != ONION,
    FILL_DISH: lambda h: isinstance(h, Soup),
    DELIVER: lambda h: h is None,
    PLACE_ON_COUNTER: lambda h: h is None,
}


def parse_timed(action: str) -> tuple[str, int] | None:
    """``("wait", ticks)`` or ``("message", 1)`` for the timed skills, None otherwise.

    ``wait(N)`` with 1 <= N <= 20 waits N ticks; the offered template ``wait(x)`` itself means 1.
    """
    if action == SET_MESSAGE:
        return "message", 1
    match = _WAIT_RE.fullmatch(action)
    if not match:
        return None
    ticks = 1 if match.group(1) == "x" else int(match.group(1))
    return ("wait", ticks) if 1 <= ticks <= MAX_WAIT else None


class SkillBook:
    """Legality, targets and completion of the movement skills on one kitchen."""

    def __init__(self, engine: KitchenEngine, planner: Planner, offered: tuple[str, ...]) -> None:
        self.engine = engine
        self.planner = planner
        self.offered = offered  # the skills seats may choose, in display order
        layout = engine.layout
        self._sources = {ONION: layout.of_kind(ONION_SOURCE), DISH: layout.of_kind(DISH_SOURCE)}
        self._pots = layout.pots
        self._serve = layout.of_kind(SERVE)
        self._counters = layout.counters

    def legal(self, state: KitchenState, seat: int) -> list[str]:
        """Movement skills seat ``seat`` may start now, in a fixed order (timed skills excluded)."""
        held = state.chefs[seat].held
        return [s for s in self.offered if _NEEDS[s](held) and self.targets(s, state, seat)]

    def done(self, skill: str, state: KitchenState, seat: int) -> bool:
        """Whether the skill reached its goal (start_cooking is done when nothing is left to start)."""
        check = _DONE.get(skill)
        return check(state.chefs[seat].held) if check else not self.targets(skill, state, seat)

    def targets(self, skill: str, state: KitchenState, seat: int) -> list[Pos]:
        """Tiles the skill may interact with that this chef can reach; empty when impossible."""
        reach = [self.planner.reachable_tiles(c.pos) for c in state.chefs]
        tiles = [t for t in self._candidates(skill, state) if t in reach[seat]]
        if skill == PLACE_ON_COUNTER:  # prefer counters every teammate can reach (hand-overs)
            shared = [t for t in tiles if all(t in r for r in reach)]
            return shared or tiles
        if skill in (PICKUP_ONION, PICKUP_DISH):  # dispensers first: never take back a hand-over
            sources = [t for t in tiles if t not in state.counters]
            return sources or tiles
        return tiles

    def _candidates(self, skill: str, state: KitchenState) -> list[Pos]:
        pots, counters = state.pots, state.counters
        cook_time = self.engine.cook_time
        if skill in (PICKUP_ONION, PICKUP_DISH):
            item = ONION if skill == PICKUP_ONION else DISH
            if item == DISH and not any(self._soup_on_the_way(s) for s in pots.values()):
                return []
            return [p for p, i in counters.items() if i == item] + list(self._sources[item])
        if skill == PICKUP_SOUP:
            return [p for p, i in counters.items() if isinstance(i, Soup)]
        if skill == PUT_ONION:
            return [
                p
                for p in self._pots
                if p not in pots or (pots[p].idle and pots[p].onions < SOUP_ONIONS)
            ]
        if skill == START_COOKING:
            if self.engine.cook_mode != "interact":
                return []
            return [p for p, s in pots.items() if s.idle and s.onions == SOUP_ONIONS]
        if skill == FILL_DISH:
            ready = [p for p, s in pots.items() if s.ready(cook_time)]
            return ready or [p for p, s in pots.items() if not s.idle]
        if skill == DELIVER:
            return list(self._serve)
        if skill == PLACE_ON_COUNTER:
            return [p for p in self._counters if p not in counters]
        raise KeyError(skill)

    @staticmethod
    def _soup_on_the_way(soup: Soup) -> bool:
        """A dish is worth fetching once a pot is cooking, ready, or full."""
        return not soup.idle or soup.onions == SOUP_ONIONS

"""Motion planning for skills: shortest paths to face a target tile around given obstacles.

Skills re-plan every tick, so a plan is just the next low-level action. Breadth-first search on
grids this small (at most a few dozen floor cells) is cheaper than caching.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Sequence

from collabrl.envs.kitchen.engine import DIRECTION_NAMES, INTERACT
from collabrl.envs.kitchen.layouts import DIRECTIONS, FLOOR, Layout, Pos


class Planner:
    """Next-action queries on one layout, plus which tiles each floor region can reach."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._access = {
            tile: layout.access_cells(tile) for tile, kind in layout.tiles.items() if kind != FLOOR
        }
        self._region_of: dict[Pos, frozenset[Pos]] = {}
        self._tiles_of: dict[frozenset[Pos], frozenset[Pos]] = {}
        for cell in sorted(layout.floor):
            if cell not in self._region_of:
                region = frozenset(self._flood(cell))
                self._region_of.update(dict.fromkeys(region, region))
                self._tiles_of[region] = frozenset(
                    t for t, acc in self._access.items() if any(c in region for c, _ in acc)
                )

    def reachable_tiles(self, cell: Pos) -> frozenset[Pos]:
        """Non-floor tiles a chef standing on ``cell`` can ever face (chefs ignored)."""
        return self._tiles_of[self._region_of[cell]]

    def next_action(
        self,
        pos: Pos,
        facing: Pos,
        targets: Iterable[Pos],
        obstacles: Collection[Pos] = frozenset(),
        *,
        occupied_goals: bool = True,
        order: Sequence[Pos] = DIRECTIONS,
    ) -> tuple[str, list[Pos]] | None:
        """Action toward interacting with the nearest target, and the cells it plans to walk.

        ``interact`` when already facing a target, a turn when standing on an access cell facing
        elsewhere, else the first step of a shortest path that does not cross ``obstacles``.
        A goal cell among the obstacles still counts as a goal when ``occupied_goals`` (walk up
        and wait for it to clear); without it such a cell is a wall like the others, as in
        ProAgent's planner. ``order`` is the order the search tries directions in, which decides
        between equally short paths. None when no target can be reached.
        """
        goals: dict[Pos, list[Pos]] = {}
        for tile in targets:
            for cell, direction in self._access[tile]:
                if occupied_goals or cell not in obstacles:
                    goals.setdefault(cell, []).append(direction)
        if pos in goals:
            dirs = goals[pos]
            return (INTERACT if facing in dirs else DIRECTION_NAMES[dirs[0]]), []
        path = self._path(pos, goals, obstacles, order) if goals else []
        if not path:
            return None
        step = (path[0][0] - pos[0], path[0][1] - pos[1])
        return DIRECTION_NAMES[step], path

    def _path(
        self, start: Pos, goals: Collection[Pos], avoid: Collection[Pos], order: Sequence[Pos]
    ) -> list[Pos]:
        """Shortest path (excluding ``start``) to the nearest goal, or [] if none."""
        parent: dict[Pos, Pos] = {start: start}  # the walk back stops at the start
        queue = deque([start])
        floor = self.layout.floor
        while queue:
            cur = queue.popleft()
            for d in order:
                nxt = (cur[0] + d[0], cur[1] + d[1])
                if nxt in parent or nxt not in floor:
                    continue
                if nxt in goals:
                    path = [nxt]
                    while cur != start:
                        path.append(cur)
                        cur = parent[cur]
                    return path[::-1]
                if nxt in avoid:
                    continue
                parent[nxt] = cur
                queue.append(nxt)
        return []

    def _flood(self, start: Pos) -> set[Pos]:
        seen = {start}
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for d in DIRECTIONS:
                nxt = (cur[0] + d[0], cur[1] + d[1])
                if nxt in self.layout.floor and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen

"""Record conformance fixtures from the real Overcooked-AI 1.1.0 for collabrl's kitchen engine.

Run by hand, never at test time, in a throwaway virtual environment (the package may write planner
pickles into site-packages and prints to stdout)::

    python -m venv /tmp/ocvenv
    /tmp/ocvenv/bin/pip install overcooked-ai==1.1.0 'numpy<2' scipy
    /tmp/ocvenv/bin/python scripts/record_overcooked_fixtures.py --out tests/fixtures/kitchen

Each chef follows a seeded policy that mixes uniform random low-level actions with a greedy
scripted cook (fetch onions, fill pots, start cooking, fetch dishes, serve) and occasional whims
(walk to a random counter or pot and interact), so fixtures exercise every interact rule, not
just walking. The fixture stores every joint action and the full state after every tick in the
compact text form written by ``encode`` (tests/envs/test_kitchen_overcooked_fixtures.py builds the same
string from collabrl's engine). This script imports nothing from collabrl on purpose.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from collections import deque
from pathlib import Path

LAYOUTS = {  # collabrl name -> Overcooked-AI name
    "cramped_room": "cramped_room",
    "asymmetric_advantages": "asymmetric_advantages",
    "coordination_ring": "coordination_ring",
    "forced_coordination": "forced_coordination",
    "counter_circuit": "counter_circuit_o_1order",
}
DIRS = [(0, -1), (0, 1), (1, 0), (-1, 0)]  # Overcooked-AI's action index order
FORMAT = (
    "state = chefs '|' pots '|' counters '|' score; chefs 'x,y,f,h' joined by ';' with f the "
    "facing index (0 north, 1 south, 2 east, 3 west) and h '' / 'o' / 'd' / 's<onions>:<tick>'; "
    "pots 'x,y,<onions>,<tick>' and counters 'x,y,h' sorted by (x, y); actions: one digit per "
    "chef, 0-3 = north/south/east/west, 4 = stay, 5 = interact"
)


def item_code(obj) -> str:
    if obj is None:
        return ""
    if obj.name == "soup":
        return f"s{len(obj.ingredients)}:{obj._cooking_tick}"
    return obj.name[0]


def encode(mdp, state, score: int) -> str:
    chefs = ";".join(
        f"{p.position[0]},{p.position[1]},{DIRS.index(p.orientation)},{item_code(p.held_object)}"
        for p in state.players
    )
    pot_tiles = set(mdp.get_pot_locations())
    pots, counters = [], []
    for pos in sorted(state.objects):
        obj = state.objects[pos]
        if pos in pot_tiles:
            pots.append(f"{pos[0]},{pos[1]},{len(obj.ingredients)},{obj._cooking_tick}")
        else:
            counters.append(f"{pos[0]},{pos[1]},{item_code(obj)}")
    return f"{chefs}|{';'.join(pots)}|{';'.join(counters)}|{score}"


class Cook:
    """Greedy scripted chef with random noise and whims, driven by one seeded RNG."""

    def __init__(self, mdp, index: int, rng: random.Random, noise: float) -> None:
        self.mdp, self.index, self.rng, self.noise = mdp, index, rng, noise
        self.terrain = {
            (x, y): ch for y, row in enumerate(mdp.terrain_mtx) for x, ch in enumerate(row)
        }
        self.whim: tuple[int, int] | None = None
        self.whim_left = 0

    def goals(self, state):
        me = state.players[self.index]
        held = me.held_object.name if me.held_object else None
        tiles = lambda kind: [p for p, k in self.terrain.items() if k == kind]  # noqa: E731
        soups = {p: s for p, s in state.objects.items() if self.terrain[p] == "P"}
        on_counter = lambda name: [  # noqa: E731
            p for p, o in state.objects.items() if self.terrain[p] == "X" and o.name == name
        ]
        if held == "soup":
            return tiles("S")
        if held == "dish":
            ready = [p for p, s in soups.items() if s.is_ready]
            return ready or [p for p, s in soups.items() if s.is_cooking]
        if held == "onion":
            open_pots = [
                p
                for p in tiles("P")
                if p not in soups or (soups[p].is_idle and len(soups[p].ingredients) < 3)
            ]
            return open_pots
        full = [p for p, s in soups.items() if s.is_idle and len(s.ingredients) == 3]
        if full:
            return full
        if any(not s.is_idle for s in soups.values()) and not any(
            p.held_object and p.held_object.name == "dish" for p in state.players
        ):
            return on_counter("dish") + tiles("D")
        return on_counter("onion") + tiles("O")

    def act(self, state) -> int:
        if self.rng.random() < self.noise:
            return self.rng.randrange(6)
        if self.whim_left <= 0 and self.rng.random() < 0.03:
            self.whim = self.rng.choice([p for p, k in self.terrain.items() if k in "XP"])
            self.whim_left = 12
        if self.whim_left > 0:
            self.whim_left -= 1
            action = self.route(state, [self.whim])
            if action == 5:
                self.whim_left = 0
            if action is not None:
                return action
        action = self.route(state, self.goals(state))
        if action is None and state.players[self.index].held_object is not None:
            action = self.route(state, self.shared_counters(state))  # hand over
        return self.rng.randrange(6) if action is None else action

    def shared_counters(self, state):
        """Empty counters that both chefs' floor regions touch (forced_coordination hand-overs)."""
        regions = [self.region(p.position) for p in state.players]
        return [
            t
            for t, k in self.terrain.items()
            if k == "X"
            and t not in state.objects
            and all(any((t[0] - d[0], t[1] - d[1]) in r for d in DIRS) for r in regions)
        ]

    def region(self, start):
        seen, queue = {start}, deque([start])
        while queue:
            cur = queue.popleft()
            for d in DIRS:
                nxt = (cur[0] + d[0], cur[1] + d[1])
                if self.terrain.get(nxt) == " " and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen

    def route(self, state, targets):
        """Next action toward facing any target tile: interact, turn, or one BFS step."""
        me = state.players[self.index]
        other = {p.position for i, p in enumerate(state.players) if i != self.index}
        wanted = {}
        for t in targets:
            for d in DIRS:
                cell = (t[0] - d[0], t[1] - d[1])
                if self.terrain.get(cell) == " " and cell not in other:
                    wanted.setdefault(cell, []).append(d)
        if me.position in wanted:
            dirs = wanted[me.position]
            return 5 if me.orientation in dirs else DIRS.index(dirs[0])
        first = {me.position: None}
        queue = deque([me.position])
        while queue:
            cur = queue.popleft()
            for i, d in enumerate(DIRS):
                nxt = (cur[0] + d[0], cur[1] + d[1])
                if self.terrain.get(nxt) != " " or nxt in other or nxt in first:
                    continue
                first[nxt] = i if first[cur] is None else first[cur]
                if nxt in wanted:
                    return first[nxt]
                queue.append(nxt)
        return None


def record_layout(name: str, episodes: int, ticks: int, seed: int) -> dict:
    from overcooked_ai_py.mdp.actions import Action
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld

    mdp = OvercookedGridworld.from_layout_name(LAYOUTS[name])
    recorded: list[dict[str, object]] = []
    out = {
        "layout": name,
        "overcooked_ai": "1.1.0",
        "cook_mode": "interact",
        "format": FORMAT,
        "episodes": recorded,
    }
    for ep in range(episodes):
        ep_seed = seed * 1000 + ep
        rng = random.Random(ep_seed)
        noise = (0.1, 0.25, 0.45, 0.8)[ep % 4]
        cooks = [Cook(mdp, i, rng, noise) for i in range(len(mdp.start_player_positions))]
        state = mdp.get_standard_start_state()
        score, actions, states = 0, [], [encode(mdp, state, 0)]
        for _ in range(ticks):
            joint = [c.act(state) for c in cooks]
            state, info = mdp.get_state_transition(
                state, [Action.INDEX_TO_ACTION[a] for a in joint]
            )
            score += sum(info["sparse_reward_by_agent"])
            actions.append("".join(map(str, joint)))
            states.append(encode(mdp, state, score))
        recorded.append({"seed": ep_seed, "noise": noise, "actions": actions, "states": states})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/fixtures/kitchen"))
    parser.add_argument("--episodes", type=int, default=4)
    parser.add_argument("--ticks", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in LAYOUTS:
        data = record_layout(name, args.episodes, args.ticks, args.seed)
        path = args.out / f"{name}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        n = sum(len(e["actions"]) for e in data["episodes"])
        served = sum(int(e["states"][-1].rsplit("|", 1)[1]) // 20 for e in data["episodes"])
        print(f"{name}: {n} ticks, {served} soups scored, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()

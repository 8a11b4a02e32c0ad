"""Kitchen speed: raw engine ticks/s (vs Overcooked-AI 1.1.0 when importable) and skill decisions/s.

Usage: ``python benchmarks/kitchen_speed.py [--ticks 20000]``. To compare with the real package,
run it with the throwaway venv's interpreter:
``PYTHONPATH=. /tmp/ocvenv/bin/python benchmarks/kitchen_speed.py``.
"""

from __future__ import annotations

import argparse
import random
import time

from collabrl.envs.kitchen.engine import ACTIONS, KitchenEngine
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout

EPISODE = 400


def workload(ticks: int, seed: int = 0) -> list[tuple[int, int]]:
    """Seeded uniform random joint action indices (Overcooked-AI index order)."""
    rng = random.Random(seed)
    return [(rng.randrange(6), rng.randrange(6)) for _ in range(ticks)]


def ours(name: str, joint: list[tuple[int, int]]) -> float:
    engine = KitchenEngine(load_layout(name), cook_mode="interact")
    plan = [(ACTIONS[a], ACTIONS[b]) for a, b in joint]
    start = time.perf_counter()
    state = engine.start_state()
    for t, actions in enumerate(plan):
        if t % EPISODE == 0:
            state = engine.start_state()
        engine.step(state, actions)
    return len(plan) / (time.perf_counter() - start)


def overcooked(name: str, joint: list[tuple[int, int]]) -> float | None:
    """Same workload on Overcooked-AI's own transition function, or None if not installed."""
    try:
        from overcooked_ai_py.mdp.actions import Action
        from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld
    except ImportError:
        return None
    mdp = OvercookedGridworld.from_layout_name(load_layout(name).overcooked_ai_name)
    plan = [(Action.INDEX_TO_ACTION[a], Action.INDEX_TO_ACTION[b]) for a, b in joint]
    start = time.perf_counter()
    state = mdp.get_standard_start_state()
    for t, actions in enumerate(plan):
        if t % EPISODE == 0:
            state = mdp.get_standard_start_state()
        state, _ = mdp.get_state_transition(state, actions)
    return len(plan) / (time.perf_counter() - start)


def decisions_per_second(name: str, episodes: int) -> tuple[float, float]:
    """Expert-pair episodes with full observation rendering: (decisions/s, ticks/s)."""
    decisions = ticks = 0
    start = time.perf_counter()
    for seed in range(episodes):
        game = KitchenGame(name)
        experts = {seat: KitchenExpert() for seat in game.agents}
        obs = game.reset(seed)
        while obs:
            decisions += len(obs)
            obs = game.step({s: experts[s].decide(o) for s, o in obs.items()}).observations
        ticks += game.tick
    elapsed = time.perf_counter() - start
    return decisions / elapsed, ticks / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=20_000)
    parser.add_argument("--episodes", type=int, default=5)
    args = parser.parse_args()
    joint = workload(args.ticks)
    print(
        f"{'layout':24s} {'ours ticks/s':>13s} {'overcooked-ai':>14s} {'ratio':>6s} "
        f"{'decisions/s':>12s} {'skill ticks/s':>14s}"
    )
    for name in LAYOUT_NAMES:
        mine, theirs = ours(name, joint), overcooked(name, joint)
        dps, tps = decisions_per_second(name, args.episodes)
        other = f"{theirs:14,.0f} {mine / theirs:6.1f}" if theirs else f"{'n/a':>14s} {'':>6s}"
        print(f"{name:24s} {mine:13,.0f} {other} {dps:12,.0f} {tps:14,.0f}")


if __name__ == "__main__":
    main()

"""Do our self-play scores hold in overcooked-ai's own engine? Replays trained pairs there.

A population member's self-play score is compared with overcooked-ai's published self-play
results, whose environment is overcooked-ai's (2019 rules, ``old_dynamics=True``). This script
plays a stored member beside itself in collabrl's kitchen engine for 400-tick episodes (the
published horizon), then steps overcooked-ai's ``OvercookedGridworld`` (its environment
wrapper needs numpy<2; the MDP is what scores) with the same joint actions
and checks, tick by tick, that both chefs' cells, facings and held items and every tick's points
agree. If they do, a score above the published range is the policy's, not a scoring difference.

Needs overcooked-ai's GitHub version (``old_dynamics``, the 2019 rules its published agents were
trained on; the PyPI release 1.1.0 has only the later rules, where a chef starts a full pot by
interacting, and silently ignores ``old_dynamics``). Its package ``__init__`` imports gym or
gymnasium; a stand-in module that registers nothing is put in place of a missing gym.

    python benchmarks/kitchen_reference_replay.py --layouts asymmetric_advantages cramped_room \
        --member sp0_final --episodes 4            # COLLABRL_POPULATIONS names the folder
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import types
from functools import cache
from typing import Any

from collabrl.envs.kitchen.engine import INTERACT, MOVES, KitchenEngine, KitchenState
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout
from collabrl.envs.kitchen.population import load_member
from collabrl.envs.kitchen.population_training import play_models

HOW_TO_GET = (
    "pip install --no-deps git+https://github.com/HumanCompatibleAI/overcooked_ai "
    "(the PyPI release 1.1.0 predates old_dynamics), or put its src/ folder on PYTHONPATH"
)
NAME_IN_OVERCOOKED_AI = {"counter_circuit": "counter_circuit_o_1order"}


@cache
def overcooked_mdp() -> Any:
    """overcooked-ai's MDP module, with a no-op gym where gym is missing."""
    if importlib.util.find_spec("overcooked_ai_py") is None:
        raise SystemExit(f"overcooked-ai is not importable: {HOW_TO_GET}")
    if importlib.util.find_spec("gym") is None:
        registration = types.ModuleType("gym.envs.registration")
        registration.register = lambda *args, **kwargs: None  # type: ignore[attr-defined]
        for name, module in {
            "gym": types.ModuleType("gym"),
            "gym.envs": types.ModuleType("gym.envs"),
            "gym.envs.registration": registration,
        }.items():
            sys.modules.setdefault(name, module)
    from overcooked_ai_py.mdp import overcooked_mdp

    if "old_dynamics" not in inspect.signature(overcooked_mdp.OvercookedGridworld).parameters:
        raise SystemExit(f"this overcooked-ai has no 2019 rules (old_dynamics): {HOW_TO_GET}")
    return overcooked_mdp


def _their_action(action: str) -> Any:
    return "interact" if action == INTERACT else MOVES.get(action, (0, 0))


def _chefs(state: KitchenState) -> list[tuple[Any, ...]]:
    return [(c.pos, c.facing, _held_name(c.held)) for c in state.chefs]


def _held_name(held: object) -> str | None:
    return None if held is None else ("soup" if not isinstance(held, str) else held)


def _their_chefs(state: Any) -> list[tuple[Any, ...]]:
    return [
        (
            tuple(p.position),
            tuple(p.orientation),
            p.held_object.name if p.held_object is not None else None,
        )
        for p in state.players
    ]


def replay(layout: str, joint_actions: list[tuple[str, str]]) -> tuple[int, int | None]:
    """(overcooked-ai's score for the actions, first tick where the two engines differ or None)."""
    name = NAME_IN_OVERCOOKED_AI.get(layout, layout)
    mdp = overcooked_mdp().OvercookedGridworld.from_layout_name(name, old_dynamics=True)
    theirs = mdp.get_standard_start_state()
    ours = KitchenEngine(load_layout(layout), cook_mode="auto")
    state = ours.start_state()
    score, differs = 0, None
    if _their_chefs(theirs) != _chefs(state):
        differs = 0
    for tick, joint in enumerate(joint_actions):
        theirs, infos = mdp.get_state_transition(theirs, tuple(_their_action(a) for a in joint))
        reward = int(sum(infos["sparse_reward_by_agent"]))
        points = ours.step(state, joint)
        score += reward
        same = reward == points and _their_chefs(theirs) == _chefs(state)
        if differs is None and not same:
            differs = tick + 1
    return score, differs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layouts", nargs="+", default=list(LAYOUT_NAMES), choices=LAYOUT_NAMES)
    parser.add_argument("--member", default="sp0_final")
    parser.add_argument("--episodes", type=int, default=4)
    args = parser.parse_args()
    print("| layout | member | episode | collabrl score | overcooked-ai score | engines agree |")
    print("|---|---|--:|--:|--:|---|")
    for layout in args.layouts:
        for episode in range(args.episodes):
            model = load_member(layout, args.member)
            joint_actions, ours = play_models(layout, model, model, seed=episode)
            theirs, differs = replay(layout, joint_actions)
            agree = "every tick" if differs is None else f"no: from tick {differs}"
            print(f"| {layout} | {args.member} | {episode} | {ours} | {theirs} | {agree} |")


if __name__ == "__main__":
    main()

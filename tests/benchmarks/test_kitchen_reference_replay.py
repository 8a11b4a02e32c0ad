"""The reference-replay harness against a stand-in overcooked-ai (the real one is not on PyPI)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from collabrl.envs.kitchen.engine import MOVES, KitchenEngine, KitchenState
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.planner import Planner

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import kitchen_reference_replay as replay_script  # noqa: E402

ACTION_OF = {"interact": "interact", (0, 0): "stay", **{v: k for k, v in MOVES.items()}}


class StandIn:
    """overcooked-ai's MDP surface, played by collabrl's engine; ``drop_points_at`` breaks it."""

    def __init__(self, layout_name: str, old_dynamics: bool = False, drop_points_at: int = -1):
        self.engine = KitchenEngine(load_layout(layout_name), cook_mode="auto")
        self.drop_points_at = drop_points_at

    @classmethod
    def from_layout_name(cls, name: str, **params: Any) -> StandIn:
        return cls(name, **params)

    def get_standard_start_state(self) -> SimpleNamespace:
        return self.view(self.engine.start_state())

    def get_state_transition(self, state: SimpleNamespace, joint: tuple) -> tuple[Any, dict]:
        points = self.engine.step(state.ours, [ACTION_OF[a] for a in joint])
        if state.ours.tick == self.drop_points_at:
            points = 0
        return self.view(state.ours), {"sparse_reward_by_agent": [points, 0]}

    @staticmethod
    def view(ours: KitchenState) -> SimpleNamespace:
        """The state as overcooked-ai shows its players (positions, facings, held objects)."""
        players = [
            SimpleNamespace(
                position=c.pos,
                orientation=c.facing,
                held_object=None
                if c.held is None
                else SimpleNamespace(name=c.held if isinstance(c.held, str) else "soup"),
            )
            for c in ours.chefs
        ]
        return SimpleNamespace(ours=ours, players=players)


def install(monkeypatch: pytest.MonkeyPatch, gridworld: type) -> None:
    package = types.ModuleType("overcooked_ai_py")
    mdp = types.ModuleType("overcooked_ai_py.mdp")
    module = types.ModuleType("overcooked_ai_py.mdp.overcooked_mdp")
    module.OvercookedGridworld = gridworld  # type: ignore[attr-defined]
    mdp.overcooked_mdp = module  # type: ignore[attr-defined]
    package.__spec__ = SimpleNamespace(name="overcooked_ai_py")  # type: ignore[assignment]
    for name, value in {
        "overcooked_ai_py": package,
        "overcooked_ai_py.mdp": mdp,
        "overcooked_ai_py.mdp.overcooked_mdp": module,
    }.items():
        monkeypatch.setitem(sys.modules, name, value)
    monkeypatch.setattr(replay_script.importlib.util, "find_spec", lambda name: object())
    replay_script.overcooked_mdp.cache_clear()


def delivering_pair() -> list[tuple[str, str]]:
    """Chef 0 on cramped_room cooks and serves one soup (20 points) while chef 1 stays."""
    layout = load_layout("cramped_room")
    engine, planner = KitchenEngine(layout, cook_mode="auto"), Planner(layout)
    tiles = {kind: [t for t, k in layout.tiles.items() if k == kind] for kind in "ODSP"}
    state, joint_actions = engine.start_state(), []
    while state.score == 0 and state.tick < 200:
        chef, soup = state.chefs[0], state.pots.get(tiles["P"][0])
        if chef.held is None:
            target = "O" if soup is None or soup.onions < 3 else "D"
        else:
            target = {"onion": "P", "dish": "P"}.get(str(chef.held), "S")
        walls = {state.chefs[1].pos}
        step = planner.next_action(
            chef.pos, chef.facing, tiles[target], walls, occupied_goals=False
        )
        action = step[0] if step else "stay"
        if chef.held == "dish" and action == "interact" and not (soup and soup.ready()):
            action = "stay"
        joint_actions.append((action, "stay"))
        engine.step(state, joint_actions[-1])
    return joint_actions


def test_the_replay_scores_and_agrees_when_the_engines_do(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, StandIn)
    actions = delivering_pair()
    assert replay_script.replay("cramped_room", actions) == (20, None)


def test_the_replay_names_the_first_tick_the_engines_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    actions = delivering_pair()

    class Broken(StandIn):
        def __init__(self, layout_name: str, old_dynamics: bool = False):
            super().__init__(layout_name, old_dynamics, drop_points_at=len(actions))

    install(monkeypatch, Broken)
    assert replay_script.replay("cramped_room", actions) == (0, len(actions))


def test_an_overcooked_ai_without_the_2019_rules_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Release(StandIn):  # PyPI's 1.1.0 takes no old_dynamics and would ignore it
        def __init__(self, layout_name: str):
            super().__init__(layout_name)

    install(monkeypatch, Release)
    with pytest.raises(SystemExit, match="no 2019 rules .*HumanCompatibleAI/overcooked_ai"):
        replay_script.replay("cramped_room", [])

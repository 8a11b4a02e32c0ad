"""Play one episode with a persona-driven seat and record it as a trajectory.

Why: generation (stage 1) and interaction-based filtering (stage 4) both need "let a player with
this persona play this task next to a teammate and keep its reasoning"; one function serves both.
The profiled player is seat 0 (Agent 1 = P_sim, as in CollabBench D.1.2); the other seats are
the games' rule-based experts, which keeps the runs cheap and the partner behaviour fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from collabrl.agents.player import Player
from collabrl.engines.types import Engine, SamplingParams
from collabrl.envs.base import Game, sends_message
from collabrl.pipeline.config import GamesSpec
from collabrl.rollout.episode import play_episode

PlayerFactory = Callable[[str, Game], Player]
"""(persona text, game) -> the player for the profiled seat."""


@dataclass
class Trajectory:
    """One recorded episode; ``source`` is the descriptor or profile id that drove seat 0."""

    id: str
    game: str
    task: str
    seat: str
    seed: int
    source: str
    persona: str
    turns: list[dict[str, Any]]
    summary: dict[str, Any]
    levels: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Trajectory:
        return cls(**record)


def make_game(game: str, task: str, spec: GamesSpec) -> Game:
    """A fresh game of the configured length."""
    if game == "household":
        from collabrl.envs.household.game import HouseholdGame

        return HouseholdGame(
            task, max_ticks=spec.household_max_ticks, max_decisions=spec.household_max_decisions
        )
    from collabrl.envs.kitchen.game import KitchenGame

    return KitchenGame(task, horizon=spec.kitchen_horizon)


def partner(game: str) -> Player:
    """The rule-based teammate for the other seats."""
    from collabrl.envs.registry import get_game
    from collabrl.factory import make_expert

    return make_expert(get_game(game)())


def llm_player_factory(engine: Engine, params: SamplingParams) -> PlayerFactory:
    """Profiled seats played by an LLM (any engine) with the persona in its system prompt."""
    from collabrl.agents.llm_player import LLMPlayer

    def build(persona: str, game: Game) -> Player:
        return LLMPlayer(engine, game, params, role="player", persona=persona, name="pipeline-llm")

    return build


def play_trajectory(
    factory: PlayerFactory,
    *,
    traj_id: str,
    game: str,
    task: str,
    spec: GamesSpec,
    seed: int,
    source: str,
    persona: str,
    levels: dict[str, str] | None = None,
) -> Trajectory:
    """Play one episode with ``persona`` in seat 0 and experts elsewhere."""
    env = make_game(game, task, spec)
    seat, *others = env.agents
    players = {seat: factory(persona, env), **{s: partner(game) for s in others}}
    record = play_episode(env, players, seed=seed)
    turns = [
        {
            "tick": t.tick,
            "seat": t.seat,
            "think": t.think,
            "message": t.message,
            "action": t.action,
            "valid": t.valid,
            "sent": sends_message(t.action, t.message, record.message_action),
        }
        for t in record.turns
    ]
    return Trajectory(
        traj_id, game, task, seat, seed, source, persona, turns, record.summary, levels
    )


def game_tasks(spec: GamesSpec) -> list[tuple[str, str]]:
    """Every configured (game, task) pair, household first."""
    return [("household", t) for t in spec.household_tasks] + [
        ("kitchen", layout) for layout in spec.kitchen_layouts
    ]

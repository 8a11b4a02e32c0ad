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
from collabrl.envs.registry import GameSection
from collabrl.episode import play_episode

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


def partner(section: GameSection) -> Player:
    """The rule-based teammate for the other seats."""
    from collabrl.factory import make_expert

    return make_expert(section)


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
    section: GameSection,
    seed: int,
    source: str,
    persona: str,
    levels: dict[str, str] | None = None,
) -> Trajectory:
    """Play one episode of ``section``'s game with ``persona`` in seat 0 and experts elsewhere."""
    env = section.make_game()
    seat, *others = env.agents
    players = {seat: factory(persona, env), **{s: partner(section) for s in others}}
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
        traj_id,
        section.name,
        section.task,
        seat,
        seed,
        source,
        persona,
        turns,
        record.summary,
        levels,
    )

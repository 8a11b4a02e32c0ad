"""Non-LLM baseline players for CollabBench's Tables 4-5: a random player and a silent planner.

Why: the paper reports non-LLM baselines on the efficiency metrics only ("they lack reasoning and
communication capabilities", appendix D.2.1): MHP on CWAH (a hierarchical planner that never
talks) and SP, PBT, FCP, MEP, COLE on Cook (learned low-level policies). collabrl's closest
runnable ones, as ``collabrl eval`` policies:

- ``silent``: the game's rule-based expert with its messages taken away: whenever it would send
  one it is asked again (it then believes it has spoken and moves on), and after ``tries`` asks
  it takes the first other offered action. It still reads what teammates say. On the household
  game this stands in for MHP (a planner over the same high-level actions, no communication).
- ``random``: a uniformly random offered action other than the message action, seeded by the
  episode seed and seat (the floor a learned policy must beat, with ``idle`` below it).
"""

from __future__ import annotations

import random

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.base import Observation, format_response


def _moves(obs: Observation) -> list[str]:
    """The offered actions other than the message action (all of them when that is all)."""
    moves = [a for a in obs.actions if a != obs.message_action]
    return moves or list(obs.actions)


class SilentPlayer:
    """``inner`` (a scripted player) that never sends a message."""

    def __init__(self, inner: Player, tries: int = 3) -> None:
        self.inner, self.tries = inner, tries
        self.name = f"silent:{inner.name}"

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.inner.reset(seat, seed)

    def act(self, obs: Observation) -> str:
        for _ in range(self.tries):
            parsed = parse_response(self.inner.act(obs), obs.actions)
            if parsed.action is not None and parsed.action != obs.message_action:
                return format_response(parsed.think, "", parsed.action)
        moves = _moves(obs)
        return (
            format_response("Nothing to do but talk; act instead.", "", moves[0]) if moves else ""
        )


class RandomPlayer:
    """A uniformly random offered action (never the message action while another is offered)."""

    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.rng = random.Random(f"random-player:{seed}:{seat}")  # str seeds are stable

    def act(self, obs: Observation) -> str:
        moves = _moves(obs)
        return format_response("", "", self.rng.choice(moves)) if moves else ""

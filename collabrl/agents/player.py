"""What fills a seat: anything that turns an observation into a think/message/action response."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from collabrl.envs.base import Observation


@runtime_checkable
class Player(Protocol):
    """A seat's decision maker. ``act`` returns a response in the agent format:
    ``<think>...</think><message>...</message><action>...</action>``, parsed by
    :func:`collabrl.agents.protocol.parse_response` exactly like an LLM's reply."""

    name: str

    def reset(self, seat: str, seed: int) -> None: ...

    def act(self, obs: Observation) -> str: ...


class IdlePlayer:
    """A seat that never acts: every reply is empty, so the game idles the seat one tick per
    decision (counted invalid). Why: evaluated in the agent's seat, it is the floor of a
    benchmark, what the partner achieves alone, so a table can show how much of a team's result
    the agent itself contributes."""

    name = "idle"

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat

    def act(self, obs: Observation) -> str:
        return ""

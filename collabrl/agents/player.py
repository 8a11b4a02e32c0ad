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

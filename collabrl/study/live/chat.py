"""A chat room's messages: a participant's line (within the room's turn and length limits)
and the agents' replies to it.

Each participant message asks every agent of the room for one reply, in the background, one
reply at a time per room: a scripted agent says its next line (then stays silent), an LLM agent
answers the transcript (:mod:`collabrl.study.live.room_agents`). A failed reply is the agent's
apology line in the chat and an ``agent_failure`` event; the room carries on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from collabrl.agents.persona.temperament import stable_seed
from collabrl.factory import EngineCache
from collabrl.study.live.room_agents import (
    AgentFailure,
    chat_conversation,
    llm_reply,
    scripted_line,
)
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.schema import Study
from collabrl.study.store.room import Room, RoomSpec


class RoomHost(Protocol):
    """What a room's chat and document need of the rooms that hold them
    (:class:`~collabrl.study.live.rooms.RoomHub`): its events, locks, names and texts."""

    @property
    def study(self) -> Study: ...

    @property
    def engines(self) -> EngineCache: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None: ...

    def lock(self, key: str) -> asyncio.Lock: ...

    def filled(self, room: Room, text: str) -> str: ...

    def prompted(self, room: Room, agent: ChatAgent) -> ChatAgent: ...

    def names(self, room: Room, viewer: str | None = None) -> dict[str, str]: ...

    def record_only(
        self, name: str, room: Room, pid: str | None = None, /, **data: Any
    ) -> None: ...

    def record(self, name: str, room: Room, pid: str | None = None, /, **data: Any) -> None: ...

    def failed(self, room: Room, agent: ChatAgent, error: str) -> None: ...

    def notify(self, room: Room) -> None: ...


MAX_AGENT_CHARS = 4000  # an LLM's reply is cut here: a page shows it whole


def checked_text(text: Any, limit: int, what: str) -> str:
    """A participant's message or document text as stored; raises FormError."""
    if not isinstance(text, str):
        raise FormError(f"send the {what} as text", {what: "write some text"})
    if len(text) > limit:
        raise FormError(
            f"the {what} is {len(text)} characters long; at most {limit} are allowed",
            {what: f"shorten it to {limit} characters"},
        )
    return text


async def say(hub: RoomHost, pid: str, room: Room, spec: RoomSpec, text: Any) -> None:
    """A participant's chat message; every agent of the room then replies to it."""
    message = checked_text(text, spec.limits.max_chars, "message").strip()
    if not message:
        raise FormError("the message is empty", {"message": "write a message first"})
    most = spec.limits.max_turns
    if most is not None and room.turns(pid) >= most:
        raise FormError(f"you have sent the {most} messages this chat allows")
    hub.record("chat_message", room, pid, by="participant", name=None, text=message)
    for agent in spec.agents:
        room.pending += 1
        hub.spawn(_reply(hub, room, spec, agent))


def resume_replies(hub: RoomHost, room: Room, spec: RoomSpec) -> None:
    """After a restart: ask the agents again when the last line of an open chat is a
    participant's (their replies were in flight when the server stopped)."""
    if room.kind == "chat" and room.messages and room.messages[-1]["by"] == "participant":
        for agent in spec.agents:
            room.pending += 1
            hub.spawn(_reply(hub, room, spec, agent))


async def _reply(hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent) -> None:
    try:
        async with hub.lock(room.key):
            if room.closed:
                return
            said = sum(m["by"] == "agent" and m["name"] == agent.name for m in room.messages)
            if agent.kind == "scripted":
                line = scripted_line(agent, said - (1 if agent.opening else 0))
                if line is not None:
                    hub.record("chat_message", room, by="agent", name=agent.name, text=line)
                return
            conversation = chat_conversation(
                hub.prompted(room, agent), room, hub.filled(room, spec.task), hub.names(room)
            )
            seed = stable_seed(hub.study.seed, room.key, len(room.messages))
            try:
                text = await llm_reply(agent, hub.engines, conversation, seed)
            except AgentFailure as exc:
                hub.failed(room, agent, str(exc))
                hub.record("chat_message", room, by="agent", name=agent.name, text=agent.apology)
                return
            if not room.closed:
                text = text[:MAX_AGENT_CHARS]
                hub.record("chat_message", room, by="agent", name=agent.name, text=text)
    finally:
        room.pending -= 1
        hub.notify(room)


async def replies_done(room: Room) -> None:
    """Wait until no agent reply of ``room`` is in flight (tests, pretests)."""
    while room.pending:
        await asyncio.sleep(0.01)

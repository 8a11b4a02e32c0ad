"""A chat room's messages: a participant's line (within the room's turn and length limits)
and the agents' replies to it.

A participant message asks each agent its ``trigger`` fires for (every N-th message, or a
condition) for one reply, in the background, one reply at a time per room; an agent with
``silence_s`` also speaks when nobody wrote for that long. A scripted agent says its next line
(then stays silent), an LLM agent answers the transcript
(:mod:`collabrl.study.live.room_agents`). A reply's tool calls are carried out and every reply
is logged (:mod:`collabrl.study.live.agent_actions`). A failed reply is the agent's apology
line in the chat and an ``agent_failure`` event; the room carries on. An LLM agent with a
``summary`` request sums the chat up when the room closes (:func:`summarise`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from collabrl.agents.persona.temperament import stable_seed
from collabrl.study.live.agent_actions import apply_calls, log_reply, triggered, with_tools
from collabrl.study.live.room_agents import (
    AgentFailure,
    chat_conversation,
    llm_reply,
    scripted_line,
)
from collabrl.study.live.room_host import RoomHost
from collabrl.study.spec.agent_tools import tool_calls
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.forms import FormError
from collabrl.study.store.room import Room, RoomSpec

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
        if agent.trigger.silence_s is not None:
            hub.quiet_timer(room, agent)
        if triggered(hub, room, agent, pid):
            room.pending += 1
            hub.spawn(reply(hub, room, spec, agent))


def resume_replies(hub: RoomHost, room: Room, spec: RoomSpec) -> None:
    """After a restart: ask the agents again when the last line of an open chat is a
    participant's (their replies were in flight when the server stopped)."""
    if room.kind == "chat" and room.messages and room.messages[-1]["by"] == "participant":
        for agent in spec.agents:
            room.pending += 1
            hub.spawn(reply(hub, room, spec, agent))


async def reply(
    hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent, why: str = "message"
) -> None:
    """One reply of ``agent`` in ``room`` (``why``: what made it speak), its tool calls
    carried out; the caller counted it in ``room.pending``."""
    try:
        async with hub.lock(room.key):
            if room.closed:
                return
            text = await _reply_text(hub, room, spec, agent, why)
            if text is None or room.closed:
                return
            shown, calls = tool_calls(text[:MAX_AGENT_CHARS])
            if shown:
                hub.record("chat_message", room, by="agent", name=agent.name, text=shown)
        await apply_calls(hub, room, spec, agent, calls)
    finally:
        room.pending -= 1
        hub.notify(room)


async def _reply_text(
    hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent, why: str
) -> str | None:
    """What the agent says, tool tags included (None: nothing); logged either way."""
    if agent.kind == "scripted":
        said = sum(m["by"] == "agent" and m["name"] == agent.name for m in room.own_messages)
        line = scripted_line(agent, said - (1 if agent.opening else 0))
        if line is not None:
            log_reply(hub, room, agent, None, line, tool_calls(line)[1], why)
        return line
    asked = with_tools(hub, room, spec, hub.prompted(room, agent))
    conversation = chat_conversation(asked, room, hub.filled(room, spec.task), hub.names(room))
    seed = stable_seed(hub.study.seed, room.key, len(room.messages))
    try:
        answer = await llm_reply(agent, hub.engines, conversation, seed)
    except AgentFailure as exc:
        log_reply(hub, room, agent, conversation, exc, None, why)
        hub.failed(room, agent, str(exc))
        hub.record("chat_message", room, by="agent", name=agent.name, text=agent.apology)
        return None
    log_reply(hub, room, agent, conversation, answer, tool_calls(answer.text)[1], why)
    return answer.text


async def summarise(hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent) -> None:
    """The LLM agent's summary of a closing chat (its ``summary`` request after the
    transcript), said as its last line and logged as a reply whose trigger is ``summary``; a
    failed one is logged and an ``agent_failure`` event, and the room closes without it."""
    assert agent.summary is not None  # the caller asks only agents that summarise
    asked = hub.prompted(room, agent)
    conversation = chat_conversation(asked, room, hub.filled(room, spec.task), hub.names(room))
    conversation.append({"role": "user", "content": agent.summary})
    seed = stable_seed(hub.study.seed, room.key, "summary")
    try:
        answer = await llm_reply(agent, hub.engines, conversation, seed)
    except AgentFailure as exc:
        log_reply(hub, room, agent, conversation, exc, None, "summary")
        hub.failed(room, agent, str(exc))
        return
    log_reply(hub, room, agent, conversation, answer, None, "summary")
    shown, _ = tool_calls(answer.text[:MAX_AGENT_CHARS])  # no tool acts on a closed room
    if shown:
        hub.record("chat_message", room, by="agent", name=agent.name, text=shown)


async def replies_done(room: Room) -> None:
    """Wait until no agent reply of ``room`` is in flight (tests, pretests)."""
    while room.pending:
        await asyncio.sleep(0.01)

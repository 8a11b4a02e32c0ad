"""What a room's agent does besides talking, when it speaks, and the log of its replies.

- :func:`log_reply`: every reply an agent gives (or fails to give) is an ``agent_reply`` event
  with its prompt, model, sampling parameters, token counts, latency, text or error and tool
  calls (exported as ``agent_replies.jsonl``);
- :func:`triggered`: whether a participant's message makes the agent reply (its ``trigger``);
- :func:`apply_calls`: the tool calls of a reply (:mod:`collabrl.study.spec.agent_tools`),
  each checked against the agent's tools and the workspace's permissions, and recorded.
"""

from __future__ import annotations

from typing import Any

from collabrl.study.live.room_agents import AgentFailure, AgentReply
from collabrl.study.live.room_host import RoomHost
from collabrl.study.spec.agent_tools import ToolCall, tools_prompt
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.expressions import ExpressionError, truth
from collabrl.study.spec.workspace import AGENT_SEAT
from collabrl.study.store.room import Room, RoomSpec


def model_of(agent: ChatAgent) -> str:
    """The model an agent's replies come from, as the reply log names it."""
    if agent.kind == "scripted" or agent.engine is None:
        return "scripted"
    return f"{agent.engine.backend}:{agent.engine.model}"


def log_reply(
    hub: RoomHost,
    room: Room,
    agent: ChatAgent,
    conversation: list[dict[str, str]] | None,
    outcome: AgentReply | AgentFailure | str | None,
    calls: list[ToolCall] | None = None,
    why: str = "message",
) -> None:
    """Record one reply of ``agent`` (``outcome``: an LLM's reply or failure, a scripted
    line, None: a scripted agent with nothing left to say); ``why`` it spoke."""
    data: dict[str, Any] = {
        "agent": agent.name,
        "kind": agent.kind,
        "model": model_of(agent),
        "parameters": agent.sampling.model_dump() if agent.kind == "llm" else None,
        "prompt": conversation,
        "trigger": why,
        "prompt_tokens": None,
        "completion_tokens": None,
        "latency_s": 0.0,
        "text": None,
        "error": None,
        "tools": [c.__dict__ for c in calls or []],
    }
    if isinstance(outcome, AgentReply):
        data.update(
            text=outcome.text,
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            latency_s=round(outcome.latency_s, 4),
        )
    elif isinstance(outcome, AgentFailure):
        data.update(error=str(outcome), latency_s=round(outcome.latency_s, 4))
    else:
        data["text"] = outcome
    hub.record_only("agent_reply", room, None, **data)


def with_tools(hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent) -> ChatAgent:
    """``agent`` with its tools described at the end of its prompt (an LLM must be told)."""
    fields = [f.id for f in spec.workspace if f.may_edit(AGENT_SEAT)]
    told = tools_prompt(agent.tools, agent.state_writes, fields)
    if not told:
        return agent
    return agent.model_copy(update={"prompt": f"{agent.prompt}\n\n{told}"})


def triggered(hub: RoomHost, room: Room, agent: ChatAgent, pid: str) -> bool:
    """Whether participant ``pid``'s message (just stored) makes ``agent`` reply."""
    trigger = agent.trigger
    written = sum(m["by"] == "participant" for m in room.own_messages)
    if trigger.every is not None and written % trigger.every == 0:
        return True
    if trigger.when is None:
        return False
    values = {
        **hub.values(pid),
        "chat": {"messages": len(room.own_messages), "participant_messages": written},
    }
    try:
        return truth(trigger.when, values)
    except ExpressionError as exc:
        hub.record_only("logic_error", room, pid, what=f"{agent.name} trigger", error=str(exc))
        return False


async def apply_calls(
    hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent, calls: list[ToolCall]
) -> None:
    """Carry out a reply's tool calls in order; a call the agent may not make is recorded
    as refused (``agent_tool`` event, ``done: false`` and why) and changes nothing."""
    for call in calls:
        refused = _refusal(spec, agent, call)
        if refused is None and call.tool == "set_state":
            assert call.name is not None and call.value is not None
            refused = hub.agent_sets(room, call.name, call.value)
        if refused is None and call.tool == "edit_workspace":
            field = next(f for f in spec.workspace if f.id == call.name)
            try:
                value = field.value(call.value)
            except ValueError as exc:
                refused = f"{field.id}: {exc}"
            else:
                hub.record(
                    "workspace_edit",
                    room,
                    None,
                    by="agent",
                    name=agent.name,
                    field=field.id,
                    value=value,
                )
        hub.record_only(
            "agent_tool",
            room,
            None,
            agent=agent.name,
            **call.__dict__,
            done=refused is None,
            refused=refused,
        )
        if refused is None and call.tool == "end_chat" and not room.closed:
            await hub.close(room.key, "agent")


def _refusal(spec: RoomSpec, agent: ChatAgent, call: ToolCall) -> str | None:
    """Why the agent may not make ``call`` (None: it may)."""
    if call.tool not in agent.tools:
        return f"{call.tool} is not among the agent's tools"
    if call.tool == "set_state" and call.name not in agent.state_writes:
        return f"{call.name} is not among the agent's state_writes"
    if call.tool == "edit_workspace":
        field = next((f for f in spec.workspace if f.id == call.name), None)
        if field is None:
            return f"the workspace has no field {call.name!r}"
        if not field.may_edit(AGENT_SEAT):
            return f"agents may not edit {call.name}"
    return None

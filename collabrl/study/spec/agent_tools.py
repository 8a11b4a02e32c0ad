"""What a chat or workspace agent may do besides talking, and when it speaks.

Tools are written inside a reply as small tags, the same for a scripted agent's lines and an
LLM's replies (the LLM is told the tags its ``tools`` allow in its system prompt)::

    <end_chat/>                                  # close the room: everyone in it goes on
    <set_state name="agreed">yes</set_state>     # set a participant state variable
    <edit_field name="budget">120</edit_field>   # write a field of the shared workspace

The tags are taken out of the text participants see; each call is checked against the agent's
``tools`` (and the variable or field's permissions) and recorded. A call the agent may not make
is recorded as refused and changes nothing, never an error in the room.

``trigger`` says when the agent speaks: after every ``every``-th participant message, when a
``when`` expression is true after a message, or after ``silence_s`` seconds in which nobody
wrote. ``opening`` (speak first) and ``closing`` (a last word when the room closes) make it a
facilitator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from collabrl.sections import Strict

Tool = Literal["end_chat", "set_state", "edit_workspace"]
"""end_chat: close the room; set_state: set a participant state variable; edit_workspace:
write a field of the room's shared workspace."""

TAG = re.compile(
    r"<end_chat\s*/?>|<(set_state|edit_field)\s+name=\"([A-Za-z][A-Za-z0-9_-]{0,63})\"\s*>"
    r"(.{0,2000}?)</\1>",
    re.DOTALL,
)
"""A tool call in a reply (bounded, non-greedy: linear in the reply's length)."""


class Trigger(Strict):
    """When an agent replies in a chat room."""

    every: int | None = Field(1, ge=1, le=1000)
    """Reply after every N-th participant message of the room (null: not on messages)."""
    when: str | None = None
    """Also reply after a participant message when this expression (over state, answers and
    chat: chat.messages, chat.participant_messages) is true."""
    silence_s: float | None = Field(None, gt=0, le=24 * 3600)
    """Speak after this many seconds in which nobody wrote (once per silence; null: never)."""

    @model_validator(mode="after")
    def _some(self) -> Trigger:
        if self.every is None and self.when is None and self.silence_s is None:
            raise ValueError("trigger: give every, when or silence_s (else the agent never speaks)")
        return self


@dataclass(frozen=True)
class ToolCall:
    """One tool call found in a reply."""

    tool: Tool
    name: str | None = None  # the variable or field
    value: str | None = None


def tool_calls(text: str) -> tuple[str, list[ToolCall]]:
    """``text`` without its tool tags (what participants see), and the calls, in order."""
    calls: list[ToolCall] = []
    for match in TAG.finditer(text):
        kind, name, value = match.groups()
        if kind is None:
            calls.append(ToolCall("end_chat"))
        else:
            tool: Tool = "set_state" if kind == "set_state" else "edit_workspace"
            calls.append(ToolCall(tool, name, value.strip()))
    shown = " ".join(TAG.sub(" ", text).split()) if calls else text
    return shown, calls


def tools_prompt(tools: list[Tool], variables: list[str], fields: list[str]) -> str:
    """What an LLM agent is told of its tools (empty: it has none)."""
    lines = []
    if "end_chat" in tools:
        lines.append("- <end_chat/> ends the chat for everyone (when the task is done).")
    if "set_state" in tools and variables:
        lines.append(
            '- <set_state name="VARIABLE">VALUE</set_state> records a value; variables: '
            + ", ".join(variables)
        )
    if "edit_workspace" in tools and fields:
        lines.append(
            '- <edit_field name="FIELD">VALUE</edit_field> writes a field of the shared '
            "workspace; fields you may edit: " + ", ".join(fields)
        )
    if not lines:
        return ""
    return "You may use these tags in a reply (they are not shown):\n" + "\n".join(lines)

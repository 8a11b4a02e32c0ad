"""The agent of a chat room or a shared document, as a study file gives it (on a chat page, a
condition, or a factor level), and the length limit of a study's texts."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from collabrl.config import SamplingSpec
from collabrl.config.roles import EngineSpec, require_engine
from collabrl.sections import Strict
from collabrl.study.spec.agent_tools import Tool, Trigger

Text = Annotated[str, Field(max_length=20_000)]
"""Markdown shown to participants (rendered without raw HTML)."""


class ChatAgent(Strict):
    """An agent in a chat room or at a shared document: scripted (fixed lines) or an LLM
    through any engine collabrl supports."""

    name: str = Field("Assistant", min_length=1, max_length=60)
    """What participants see (keep it neutral to keep conditions blind)."""
    kind: Literal["scripted", "llm"] = "scripted"
    """scripted: says ``lines`` in order, one per participant message (or edit proposal);
    llm: answers through ``engine`` in the role ``prompt`` gives it."""
    opening: str | None = Field(None, max_length=2000)
    """A first line said when the room opens (null: none)."""
    lines: list[str] = Field(default_factory=list)
    """scripted: the replies, in order (then silence); at a document: text it proposes to
    add, one line per request."""
    prompt: Text = "You are a friendly assistant working with people on a task. Be brief."
    """llm: the system prompt (the agent's role and persona)."""
    engine: EngineSpec | None = None
    """llm: the engine."""
    sampling: SamplingSpec = Field(
        default_factory=lambda: SamplingSpec(temperature=0.7, max_new_tokens=200)
    )
    """llm: sampling."""
    apology: str = Field("Sorry, I cannot answer right now.", max_length=500)
    """Said in the room when the agent fails (its engine errs or times out)."""
    timeout_s: float = Field(60.0, gt=0, le=3600)
    """llm: seconds one reply may take before the agent counts as failed."""
    hub_model: bool = False
    """llm: the model is a Hugging Face hub id, not a local checkpoint folder (lint then does
    not look for it on disk)."""
    tools: list[Tool] = Field(default_factory=list)
    """What it may do besides talking (collabrl.study.spec.agent_tools): end_chat, set_state
    (the variables of ``state_writes``), edit_workspace (the fields it may edit)."""
    state_writes: list[str] = Field(default_factory=list)
    """set_state: the participant state variables it may set."""
    trigger: Trigger = Field(default_factory=Trigger)
    """Chat rooms: when it replies (every N messages, on a condition, after silence)."""
    closing: str | None = Field(None, max_length=2000)
    """A last line said when the room closes (a facilitator's fixed words; null: none)."""
    summary: str | None = Field(None, max_length=2000)
    """llm, chat rooms: when the room closes the agent is asked this about the chat (e.g.
    "Summarise in two sentences what the group agreed.") and says its answer as its last
    line, logged like its other replies (null: no summary)."""

    @model_validator(mode="after")
    def _complete(self) -> ChatAgent:
        require_engine(self.kind, self.engine, "chat agent")
        if self.kind == "scripted" and not self.lines and not self.opening:
            raise ValueError(f"chat agent {self.name}: a scripted agent needs lines or an opening")
        if self.summary is not None and self.kind != "llm":
            raise ValueError(
                f"chat agent {self.name}: summary is an llm agent's (a scripted one says closing)"
            )
        return self

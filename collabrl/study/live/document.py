"""A shared document: saves (each a new version, recorded with its diff), refused stale saves,
and the agent's proposed edits.

A save names the version it was written on (``base``). One based on an older version is
refused, never merged silently: the participant is sent the current text and version and keeps
their draft, to merge and save again (:class:`StaleSave`). The agent proposes a whole new text
on request (a scripted agent adds its next line, an LLM rewrites the document); a participant
accepts it (a new version by the agent) or dismisses it.
"""

from __future__ import annotations

from typing import Any

from collabrl.agents.persona.temperament import stable_seed
from collabrl.study.live.agent_actions import log_reply
from collabrl.study.live.chat import MAX_AGENT_CHARS, checked_text
from collabrl.study.live.room_agents import AgentFailure, document_conversation, llm_reply
from collabrl.study.live.room_host import RoomHost
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.forms import FormError
from collabrl.study.store.room import Room, RoomSpec, text_diff


class StaleSave(FormError):
    """A save based on an old version: ``extra`` carries the current text and version (the
    page keeps the participant's draft beside it)."""

    code = "stale"

    def __init__(self, room: Room) -> None:
        super().__init__(
            f"someone saved version {room.version} while you were editing: your draft is kept; "
            "compare it with the current text, then save again",
            {"document": "your draft is based on an older version"},
        )
        self.extra = {"current": {"version": room.version, "text": room.text}}


def save(hub: RoomHost, pid: str, room: Room, spec: RoomSpec, text: Any, base: Any) -> None:
    """A participant's save of the whole text, written on version ``base``."""
    new = checked_text(text, spec.limits.max_chars, "document")
    if isinstance(base, bool) or not isinstance(base, int):
        raise FormError("a save must name the version it is based on")
    if base != room.version:
        hub.record_only("document_conflict", room, pid, base=base, current=room.version)
        raise StaleSave(room)
    if new == room.text:
        raise FormError("the text is unchanged", {"document": "change something before saving"})
    most = spec.limits.max_turns
    if most is not None and room.turns(pid) >= most:
        raise FormError(f"you have saved the {most} versions this document allows")
    _store(hub, room, new, pid, by="participant", name=None)


def _store(hub: RoomHost, room: Room, new: str, pid: str | None, by: str, name: str | None) -> None:
    hub.record(
        "document_save",
        room,
        pid,
        version=room.version + 1,
        base=room.version,
        by=by,
        name=name,
        text=new,
        diff=text_diff(room.text, new),
        chars=len(new),
    )


def ask(hub: RoomHost, pid: str, room: Room, spec: RoomSpec) -> None:
    """A participant asks the agent to propose an edit (answered in the background)."""
    if not spec.agents:
        raise FormError("no agent works on this document")
    if room.pending or room.proposal is not None:
        raise FormError("the agent's proposal is open or on its way: answer it first")
    agent = spec.agents[0]
    if agent.kind == "scripted" and room.proposals >= len(agent.lines):
        raise FormError(f"{agent.name} has no more suggestions")
    room.pending += 1
    hub.spawn(_propose(hub, room, spec, agent, pid))


async def _propose(hub: RoomHost, room: Room, spec: RoomSpec, agent: ChatAgent, pid: str) -> None:
    try:
        async with hub.lock(room.key):
            base, current = room.version, room.text
            if agent.kind == "scripted":
                gap = "\n" if current and not current.endswith("\n") else ""
                text: str | None = current + gap + agent.lines[room.proposals]
                apology = None
                log_reply(hub, room, agent, None, agent.lines[room.proposals], None, "request")
            else:
                conversation = document_conversation(
                    hub.prompted(room, agent), room, hub.filled(room, spec.task)
                )
                seed = stable_seed(hub.study.seed, room.key, room.proposals)
                try:
                    reply = await llm_reply(agent, hub.engines, conversation, seed)
                    text = reply.text[:MAX_AGENT_CHARS]
                    apology = None
                    log_reply(hub, room, agent, conversation, reply, None, "request")
                except AgentFailure as exc:
                    log_reply(hub, room, agent, conversation, exc, None, "request")
                    hub.failed(room, agent, str(exc))
                    text, apology = None, agent.apology
            if not room.closed:
                hub.record(
                    "document_proposal",
                    room,
                    id=room.proposals + 1,
                    agent=agent.name,
                    base=base,
                    text=text,
                    apology=apology,
                    asked_by=pid,
                )
    finally:
        room.pending -= 1
        hub.notify(room)


def answer(hub: RoomHost, pid: str, room: Room, accept: bool, proposal: Any) -> None:
    """Accept the agent's open proposal (a new version by the agent) or dismiss it."""
    open_one = room.proposal
    if open_one is None or open_one["id"] != proposal:
        raise FormError("this proposal is no longer open")
    if accept and open_one["text"] is None:
        raise FormError("there is no text to accept: dismiss it")
    if accept and open_one["base"] != room.version:
        raise FormError(
            "the document changed since the proposal was made: dismiss it and ask again"
        )
    hub.record("document_proposal_answer", room, pid, id=open_one["id"], accepted=accept)
    if accept:
        _store(hub, room, open_one["text"], None, by="agent", name=open_one["agent"])

"""A room's state: the chat messages and document versions of one chat or shared document,
folded from its events.

Nothing about a room lives only in memory: every message, save, proposal, end and close is an
event first, and :func:`rooms_from_events` rebuilds every room from the event log (a server
restart, an export). A room is a chat page's or document page's (one per group, or one per
participant who has none) or one chat or document round of a conditions page.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Literal

from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.schema import RoomLimits
from collabrl.study.spec.workspace import WorkspaceField

RoomKind = Literal["chat", "document"]

ROOM_EVENTS = (
    "room_open",
    "chat_message",
    "document_save",
    "document_proposal",
    "document_proposal_answer",
    "room_end",
    "room_close",
    "workspace_edit",
)
"""The event kinds a room is folded from (``agent_failure`` and ``document_conflict`` are
records only: they change nothing)."""


def room_key(page: str, owner: str, position: int | None = None) -> str:
    """A room's id: ``page/group`` (``page/participant`` alone), ``page/group/round`` for a
    round of a conditions page."""
    return f"{page}/{owner}" if position is None else f"{page}/{owner}/{position + 1}"


def text_diff(old: str, new: str) -> str:
    """A unified diff of two versions of a document (what the history records per save)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), "before", "after", n=1
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class RoomSpec:
    """What a room is, whichever page or condition declared it."""

    kind: RoomKind
    agents: list[ChatAgent]
    limits: RoomLimits
    initial: str
    task: str  # the page's text: what the agents are told the task is
    workspace: list[WorkspaceField] = field(default_factory=list)  # a chat's shared fields


@dataclass
class Room:
    """One room as its events say it is."""

    key: str
    kind: RoomKind
    page: str
    gid: str | None
    position: int | None
    condition: str | None
    members: list[str]
    opened: float
    messages: list[dict[str, Any]] = field(default_factory=list)
    versions: list[dict[str, Any]] = field(default_factory=list)
    proposal: dict[str, Any] | None = None  # the agent's open proposal (document)
    proposals: int = 0
    ended: set[str] = field(default_factory=set)  # participants who pressed end
    closed: str | None = None  # why the room closed (time, ended), None while open
    pending: int = 0  # agent replies in flight (memory only: a restart drops them)
    fields: dict[str, Any] = field(default_factory=dict)  # the shared workspace's values

    @property
    def text(self) -> str:
        return self.versions[-1]["text"] if self.versions else ""

    @property
    def version(self) -> int:
        return len(self.versions) - 1

    @property
    def own_messages(self) -> list[dict[str, Any]]:
        """The chat's messages said in this room (without a carried chat history)."""
        return [m for m in self.messages if not m.get("carried")]

    def turns(self, pid: str) -> int:
        """Messages (chat) or saves (document) participant ``pid`` made here (not those a
        carried chat history holds)."""
        made = self.own_messages if self.kind == "chat" else self.versions
        return sum(m.get("pid") == pid for m in made)

    def apply(self, event: dict[str, Any]) -> None:
        """Fold one of the room's events (after ``room_open``) into the state."""
        kind, data = event["kind"], event["data"]
        if kind == "chat_message":
            self.messages.append({**data, "pid": event["pid"], "t": event["t"]})
        elif kind == "document_save":
            self.versions.append({**data, "pid": event["pid"], "t": event["t"]})
            self.proposal = None if data["by"] == "agent" else self.proposal
        elif kind == "document_proposal":
            self.proposal = dict(data)
            self.proposals += 1
        elif kind == "document_proposal_answer":
            self.proposal = None
        elif kind == "room_end":
            self.ended.add(event["pid"])
        elif kind == "room_close":
            self.closed = data["reason"]
        elif kind == "workspace_edit":
            self.fields[data["field"]] = data["value"]


def open_room(event: dict[str, Any]) -> Room:
    """A room from its ``room_open`` event."""
    data = event["data"]
    room = Room(
        key=data["room"],
        kind=data["kind"],
        page=data["page"],
        gid=event["gid"],
        position=data.get("position"),
        condition=data.get("condition"),
        members=list(data["members"]),
        opened=event["t"],
    )
    room.messages.extend({**m, "carried": True} for m in data.get("carried", []))
    if data["kind"] == "document":
        room.versions.append(
            {"version": 0, "text": data["initial"], "by": "initial", "pid": None, "t": event["t"]}
        )
    return room


def rooms_from_events(events: list[dict[str, Any]]) -> dict[str, Room]:
    """Every room of ``events`` (the log, in order), each as its events left it."""
    rooms: dict[str, Room] = {}
    for event in events:
        if event["kind"] == "room_open":
            rooms[event["data"]["room"]] = open_room(event)
        elif event["kind"] in ROOM_EVENTS and event["data"].get("room") in rooms:
            rooms[event["data"]["room"]].apply(event)
    return rooms


def room_events(db: Any) -> list[dict[str, Any]]:
    """The events rooms are folded from, in log order (one query per kind, merged)."""
    found = [e for kind in ROOM_EVENTS for e in db.events(kind)]
    return sorted(found, key=lambda e: e["seq"])


def room_facts(room: Room, pid: str) -> dict[str, Any]:
    """A chat or document round in a game round's terms (the bonus's ``round[i]``, and part of
    a round ``set:``'s ``result``): no success or steps, the participant's turns as decisions
    and messages."""
    made = room.turns(pid)
    return {"success": None, "steps": None, "decisions": made, "messages": made}

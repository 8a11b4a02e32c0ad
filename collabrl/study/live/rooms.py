"""The study's chat rooms and shared documents as they run: where each participant's room is,
opening, ending and closing rooms, their time limits, what a page shows of them, and chat and
document rounds of the conditions page.

A room belongs to a chat or document page (one per group, or per participant without one) or
to one chat or document round of a group (a condition with ``round: chat`` or ``document``).
Every change is an event written before memory changes; :meth:`RoomHub.recover` folds the log
back into rooms (:mod:`collabrl.study.store.room`) and re-arms their time limits after a restart.
What participants do in a room is :mod:`collabrl.study.live.chat` and :mod:`collabrl.study.live.document`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping
from functools import partial
from typing import Any, Protocol

from collabrl.factory import EngineCache
from collabrl.study.live import chat, document
from collabrl.study.live.rounds import GroupRun, RoundsHost
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.logic import fill
from collabrl.study.spec.schema import ChatPage, ConditionsPage, DocumentPage, RoomLimits, Study
from collabrl.study.store.room import (
    Room,
    RoomSpec,
    open_room,
    room_events,
    room_facts,
    room_key,
    rooms_from_events,
)


class RoomsHost(RoundsHost, Protocol):
    """What the rooms need of the runtime: the groups, and moving a participant on."""

    @property
    def groups(self) -> Mapping[str, GroupRun]: ...

    def group_of(self, pid: str) -> GroupRun | None: ...

    async def enter(self, pid: str, page_id: str) -> None: ...


ROOM_PAGES = (ChatPage, DocumentPage)


class RoomHub:
    """Every room of one study runtime."""

    def __init__(self, rt: RoomsHost) -> None:
        self.rt = rt
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}  # one agent reply at a time per room
        self._closing: set[str] = set()  # rooms whose close is under way (or done)

    @property
    def study(self) -> Study:
        return self.rt.study

    @property
    def engines(self) -> EngineCache:
        return self.rt.engines

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self.rt.spawn(coro)

    def lock(self, key: str) -> asyncio.Lock:
        return self.locks.setdefault(key, asyncio.Lock())

    # --- what a room is ---------------------------------------------------------------------

    def spec(self, room: Room) -> RoomSpec:
        return self.spec_of(room.page, room.position, room.condition)

    def spec_of(self, page_id: str, position: int | None, cid: str | None) -> RoomSpec:
        """The room of page ``page_id`` (of round ``position``, condition ``cid``)."""
        page = self.rt.study.page(page_id)
        if isinstance(page, ChatPage):
            return RoomSpec("chat", list(page.agents), page.limits, "", page.text, page.workspace)
        if isinstance(page, DocumentPage):
            agents = [page.agent] if page.agent else []
            return RoomSpec("document", agents, page.limits, page.initial, page.text)
        assert isinstance(page, ConditionsPage) and cid is not None
        condition = self.rt.study.condition(cid)
        agent = condition.chat_agent
        assert agent is not None and condition.round != "game"  # checked by the schema
        values = {"round": (position or 0) + 1, "rounds": self.rt.flow.rounds}
        task = fill(page.text, {**values, "partner": agent.name})
        limits = page.limits if condition.round == "chat" else page.document_limits
        return RoomSpec(condition.round, [agent], limits, page.initial, task)

    def is_room_round(self, group: GroupRun, position: int) -> bool:
        return group.condition(position).round != "game"

    def current(self, pid: str) -> Room | None:
        """The room participant ``pid`` is in now (None: none)."""
        row = self.rt.people[pid]
        page = self.rt.study.page(row["page"])
        if isinstance(page, ROOM_PAGES):
            return self.rooms.get(room_key(page.id, row["gid"] or pid))
        group = self.rt.group_of(pid)
        if isinstance(page, ConditionsPage) and row["phase"] == "play" and group is not None:
            return self.rooms.get(room_key(page.id, group.gid, group.position))
        return None

    def filled(self, room: Room, text: str) -> str:
        """``text`` (an agent's prompt, the room's task) with the state and answers of the
        room's first participant filled in, as a game round's agent prompt is."""
        return self.rt.logic.text(room.members[0], text, markdown=False) if room.members else text

    def prompted(self, room: Room, agent: ChatAgent) -> ChatAgent:
        """``agent`` with its prompt filled in for ``room``."""
        return agent.model_copy(update={"prompt": self.filled(room, agent.prompt)})

    def values(self, pid: str) -> dict[str, Any]:
        """What an expression about ``pid`` sees now (an agent's trigger condition)."""
        return self.rt.logic.values(pid)

    def seat(self, pid: str) -> str:
        """The participant's seat, as a workspace's ``editable_by`` names it."""
        return self.rt.people[pid]["seat"] or "p1"

    def agent_sets(self, room: Room, name: str, value: str) -> str | None:
        """An agent's set_state in ``room``: each active member's variable (why not, when
        the value does not fit)."""
        for pid in room.members:
            if self.rt.is_active(pid):
                refused = self.rt.logic.set_value(pid, name, value, self.rt.node(pid))
                if refused is not None:
                    return refused
        return None

    def quiet_timer(self, room: Room, agent: ChatAgent) -> None:
        """(Re)start ``agent``'s silence timer in ``room``: it speaks once nobody wrote for
        its trigger's ``silence_s``."""
        seconds = agent.trigger.silence_s
        if seconds is None or room.closed:
            return
        key = room.key
        self.rt.deadlines.arm(
            ("silence", key, agent.name), seconds, lambda: self._silence(key, agent)
        )

    def _silence(self, key: str, agent: ChatAgent) -> None:
        room = self.rooms.get(key)
        if room is None or room.closed:
            return
        room.pending += 1
        self.spawn(chat.reply(self, room, self.spec(room), agent, "silence"))

    def names(self, room: Room, viewer: str | None = None) -> dict[str, str]:
        """Participant id -> the name shown in ``room`` (``You`` to ``viewer``)."""
        return {
            pid: "You" if pid == viewer else f"Participant {k + 1}"
            for k, pid in enumerate(room.members)
        }

    # --- opening, ending, closing -----------------------------------------------------------

    def record_only(self, name: str, room: Room, pid: str | None = None, /, **data: Any) -> None:
        """Write one event about ``room`` that changes nothing in it (a conflict, a failure)."""
        node = self.rt.node(pid) if pid else room.page
        self.rt.db.event(name, pid=pid, gid=room.gid, node=node, room=room.key, **data)

    def record(self, name: str, room: Room, pid: str | None = None, /, **data: Any) -> None:
        """Write one event of ``room`` and fold it into the room once it is stored."""
        self.record_only(name, room, pid, **data)
        room.apply({"kind": name, "pid": pid, "t": time.time(), "data": {**data, "room": room.key}})

    def _open(
        self,
        key: str,
        page: str,
        spec: RoomSpec,
        members: list[str],
        gid: str | None,
        position: int | None = None,
        condition: str | None = None,
    ) -> Room:
        data: dict[str, Any] = {
            "room": key,
            "kind": spec.kind,
            "page": page,
            "position": position,
            "condition": condition,
            "members": members,
            "initial": spec.initial,
            "carried": self._thread_history(page, members),
        }
        room = open_room({"kind": "room_open", "gid": gid, "t": time.time(), "data": data})
        with self.rt.db.batch():  # the room and its agents' openings, or nothing
            self.rt.db.event("room_open", None, gid, page, **data)
            if spec.kind == "chat":
                for agent in spec.agents:
                    if agent.opening:
                        self.record(
                            "chat_message", room, by="agent", name=agent.name, text=agent.opening
                        )
        self.rt.db.after_commit(partial(self._opened, room, spec.limits))
        return room

    def _thread_history(self, page_id: str, members: list[str]) -> list[dict[str, Any]]:
        """The messages a chat page of a ``thread`` opens with: those of the latest room of
        an earlier page of that thread that one of ``members`` was in (none without)."""
        page = self.rt.study.page(page_id)
        if not isinstance(page, ChatPage) or page.thread is None:
            return []
        earlier = [
            r
            for r in self.rooms.values()
            if r.page != page_id
            and set(r.members) & set(members)
            and getattr(self.rt.study.page(r.page), "thread", None) == page.thread
        ]
        if not earlier:
            return []
        last = max(earlier, key=lambda r: r.opened)
        keep = ("by", "name", "pid", "text", "t")
        return [{k: m.get(k) for k in keep} for m in last.messages]

    def _opened(self, room: Room, limits: RoomLimits) -> None:
        """A room whose opening is stored: known from now on, its time limit and its agents'
        silence timers running."""
        self.rooms[room.key] = room
        self._arm(room, limits)
        for agent in self.spec(room).agents:
            self.quiet_timer(room, agent)

    def _arm(self, room: Room, limits: RoomLimits) -> None:
        if limits.time_s is None or room.closed:
            return
        left = max(0.0, room.opened + limits.time_s - time.time())
        key = room.key
        self.rt.deadlines.arm(("room", key), left, lambda: self.rt.spawn(self.close(key, "time")))

    async def arrive(self, pid: str, page: ChatPage | DocumentPage) -> None:
        """A participant at a chat or document page: into their group's room (opened by its
        first member); a room that has closed sends them on."""
        row = self.rt.people[pid]
        key = room_key(page.id, row["gid"] or pid)
        room = self.rooms.get(key)
        if room is None:
            group = self.rt.group_of(pid)
            members = [p for p in group.members.values() if p] if group else [pid]
            room = self._open(key, page.id, self.spec_of(page.id, None, None), members, row["gid"])
        if room.closed:
            await self.rt.enter(pid, self.rt.flow.successor(page.id))
            return
        self.notify(room)

    async def start_round(self, group: GroupRun, position: int) -> None:
        """Start chat or document round ``position`` of ``group``: its room opens and the
        members' pages move to it."""
        page = self.rt.flow.conditions_page
        condition = group.condition(position)
        members = [p for p in group.members.values() if p]
        key = room_key(page.id, group.gid, position)
        spec = self.spec_of(page.id, position, condition.id)
        with self.rt.db.batch():  # the round starts, its room opens and its members move at once
            group.store(position=position, phase="play", attempt=group.row["attempt"])
            self.rt.db.event(
                "round_start",
                gid=group.gid,
                node=group.node("play", position),
                position=position,
                condition=condition.id,
                round=condition.round,
            )
            self._open(key, page.id, spec, members, group.gid, position, condition.id)
            for pid in group.active():
                self.rt.move(pid, page=page.id, position=position, phase="play")

    async def end(self, pid: str, room: Room) -> None:
        """The participant pressed the end button: a page room lets them go on; a round (and
        a page room) closes once every active member has ended it."""
        if pid not in room.ended:
            self.record("room_end", room, pid)
        if room.position is None:
            await self.rt.enter(pid, self.rt.flow.successor(room.page))
        if all(p in room.ended for p in room.members if self.rt.is_active(p)):
            await self.close(room.key, "ended")
        else:
            self.notify(room)

    async def close(self, key: str, reason: str) -> None:
        """Close a room (time is up, or everyone ended it): its members still in it go on (a
        round's group to the questionnaire)."""
        room = self.rooms[key]
        if room.closed or key in self._closing:
            return
        self._closing.add(key)  # a summary may take a while: one close at a time
        inside = [p for p in room.members if self.rt.is_active(p) and self.current(p) is room]
        self.rt.deadlines.cancel(("room", key))
        spec = self.spec(room)
        for agent in spec.agents:
            self.rt.deadlines.cancel(("silence", key, agent.name))
            if agent.summary and room.kind == "chat":
                async with self.lock(key):  # after the reply in flight, if any
                    await chat.summarise(self, room, spec, agent)
            if agent.closing and room.kind == "chat":
                self.record("chat_message", room, by="agent", name=agent.name, text=agent.closing)
        if room.position is not None:
            group = self.rt.groups[room.gid or ""]
            ends_round = group.row["phase"] == "play" and group.position == room.position
            with self.rt.db.batch():  # the round's set:, its close and the move to rating at once
                if ends_round:  # the state first: the export reads it as of the close
                    self.rt.logic.room_round_done(group, room)
                self.record("room_close", room, reason=reason)
                if ends_round:
                    group.store(phase="rate")
                    self.rt.round_over(group)
            return
        self.record("room_close", room, reason=reason)
        for pid in inside:
            await self.rt.enter(pid, self.rt.flow.successor(room.page))

    def failed(self, room: Room, agent: ChatAgent, error: str) -> None:
        """An agent that could not answer: an ``agent_failure`` event (its apology is said by
        the caller)."""
        self.record_only("agent_failure", room, agent=agent.name, kind=agent.kind, error=error)

    def notify(self, room: Room) -> None:
        for pid in room.members:
            self.rt.notify(pid)

    # --- what participants send -------------------------------------------------------------

    async def submit(self, pid: str, payload: dict[str, Any]) -> None:
        """A chat or document page's request (``action``: say, save, propose, accept, dismiss,
        end). Raises FormError for one the room cannot take."""

        room = self.current(pid)
        if room is None or room.closed:
            raise FormError("this room has closed")
        if pid in room.ended:
            raise FormError("you have ended this room; please wait for the others")
        action = payload.get("action")
        spec = self.spec(room)
        if action == "end":
            await self.end(pid, room)
        elif action == "say" and room.kind == "chat":
            await chat.say(self, pid, room, spec, payload.get("text"))
        elif action == "field" and spec.workspace:
            self.edit_field(pid, room, spec, payload.get("field"), payload.get("value"))
        elif action == "save" and room.kind == "document":
            document.save(self, pid, room, spec, payload.get("text"), payload.get("base"))
        elif action == "propose" and room.kind == "document":
            document.ask(self, pid, room, spec)
        elif action in ("accept", "dismiss") and room.kind == "document":
            document.answer(self, pid, room, action == "accept", payload.get("proposal"))
        else:
            raise FormError(f"unknown request {action!r} in a {room.kind} room")
        self.notify(room)

    def edit_field(self, pid: str, room: Room, spec: RoomSpec, name: Any, raw: Any) -> None:
        """A participant's edit of a workspace field their seat may edit."""
        field = next((f for f in spec.workspace if f.id == name), None)
        if field is None:
            raise FormError(f"the workspace has no field {name!r}")
        if not field.may_edit(self.seat(pid)):
            raise FormError(f"{field.label}: you may not edit this field", {field.id: "read only"})
        try:
            value = field.value(raw)
        except ValueError as exc:
            raise FormError(f"{field.label}: {exc}", {field.id: str(exc)}) from None
        self.record(
            "workspace_edit", room, pid, by="participant", name=None, field=field.id, value=value
        )

    # --- what pages show --------------------------------------------------------------------

    def view(self, pid: str) -> dict[str, Any]:
        """The room part of a participant's page (``room``: None when they are in none)."""
        room = self.current(pid)
        if room is None:
            return {"room": None}
        spec = self.spec(room)
        names = self.names(room, pid)
        limits = spec.limits
        out: dict[str, Any] = {
            "kind_of_room": room.kind,
            "room": room.key,
            "agents": [a.name for a in spec.agents],
            "max_chars": limits.max_chars,
            "turns_left": None if limits.max_turns is None else limits.max_turns - room.turns(pid),
            "end": limits.end,
            "ended": pid in room.ended,
            "closed": room.closed is not None,
            "pending": room.pending,
            "deadline_s": self.rt.deadlines.remaining(("room", room.key)),
        }
        if spec.workspace:
            seat = self.seat(pid)
            out["workspace"] = [
                {
                    "id": f.id,
                    "label": f.label,
                    "kind": f.kind,
                    "options": f.options,
                    "value": room.fields.get(f.id),
                    "editable": f.may_edit(seat),
                }
                for f in spec.workspace
            ]
        if room.kind == "chat":
            out["messages"] = [
                {
                    "who": names.get(m["pid"], "A participant")
                    if m["by"] == "participant"
                    else m["name"],
                    "by": m["by"],
                    "mine": m.get("pid") == pid,
                    "text": m["text"],
                }
                for m in room.messages
            ]
        else:
            last = room.versions[-1]
            out["document"] = {
                "text": room.text,
                "version": room.version,
                "by": names.get(last["pid"], last.get("name") or last["by"]),
                "proposal": room.proposal,
            }
        return out

    # --- restart and payment ----------------------------------------------------------------

    async def recover(self) -> None:
        """Rebuild every room from the event log; re-arm the time limits of open ones, ask
        again for chat replies a stop cut off, and open the room of a participant who reached
        a room page just before the stop."""
        self.rooms = rooms_from_events(room_events(self.rt.db))
        for room in list(self.rooms.values()):
            if not room.closed:
                spec = self.spec(room)
                self._arm(room, spec.limits)
                chat.resume_replies(self, room, spec)
        for pid, row in self.rt.people.items():
            page = self.rt.study.page(row["page"])
            inside = row["status"] == "active" and isinstance(page, ROOM_PAGES)
            if inside and self.current(pid) is None:
                assert isinstance(page, ROOM_PAGES)
                await self.arrive(pid, page)

    def round_facts(self, group: GroupRun, position: int, pid: str) -> dict[str, Any] | None:
        """What a participant did in a chat or document round (the bonus's ``round[i]``)."""
        room = self.rooms.get(room_key(self.rt.flow.conditions_page.id, group.gid, position))
        if room is None or not room.closed:
            return None
        return room_facts(room, pid)

"""The export's view of chat rooms and shared documents, folded from the event log like the
live rooms (:func:`collabrl.study.store.room.rooms_from_events`):

- ``chat_transcripts.csv``: one row per chat message (room, page, group, round, condition,
  who said it: participant, agent or the agent's apology, and the text);
- ``documents.csv``: one row per shared document (its final text, versions, saves by people and
  by the agent, proposals, refused stale saves);
- ``document_history.jsonl``: every saved version with its diff against the one before;
- a chat or document round's own columns of ``responses.csv`` (:class:`RoomRounds`), with the
  participant's ``turns`` (messages or saves) as the round's measure.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from collabrl.study.spec.load import LoadedStudy
from collabrl.study.spec.logic import ROOM_MEASURES
from collabrl.study.spec.schema import ConditionsPage
from collabrl.study.store.db import StudyDB
from collabrl.study.store.room import Room, room_events, room_key, rooms_from_events


def _rooms(db: StudyDB) -> dict[str, Room]:
    return rooms_from_events(room_events(db))


def _where(room: Room) -> dict[str, Any]:
    return {
        "room": room.key,
        "page": room.page,
        "group": room.gid,
        "position": None if room.position is None else room.position + 1,
        "condition": room.condition,
    }


def chat_transcript_rows(db: StudyDB, stamp: Any) -> list[dict[str, Any]]:
    """One row per chat message, room by room in the order they opened (``stamp``: seconds
    since the epoch -> the export's time text)."""
    rows = []
    for room in _rooms(db).values():
        if room.kind != "chat":
            continue
        for n, m in enumerate(room.own_messages, 1):
            rows.append(
                {
                    **_where(room),
                    "n": n,
                    "time": stamp(m["t"]),
                    "participant": m["pid"],
                    "speaker": m["by"],
                    "agent": m["name"] if m["by"] == "agent" else None,
                    "text": m["text"],
                }
            )
    return rows


def document_rows(db: StudyDB) -> list[dict[str, Any]]:
    """One row per shared document: its final text and how it came about."""
    conflicts = Counter(e["data"]["room"] for e in db.events("document_conflict"))
    rows = []
    for room in _rooms(db).values():
        if room.kind != "document":
            continue
        saves = room.versions[1:]
        rows.append(
            {
                **_where(room),
                "members": " ".join(room.members),
                "versions": len(saves),
                "participant_saves": sum(v["by"] == "participant" for v in saves),
                "agent_saves": sum(v["by"] == "agent" for v in saves),
                "proposals": room.proposals,
                "stale_saves_refused": conflicts[room.key],
                "closed": room.closed,
                "chars": len(room.text),
                "text": room.text,
            }
        )
    return rows


def document_history(db: StudyDB, stamp: Any) -> list[dict[str, Any]]:
    """Every saved version of every document, with its diff, in the order they were saved."""
    return [
        {"room": e["data"]["room"], "time": stamp(e["t"]), "participant": e["pid"], **e["data"]}
        for e in db.events("document_save")
    ]


def room_measures(room: Room, pid: str) -> dict[str, Any]:
    """What participant ``pid``'s chat or document round was: their turns (messages or
    saves), every message said in the room and every version saved."""
    counts = (room.turns(pid), len(room.own_messages), max(0, len(room.versions) - 1))
    return dict(zip(ROOM_MEASURES, counts, strict=True))


class RoomRounds:
    """The chat and document rounds of a study's conditions page, as the event log left them
    (the room side of :func:`collabrl.study.results.export.response_rows`)."""

    def __init__(self, loaded: LoadedStudy, db: StudyDB) -> None:
        page = next((p for p in loaded.study.pages if isinstance(p, ConditionsPage)), None)
        self.page = page.id if page else None
        self.rooms = _rooms(db) if page else {}

    def room(self, gid: str, position: int) -> Room | None:
        """The room of round ``position`` (from 0) of group ``gid`` (None: not played)."""
        return None if self.page is None else self.rooms.get(room_key(self.page, gid, position))

    def measures(self, gid: str, position: int, pid: str) -> dict[str, Any] | None:
        """A room round's own columns for participant ``pid`` (None: the round was not
        played): no success, their turns, the room's messages and versions."""
        room = self.room(gid, position)
        return None if room is None else {"success": None, **room_measures(room, pid)}

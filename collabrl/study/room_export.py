"""The export's view of chat rooms and shared documents, folded from the event log like the
live rooms (:func:`collabrl.study.room.rooms_from_events`):

- ``chat_transcripts.csv``: one row per chat message (room, page, group, round, condition,
  who said it: participant, agent or the agent's apology, and the text);
- ``documents.csv``: one row per shared document (its final text, versions, saves by people and
  by the agent, proposals, refused stale saves);
- ``document_history.jsonl``: every saved version with its diff against the one before;
- rows of ``responses.csv`` for chat and document rounds (:func:`room_response_rows`), with the
  participant's ``turns`` (messages or saves) as the round's measure.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from collabrl.study.db import StudyDB
from collabrl.study.load import LoadedStudy
from collabrl.study.room import Room, room_events, room_key, rooms_from_events
from collabrl.study.schema import ConditionsPage

ROOM_MEASURE = "turns"
"""The report's first measure for studies without a game: a participant's messages (chat
round) or saves (document round)."""


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
        for n, m in enumerate(room.messages, 1):
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


def rating_columns(loaded: LoadedStudy, answers: dict[str, Any]) -> dict[str, Any]:
    """A rated round's questionnaire columns: each item, each dimension's mean, free text."""
    questionnaire = loaded.study.questionnaire
    items = questionnaire.items if questionnaire else []
    given = answers.get("ratings", {})
    row: dict[str, Any] = {f"q_{item.id}": given.get(item.id) for item in items}
    for dim in dict.fromkeys(item.dimension for item in items):
        values = [given[i.id] for i in items if i.dimension == dim and i.id in given]
        row[dim] = sum(values) / len(values) if values else None
    row["free_text"] = answers.get("free_text", "")
    return row


def room_response_rows(
    loaded: LoadedStudy, db: StudyDB, intake: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per participant x chat or document round played (``intake``: participant ->
    survey answers as ``page.question`` columns)."""
    study = loaded.study
    page = next((p for p in study.pages if isinstance(p, ConditionsPage)), None)
    if page is None:
        return []
    rooms = _rooms(db)
    people = {p["pid"]: p for p in db.participants()}
    rated = {(e["pid"], e["data"]["position"]): e["data"] for e in db.events("questionnaire")}
    rows = []
    for group in db.groups():
        for position, cid in enumerate(group["conditions"]):
            room = rooms.get(room_key(page.id, group["gid"], position))
            condition = study.condition(cid)
            if room is None or condition.chat_agent is None:
                continue
            for seat, pid in group["members"].items():
                if pid is None:
                    continue
                person, answers = people[pid], rated.get((pid, position), {})
                rows.append(
                    {
                        "study": study.name,
                        "participant": pid,
                        "kind": person["kind"],
                        "status": person["status"],
                        "group": group["gid"],
                        "unit": group["unit"],
                        "seat": seat,
                        "design": study.design.kind,
                        "order": ">".join(group["conditions"]),
                        "position": position + 1,
                        "condition": cid,
                        "condition_name": condition.name,
                        "agent": f"{condition.chat_agent.kind}:{condition.chat_agent.name}",
                        "round": condition.round,
                        "task": group["task"],
                        "success": None,
                        ROOM_MEASURE: room.turns(pid),
                        "room_messages": len(room.messages),
                        "room_versions": max(0, len(room.versions) - 1),
                        "rated": bool(answers),
                        **rating_columns(loaded, answers),
                        **intake[pid],
                        **{f"field.{k}": v for k, v in person["fields"].items()},
                    }
                )
    return rows

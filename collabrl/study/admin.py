"""What the admin page shows: who is where, the waiting pool, groups and completions.

Participants appear by their random id only, with the completion code they were given (to check
a recruitment platform's submissions against); tokens, answers and messages are not shown.
``storage`` says whether a write to the database failed (a full disk) and which groups and
participants that paused: the researcher frees the disk and restarts the server.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from collabrl.study.tutorial import PRACTICE

if TYPE_CHECKING:
    from collabrl.study.runtime import StudyRuntime


def admin_state(rt: StudyRuntime) -> dict[str, Any]:
    """The study's live state as JSON for the admin page."""
    now = time.monotonic()
    people = list(rt.people.values())
    statuses = Counter(p["status"] for p in people)
    return {
        "study": rt.study.name,
        "title": rt.study.title,
        "sha256": rt.loaded.sha256,
        "target": rt.study.design.participants,
        "counts": {
            "joined": len(people),
            "active": statuses["active"],
            "completed": statuses["completed"],
            "declined": statuses["declined"],
            "released": statuses["released"],
            "connected": sum(1 for p in people if rt.connected[p["pid"]] > 0),
            "events": rt.db.event_count(),
        },
        "storage": {
            "fault": rt.db.fault,
            "failed_writes": rt.db.failed_writes,
            "paused_groups": [g.gid for g in rt.groups.values() if g.paused is not None],
            "paused_participants": sorted(rt.paused),
        },
        "pool": [
            {"participant": pid, "waited_s": round(now - rt.waiting_since.get(pid, now), 1)}
            for pid in rt.pool
        ],
        "groups": [
            {
                "group": g.gid,
                "unit": g.row["unit"],
                "task": g.row["task"],
                "order": g.row["conditions"],
                "round": "practice" if g.position == PRACTICE else g.position + 1,
                "phase": g.row["phase"],
                "members": g.members,
                "tick": g.session.game.tick if g.session is not None else None,
                "paused": g.paused is not None,
            }
            for g in rt.groups.values()
        ],
        "participants": [
            {
                "participant": p["pid"],
                "kind": p["kind"],
                "where": rt.node(p["pid"]),
                "status": p["status"],
                "group": p["gid"],
                "seat": p["seat"],
                "connected": rt.connected[p["pid"]] > 0,
                "code": p["code"],
                "last_change": time.strftime("%H:%M:%S", time.localtime(p["updated"])),
            }
            for p in people
        ],
    }

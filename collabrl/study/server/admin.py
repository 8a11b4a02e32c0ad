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

from collabrl.study.live.interventions import joins_paused
from collabrl.study.spec.tutorial import PRACTICE

if TYPE_CHECKING:
    from collabrl.study.live.runtime import StudyRuntime
    from collabrl.study.store.db import GroupRow


def admin_state(rt: StudyRuntime) -> dict[str, Any]:
    """The study's live state as JSON for the admin page, from the database (which every change
    reaches before memory does): with several workers (``serve --workers``) it holds every
    worker's participants, pool and groups, each shown with the worker that serves it; who is
    online and a round's tick are known to the worker that serves them."""
    now = time.monotonic()
    people, homes = rt.db.participants(), rt.db.homes()
    statuses = Counter(p["status"] for p in people)
    pool = rt.db.waiting(rt.study.match_pages) if rt.study.match_pages else []
    return {
        "study": rt.study.name,
        "title": rt.study.title,
        "sha256": rt.loaded.sha256,
        "target": rt.study.design.participants,
        "joins_paused": joins_paused(rt),
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
            {
                "participant": p["pid"],
                "waited_s": round(now - rt.waiting_since[p["pid"]], 1)
                if p["pid"] in rt.waiting_since
                else round(time.time() - p["updated"], 1),
                "worker": homes.get(p["pid"]),
            }
            for p in pool
        ],
        "groups": [_group(rt, row, homes) for row in rt.db.groups()],
        "participants": [
            {
                "participant": p["pid"],
                "kind": p["kind"],
                "where": rt.node_at(p),
                "status": p["status"],
                "group": p["gid"],
                "seat": p["seat"],
                "connected": _online(rt, p["pid"], homes),
                "code": p["code"],
                "last_change": time.strftime("%H:%M:%S", time.localtime(p["updated"])),
                "worker": homes.get(p["pid"]),
            }
            for p in people
        ],
    }


def _online(rt: StudyRuntime, pid: str, homes: dict[str, int]) -> bool | None:
    """Whether ``pid``'s page is connected (None: another worker serves them)."""
    if rt.worker is not None and homes.get(pid, rt.worker.index) != rt.worker.index:
        return None
    return rt.connected[pid] > 0


def _group(rt: StudyRuntime, row: GroupRow, homes: dict[str, int]) -> dict[str, Any]:
    """One group's line; its round's tick and pause are known to the worker that hosts it."""
    run = rt.groups.get(row["gid"])
    members = row["members"]
    host = {homes[p] for p in members.values() if p and p in homes}
    return {
        "group": row["gid"],
        "unit": row["unit"],
        "task": row["task"],
        "order": row["conditions"],
        "round": "practice" if row["position"] == PRACTICE else row["position"] + 1,
        "phase": row["phase"],
        "members": members,
        "tick": run.session.game.tick if run is not None and run.session is not None else None,
        "paused": run is not None and run.paused is not None,
        "worker": min(host) if host else None,
    }

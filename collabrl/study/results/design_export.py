"""The export's files of randomised designs, agent replies, shared workspaces and page events:

- ``assignments.csv``: one row per participant x randomisation (its method, stratum, position
  in the stratum's sequence, cell and each factor's level as ``level.<factor>``);
- ``agent_replies.jsonl``: every reply an agent was asked for (prompt, model, parameters, token
  counts, latency, the text or the error, the tool calls it made);
- ``workspace_edits.csv``: every edit of a shared workspace's fields, by a participant or an
  agent;
- ``page_events.csv``: what sandboxed components emitted, media did (play, pause, ended) and
  the data-quality signals of every page (paste, focus lost and back, typing time per text
  field: :data:`collabrl.study.live.embeds.QUALITY_EVENTS`).

All four are read from the event log, as the rest of the export is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from collabrl.study.store.db import StudyDB

PAGE_EVENTS = ("component_event", "media_event", "quality_event")
"""The recorded-only events a page sends (they change nothing in the study's flow)."""


def assignment_rows(db: StudyDB) -> list[dict[str, Any]]:
    """One row per ``assignment`` event."""
    rows = []
    for e in db.events("assignment"):
        data = e["data"]
        rows.append(
            {
                "participant": e["pid"],
                "randomisation": data["randomisation"],
                "method": data["method"],
                "stratum": data["stratum"],
                "index": data["index"],
                "cell": data["cell"],
                **{f"level.{k}": v for k, v in data["levels"].items()},
            }
        )
    return rows


def cell_counts(db: StudyDB) -> dict[str, dict[str, int]]:
    """Participants per cell of each randomisation (``factor=level, ...`` -> count): the
    balance a pretest shows before anyone is recruited."""
    counts: dict[str, dict[str, int]] = {}
    for row in assignment_rows(db):
        label = ", ".join(f"{k[6:]}={v}" for k, v in row.items() if k.startswith("level."))
        cells = counts.setdefault(row["randomisation"], {})
        cells[label] = cells.get(label, 0) + 1
    return counts


def agent_replies(db: StudyDB, stamp: Callable[[float], str]) -> list[dict[str, Any]]:
    """Every ``agent_reply`` event, flat, with its time."""
    return [
        {"time": stamp(e["t"]), "group": e["gid"], "node": e["node"], **e["data"]}
        for e in db.events("agent_reply")
    ]


def workspace_rows(db: StudyDB, stamp: Callable[[float], str]) -> list[dict[str, Any]]:
    """One row per ``workspace_edit`` event."""
    return [
        {
            "time": stamp(e["t"]),
            "room": e["data"]["room"],
            "participant": e["pid"],
            "by": e["data"]["by"],
            "name": e["data"]["name"],
            "field": e["data"]["field"],
            "value": e["data"]["value"],
        }
        for e in db.events("workspace_edit")
    ]


def page_event_rows(db: StudyDB, stamp: Callable[[float], str]) -> list[dict[str, Any]]:
    """One row per component or media event, in log order."""
    found = sorted((e for k in PAGE_EVENTS for e in db.events(k)), key=lambda e: e["seq"])
    return [
        {
            "time": stamp(e["t"]),
            "participant": e["pid"],
            "node": e["node"],
            "kind": e["kind"],
            "name": e["data"]["name"],
            "data": json.dumps(e["data"].get("data"), sort_keys=True),
        }
        for e in found
    ]

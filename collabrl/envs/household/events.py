"""What a household seat found or finished since its previous decision, read from two of its
structured observations (the judges' step view tells them what nobody has announced yet)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_ID = re.compile(r"\((\d+)\)")


def own_events(
    prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    """Goal objects first seen (and not yet named in the dialogue) and goal objects placed."""
    mentioned = {int(x) for line in cur.get("dialogue", []) for x in _ID.findall(line["text"])}
    before = {g["id"] for g in (prev or {}).get("goal_objects", []) if isinstance(g["at"], int)}
    found = [
        f"found <{g['name']}> ({g['id']})"
        for g in cur.get("goal_objects", [])
        if isinstance(g["at"], int) and g["id"] not in before and g["id"] not in mentioned
    ]
    placed_before = sum(p["placed"] for p in (prev or {}).get("progress", []))
    placed_now = sum(p["placed"] for p in cur.get("progress", []))
    if (
        prev is not None
        and (prev_action or "").startswith("[goput]")
        and placed_now > placed_before
    ):
        found.append(f"placed {placed_now - placed_before} goal object(s)")
    return found

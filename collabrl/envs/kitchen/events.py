"""What a chef finished since its previous decision, read from two of its structured
observations (the judges' step view tells them what nobody has announced yet)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabrl.envs.kitchen.skills import DELIVER, PUT_ONION


def own_events(
    prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    """Soups delivered and pots filled by this chef's previous skill."""
    if prev is None:
        return []
    events = []
    if prev_action == DELIVER and cur["soups_delivered"] > prev["soups_delivered"]:
        events.append("delivered a soup")
    if prev_action == PUT_ONION:
        for n, (a, b) in enumerate(zip(prev["pots"], cur["pots"], strict=False), 1):
            if a["status"] in ("empty", "filling") and b["status"] in ("full", "cooking"):
                events.append(f"filled pot {n}")
    return events

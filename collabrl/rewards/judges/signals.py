"""Observable cues in a trace: questions, doubt, reassurance, harshness, and a seat's own news.

Why separate: the heuristic judge scores from these cues, and the step-view builder uses the
event detectors to tell judges what the seat found or finished since its previous decision. The
rules are deliberately simple and readable so a proxy score can be explained line by line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

ASKS = re.compile(
    r"\?|\b(?:can|could|would|will) you\b|\bplease\b|\bhelp\b|\bneed you\b|\blet me know\b",
    re.IGNORECASE,
)
DOUBT = re.compile(
    r"\b(?:not sure|unsure|confus\w*|lost|stuck|worr(?:y|ied)|sorry|hmm+|don'?t know|no idea|"
    r"frustrat\w*|ugh|oops|my bad|mistake|struggl\w*)\b",
    re.IGNORECASE,
)
REASSURES = re.compile(
    r"\b(?:don'?t worry|no worries|no problem|it'?s (?:ok|okay|fine)|we(?:'ve| have) got|"
    r"good job|great|nice|well done|thanks?|thank you|you can|together|let'?s|i'?ll help|"
    r"i can help|take your time|happy to)\b",
    re.IGNORECASE,
)
HARSH = re.compile(
    r"\b(?:stupid|useless|idiot|hurry up|your fault|wrong again|stop it|whatever|shut up)\b",
    re.IGNORECASE,
)
_ID = re.compile(r"\((\d+)\)")
_WORD = re.compile(r"\w+")


def asks(text: str) -> bool:
    """A question or request addressed to the listener."""
    return bool(ASKS.search(text))


def doubts(text: str) -> bool:
    """Uncertainty, confusion or frustration."""
    return bool(DOUBT.search(text))


def reassures(text: str) -> bool:
    return bool(REASSURES.search(text))


def harsh(text: str) -> bool:
    return bool(HARSH.search(text))


def informative(text: str) -> bool:
    """At least four words, or a concrete object id: something the partner can act on."""
    return len(_WORD.findall(text)) >= 4 or bool(_ID.search(text))


def normalised(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def dialogue(state: Mapping[str, Any]) -> list[tuple[int, str, str]]:
    """Visible dialogue lines (tick, speaker, text) of either game's structured observation."""
    lines = state.get("dialogue") or state.get("chat") or []
    return [(ln["tick"], ln.get("speaker") or ln.get("seat") or "?", ln["text"]) for ln in lines]


def _household_events(
    prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    mentioned = {int(x) for _, _, text in dialogue(cur) for x in _ID.findall(text)}
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


def _kitchen_events(
    prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    if prev is None:
        return []
    events = []
    if prev_action == "deliver_soup()" and cur["soups_delivered"] > prev["soups_delivered"]:
        events.append("delivered a soup")
    if prev_action == "put_onion_in_pot()":
        for n, (a, b) in enumerate(zip(prev["pots"], cur["pots"], strict=False), 1):
            if a["status"] in ("empty", "filling") and b["status"] in ("full", "cooking"):
                events.append(f"filled pot {n}")
    return events


def own_events(
    game: str, prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    """What this seat found or finished since its previous decision (nobody announced it yet)."""
    detect = _household_events if game == "household" else _kitchen_events
    return detect(prev, cur, prev_action)

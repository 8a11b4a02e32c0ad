"""Observable cues in a trace: questions, doubt, reassurance, harshness, and a seat's own news.

Why separate: the heuristic judge scores from these cues, and the step-view builder uses each
game's event detector to tell judges what the seat found or finished since its previous decision. The
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


def own_events(
    game: str, prev: Mapping[str, Any] | None, cur: Mapping[str, Any], prev_action: str | None
) -> list[str]:
    """What this seat found or finished since its previous decision (nobody announced it yet):
    the game's own detector (its registry entry's ``events``), or nothing for a game without."""
    from collabrl.envs.registry import get_game, load_addon

    path = get_game(game).events
    return load_addon(path, "event detector", game)(prev, cur, prev_action) if path else []
